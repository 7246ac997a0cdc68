"""``archmem mcp``: archmem as a stdio MCP server, built on the official SDK (``MCPServer``).

Every tool (``archmem.mcp.tools``) is a thin call into one ``Workspace``, opened once
for the server's life. A tool answers with structured content (the JSON the CLI's
``--json`` prints, declared as its output schema in ``archmem.mcp.schemas``) and a short
text; a user's mistake (an unknown element, a title clash, a secret, an unknown session,
content over 20,000 characters) is a tool error (``isError``) whose text is the CLI's
message, ``str(ArchmemError)``, with no structured content (clients check that against
the output schema of a success) and ``ArchmemError.to_dict()`` in ``_meta``. Wrong,
missing or unknown arguments are tool errors too, in the same short form
(``archmem.mcp.protocol``). The server never dies on bad input, and
a line that is no MCP message (malformed JSON, a batch, an ``id`` of null) is answered
with its JSON-RPC error (``archmem.mcp.stdio``).

Which repository. The server's working directory, up to its git top level, as for
every archmem command; ``archmem mcp --repo DIR`` names it (clients that start servers
elsewhere, such as desktop apps, need it) and ``--model FILE`` picks the model file.
Settings come from the repository's ``archmem.toml`` (or ``[tool.archmem]`` in
``pyproject.toml``), overridden by ``ARCHMEM_<SECTION>_<KEY>`` variables.

The environment. The SDK's stdio client hands a server only an allow-list of the
caller's environment (``HOME``, ``LOGNAME``, ``PATH``, ``SHELL``, ``TERM``, ``USER``,
see ``mcp.client.stdio.get_default_environment``) plus the ``env`` of the client's
server entry. So put there whatever archmem must see:

- ``ARCHMEM_*`` overrides, e.g. ``ARCHMEM_EMBEDDINGS_PROVIDER``, ``ARCHMEM_EMBEDDINGS_MODEL``,
  ``ARCHMEM_EMBEDDINGS_BASE_URL``, ``ARCHMEM_EMBEDDINGS_DIMENSIONS``,
  ``ARCHMEM_EMBEDDINGS_API_KEY_ENV``, ``ARCHMEM_STORE_PATH``, ``ARCHMEM_MODEL`` (an
  unknown ``ARCHMEM_`` name stops the server at start with the closest names);
- the embedding provider's API key, in the variable ``embeddings.api_key_env`` names
  (``OPENAI_API_KEY`` by default), and ``OLLAMA_HOST`` for Ollama without a base URL;
- variables the model reads through ``${NAME}`` in ``workspace.dsl``.

Settings written in ``archmem.toml`` need nothing in ``env``; the key does. See
``docs/mcp.md`` for client configuration.

Long-running process. Before each call the server compares the model file (mtime and
size) and git HEAD with what it last read; when either moved (or after an hour) the
Workspace forgets its model, ownership and drift and reads them again (the store
stays open). Edits to ``archmem.toml`` or the environment need a restart. Memories
written by other processes are always seen: the store is read live (SQLite, WAL).

All Workspace calls run on one worker thread, in arrival order: SQLite connections
belong to the thread that opened them, and the Workspace's caches are not shared.
Logging goes to stderr, never stdout (stdout is the protocol).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from archmem import __version__
from archmem.errors import ArchmemError, ConfigError, ModelError, UnknownNameError
from archmem.escape import printable
from archmem.git.checkout import current_head

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from archmem.folder_watch import Watch
    from archmem.mcp.tools import Answer
    from archmem.workspace import Workspace

log = logging.getLogger("archmem.mcp")

T = TypeVar("T")
"""What a function run on the workspace's thread answers."""

MAX_AGE_SECONDS = 3600.0
"""Re-read model and drift at least this often (VERIFY wording ages with the clock)."""


def require_sdk() -> None:
    """The MCP SDK is an extra: say how to install it instead of a traceback."""
    try:
        import mcp.server  # noqa: F401
    except ImportError:
        raise ConfigError(
            "archmem mcp needs the MCP SDK (the `mcp` package), which is not installed",
            hint="pip install 'archmem[mcp]'",
        ) from None


# ---- the workspace, on one thread ---------------------------------------------------


class WorkspaceHost:
    """One ``Workspace`` for the server's life, used from one worker thread."""

    def __init__(self, workspace: Workspace, *, max_age: float = MAX_AGE_SECONDS) -> None:
        self.workspace = workspace
        if workspace.scan_budget is None:  # an answer never waits for a first history scan
            workspace.scan_budget = workspace.config.drift.scan_budget
        self.max_age = max_age
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="archmem-mcp")
        self._seen: tuple[Any, ...] | None = None
        self._read_at = time.monotonic()
        self._scanner: threading.Thread | None = None
        self._scanned = threading.Event()
        self._watch = _watch_of(workspace)

    async def run(self, function: Callable[..., T], /, **arguments: Any) -> T:
        """``function(workspace, **arguments)`` on the worker thread, model refreshed first."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, partial(self._call, function, arguments))

    def _call(self, function: Callable[..., T], arguments: dict[str, Any]) -> T:
        from archmem.store.failures import store_failures

        if self._scanned.is_set():  # the history scanned in the background: drift can be answered now
            self._scanned.clear()
            self.workspace.refresh()
        self._refresh_if_moved()
        self._hand_tokens()
        if "store" in self.workspace.__dict__:
            self.workspace.sync_files()  # a pull or a hand edit since the last call (git's look, or the watch's word)
        try:
            with store_failures(lambda: self.workspace.store_path):
                return function(self.workspace, **arguments)
        finally:
            self._seen = self._state()

    def _state(self) -> tuple[Any, ...]:
        model: list[Any] = []
        for path in self.workspace.loaded_model_files:
            try:
                stat = path.stat()
                model.append((stat.st_mtime_ns, stat.st_size))
            except OSError:
                model.append("gone")
        return (tuple(model), current_head(self.workspace.root))

    def _refresh_if_moved(self) -> None:
        if self._seen is None:
            return
        too_old = time.monotonic() - self._read_at > self.max_age
        if too_old or self._state() != self._seen:
            log.info("the model or git HEAD moved: reading them again")
            self.workspace.refresh()
            self._read_at = time.monotonic()

    def warm_up(self) -> None:
        """Open the store, read the model and scan history in the background, so the
        first call does not pay for them (it waits for them if it comes early)."""
        self._executor.submit(self._warm)

    def _warm(self) -> None:
        ws = self.workspace
        self._hand_tokens()
        try:
            ws.store  # noqa: B018
            ws.model_or_empty  # noqa: B018
            ws.element_index  # noqa: B018
            if ws.drift is None and ws.history_unread:
                self._scan_in_background()
        except ModelError:
            pass  # every call will say what is wrong with the model
        except Exception:  # a warm-up never stops the server; the call that needs it reports it
            log.debug("warm-up failed", exc_info=True)
        self._seen = self._state()

    def _scan_in_background(self) -> None:
        """Read the whole history into the cache on a thread of its own (with its own
        store connection), while answers go on without drift; the next answer after it
        finishes has drift."""
        if self._scanner is not None:
            return
        other = self.workspace.sibling()

        def scan() -> None:
            try:
                with other:
                    other.drift_view().scan  # noqa: B018
                self._scanned.set()
                log.info("history scanned: drift is computed from the next answer on")
            except Exception:  # the answers keep saying how to compute drift
                log.debug("background history scan failed", exc_info=True)

        self._scanner = threading.Thread(target=scan, name="archmem-history", daemon=True)
        self._scanner.start()

    async def close(self) -> None:
        """Close the store (on its own thread); a later call opens it again."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self.workspace.close)

    def shutdown(self) -> None:
        self._executor.submit(self.workspace.close)
        self._executor.shutdown(wait=True)
        if self._watch is not None:
            from archmem import folder_watch

            folder_watch.served = None
            self._watch.close()

    def _hand_tokens(self) -> None:
        """The watch's tokens as they are now, for the call about to run (its sync knows the
        memory folder unchanged without git stating every file in it)."""
        if self._watch is not None:
            from archmem import folder_watch

            self._watch.keep()
            folder_watch.served = self._watch.served()


def _watch_of(workspace: Workspace) -> Watch | None:
    """The server's own watch of the memory folder (``archmem.folder_watch``), as the warm
    command server keeps one, the folder watched from the start; None where the kernel has
    no inotify for this process. A long-lived server syncs before every call."""
    import os

    from archmem.folder_watch import Watch

    try:
        watch = Watch.start()
    except OSError:
        return None
    try:
        watch.watcher.watch(os.path.realpath(workspace.memory_folder.shared))
    except ArchmemError:  # a refused folder setting: every call says so
        pass
    return watch


# ---- the server ---------------------------------------------------------------------


def client_name(ctx: Any) -> str | None:
    """The client's name from its ``initialize`` (``clientInfo.name``), if it sent one."""
    try:
        params = ctx.request_context.session.client_params
    except (AttributeError, LookupError, ValueError):
        return None
    info = getattr(params, "client_info", None) if params is not None else None
    name = getattr(info, "name", None)
    return name.strip() or None if isinstance(name, str) else None


def _as_tool(host: WorkspaceHost, function: Callable[..., Answer], output: Any = None) -> Callable[..., Any]:
    """An async tool with ``function``'s parameters (less the workspace) and docstring,
    answering a ``CallToolResult``: structured content (of the ``output`` model, which
    becomes the tool's output schema) and a text, or an error. Where the function takes an
    ``author`` and the agent names none (and no session, whose agent signs), the client's
    own name from ``initialize`` is the author: a memory says which agent wrote it. A
    ``signed_by`` is always the client's, never an argument: a confirmation says which
    client vouched, not a name the agent chose."""
    from typing import Annotated

    from mcp.server.mcpserver import Context
    from mcp_types import CallToolResult, TextContent

    from archmem.mcp.protocol import tool_error

    signature = inspect.signature(function, eval_str=True)
    parameters = [p for p in list(signature.parameters.values())[1:] if p.name != "signed_by"]
    takes_author = "author" in signature.parameters
    signs = "signed_by" in signature.parameters
    takes_agent = "agent" in signature.parameters

    async def tool(context: Context, **arguments: Any) -> CallToolResult:
        if takes_author and not arguments.get("author") and not arguments.get("session_id"):
            # in a session, the session's agent signs; else the client, with this clone's git user
            arguments["author"] = host.workspace.author_for(client_name(context) or "mcp")
        if signs:
            arguments["signed_by"] = host.workspace.author_for(client_name(context) or "mcp")
        if takes_agent and not arguments.get("agent"):
            # a session is the client's (its session-end hook finds the sessions it left open)
            arguments["agent"] = client_name(context) or "mcp"
        try:
            answer = await host.run(function, **arguments)
        except ArchmemError as exc:
            return tool_error(printable(str(exc)), exc.to_dict())
        except Exception as exc:  # a bug must not take the server down
            log.exception("%s failed unexpectedly", function.__name__)
            message = f"archmem failed unexpectedly ({type(exc).__name__}: {exc}); the server keeps running"
            return tool_error(message, {"error": "internal", "message": message})
        text = printable(answer.text)  # shown to a person by some clients: no raw control character
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=answer.data)

    injected = inspect.Parameter("context", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    returns: Any = Annotated[CallToolResult, output] if output is not None else CallToolResult
    tool.__name__ = tool.__qualname__ = function.__name__
    tool.__doc__ = function.__doc__
    tool.__signature__ = signature.replace(  # type: ignore[attr-defined]  # read by the SDK
        parameters=[*parameters, injected], return_annotation=returns
    )
    tool.__annotations__ = {p.name: p.annotation for p in parameters} | {"context": Context, "return": returns}
    return tool


def _as_resource(host: WorkspaceHost, read: Callable[..., str], template: bool = False) -> Callable[..., Any]:
    """A resource read on the worker thread (a template's with its ``id``); an
    ArchmemError reaches the client as the read's error, with the CLI's message."""

    async def resource() -> str:
        return await _answer_or_protocol_error(host, read)

    async def one(id: str) -> str:  # noqa: A002 (the URI template's variable)
        return await _answer_or_protocol_error(host, read, id=id)

    chosen = one if template else resource
    chosen.__name__ = read.__name__
    return chosen


def _as_prompt(host: WorkspaceHost) -> Callable[..., Any]:
    from archmem.mcp.resources import start_task_prompt

    async def start_task(task: str, elements: str | None = None) -> str:
        """task: the task, in words; elements: element ids or names, comma-separated."""
        return await _answer_or_protocol_error(host, start_task_prompt, task=task, elements=elements)

    return start_task


def _as_completion(host: WorkspaceHost) -> Callable[..., Any]:
    """``completion/complete`` for the arguments ``archmem.mcp.resources.COMPLETIONS``
    names (memory and element ids), from the workspace, on its thread."""
    from mcp_types import Completion, ResourceTemplateReference

    from archmem.mcp.resources import COMPLETIONS

    async def complete(ref: Any, argument: Any, context: Any) -> Any:
        target = ref.uri if isinstance(ref, ResourceTemplateReference) else ref.name
        complete_one = COMPLETIONS.get((target, argument.name))
        if complete_one is None:
            return None
        try:
            values, total = await host.run(complete_one, value=argument.value)
        except ArchmemError:  # a model that does not parse: nothing to offer (reads say why)
            return None
        return Completion(values=values, total=total, has_more=total > len(values))

    return complete


INTERNAL_ERROR = -32603
"""JSON-RPC's code for a request the server could not carry out."""
INVALID_PARAMS = -32602
"""JSON-RPC's code for a request whose parameters are wrong (a resource that is not there)."""


async def _answer_or_protocol_error(host: WorkspaceHost, function: Callable[..., str], **arguments: Any) -> str:
    """Resources and prompts have no error result as tools do: a user's mistake (a model
    that does not parse, say) is a protocol error carrying the CLI's message and the
    error as data, instead of the SDK's "Error reading resource" and a logged traceback."""
    from mcp.shared.exceptions import MCPError

    try:
        return printable(await host.run(function, **arguments))
    except UnknownNameError as exc:  # a memory or element that is not there
        raise MCPError(code=INVALID_PARAMS, message=str(exc), data=exc.to_dict()) from None
    except ArchmemError as exc:
        raise MCPError(code=INTERNAL_ERROR, message=str(exc), data=exc.to_dict()) from None


def build_server(workspace: Workspace | WorkspaceHost, *, log_level: str = "WARNING") -> MCPServer:
    """The archmem MCP server for one workspace (not started)."""
    require_sdk()
    from archmem.mcp import tools as mcp_tools
    from archmem.mcp.protocol import ArchmemServer
    from archmem.mcp.resources import RESOURCES, TEMPLATES

    host = workspace if isinstance(workspace, WorkspaceHost) else WorkspaceHost(workspace)

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[None]:
        try:
            yield None
        finally:
            await host.close()

    server = ArchmemServer(
        "archmem", title="archmem", version=__version__, instructions=mcp_tools.INSTRUCTIONS,
        lifespan=lifespan, log_level=log_level,
        prepare=lambda ready: _prepare(ready, host),
    )
    for uri, name, title, read in [*RESOURCES, *TEMPLATES]:
        server.resource(uri, name=name, title=title, description=inspect.cleandoc(read.__doc__ or ""),
                        mime_type="text/markdown")(
            _as_resource(host, read, template="{" in uri)
        )
    server.prompt(
        name="start_task", title="Start a task with archmem",
        description="Brief the agent on a task from the repository's memory, and how to record what it learns.",
    )(_as_prompt(host))
    server.completion()(_as_completion(host))  # type: ignore[no-untyped-call]  # the SDK leaves it unannotated
    return server


def _prepare(server: Any, host: WorkspaceHost) -> None:
    """What can wait until ``initialize`` is answered: warm the workspace up on its
    thread (store, model, history, while the client lists the tools), and register
    the tools with their input and output schemas."""
    from mcp_types import ToolAnnotations

    from archmem.mcp import tools as mcp_tools
    from archmem.mcp.schemas import OUTPUTS

    host.warm_up()
    for spec in mcp_tools.TOOLS:
        server.add_tool(
            _as_tool(host, spec.function, OUTPUTS[spec.name]),
            name=spec.name,
            title=spec.title,
            description=inspect.cleandoc(spec.function.__doc__ or ""),
            annotations=hints(spec, ToolAnnotations),
        )
        server.arguments[spec.name] = list(inspect.signature(spec.function).parameters)[1:]


def hints(spec: Any, annotations: type[Any]) -> Any:
    """A tool's hints, each said only where it differs from what MCP takes by default
    (not read-only, destructive, not idempotent, open world) or means something: the
    destructive and idempotent hints mean nothing for a read-only tool, and the title
    is the tool's own."""
    if spec.read_only:
        return annotations(read_only_hint=True, open_world_hint=False)
    return annotations(destructive_hint=spec.destructive, idempotent_hint=spec.idempotent or None,
                       open_world_hint=False)


def serve(workspace: Workspace, *, log_level: str = "WARNING") -> None:
    """Serve ``workspace`` over stdio until the client closes stdin."""
    require_sdk()
    logging.basicConfig(
        stream=sys.stderr, level=log_level, format="archmem mcp %(levelname)s %(name)s: %(message)s", force=True
    )
    import anyio

    from archmem.mcp.stdio import serve_stdio

    host = WorkspaceHost(workspace)
    server = build_server(host, log_level=log_level)
    try:
        anyio.run(serve_stdio, server)  # the SDK's stdio transport, every line answered
    finally:
        host.shutdown()

"""archmem's ``MCPServer``: the SDK's server with mistakes answered as archmem answers them.

- A tool call with an argument the tool does not take is refused by name, with the
  closest one (the SDK would drop it silently: ``element`` for ``elements`` would file a
  memory as project-wide without a word).
- Wrong or missing arguments are a tool error in the CLI's short form, one line per
  problem (``limit: input should be greater than or equal to 1 (got 0)``), with the
  problems as data; not pydantic's dump with its links.
- A tool error has no structured content (clients check that against the output
  schema, which describes a success): its data is in ``_meta`` (``tool_error``).
- An unknown prompt, or a prompt without its arguments, is JSON-RPC's Invalid params
  (-32602) naming what is wrong; anything else a prompt raises is Internal error
  (-32603). The SDK answers both with code 0 and logs a traceback.
- Nothing is done before ``initialize`` is answered that can wait: the tools (their
  schemas cost tens of milliseconds to build) are registered, and the workspace warmed
  up, at the first request that needs them (``prepare``), usually ``tools/list``.

Imported only by ``archmem.mcp.server.build_server``: it imports the SDK.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Callable
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent
from pydantic import ValidationError

from archmem.mcp.schemas import compact_schema, published_output

log = logging.getLogger("archmem.mcp")

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class ArchmemServer(MCPServer):
    """``MCPServer`` with argument names checked and errors in archmem's words."""

    def __init__(self, *args: Any, prepare: Callable[[ArchmemServer], None] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.arguments: dict[str, list[str]] = {}
        """Per tool, the argument names it takes (filled as tools are added)."""
        self._prepare = prepare
        self._published: list[Any] | None = None

    def ready(self) -> None:
        """Run ``prepare`` (register the tools, warm up) once, at the first need."""
        prepare, self._prepare = self._prepare, None
        if prepare is not None:
            prepare(self)

    async def list_tools(self) -> Any:
        """The tools as published (``archmem.mcp.schemas``: compact schemas), once."""
        self.ready()
        if self._published is None:
            self._published = [
                tool.model_copy(update={"input_schema": compact_schema(tool.input_schema),
                                        "output_schema": published_output(tool.output_schema)})
                for tool in await super().list_tools()
            ]
        return self._published

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        self.ready()
        return super()._tool_input_schema(name)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        self.ready()
        known = self.arguments.get(name)
        unknown = [key for key in arguments if known is not None and key not in known]
        if unknown:
            return refuse_arguments(name, [unknown_argument(key, known or []) for key in unknown])
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc.__cause__, ValidationError):
                raise
            return refuse_arguments(name, [problem(error) for error in exc.__cause__.errors()])

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            names = [p.name for p in self._prompt_manager.list_prompts()]
            raise MCPError(code=INVALID_PARAMS, message=f"unknown prompt {name!r}; the prompts: {', '.join(names)}",
                           data={"prompt": name, "prompts": names})
        missing = [a.name for a in prompt.arguments or [] if a.required and a.name not in (arguments or {})]
        if missing:
            raise MCPError(code=INVALID_PARAMS, message=f"prompt {name!r} needs the argument(s) {', '.join(missing)}",
                           data={"prompt": name, "missing": missing})
        try:
            return await super().get_prompt(name, arguments, context)
        except MCPError:
            raise
        except Exception as exc:
            log.exception("prompt %s failed unexpectedly", name)
            raise MCPError(code=INTERNAL_ERROR, message=f"prompt {name!r} failed: {exc}") from None


def unknown_argument(key: str, known: list[str]) -> dict[str, str]:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f"; it takes {', '.join(known) or 'none'}"
    return {"argument": key, "problem": f"unknown argument{hint}"}


def problem(error: Any) -> dict[str, str]:
    """One pydantic error as ``{argument, problem}``, in words, without its URL."""
    where = ".".join(str(part) for part in error.get("loc", ())) or "arguments"
    if error.get("type") == "missing":
        return {"argument": where, "problem": "required"}
    message = str(error.get("msg", "invalid"))
    message = message[:1].lower() + message[1:]
    given = repr(error.get("input"))
    given = given if len(given) <= 60 else given[:57] + "…"
    return {"argument": where, "problem": f"{message} (got {given})"}


def refuse_arguments(tool: str, problems: list[dict[str, str]]) -> CallToolResult:
    """The tool error for arguments that do not fit: text as the CLI says it, problems as data."""
    lines = [f"{p['argument']}: {p['problem']}" for p in problems]
    message = f"invalid arguments for {tool}: " + ("; ".join(lines))
    log.info("%s", message)
    return tool_error(message, {"error": "invalid_input", "message": message, "problems": problems})


ERROR_META = "archmem/error"
"""The ``_meta`` key of a tool error's data."""


def tool_error(message: str, data: dict[str, Any]) -> CallToolResult:
    """A tool error every client takes as one: the message as its text and no structured
    content, which validating clients (the TypeScript SDK, the MCP Inspector) check against
    the tool's output schema, the schema of its success. The error as data rides in
    ``_meta`` under ``archmem/error``."""
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True, _meta={ERROR_META: data})

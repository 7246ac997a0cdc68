"""``archmem mcp``'s stdio transport: every line from the client gets an answer.

The SDK's stdio transport (mcp 2.x) drops a line it cannot read as a message with a
debug log, and reads an object whose ``id`` is not a string or an integer as a
notification (it ignores the ``id``), so a client that sent one waits forever. archmem
reads stdin itself, checks each line, passes the good ones to the SDK unchanged, and
answers the others with the JSON-RPC error that names the mistake:

    not JSON, or nested deeper than MAX_DEPTH        -32700 Parse error, id null
    a batch (a JSON array; MCP removed batches)      -32600 Invalid Request, id null
    JSON that is not an object                       -32600, id null
    an object that is no JSON-RPC 2.0 message        -32600, its id when that is a string or integer
    a method with an id that is null, or not a       -32600, id null (MCP: a request's id is a
      string or an integer                                  string or an integer, never null)

Answers go through the SDK's own write stream, so one writer owns stdout and frames
never interleave. When stdin ends, the end is passed on only once every request passed
on has its answer (at most ``DRAIN_SECONDS``): the SDK cancels what is still running at
the end of its input, and a client that wrote its requests and closed its end would
lose their answers. Blank lines are passed on (the SDK skips them). As the SDK does for
its own reads, fd 0 points at the null device while serving, so a child process
(git) never reads protocol bytes.
"""

from __future__ import annotations

import io
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    import anyio.abc
    from mcp.server import MCPServer
    from mcp_types import JSONRPCError

log = logging.getLogger("archmem.mcp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
DRAIN_SECONDS = 60.0
"""How long the answers to requests still running when stdin ends are waited for."""


def refusal(line: str) -> JSONRPCError | None:
    """The error answering ``line``, or None when it is a message to pass on."""
    return checked(line)[0]


def checked(line: str) -> tuple[JSONRPCError | None, Any]:
    """``refusal``'s answer, and the JSON value read from the line (None when unread)."""
    from mcp_types import JSONRPCNotification, jsonrpc_message_adapter
    from pydantic import ValidationError

    from archmem.json_input import load_json

    if not line.strip():
        return None, None
    try:
        value = load_json(line)
    except json.JSONDecodeError as exc:
        return _error(None, PARSE_ERROR, "Parse error", f"the line is not JSON: {exc.msg} at column {exc.colno}"), None
    except ValueError:
        return _error(None, PARSE_ERROR, "Parse error", "the line is not JSON"), None
    if isinstance(value, list):
        return _error(None, INVALID_REQUEST, "Invalid Request",
                      "batches are not supported (MCP removed them): send one JSON-RPC message per line"), value
    if not isinstance(value, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request", "a JSON-RPC message is a JSON object"), value
    try:
        message = jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        given = value.get("id")
        return _error(given if _is_id(given) else None, INVALID_REQUEST, "Invalid Request",
                      'not a JSON-RPC 2.0 request, notification or response ("jsonrpc": "2.0", and '
                      '"method", or "result" or "error")'), value
    if isinstance(message, JSONRPCNotification) and "id" in value:
        return _error(None, INVALID_REQUEST, "Invalid Request",
                      "a request's id is a string or an integer, never null (a notification has no id)"), value
    return None, value


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _error(request_id: str | int | None, code: int, message: str, reason: str) -> JSONRPCError:
    from mcp_types import ErrorData, JSONRPCError

    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message,
                                                                      data={"reason": reason}))


class Pending:
    """The ids of the requests passed to the SDK that it has not answered yet."""

    def __init__(self) -> None:
        import anyio

        self._ids: set[str | int] = set()
        self.none = anyio.Event()
        self.none.set()

    def asked(self, value: Any) -> None:
        """``value``: a message passed on (as ``checked`` read it)."""
        import anyio

        if isinstance(value, dict) and "method" in value and _is_id(value.get("id")):
            self._ids.add(value["id"])
            if self.none.is_set():
                self.none = anyio.Event()

    def answered(self, request_id: object) -> None:
        if isinstance(request_id, str | int):
            self._ids.discard(request_id)
        if not self._ids:
            self.none.set()


class WatchedWrites:
    """The SDK's write stream (its ``WriteStream`` protocol), telling ``pending`` of each
    answer that goes out."""

    def __init__(self, inner: Any, pending: Pending) -> None:
        self._inner = inner
        self._pending = pending

    async def send(self, item: Any, /) -> None:
        await self._inner.send(item)
        message = getattr(item, "message", None)
        if message is not None and not hasattr(message, "method"):  # a response or an error
            self._pending.answered(getattr(message, "id", None))

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> WatchedWrites:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self._inner.__aexit__(*exc)
        return result


class CheckedLines:
    """The client's lines for the SDK to read (``async for``). A line ``refusal``
    answers is not passed on; its answer goes to ``answers``, and the end of input is
    passed on only once every answer is written (``written``), since the server closes
    stdout when its input ends, and every request passed on is answered (``pending``)."""

    def __init__(self, source: Any, answers: anyio.abc.ObjectSendStream[JSONRPCError],
                 written: anyio.Event, pending: Pending | None = None) -> None:
        self._source = source
        self._answers = answers
        self._written = written
        self._pending = pending or Pending()

    async def __aiter__(self) -> AsyncIterator[str]:
        import anyio

        async with self._answers:
            async for line in self._source:
                answer, value = checked(line)
                if answer is None:
                    self._pending.asked(value)
                    yield line
                    continue
                log.info("answered a line that is not an MCP message: %s", answer.error.data)
                await self._answers.send(answer)
        with anyio.move_on_after(DRAIN_SECONDS):
            await self._pending.none.wait()
        await self._written.wait()


async def serve_stdio(server: MCPServer) -> None:
    """Run ``server`` over this process's stdin and stdout until stdin ends: what
    ``MCPServer.run_stdio_async`` does, with checked lines as the SDK transport's stdin.
    It drives the low-level server as that method does (``_lowlevel_server``; mcp is
    pinned to 2.x), and falls back to the SDK's own transport if that is ever gone."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCError

    lowlevel = getattr(server, "_lowlevel_server", None)
    if lowlevel is None:  # an SDK that no longer has it: its own transport, unchecked
        log.warning("this mcp SDK version hides its server loop: malformed lines go unanswered")
        await server.run_stdio_async()
        return
    send, receive = anyio.create_memory_object_stream[JSONRPCError](64)
    written = anyio.Event()

    async def answer(write: anyio.abc.ObjectSendStream[SessionMessage]) -> None:
        try:
            async with receive:
                async for error in receive:
                    await write.send(SessionMessage(error))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            written.set()

    pending = Pending()
    with _protocol_stdin() as wire:
        text = anyio.wrap_file(io.TextIOWrapper(wire, encoding="utf-8", errors="replace"))
        lines = CheckedLines(text, send, written, pending)
        async with (
            stdio_server(stdin=lines) as (read_stream, write_stream),  # type: ignore[arg-type]  # duck-typed AsyncFile
            anyio.create_task_group() as group,
        ):
            group.start_soon(answer, write_stream)
            await lowlevel.run(read_stream, WatchedWrites(write_stream, pending),
                               lowlevel.create_initialization_options())
            group.cancel_scope.cancel()


@contextmanager
def _protocol_stdin() -> Iterator[BinaryIO]:
    """stdin on a private descriptor, fd 0 on the null device meanwhile. The private
    descriptor is never closed: a worker thread may still be blocked reading it."""
    try:
        if sys.stdin.buffer.fileno() != 0:
            raise ValueError("stdin is not fd 0")
        wire = os.dup(0)
    except (AttributeError, OSError, ValueError):
        yield sys.stdin.buffer  # no descriptor to move: read it in place
        return
    diverted = False
    try:
        quiet = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(quiet, 0)
            diverted = True
        finally:
            os.close(quiet)
    except OSError:
        pass  # the protocol is still served; only a child reading stdin would see it
    try:
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        if diverted:
            os.dup2(wire, 0)

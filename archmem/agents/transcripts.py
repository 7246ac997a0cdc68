"""Reading an agent client's session transcript (JSON Lines) for what the agent itself wrote.

Claude Code and Codex write one JSON object per line and name the transcript in every
hook's input (``transcript_path``); Cursor does too in recent versions. The records
differ by client, so a record counts as the agent's own when it says so in the ways
those clients do: ``"type": "assistant"`` (Claude Code), ``"role": "assistant"`` (a
message, at the top or under ``message``/``payload``), or a tool call
(``function_call``, ``custom_tool_call``, ``tool_use``). Tool results and the user's
turns are left out: they name every memory that was shown, used or not.

Nothing here fails: a missing, unreadable or odd transcript gives what could be read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from archmem.json_input import load_json

MAX_BYTES = 50_000_000
"""Read at most this much of a transcript (the end of a very long one is dropped)."""
CALL_TYPES = frozenset({"function_call", "custom_tool_call", "tool_use", "local_shell_call"})


def read_transcript(path: Path | str | None) -> tuple[str, str]:
    """(the whole text, what the agent wrote) of the transcript at ``path``; ("", "")
    when there is none or it cannot be read."""
    if not path:
        return "", ""
    try:
        with Path(path).expanduser().open("rb") as handle:
            data = handle.read(MAX_BYTES)
    except OSError:
        return "", ""
    text = data.decode("utf-8", errors="replace")
    own: list[str] = []
    for line in text.splitlines():
        try:
            record = load_json(line)
        except ValueError:
            continue
        if isinstance(record, dict) and _is_agents(record):
            own.extend(_strings(record))
    return text, "\n".join(own)


def _is_agents(record: dict[str, Any]) -> bool:
    if record.get("type") == "assistant" or record.get("role") == "assistant":
        return True
    for key in ("message", "payload", "item"):
        inner = record.get(key)
        if isinstance(inner, dict) and (inner.get("role") == "assistant" or inner.get("type") in CALL_TYPES):
            return True
    return False


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value; a string that is itself JSON (a tool call's
    arguments) is read too."""
    if isinstance(value, str):
        if value[:1] in "{[":
            try:
                yield from _strings(load_json(value))
                return
            except ValueError:
                pass
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)

"""The agents' config files read and written as they are: JSON that keeps its
indentation, line endings and one-line arrays; TOML tables replaced as text (there is
no TOML writer in the standard library, and a rewrite would lose comments); atomic
writes; every parse error at ``file:line:col`` with nothing written.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from archmem import atomic_write
from archmem.errors import ConfigError
from archmem.json_input import load_json as read_json


def read_exact(path: Path, name: str) -> str | None:
    """The file's text, exactly (line endings kept); None when it does not exist."""
    if not path.exists():
        return None
    if path.is_dir():
        raise ConfigError(f"{name} is a folder, not a file; nothing was written")
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{name}: not UTF-8 text (byte {exc.start}); nothing was written") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {name}: {exc.strerror}") from None

def write_atomic(path: Path, text: str) -> None:
    """A config file replaced atomically, through a symlink to its target (a CLAUDE.md
    that points at AGENTS.md stays a link), its mode kept."""
    atomic_write.write_atomic(path, text, follow_symlinks=True)


def short_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def load_json(text: str, name: str) -> tuple[dict[str, Any], tuple[int | str, bool, bool, str]]:
    """The object in ``text`` and how it is written (indent, trailing newline, BOM, line
    ending), so the rewrite looks like the original."""
    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    try:
        data = read_json(body)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{name}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}; nothing was written",
            hint="fix the file (or move it aside) and run archmem install again",
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{name}: expected a JSON object at the top, found {type(data).__name__}; nothing was written")
    newline = "\r\n" if "\r\n" in body else "\n"
    return data, (_indent_of(body), body.endswith(("\n", "\r")), bom, newline)


def _dump_value(value: Any, unit: str, level: int, source: str, *, top: bool = False) -> str:
    if not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, ensure_ascii=False)
    if not top and source:
        for separators in ((", ", ": "), (",", ":")):
            compact = json.dumps(value, ensure_ascii=False, separators=separators)
            if compact in source:
                return compact
    inner, outer = unit * (level + 1), unit * level
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(key, ensure_ascii=False)}: {_dump_value(item, unit, level + 1, source)}"
                 for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + outer + "}"
    items = [inner + _dump_value(item, unit, level + 1, source) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + outer + "]"


def _indent_of(text: str) -> int | str:
    """The indentation unit of pretty-printed JSON: that of its first indented line."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            prefix = line[: len(line) - len(stripped)]
            return "\t" if prefix.startswith("\t") else len(prefix)
    return 2


def dump_json(data: Any, indent: int | str = 2, newline_at_end: bool = True, bom: bool = False,
               newline: str = "\n", source: str = "") -> str:
    """``json.dumps(data, indent=indent)``, except that an array or object written on one
    line in ``source`` (the file as it was) stays on one line: a merge changes the lines
    it must and no others."""
    unit = indent if isinstance(indent, str) else " " * indent
    text = _dump_value(data, unit, 0, source, top=True)
    if newline_at_end:
        text += "\n"
    if newline != "\n":
        text = text.replace("\n", newline)
    return ("\ufeff" if bom else "") + text

_HEADER = re.compile(r"^\s*\[\[?[^\[\]\n]+\]\]?\s*(#.*)?$")


def header_path(line: str) -> tuple[list[str], bool] | None:
    """The key path of a table header line (``[a."b".c]`` → a, b, c) and whether it is an
    array of tables; None when the line is not a header."""
    if not _HEADER.match(line.rstrip("\r\n")):
        return None
    try:
        parsed: Any = tomllib.loads(line.strip() + "\n")
    except tomllib.TOMLDecodeError:
        return None
    path = []
    while isinstance(parsed, dict) and len(parsed) == 1:
        key, parsed = next(iter(parsed.items()))
        path.append(key)
        if isinstance(parsed, list):
            return path, True
    return path, False


def replace_table(text: str, block: str, table: list[str], name: str) -> str:
    """``text`` with every ``[a.b]`` table at ``table`` (and its sub-tables) removed and
    ``block`` where the first one was."""
    dotted = ".".join(table)
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    inserted_at: int | None = None
    inside = False
    for line in lines:
        header = header_path(line)
        if header is not None:
            path, is_array = header
            inside = not is_array and path[: len(table)] == table
            if inside and inserted_at is None:
                inserted_at = len(kept)
        if not inside:
            kept.append(line)
    if inserted_at is None:
        raise ConfigError(
            f"{name}: {dotted} is not written as a [{dotted}] table, so install cannot replace it safely; "
            "nothing was written",
            hint=f"replace it by hand with:\n{block}",
        )
    newline = "\r\n" if "\r\n" in text else "\n"
    if inserted_at > 0 and not kept[inserted_at - 1].endswith(("\n", "\r")):
        kept[inserted_at - 1] += newline
    tail = [block]
    if inserted_at < len(kept):
        tail.append(newline)
    return "".join(kept[:inserted_at] + tail + kept[inserted_at:])

def load_toml(text: str, name: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text.lstrip("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        where = f"{name}:{match.group(1)}:{match.group(2)}" if match else name
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(
            f"{where}: not valid TOML: {reason}; nothing was written",
            hint="fix the file (or move it aside) and run archmem install again",
        ) from None



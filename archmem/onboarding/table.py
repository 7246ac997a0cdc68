"""Writing the ``[paths]`` table of ``archmem.toml``: element id → globs, recorded
without touching the model file (a DSL that is generated or shared stays as it is).

There is no TOML writer among archmem's dependencies, and rewriting a file a person
wrote must keep their comments and order: so only the ``[paths]`` table's own lines
are replaced (or the table is appended), its text written here with every key and glob
as a quoted TOML string, and the result is read back with ``tomllib`` before it
replaces the file (atomically), so a file archmem cannot rewrite safely is refused.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from archmem.atomic_write import write_atomic
from archmem.errors import ConfigError
from archmem.escape import toml_string

_HEADER = re.compile(r"^\s*\[\s*paths\s*\]\s*(?:#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")
_HEAD_COMMENT = (
    "# Where each element's code is, kept here instead of in the model file (archmem paths suggest --write).\n"
    "# archmem unites these globs with the model's own archmem.paths.\n"
)


def render_table(table: Mapping[str, Sequence[str]]) -> str:
    """``[paths]`` with one ``"element.id" = ["glob", …]`` line per element."""
    lines = ["[paths]"]
    for element, globs in table.items():
        lines.append(f"{toml_string(element)} = [{', '.join(toml_string(g) for g in globs)}]")
    return "\n".join(lines) + "\n"


def merge_paths(existing: Mapping[str, Sequence[str]], added: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Both tables in one: an element's globs from both, each once, existing first."""
    merged = {key: list(value) for key, value in existing.items()}
    for element, globs in added.items():
        mine = merged.setdefault(element, [])
        mine.extend(g for g in globs if g not in mine)
    return merged


def write_paths(config_file: Path, added: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Add ``added`` to the ``[paths]`` table of ``config_file`` (created if missing),
    keeping every other line of the file; returns the whole table as written."""
    text = _read(config_file)
    try:
        current = tomllib.loads(text) if text else {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{config_file}: invalid TOML, not rewritten: {exc}") from None
    existing = current.get("paths", {})
    if not isinstance(existing, dict) or not all(isinstance(v, list) for v in existing.values()):
        raise ConfigError(f"{config_file}: `paths` must be a table of element = [globs]", hint="see archmem init --print")
    table = merge_paths(existing, added)
    updated = replace_table(text, render_table(table))
    try:
        reread = tomllib.loads(updated)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{config_file}: cannot add the [paths] table safely ({exc})",
            hint="move any `paths` keys into one [paths] table, then run again",
        ) from None
    if reread.get("paths") != table or {k: v for k, v in reread.items() if k != "paths"} != {
        k: v for k, v in current.items() if k != "paths"
    }:
        raise ConfigError(
            f"{config_file}: `paths` is written in a form archmem cannot rewrite (dotted keys or an inline table)",
            hint="move it into one [paths] table, then run again",
        )
    _atomic_write(config_file, updated)
    return table


def replace_table(text: str, table: str) -> str:
    """``text`` with its ``[paths]`` table (header to the next header) replaced by
    ``table``, or ``table`` appended after a blank line. Comments between the table's
    entries go (the entries are rewritten); blank lines and comments at its end stay."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if start is None:
        gap = "" if not text or text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
        return text + gap + _HEAD_COMMENT + table
    end = next((i for i in range(start + 1, len(lines)) if _ANY_HEADER.match(lines[i])), len(lines))
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1  # blank lines and the next table's comments stay where they are
    return "".join(lines[:start]) + table + "".join(lines[end:])


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None


def _atomic_write(path: Path, text: str) -> None:
    try:
        write_atomic(path, text)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None

"""Which files make a LikeC4 workspace: a ``likec4.config.json`` project's folder, a
folder of ``.c4``/``.likec4`` files, or one such file.

A project is every source file below its folder, except those under a folder that holds
another project's ``likec4.config.json``, under ``node_modules`` or a hidden folder, or
matching the config's ``exclude`` globs; its ``include`` paths (shared specifications)
add their sources. Every file must stay inside the repository.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from archmem.errors import ModelError
from archmem.json_input import load_json
from archmem.model.confine import confine, is_inside
from archmem.values import Record

CONFIG_NAMES = ("likec4.config.json", ".likec4.config.json", ".likec4rc", "likec4.config.json5")
"""A project's config files that archmem reads (JSON5, as LikeC4 reads them)."""
SCRIPT_CONFIGS = ("likec4.config.js", "likec4.config.mjs", "likec4.config.ts", "likec4.config.mts")
"""Config files that are programs: they mark a project; archmem does not run them."""
SUFFIXES = (".c4", ".likec4")
_SKIPPED = frozenset({"node_modules", "vendor", "dist", "build", "target", "venv"})


@dataclass(slots=True, repr=False, eq=False)
class Project(Record):
    """A workspace's name, the folder (or file) it was read from, and its source files."""

    name: str
    folder: Path
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def is_source(path: Path) -> bool:
    return path.name.lower().endswith(SUFFIXES)


def config_file(folder: Path) -> Path | None:
    """The project config in ``folder``, if there is one (a JSON one first)."""
    for name in CONFIG_NAMES + SCRIPT_CONFIGS:
        if (folder / name).is_file():
            return folder / name
    return None


def sources_below(folder: Path, *, depth: int = 12, stop_at_projects: bool = True) -> list[Path]:
    """``.c4``/``.likec4`` files below ``folder``, not inside another project's folder."""
    found: list[Path] = []
    for current, dirs, names in os.walk(folder):
        here = Path(current)
        level = len(here.relative_to(folder).parts)
        dirs[:] = sorted(
            d for d in dirs
            if d not in _SKIPPED and not d.startswith(".") and level < depth
            and not (stop_at_projects and config_file(here / d) is not None)
        )
        found.extend(here / name for name in sorted(names) if name.lower().endswith(SUFFIXES))
    return found


def read_project(path: Path, within: Path) -> Project:
    """The workspace at ``path`` (a folder, its ``likec4.config.json`` or one source file);
    every file it reads stays inside ``within``."""
    if path.is_file() and is_source(path):
        return Project(name=path.stem, folder=path.parent, files=[path])
    folder = path.parent if path.is_file() else path
    config = config_file(folder)
    name = folder.name
    includes: list[str] = []
    excludes: list[str] = []
    warnings: list[str] = []
    if config is not None:
        try:
            name, includes, excludes = _read_config(config)
        except ModelError as exc:
            warnings.append(f"{exc.message}; the folder is read without it")
    files = sources_below(folder)
    for include in includes:
        try:
            what = f"{config.name if config else folder.name} include"
            target = confine(include, base=folder, within=within, what=what, location=None)
        except ModelError as exc:
            warnings.append(f"{exc.message}; not read")
            continue
        files.extend(sources_below(target, stop_at_projects=False) if target.is_dir() else
                     [target] if target.is_file() else [])
    if excludes:
        files = [f for f in files if not any(_matches(f, folder, pattern) for pattern in excludes)]
    files = [f for f in dict.fromkeys(f.resolve() for f in files) if is_inside(f, within)]
    if not files:
        raise ModelError(f"no LikeC4 source files (.c4, .likec4) in {folder}")
    return Project(name=name or folder.name, folder=folder, files=files, warnings=warnings)


def _read_config(config: Path) -> tuple[str, list[str], list[str]]:
    """The name, include paths and exclude globs of a project config; a program config
    (``likec4.config.ts``) is read only when it exports one object literal, never run."""
    try:
        text = config.read_text(encoding="utf-8")
        if config.name in SCRIPT_CONFIGS:
            text = _object_literal(text, config)
        data = load_json(_plain_json(text))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelError(f"{config}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict):
        raise ModelError(f"{config}: expected a JSON object")
    name = data.get("name")
    if not isinstance(name, str):
        name = ""
    include = data.get("include", [])
    if isinstance(include, dict):
        include = include.get("paths", [])
    exclude = data.get("exclude", [])
    if isinstance(exclude, dict):
        exclude = exclude.get("paths", [])
    return (
        name,
        [p for p in include if isinstance(p, str)] if isinstance(include, list) else [],
        [p for p in exclude if isinstance(p, str)] if isinstance(exclude, list) else [],
    )


_EXPORTED = re.compile(r"export\s+default\s+(?:defineConfig\s*\(\s*)?\{")


def _object_literal(text: str, config: Path) -> str:
    """The object a program config exports (``export default defineConfig({ … })``)."""
    found = _EXPORTED.search(text)
    if found is None:
        raise ModelError(f"{config.name} is a program archmem does not run (it exports no plain object)")
    start, depth = found.end() - 1, 0
    for part in _JSON5_PARTS_OR_BRACE.finditer(text, start):
        if part.group() == "{":
            depth += 1
        elif part.group() == "}":
            depth -= 1
            if depth == 0:
                return text[start:part.end()]
    raise ModelError(f"{config.name}: the exported object is never closed")


_JSON5_PARTS = re.compile(
    r'(?P<double>"(?:[^"\\]|\\.)*")'
    r"|(?P<single>'(?:[^'\\]|\\.)*')"
    r"|(?P<comment>//[^\n]*|/\*.*?\*/)"
    r"|(?P<trailing>,(?=(?:\s|//[^\n]*|/\*.*?\*/)*[}\]]))"
    r"|(?P<key>[A-Za-z_$][\w$]*(?=\s*:))",
    re.S,
)


_JSON5_PARTS_OR_BRACE = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|`[^`]*`|//[^\n]*|/\*.*?\*/|[{}]", re.S)


def _plain_json(text: str) -> str:
    """LikeC4 reads its config as JSON5: comments and trailing commas are dropped, bare
    keys and single-quoted strings become JSON's."""

    def plain(match: re.Match[str]) -> str:
        kind, value = match.lastgroup, match.group()
        if kind == "double":
            return value
        if kind == "single":
            return json.dumps(re.sub(r"\\(.)", r"\1", value[1:-1]))
        if kind == "key":
            return json.dumps(value)
        return ""

    return _JSON5_PARTS.sub(plain, text)


def _matches(path: Path, folder: Path, pattern: str) -> bool:
    try:
        relative = path.relative_to(folder).as_posix()
    except ValueError:
        return False
    return fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative, pattern.lstrip("*/"))

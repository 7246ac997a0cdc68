"""Finding the model file and turning it into an ``ArchitectureModel`` with code paths.

Discovery order: ``model = "…"`` in config, else ``workspace.dsl``,
``architecture.dsl``, ``architecture/workspace.dsl``, ``c4/workspace.dsl``,
``docs/**/workspace.dsl``, ``archmem.yaml``, ``*.c4.yaml``; else the one ``*.dsl`` that
holds a ``workspace`` in ``architecture/``, ``docs/architecture/``, ``c4/`` or
``docs/c4/``, else in the whole repository (several: the user chooses, and is told how);
else a LikeC4 workspace (``archmem.model.likec4.discovery``).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from archmem.errors import ModelError, ModelNotFoundError, NoModelError
from archmem.model.confine import confine
from archmem.model.paths import resolve_code_paths
from archmem.model.types import ArchitectureModel
from archmem.patterns import lazy

if TYPE_CHECKING:
    from archmem.model.dsl_cache import Meta

DISCOVERY = (
    "workspace.dsl", "architecture.dsl", "architecture/workspace.dsl", "c4/workspace.dsl", "docs/**/workspace.dsl",
    "archmem.yaml", "*.c4.yaml",
)
ARCHITECTURE_FOLDERS = ("architecture", "docs/architecture", "c4", "docs/c4")
"""Where a workspace under another name (``shop.dsl``) is looked for first."""
_WORKSPACE = lazy(r"^\s*workspace(?:\s|\{|$)", re.M | re.I)
_SKIPPED = frozenset({".git", ".archmem", "node_modules", "vendor", "dist", "build", "target", ".venv", "venv"})
_MAX_DEPTH = 5
_LIKEC4_DEPTH = 8
"""LikeC4 sources sit deeper (``docs/architecture/diagram/containers/db/model.c4``)."""


def discover_model(root: Path, configured: str | None = None) -> Path:
    """The model file for a repository, or ``ModelNotFoundError`` saying where it looked."""
    if configured:
        path = Path(configured)
        path = path if path.is_absolute() else root / path
        if not path.exists():
            raise ModelNotFoundError(
                f"the configured model file {configured!r} does not exist (looked at {path})",
                hint="fix `model` in archmem.toml or pass --model FILE",
            )
        return path
    for pattern in DISCOVERY:
        found = sorted(p for p in root.glob(pattern) if p.is_file() and ".archmem" not in p.parts)
        if found:
            return _confined(found[0], root)
    for folder in ARCHITECTURE_FOLDERS:
        found = _workspaces(root / folder, root, depth=2)
        if len(found) == 1:
            return _confined(found[0], root)
        if found:
            raise _several(found, root)
    found = _workspaces(root, root, depth=_MAX_DEPTH)
    if len(found) == 1:
        return _confined(found[0], root)
    if found:
        raise _several(found, root)
    from archmem.model.likec4.discovery import find_likec4_workspace

    likec4 = find_likec4_workspace(root, depth=_LIKEC4_DEPTH)
    if likec4 is not None:
        return _confined(likec4, root)
    raise NoModelError(
        f"no architecture model found in {root} (looked for {', '.join(DISCOVERY)}, for a *.dsl file holding "
        "a workspace, and for a LikeC4 likec4.config.json or .c4 files)",
        hint="write a workspace.dsl (Structurizr DSL) or archmem.yaml, or pass --model FILE",
    )


def _confined(path: Path, root: Path) -> Path:
    # a discovered model is the repository's word, not the user's: it may not link out
    return confine(path.relative_to(root), base=root, within=root, what="the model file", location=None)


def _workspaces(folder: Path, root: Path, *, depth: int) -> list[Path]:
    """``*.dsl`` files below ``folder`` (to ``depth`` folders down) that hold a
    ``workspace``, not the fragments they ``!include``."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    for current, dirs, names in os.walk(folder):
        level = len(Path(current).relative_to(folder).parts)
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith(".") and level < depth)
        for name in sorted(names):
            if name.lower().endswith(".dsl") and _holds_workspace(Path(current) / name):
                found.append(Path(current) / name)
    return found


def _holds_workspace(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(64 * 1024).decode("utf-8", errors="replace")
    except OSError:
        return False
    return bool(_WORKSPACE.search(head))


def _several(found: list[Path], root: Path) -> ModelNotFoundError:
    names = ", ".join(p.relative_to(root).as_posix() for p in found[:6]) + (" …" if len(found) > 6 else "")
    return ModelNotFoundError(
        f"several Structurizr workspaces in {root}: {names}",
        hint='choose one: model = "…" in archmem.toml, or --model FILE',
    )


def parse_model_file(
    path: Path,
    env: Mapping[str, str] | None = None,
    root: Path | None = None,
    *,
    kinds: Mapping[str, str] | None = None,
    kept: Meta | None = None,
) -> ArchitectureModel:
    """Parse one model file (or LikeC4 folder) by its format (from the name), without
    deriving paths; ``kinds`` maps LikeC4 element kinds to C4 levels. A DSL model is kept
    in ``kept`` (the index, when open) until a file it read changes.

    What the file names (includes, a base workspace, decision folders) must stay inside
    ``root`` (``archmem.model.confine.boundary``).
    """
    if not path.exists():
        raise ModelNotFoundError(f"model file not found: {path}")
    name = path.name.lower()
    # the LikeC4 reader is imported only for what can be LikeC4: a DSL or YAML model never pays for it
    if path.is_dir() or name.endswith((".c4", ".likec4")) or "likec4" in name:
        from archmem.model.likec4 import is_likec4, parse_likec4

        if is_likec4(path):
            return parse_likec4(path, root=root, kinds=kinds)
    if name.endswith(".dsl"):
        from archmem.model.dsl_cache import parse_dsl_cached

        return parse_dsl_cached(path, env=os.environ if env is None else env, root=root, store=kept)
    if name.endswith((".yaml", ".yml")):
        from archmem.model.yaml_model import parse_yaml_model

        return parse_yaml_model(path, root=root)
    if name.endswith(".json"):
        from archmem.model.structurizr_json import parse_structurizr_json

        return parse_structurizr_json(path)
    raise ModelError(
        f"unknown model format: {path.name}",
        hint="archmem reads Structurizr DSL (.dsl), Structurizr JSON (.json), archmem YAML (.yaml) and LikeC4 "
        "(.c4, .likec4, a folder or its likec4.config.json)",
    )


def load_model(
    path: Path,
    root: Path,
    *,
    exists: Callable[[str], bool] | None = None,
    env: Mapping[str, str] | None = None,
    kinds: Mapping[str, str] | None = None,
    kept: Meta | None = None,
) -> ArchitectureModel:
    """The model at ``path`` with code paths derived and file names relative to ``root``
    (a DSL model's parse kept in ``kept``, the index, when one is open).

    Decisions come from the model (``!adrs``); when it names none, the conventional
    folders (``docs/adr`` and friends) are read.
    """
    model = parse_model_file(path, env=env, root=root, kinds=kinds, kept=kept)
    model = resolve_code_paths(model, exists=exists)
    decisions = model.decisions
    warnings = list(model.warnings)
    if not decisions:
        from archmem.model.adrs import find_decision_folders, read_decisions

        for folder in find_decision_folders(root):
            decisions = decisions + read_decisions(folder, within=root, warn=warnings.append)
    decisions = [dataclasses.replace(d, path=_relative(d.path, root)) for d in decisions]
    return dataclasses.replace(model, decisions=decisions, warnings=warnings)


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path

"""Finding the model file and turning it into an ``ArchitectureModel`` with code paths.

Discovery order (DESIGN.md): ``model = "…"`` in config, else ``workspace.dsl``,
``architecture.dsl``, ``docs/**/workspace.dsl``, ``archmem.yaml``, ``*.c4.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from archmem.errors import ModelError, ModelNotFoundError
from archmem.model.confine import confine
from archmem.model.paths import resolve_code_paths
from archmem.model.types import ArchitectureModel

DISCOVERY = ("workspace.dsl", "architecture.dsl", "docs/**/workspace.dsl", "archmem.yaml", "*.c4.yaml")


def discover_model(root: Path, configured: str | None = None) -> Path:
    """The model file for a repository, or ``ModelNotFoundError`` saying where it looked."""
    if configured:
        path = Path(configured)
        path = path if path.is_absolute() else root / path
        if not path.is_file():
            raise ModelNotFoundError(
                f"the configured model file {configured!r} does not exist (looked at {path})",
                hint="fix `model` in archmem.toml or pass --model FILE",
            )
        return path
    for pattern in DISCOVERY:
        found = sorted(p for p in root.glob(pattern) if p.is_file() and ".archmem" not in p.parts)
        if found:
            # a discovered model is the repository's word, not the user's: it may not link out
            return confine(found[0].relative_to(root), base=root, within=root, what="the model file", location=None)
    raise ModelNotFoundError(
        f"no architecture model found in {root} (looked for {', '.join(DISCOVERY)})",
        hint="write a workspace.dsl (Structurizr DSL) or archmem.yaml, or pass --model FILE",
    )


def parse_model_file(path: Path, env: Mapping[str, str] | None = None, root: Path | None = None) -> ArchitectureModel:
    """Parse one model file by its format (from the name), without deriving paths.

    What the file names (includes, a base workspace, decision folders) must stay inside
    ``root`` (``archmem.model.confine.boundary``).
    """
    if not path.is_file():
        raise ModelNotFoundError(f"model file not found: {path}")
    name = path.name.lower()
    if name.endswith(".dsl"):
        from archmem.model.dsl import parse_dsl

        return parse_dsl(path, env=env, root=root)
    if name.endswith((".yaml", ".yml")):
        from archmem.model.yaml_model import parse_yaml_model

        return parse_yaml_model(path, root=root)
    if name.endswith(".json"):
        from archmem.model.structurizr_json import parse_structurizr_json

        return parse_structurizr_json(path)
    raise ModelError(
        f"unknown model format: {path.name}",
        hint="archmem reads Structurizr DSL (.dsl), Structurizr JSON (.json) and archmem YAML (.yaml)",
    )


def load_model(
    path: Path,
    root: Path,
    *,
    exists: Callable[[str], bool] | None = None,
    env: Mapping[str, str] | None = None,
) -> ArchitectureModel:
    """The model at ``path`` with code paths derived and file names relative to ``root``.

    Decisions come from the model (``!adrs``); when it names none, the conventional
    folders (``docs/adr`` and friends) are read.
    """
    model = parse_model_file(path, env=env, root=root)
    model = resolve_code_paths(model, exists=exists)
    decisions = model.decisions
    warnings = list(model.warnings)
    if not decisions:
        from archmem.model.adrs import find_decision_folders, read_decisions

        for folder in find_decision_folders(root):
            decisions = decisions + read_decisions(folder, within=root, warn=warnings.append)
    decisions = [d.model_copy(update={"path": _relative(d.path, root)}) for d in decisions]
    return model.model_copy(update={"decisions": decisions, "warnings": warnings})


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path

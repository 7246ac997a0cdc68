"""Finding a repository's LikeC4 workspace: the one project (a folder with a
``likec4.config.json`` or another LikeC4 config file), else
the folder that holds every ``.c4``/``.likec4`` file (their deepest common folder)."""

from __future__ import annotations

import os
from pathlib import Path

from archmem.errors import ModelNotFoundError
from archmem.model.likec4.project import CONFIG_NAMES, SCRIPT_CONFIGS, SUFFIXES

_SKIPPED = frozenset({".git", ".archmem", "node_modules", "vendor", "dist", "build", "target", ".venv", "venv"})


def find_likec4_workspace(root: Path, *, depth: int) -> Path | None:
    """The workspace folder (or ``None``); several projects are for the user to choose."""
    configs: list[Path] = []
    sources: list[Path] = []
    for current, dirs, names in os.walk(root):
        here = Path(current)
        level = len(here.relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith(".") and level < depth)
        if any(name in names for name in CONFIG_NAMES + SCRIPT_CONFIGS):
            configs.append(here)
        sources.extend(here / n for n in names if n.lower().endswith(SUFFIXES))
    if len(configs) == 1:
        return configs[0]
    if configs:
        listed = ", ".join(p.relative_to(root).as_posix() or "." for p in configs[:6]) + (" …" if len(configs) > 6 else "")
        raise ModelNotFoundError(
            f"several LikeC4 projects in {root}: {listed}",
            hint='choose one: model = "folder" in archmem.toml, or --model FOLDER',
        )
    if not sources:
        return None
    return Path(os.path.commonpath([p.parent for p in sources]))

"""What a model may name: files and folders inside its boundary, symlinks followed.

archmem reads repositories it may not trust, so every path a model names goes through
``confine``: ``workspace extends``, ``!include``, ``!adrs``/``!decisions``, ``!docs``,
YAML ``decisions``, adr-tools' ``.adr-dir``, Log4brains' ``adrFolder``, and each record
file in a decisions folder. The path is resolved (symlinks followed, ``..`` applied) and
must stay at or below the boundary: the repository root for a model inside the
repository, the model's own folder for one outside it (``--model`` given by the user;
that file is the user's choice, what it names is not). ``!include`` keeps Structurizr's
narrower boundary, the including file's folder.

A refused path is a ``ModelError`` at the directive's file:line:col; nothing outside the
boundary is opened, listed or tested for existence, so no word of it reaches a message.
The rule itself is ``archmem.confinement.resolve_within``, which the paths configuration
names go through too.
"""

from __future__ import annotations

from pathlib import Path

from archmem.confinement import OutsideBoundary, resolve_within
from archmem.errors import ModelError, SourceLocation


def boundary(model_file: Path, repo_root: Path | None) -> Path:
    """The folder that everything ``model_file`` names must stay in (resolved)."""
    model = model_file.resolve()
    if repo_root is not None:
        root = repo_root.resolve()
        if model.is_relative_to(root):
            return root
    return model.parent


def confine(
    target: str | Path,
    *,
    base: Path,
    within: Path,
    what: str,
    location: SourceLocation | None,
    label: str | None = None,
) -> Path:
    """``target`` (relative to ``base``) resolved, if it stays at or below ``within``.

    ``what`` names the directive for the message (``!adrs``, ``workspace extends``) and
    ``label`` the boundary (default: ``the repository <within>``). Raises ``ModelError``
    at ``location`` otherwise, or when the path cannot be resolved at all (a symlink loop,
    a name the file system refuses).
    """
    written = str(target)
    if "\x00" in written or not written.strip():
        raise ModelError(f"{what}: {written!r} is not a path", location=location)
    try:
        return resolve_within(target, base=base, within=within)
    except OutsideBoundary:
        raise ModelError(
            f"{what} {written} points outside {label or f'the repository ({within.resolve()})'}",
            location=location,
            hint="a model may only name files inside the repository (symlinks are followed); "
            "copy what it needs into the repository",
        ) from None
    except (OSError, RuntimeError, ValueError) as exc:
        raise ModelError(f"{what} {written}: {exc}", location=location) from None


def is_inside(path: Path, within: Path) -> bool:
    """True when ``path``, symlinks followed, is at or below ``within``."""
    try:
        resolve_within(path, base=within, within=within)
    except (OutsideBoundary, OSError, RuntimeError, ValueError):
        return False
    return True

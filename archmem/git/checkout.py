"""The checkout's HEAD, branch, top folder and shallowness, read from the ``.git`` files.

Every recall asks these questions, and a ``git rev-parse`` process for each cost more
than the recall's own query. The answers are in a few small files: ``.git`` (a folder,
or a file naming the folder of a linked worktree), ``HEAD``, a loose ref or
``packed-refs``, and ``shallow``. Whenever the layout is not one of those plain ones (a
``GIT_*`` variable that moves the repository, reftable refs, a symbolic ref to a
symbolic ref, a ``.git`` owned by another user that git itself would refuse), ``read``
returns None and the caller asks git as before.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from archmem.values import Value

_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_BARE = re.compile(r"^\s*bare\s*=\s*true\s*$", re.MULTILINE | re.IGNORECASE)
_MOVED_BY = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
             "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_SHALLOW_FILE", "GIT_NAMESPACE",
             "GIT_REF_PARANOIA")
"""Variables that change where git looks or what it reads: with one set, git is asked."""


@dataclass(frozen=True, repr=False, eq=False)
class Checkout(Value):
    """What ``git rev-parse --show-toplevel``, ``HEAD^{commit}``, ``symbolic-ref --short
    HEAD`` and ``--is-shallow-repository`` would say."""

    top: Path
    head: str | None
    """The sha HEAD points at; None on a branch without commits."""
    branch: str | None
    """The checked-out branch's short name; None when HEAD is detached."""
    shallow: bool


def read(start: Path) -> Checkout | None:
    """The checkout holding ``start``, from its files; None when git must be asked."""
    if any(name in os.environ for name in _MOVED_BY):
        return None
    try:
        top = _top(Path(start).resolve())
        if top is None:
            return None
        git_dir = _git_dir(top)
        if git_dir is None:
            return None
        common = _common_dir(git_dir)
        if _BARE.search((common / "config").read_text(encoding="utf-8", errors="replace")):
            return None
        if (common / "reftable").exists() or (git_dir / "HEAD").is_symlink():
            return None
        head_text = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        if _SHA.fullmatch(head_text):
            return Checkout(top, head_text, None, (common / "shallow").exists())
        if not head_text.startswith("ref: refs/heads/"):
            return None
        ref = head_text[len("ref: "):]
        sha = _resolve(common, ref)
        if sha is None:
            return None
        return Checkout(top, sha or None, ref[len("refs/heads/"):], (common / "shallow").exists())
    except (OSError, UnicodeDecodeError):
        return None


def current_head(start: Path) -> str | None:
    """The commit HEAD points at (None: no commit yet, or not a git checkout): from the
    files, and from git itself only where the files' layout is not a plain one."""
    found = read(start)
    if found is not None:
        return found.head
    if not any((folder / ".git").exists() for folder in (start, *start.resolve().parents)):
        return None
    from archmem.errors import RepositoryError
    from archmem.git.commands import run_git

    try:
        result = run_git(start, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
    except RepositoryError:
        return None
    if result.returncode != 0:
        return None
    return result.stdout.decode().strip() or None


def index_file(start: Path) -> Path | None:
    """git's index file (the staging area) of the checkout holding ``start``; None when
    the layout is not a plain one (``read``)."""
    if any(name in os.environ for name in _MOVED_BY):
        return None
    try:
        top = _top(Path(start).resolve())
        git_dir = _git_dir(top) if top is not None else None
    except (OSError, UnicodeDecodeError):
        return None
    return git_dir / "index" if git_dir is not None else None


def _top(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (None: none, or one
    that belongs to another user, which git would refuse as dubious)."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    for folder in (start, *start.parents):
        marker = folder / ".git"
        try:
            found = marker.lstat()
        except FileNotFoundError:
            continue
        if uid is not None and found.st_uid != uid:
            return None
        return folder
    return None


def _git_dir(top: Path) -> Path | None:
    marker = top / ".git"
    if marker.is_dir() and not marker.is_symlink():
        return marker if (marker / "HEAD").is_file() else None
    if marker.is_file():
        text = marker.read_text(encoding="utf-8").strip()
        if not text.startswith("gitdir: "):
            return None
        folder = Path(text[len("gitdir: "):])
        folder = folder if folder.is_absolute() else (top / folder)
        return folder.resolve() if (folder / "HEAD").is_file() else None
    return None


def _common_dir(git_dir: Path) -> Path:
    """Where refs live: a linked worktree's ``commondir``, else its own folder."""
    pointer = git_dir / "commondir"
    if not pointer.is_file():
        return git_dir
    named = Path(pointer.read_text(encoding="utf-8").strip())
    return (named if named.is_absolute() else git_dir / named).resolve()


def _resolve(common: Path, ref: str) -> str | None:
    """A branch's sha: its loose file, else its ``packed-refs`` line; "" when it has no
    commit yet; None when the file says something else (git is asked)."""
    loose = common / ref
    if loose.is_file():
        text = loose.read_text(encoding="utf-8").strip()
        return text if _SHA.fullmatch(text) else None
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            sha, _, name = line.partition(" ")
            if name == ref:
                return sha if _SHA.fullmatch(sha) else None
    return ""

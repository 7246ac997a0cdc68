"""``git config``: read and set one key of the repository's (or the user's) git
configuration, for installing the merge driver of memory files."""

from __future__ import annotations

import subprocess
from pathlib import Path

from archmem.errors import RepositoryError


def config_get(key: str, *, cwd: Path, global_: bool = False) -> str | None:
    """The value of ``key`` in the repository's own config (or the user's with
    ``global_``), None when unset."""
    result = _run(["git", "config", "--global" if global_ else "--local", "--get", key], cwd)
    if result.returncode == 1:
        return None
    if result.returncode != 0:
        raise RepositoryError(f"git config --get {key} failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout.decode("utf-8", errors="replace").rstrip("\n")


def config_set(key: str, value: str, *, cwd: Path, global_: bool = False) -> None:
    result = _run(["git", "config", "--global" if global_ else "--local", key, value], cwd)
    if result.returncode != 0:
        raise RepositoryError(f"git config {key} failed: {result.stderr.decode(errors='replace').strip()}")


def _run(args: list[str], cwd: Path | None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(args, cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise RepositoryError("git is not installed") from None

"""``git merge-file``: the line-based three-way merge, with git's own conflict markers,
that the merge driver of memory files falls back to."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from archmem.errors import RepositoryError

LABELS = ("ours", "base", "theirs")


def merge_texts(base: str, ours: str, theirs: str, labels: tuple[str, str, str] = LABELS) -> tuple[str, bool]:
    """(merged text, conflicted) as ``git merge-file -p`` makes it: a clean line merge,
    or git-style ``<<<<<<<`` / ``=======`` / ``>>>>>>>`` markers where both sides changed."""
    with tempfile.TemporaryDirectory(prefix="archmem-merge-") as tmp:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(tmp) / name
            path.write_bytes(text.encode("utf-8", "surrogateescape"))
            paths.append(str(path))
        args = ["git", "merge-file", "-p", "-L", labels[0], "-L", labels[1], "-L", labels[2], *paths]
        result = _run(args, None)
    if result.returncode < 0 or result.returncode > 127:
        raise RepositoryError(f"git merge-file failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout.decode("utf-8", "surrogateescape"), result.returncode != 0


def _run(args: list[str], cwd: Path | None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(args, cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise RepositoryError("git is not installed") from None

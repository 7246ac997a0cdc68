"""A file's history line by line: which first-parent commit last changed each line
(``git blame``), what every commit changed in it, and its text at HEAD. Drift reads the
model file through it to know when the model last described each element."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from archmem.git.commands import run_git
from archmem.git.types import BlamedCommit

_NOT_COMMITTED = "0" * 40


class LineHistory:
    """Line histories of files in the git checkout at ``root`` (a sub-folder of the top
    level, or the top level itself); a file outside both has none."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def patches(self, path: Path) -> list[tuple[str, list[str], list[str]]]:
        """Each first-parent commit that changed ``path``, with the lines it removed and
        added (one ``git log -p -U0``): what the model file's history said, line by line."""
        located = self._locate(path)
        if located is None:
            return []
        relative, cwd = located
        result = self._git(
            "log", "--first-parent", "--format=%x1e%H", "-p", "-U0", "--no-color", "--no-ext-diff",
            "--no-textconv", "--", relative, check=False, cwd=cwd,
        )
        if result.returncode != 0:
            return []
        patches = []
        for chunk in result.stdout.decode("utf-8", errors="replace").split("\x1e")[1:]:
            sha, _, body = chunk.partition("\n")
            removed = [line[1:] for line in body.splitlines() if line.startswith("-") and not line.startswith("---")]
            added = [line[1:] for line in body.splitlines() if line.startswith("+") and not line.startswith("+++")]
            patches.append((sha.strip(), removed, added))
        return patches

    def _locate(self, path: Path) -> tuple[str, Path | None] | None:
        """(path relative to where git runs, that folder or None for the root) for a
        file in this repository or its git top level; None outside both."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix(), None
        except ValueError:
            top = self._git("rev-parse", "--show-toplevel").stdout.decode().strip()
            try:
                return path.resolve().relative_to(Path(top).resolve()).as_posix(), Path(top)
            except ValueError:
                return None

    def committed_text(self, path: Path) -> str | None:
        """``path`` as HEAD has it (None when HEAD does not track it)."""
        located = self._locate(path)
        if located is None:
            return None
        relative, cwd = located
        result = self._git("show", f"HEAD:./{relative}" if cwd is None else f"HEAD:{relative}", check=False,
                           cwd=cwd)
        return result.stdout.decode("utf-8", errors="replace") if result.returncode == 0 else None

    def blame(
        self, path: Path, *, ignore: Sequence[str] = (), revision: str | None = None
    ) -> list[BlamedCommit | None] | None:
        """The first-parent commit that last changed each line of ``path`` (one ``git
        blame --first-parent --porcelain``: a line merged from a branch is the merge's,
        when it reached this branch); None for lines not committed yet, and None for
        the whole file when git does not track it. Lines that the ``ignore`` commits
        changed are blamed on the commit before them (``git blame --ignore-rev``); lines
        they added stay theirs. ``revision``: the file as that commit has it, not the
        working tree's."""
        located = self._locate(path)
        if located is None:
            return None
        relative, cwd = located
        ignored = [arg for sha in ignore for arg in ("--ignore-rev", sha)]
        at = [revision] if revision else []
        result = self._git(
            "-c", "blame.ignoreRevsFile=", "blame", "--first-parent", "--porcelain", *ignored, *at, "--", relative,
            check=False, cwd=cwd,
        )
        if result.returncode != 0:
            return None
        return parse_blame(result.stdout.decode("utf-8", errors="replace"))

    def _git(self, *args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        return run_git(self.root, *args, check=check, cwd=cwd)


def parse_blame(porcelain: str) -> list[BlamedCommit | None]:
    """Per final line, its commit and committer time, from ``git blame --porcelain``."""
    commits: dict[str, BlamedCommit | None] = {}
    lines: list[BlamedCommit | None] = []
    current = ""
    for line in porcelain.splitlines():
        if line.startswith("\t"):
            lines.append(commits.get(current))
            continue
        head = line.split(" ", 1)
        if len(head[0]) == 40 and all(c in "0123456789abcdef" for c in head[0]):
            current = head[0]
            commits.setdefault(current, None)
        elif head[0] == "committer-time" and current != _NOT_COMMITTED:
            commits[current] = BlamedCommit(current, datetime.fromtimestamp(int(head[1]), tz=UTC))
    return lines

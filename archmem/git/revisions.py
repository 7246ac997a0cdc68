"""What git says between two revisions: their merge base, the files changed from one to
the other (with their line counts), a file's text at a revision, and diffs cut to a
number of lines. ``archmem pr`` reads a pull request through it; ``confirm`` and ``drift
accept`` show what changed since a moment.

Paths are relative to the workspace root (``--relative``), which may be a sub-folder of
the git top level, and come through ``-z`` verbatim. Options a user's git config could
change (colours, external diff, textconv, path quoting, rename detection) are pinned.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from archmem.errors import RepositoryError
from archmem.git.checkout import read as read_checkout
from archmem.values import Record, Value

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""Git's empty tree: the base to diff from when a moment precedes the whole history."""

_PINNED = ("-c", "core.quotePath=false", "-c", "diff.renames=true", "-c", "color.ui=false")
_DIFF = ("--no-ext-diff", "--no-textconv", "--no-color", "-M", "--relative")
_STATUS = {"A": "A", "C": "A", "D": "D", "M": "M", "R": "R", "T": "M"}


@dataclass(frozen=True, repr=False, eq=False)
class ChangedFile(Value):
    """One file of a diff: status A, M, D or R (``old_path`` for a rename), and its line
    counts (0 for a binary file)."""

    status: str
    path: str
    old_path: str | None = None
    added: int = 0
    deleted: int = 0

    @property
    def paths(self) -> tuple[str, ...]:
        """Both names of a renamed file, else its one name."""
        return (self.old_path, self.path) if self.old_path and self.old_path != self.path else (self.path,)


@dataclass(repr=False, eq=False)
class Bounded(Record):
    """Lines of git output cut to a maximum; ``omitted`` says how many were left out."""

    lines: list[str] = field(default_factory=list)
    omitted: int = 0

    def to_dict(self) -> dict[str, object]:
        return {"lines": self.lines, "omitted": self.omitted}


class Revisions:
    """Questions about revisions of the checkout at ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._changed: dict[tuple[str, str], list[ChangedFile]] = {}

    def _git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        try:
            result = subprocess.run(["git", *_PINNED, *args], cwd=self.root, capture_output=True, check=False)
        except FileNotFoundError:
            raise RepositoryError("git is not installed, but this folder is a git checkout") from None
        if check and result.returncode != 0:
            message = result.stderr.decode("utf-8", errors="replace").strip()
            raise RepositoryError(f"git {args[0]} failed in {self.root}: {message}")
        return result

    def resolve(self, rev: str) -> str:
        """The full sha of the commit ``rev`` names."""
        result = self._git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
        sha = result.stdout.decode().strip()
        if result.returncode != 0 or not sha:
            raise RepositoryError(
                f"unknown revision {rev!r} in {self.root}",
                hint="give a commit, tag or branch this clone has (git fetch origin REV first; "
                     "in GitHub Actions, actions/checkout with fetch-depth: 0)",
            )
        return sha

    def head(self) -> str | None:
        checkout = read_checkout(self.root)
        if checkout is not None:
            return checkout.head
        result = self._git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
        return result.stdout.decode().strip() or None if result.returncode == 0 else None

    def is_shallow(self) -> bool:
        return self._git("rev-parse", "--is-shallow-repository").stdout.decode().strip() == "true"

    def is_ancestor(self, ancestor: str, rev: str) -> bool:
        """Is ``ancestor`` reachable from ``rev`` (or the same commit)?"""
        return self._git("merge-base", "--is-ancestor", ancestor, rev, check=False).returncode == 0

    def descendants(self, commit: str, head: str) -> set[str] | None:
        """The commits of ``head``'s history that descend from ``commit``
        (``--ancestry-path``: empty when ``commit`` is not in that history); None when
        this clone does not have ``commit`` (a shallow clone, a commit rebased away)."""
        result = self._git("rev-list", "--ancestry-path", f"{commit}..{head}", check=False)
        if result.returncode != 0:
            return None
        return set(result.stdout.decode().split())

    def first_parent_at(self, moment: datetime) -> str | None:
        """The newest first-parent commit of HEAD committed at or before ``moment``
        (None: none was, or there is no commit)."""
        if self.head() is None:
            return None
        result = self._git("rev-list", "-1", "--first-parent", f"--before=@{int(moment.timestamp())}", "HEAD",
                           check=False)
        return result.stdout.decode().strip() or None if result.returncode == 0 else None

    def merge_base(self, a: str, b: str) -> str:
        """Where ``b`` forked from ``a``: the base of the three-dot diff ``a...b``."""
        result = self._git("merge-base", a, b, check=False)
        sha = result.stdout.decode().split()
        if result.returncode != 0 or not sha:
            raise RepositoryError(
                f"{a[:12]} and {b[:12]} have no common ancestor in {self.root}",
                hint="a shallow clone lacks it: fetch the full history (actions/checkout with fetch-depth: 0)",
            )
        return sha[0]

    def commits_between(self, base: str, head: str) -> set[str]:
        """Every commit reachable from ``head`` and not from ``base`` (``base..head``)."""
        return set(self._git("rev-list", f"{base}..{head}").stdout.decode().split())

    def default_branch(self) -> str | None:
        """The branch a change is usually reviewed against: ``origin/HEAD`` when the clone
        knows it, else ``main``, ``origin/main``, ``master`` or ``origin/master``."""
        found = self._git("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD", check=False)
        if found.returncode == 0 and found.stdout.strip():
            return found.stdout.decode().strip()
        for name in ("main", "origin/main", "master", "origin/master"):
            if self._git("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}", check=False).returncode == 0:
                return name
        return None

    def changed_files(self, base: str, head: str) -> list[ChangedFile]:
        """The files ``git diff base head`` changes, with added and deleted lines
        (whitespace-only changes count 0, as drift counts them). Asked once per pair: the
        memories to verify of one review often share their base."""
        if (base, head) in self._changed:
            return self._changed[(base, head)]
        names = self._git("diff", "--name-status", "-z", *_DIFF, base, head, "--").stdout
        numbers = self._git("diff", "--numstat", "-z", "-w", *_DIFF, base, head, "--").stdout
        counts = _parse_numstat(numbers.decode("utf-8", errors="surrogateescape"))
        found = []
        for status, path, source in _parse_name_status(names.decode("utf-8", errors="surrogateescape")):
            added, deleted = counts.get((source, path), counts.get((None, path), (0, 0)))
            found.append(ChangedFile(status, path, source if status == "R" else None, added, deleted))
        self._changed[(base, head)] = found
        return found

    def changed_lines(
        self, base: str, head: str, paths: list[str] | None = None
    ) -> dict[str, list[tuple[int, int]]]:
        """File at head (of ``paths``, default all) → the line ranges (first, last; 1-based)
        its hunks of ``git diff base head`` cover; a hunk that only deletes marks the line
        before the cut. Deleted files are left out: no line of them is left to point at."""
        if paths is not None and not paths:
            return {}
        named = paths is not None and len(paths) <= _MAX_PATHSPECS  # else the whole diff, filtered (ARG_MAX)
        out = self._git("diff", "-U0", "--src-prefix=a/", "--dst-prefix=b/", *_DIFF, base, head, "--",
                        *(_literal(paths or []) if named else [])).stdout
        found: dict[str, list[tuple[int, int]]] = {}
        ranges: list[tuple[int, int]] | None = None
        for raw in out.split(b"\n"):
            if raw.startswith(b"+++ "):
                name = _diff_path(raw[4:])
                ranges = found.setdefault(name[2:], []) if name is not None and name.startswith("b/") else None
            elif raw.startswith(b"@@ ") and ranges is not None:
                hunk = _HUNK.match(raw)
                if hunk:
                    start, count = int(hunk[1]), int(hunk[2] if hunk[2] is not None else 1)
                    ranges.append((max(start, 1), max(start, 1)) if count == 0 else (start, start + count - 1))
        if paths is not None and not named:
            wanted = set(paths)
            found = {path: ranges for path, ranges in found.items() if path in wanted}
        return found

    def last_commits(self, folder: str, *, head: str | None = None) -> dict[str, str]:
        """File below ``folder`` → the newest first-parent commit of ``head`` (HEAD when
        not given, and nothing when there are no commits) that changed it (one ``git log``
        for the whole folder)."""
        if head is None and self.head() is None:
            return {}
        out = self._git("log", "--first-parent", "--no-renames", "--relative", "--format=%x1e%H", "--name-only",
                        "-z", head or "HEAD", "--", folder).stdout.decode("utf-8", errors="surrogateescape")
        found: dict[str, str] = {}
        for record in out.split("\x1e")[1:]:  # sha NUL (LF path NUL)...: the newest commit first
            sha, *names = record.split("\0")
            for name in names:
                name = name.lstrip("\n")
                if name:
                    found.setdefault(name, sha.strip())
        return found

    def show(self, rev: str, path: str) -> str | None:
        """The text of ``path`` at ``rev`` (None when it is not there)."""
        result = self._git("show", f"{rev}:./{path}", check=False)
        if result.returncode != 0:
            return None
        return result.stdout.decode("utf-8", errors="replace")

    def diff_stat(self, base: str, head: str, paths: list[str], *, max_lines: int) -> Bounded:
        """``git diff --stat`` over exactly ``paths``, cut to ``max_lines`` file lines (the
        summary line is always kept)."""
        if not paths:
            return Bounded()
        out = self._git("diff", "--stat=100", "--stat-graph-width=30", *_DIFF, base, head, "--", *_literal(paths)).stdout
        lines = out.decode("utf-8", errors="replace").splitlines()
        files, summary = lines[:-1], lines[-1:]
        if len(files) <= max_lines:
            return Bounded(files + summary)
        return Bounded(files[:max_lines] + summary, len(files) - max_lines)

    def unified_zero_diff(self, base: str, head: str, path: str) -> str:
        """One file's diff between two revisions without context lines, whitespace
        ignored (``-U0 -w``): exactly which lines changed, for a symbol's anchor."""
        result = self._git("diff", "-U0", "-w", "--relative", base, head, "--", path, check=False)
        if result.returncode != 0:
            raise RepositoryError(f"git diff failed for {path}: {result.stderr.decode(errors='replace').strip()}")
        return result.stdout.decode("utf-8", errors="replace")

    def diff(self, base: str, head: str, paths: list[str], *, max_lines: int) -> Bounded:
        """The unified diff of ``paths``, cut to ``max_lines`` lines."""
        if not paths:
            return Bounded()
        out = self._git("diff", "-U3", *_DIFF, base, head, "--", *_literal(paths)).stdout
        lines = out.decode("utf-8", errors="replace").splitlines()
        if len(lines) <= max_lines:
            return Bounded(lines)
        return Bounded(lines[:max_lines], len(lines) - max_lines)


_MAX_PATHSPECS = 1000
_HUNK = re.compile(rb"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def _diff_path(raw: bytes) -> str | None:
    """The path of a ``+++`` line: verbatim, or C-quoted (``"b/tab\\there"``, octal bytes)
    when it holds a quote, a backslash or a control character; None for /dev/null."""
    raw = raw.rstrip(b"\r").removesuffix(b"\t")  # git ends a name holding a space with a tab
    if raw == b"/dev/null":
        return None
    if not raw.startswith(b'"'):
        return raw.decode("utf-8", errors="surrogateescape")
    body, out, i = raw[1:-1], bytearray(), 0
    while i < len(body):
        if body[i:i + 1] == b"\\" and i + 1 < len(body):
            octal = body[i + 1:i + 4]
            if len(octal) == 3 and all(48 <= c <= 55 for c in octal):
                out.append(int(octal, 8))
                i += 4
                continue
            out.append(_ESCAPES.get(body[i + 1:i + 2], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return out.decode("utf-8", errors="surrogateescape")


def _literal(paths: list[str]) -> list[str]:
    """Pathspecs that mean exactly these files (no glob, no magic in a name)."""
    return [f":(literal){path}" for path in dict.fromkeys(paths)]


def _parse_name_status(text: str) -> list[tuple[str, str, str | None]]:
    """``M\\0path\\0R087\\0old\\0new\\0`` → (status, path, the source of a rename or copy)."""
    parts = text.split("\0")
    found: list[tuple[str, str, str | None]] = []
    i = 0
    while i < len(parts) and parts[i]:
        letter = _STATUS.get(parts[i][:1], "M")
        if parts[i][:1] in ("R", "C"):
            old, new = parts[i + 1], parts[i + 2]
            found.append((letter, new, old))
            i += 3
        else:
            found.append((letter, parts[i + 1], None))
            i += 2
    return found


def _parse_numstat(text: str) -> dict[tuple[str | None, str], tuple[int, int]]:
    """``added\\tdeleted\\tpath\\0`` (a rename: ``added\\tdeleted\\t\\0old\\0new\\0``) →
    {(old path or None, path): (added, deleted)}; binary files count 0."""
    parts = text.split("\0")
    counts: dict[tuple[str | None, str], tuple[int, int]] = {}
    i = 0
    while i < len(parts) and parts[i]:
        added, deleted, path = parts[i].split("\t", 2)
        numbers = (int(added) if added.isdigit() else 0, int(deleted) if deleted.isdigit() else 0)
        if path:
            counts[(None, path)] = numbers
            i += 1
        else:
            counts[(parts[i + 1], parts[i + 2])] = numbers
            i += 3
    return counts

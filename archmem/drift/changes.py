"""What changed under a memory or an element since a moment: the ``git diff --stat`` of
its elements' files and the diff of its anchors, both bounded. ``confirm`` shows it
before it clears a VERIFY flag, ``drift accept`` before it resets an element's baseline,
and ``archmem pr`` beside each memory to verify: vouching for a memory means having seen
what moved under it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from archmem.clock import format_time
from archmem.git.revisions import EMPTY_TREE, Bounded, Revisions
from archmem.values import Record

MAX_STAT_LINES = 20
MAX_DIFF_LINES = 80


@dataclass(repr=False, eq=False)
class ChangesSince(Record):
    """The code under a memory (or an element) from ``base`` (the last commit at or
    before ``since``; the empty tree when ``since`` precedes the history) to ``head``."""

    since: datetime
    base: str
    head: str
    files: list[str] = field(default_factory=list)
    stat: Bounded = field(default_factory=Bounded)
    diff: Bounded = field(default_factory=Bounded)
    """The anchors' diff (an element has none)."""

    @property
    def empty(self) -> bool:
        return not self.files

    def to_dict(self) -> dict[str, Any]:
        return {
            "since": format_time(self.since),
            "base": None if self.base == EMPTY_TREE else self.base,
            "head": self.head,
            "files": self.files,
            "stat": self.stat.to_dict(),
            "anchor_diff": self.diff.to_dict(),
        }

    def text(self) -> str:
        """For a terminal or an MCP answer: the stat, then the anchors' diff."""
        base = "the start of the history" if self.base == EMPTY_TREE else self.base[:7]
        if self.empty:
            return f"no change to its code since {format_time(self.since)[:10]} ({base})"
        out = [f"changed since {format_time(self.since)[:10]} ({base}..{self.head[:7]}):", *self.stat.lines]
        if self.stat.omitted:
            out.insert(len(out) - 1, f" … and {self.stat.omitted} more files")
        if self.diff.lines:
            out += ["", *self.diff.lines]
            if self.diff.omitted:
                out.append(f"… {self.diff.omitted} more lines (git diff {self.base[:12]} {self.head[:12]})")
        return "\n".join(out)


def changes_since(
    revisions: Revisions,
    *,
    since: datetime,
    base: str | None,
    head: str,
    owners: Callable[[str], Sequence[str]],
    elements: Sequence[str],
    anchors: Sequence[str] = (),
    max_stat: int = MAX_STAT_LINES,
    max_diff: int = MAX_DIFF_LINES,
) -> ChangesSince:
    """The changes from ``base`` (None: before the history) to ``head`` in the files
    ``owners`` gives to one of ``elements`` (drift's own ownership, ignore globs
    applied) and in the anchors' files."""
    start = base or EMPTY_TREE
    wanted = set(elements)
    anchor_paths = list(dict.fromkeys(anchor.partition("#")[0] for anchor in anchors))
    files: list[str] = []
    stat_paths: list[str] = []
    for change in revisions.changed_files(start, head):
        if any(path in anchor_paths or wanted.intersection(owners(path)) for path in change.paths):
            files.append(change.path)
            stat_paths.extend(change.paths)
    touched_anchors = [path for path in anchor_paths if path in stat_paths]
    return ChangesSince(
        since=since, base=start, head=head, files=files,
        stat=revisions.diff_stat(start, head, stat_paths, max_lines=max_stat),
        diff=revisions.diff(start, head, touched_anchors, max_lines=max_diff) if max_diff > 0 else Bounded(),
    )

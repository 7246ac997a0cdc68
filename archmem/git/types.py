"""What git says, as values: commits of the first-parent history with their file
changes, and the commit blame names for a line. The drift domain computes over them;
the git adapter produces them; the history cache stores them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, NamedTuple

from archmem.values import Value

ChangeStatus = Literal["A", "D", "M", "R"]
"""Added, deleted, modified, renamed (``old_path`` → ``path``)."""


@dataclass(frozen=True, repr=False, eq=False)
class FileChange(Value):
    """One file in one commit: lines added and deleted (whitespace-only changes
    ignored), and what happened to the file. Binary files count 0 lines."""

    path: str
    added: int
    deleted: int
    status: ChangeStatus = "M"
    old_path: str | None = None

    @property
    def churn(self) -> int:
        return self.added + self.deleted


@dataclass(frozen=True, repr=False, eq=False)
class Commit(Value):
    """A commit of the first-parent history, oldest to newest in a scan.

    ``time`` is the committer time (UTC): it says when the change reached the branch.
    """

    sha: str
    time: datetime
    author: str
    parents: tuple[str, ...] = ()
    changes: tuple[FileChange, ...] = ()


class BlamedCommit(NamedTuple):
    """A commit as blame and ``rev-parse`` name it: its sha and committer time."""

    sha: str
    time: datetime


@dataclass(frozen=True, repr=False, eq=False)
class HeadState(Value):
    """HEAD as one scan sees it, from one question to git: the commit it points at (None
    in a repository without commits), the branch checked out (None when detached) and
    whether the clone is shallow."""

    head: str | None
    branch: str | None
    shallow: bool

"""Memory staleness: which memories to VERIFY, and why, in one line of words.

A memory is VERIFY when an attached element drifted after it was last confirmed
(``confirmed_at``, else ``created_at``), when an attached element's code is gone since,
or when one of its anchors changed since: a change to whitespace, blank lines or
comments only is not a change a memory could be wrong about. Confirming it moves the time forward, and so
clears the flag: confirming answers the question drift asked.

"Since" is a place in history: the first commit after that time, or, when the commit
that last changed the memory's file is later and also changed the memory's code, the
commit after that one. A memory written at 9:00 and committed at 12:00 with the code it
describes was written against that code (it is reviewed in the pull request that
changes it): the commit that brings both is not a change after it. A commit of memory
files alone (a bulk move, a reformat) never clears a flag.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import Any, NamedTuple

from archmem.clock import age_in_words
from archmem.drift.index import DriftIndex, FileActivity, whole_limits
from archmem.drift.symbols import Hunk, substantive, symbol_changed, symbol_range
from archmem.drift.types import Baseline, DriftStamp, ElementSize, Thresholds
from archmem.memory.types import Memory
from archmem.model.types import ArchitectureModel

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""Git's empty tree: the base to diff from when a memory predates the whole history."""

AnchorHunks = Callable[[str, str], list[Hunk]]
"""(path, base commit) → the hunks of ``git diff -U0 <base> HEAD -- path``."""
FileText = Callable[[str], "str | None"]
"""path → its text at HEAD, or ``None`` when it is gone."""
MemoryCommit = Callable[[Memory], "int | None"]
"""memory → the index in history of the commit that last changed its file, or ``None``."""

_NO_SIZE = ElementSize(files=0, lines=0)
_SYMBOL_CHANGED = "symbol"
_Cause = DriftStamp | tuple[int, int]
"""Why an element makes a memory VERIFY: the stamp of its code's removal, or the
(first, crossing) entries of its drift."""
MemoryScope = tuple[str, str, tuple[str, ...], tuple[str, ...], "str | None"]
"""A memory's id and what its staleness depends on, as the store keeps it: when it was
last confirmed (``format_time`` text), its elements, its anchors, and its file."""


class Staleness(NamedTuple):
    """Why a memory needs verifying: the one-line reason and the stamp of its first
    cause (for an anchor, ``element`` is the anchor and the stamp its last change)."""

    reason: str
    stamp: DriftStamp


def memory_verify(memory: Memory, **checker: Any) -> str | None:
    """The VERIFY reason for one memory, or ``None`` when nothing moved since
    (``checker``: the keyword arguments of ``StalenessChecker``)."""
    return StalenessChecker(**checker).reason(memory)


def memory_staleness(memory: Memory, **checker: Any) -> Staleness | None:
    """(reason, stamp) for one memory, or ``None`` when nothing moved since."""
    return StalenessChecker(**checker).staleness(memory)


def stale_memories(memories: Iterable[Memory], **checker: Any) -> dict[str, Staleness]:
    """Memory id → (reason, stamp) for every memory that needs verifying."""
    return StalenessChecker(**checker).stale(memories)


class StalenessChecker:
    """What every question of one batch shares; each element's limits are worked out
    once, and only the first cause of a memory is put into words."""

    def __init__(
        self,
        *,
        index: DriftIndex,
        model: ArchitectureModel | None,
        sizes: Mapping[str, ElementSize],
        thresholds: Thresholds,
        now: datetime,
        anchor_hunks: AnchorHunks | None = None,
        file_text: FileText | None = None,
        missing: Iterable[str] = frozenset(),
        memory_commit: MemoryCommit | None = None,
    ) -> None:
        self.index, self.model, self.sizes, self.thresholds, self.now = index, model, sizes, thresholds, now
        self.anchor_hunks, self.file_text, self.memory_commit = anchor_hunks, file_text, memory_commit
        self.missing = missing if isinstance(missing, AbstractSet) else frozenset(missing)
        self._limits: dict[str, tuple[int, int]] = {}
        self._causes: dict[tuple[str, int], _Cause | None] = {}
        self._anchor_causes: dict[tuple[str, int], tuple[FileActivity, str] | None] = {}

    def reason(self, memory: Memory) -> str | None:
        found = self.staleness(memory)
        return found.reason if found else None

    def stale(self, memories: Iterable[Memory]) -> dict[str, Staleness]:
        result: dict[str, Staleness] = {}
        for memory in memories:
            found = self.staleness(memory)
            if found is not None:
                result[memory.id] = found
        return result

    def limits(self, element_id: str) -> tuple[int, int]:
        found = self._limits.get(element_id)
        if found is None:
            found = self._limits[element_id] = whole_limits(self.thresholds, self.sizes.get(element_id, _NO_SIZE))
        return found

    def position(self, memory: Memory) -> int:
        """Where the changes that count against a memory start (see the module doc)."""
        last = self.memory_commit(memory) if self.memory_commit is not None else None
        return self._after_file_commit(self.index.position(memory.last_confirmed), last, memory.elements,
                                       memory.anchors)

    def _after_file_commit(
        self, position: int, last: int | None, elements: Sequence[str], anchors: Sequence[str]
    ) -> int:
        """``position``, or just after ``last`` (the commit that last changed the memory's
        file) when that commit is later and changed the memory's code too."""
        if last is not None and last >= position and self.index.commit_touches(
                last, elements, [anchor.partition("#")[0] for anchor in anchors]):
            return last + 1
        return position

    def stale_ids(self, scopes: Iterable[MemoryScope], file_commits: Mapping[str, int]) -> list[str]:
        """The ids of the memories ``scopes`` describe that are VERIFY (``file_commits``:
        file → the place in history of the commit that last changed it): the verdicts of
        ``staleness``, none put into words, each worked out once per place in history,
        elements and anchors (what ``status`` and the map need of thousands of memories)."""
        position_at, commit_of, found = self.index.position_at, file_commits.get, []
        newest = max(file_commits.values(), default=-1)  # a memory placed after it has no file commit to weigh
        moved: dict[tuple[int, int, tuple[str, ...], tuple[str, ...]], int] = {}
        verdicts: dict[tuple[int, tuple[str, ...], tuple[str, ...]], bool] = {}
        for memory_id, since, elements, anchors, path in scopes:
            position = position_at(since)
            last = commit_of(path) if path is not None and position <= newest else None
            if last is not None and last >= position:
                key = (position, last, elements, anchors)
                after = moved.get(key)
                if after is None:
                    after = moved[key] = self._after_file_commit(position, last, elements, anchors)
                position = after
            verdict = verdicts.get((position, elements, anchors))
            if verdict is None:
                verdict = verdicts[position, elements, anchors] = any(
                    self._element_cause(e, position) is not None for e in elements) or any(
                    self._anchor_cause(a, position) is not None for a in anchors)
            if verdict:
                found.append(memory_id)
        return found

    def anchor_changed(self, anchor: str, position: int) -> tuple[FileActivity, str] | None:
        """(activity, how) when the anchor changed since: any commit to a plain anchor;
        for ``path#Symbol`` a hunk on the symbol's lines (``how`` is then
        ``_SYMBOL_CHANGED``), or any commit when the symbol cannot be checked (``how``
        says why the whole file counts)."""
        path, _, symbol = anchor.partition("#")
        activity = self.index.activity(path, position)
        if not activity.commits:
            return None
        if not symbol:
            if self.anchor_hunks is not None and self.file_text is not None and self.file_text(path) is not None:
                base = self.index.shas[position - 1] if position else EMPTY_TREE
                if not substantive(self.anchor_hunks(path, base), path):
                    return None  # only whitespace, blank lines or comments moved
            return activity, ""
        text = self.file_text(path) if self.file_text is not None else None
        lines = symbol_range(text, path, symbol) if text is not None else None
        if text is None and self.file_text is not None:
            return activity, "its file is gone"
        if lines is None and text is not None:
            return activity, f"{symbol} was not found there, so the whole file counts"
        if lines is None or self.anchor_hunks is None:
            return activity, f"{symbol} could not be checked, so the whole file counts"
        base = self.index.shas[position - 1] if position else EMPTY_TREE
        if symbol_changed(substantive(self.anchor_hunks(path, base), path), lines):
            return activity, _SYMBOL_CHANGED
        return None

    def staleness(self, memory: Memory) -> Staleness | None:
        """Every cause, elements first (in the memory's order), then anchors; the first
        one is told, the others counted: ``… (and 2 more)``."""
        since = memory.last_confirmed
        verb = "confirmed" if memory.confirmed_at is not None else "written"
        index, first, more = self.index, None, 0
        position = self.position(memory)
        for element_id in memory.elements:
            cause = self._element_cause(element_id, position)
            if cause is None:
                continue
            if first is not None:
                more += 1
            elif isinstance(cause, DriftStamp):  # its code is gone
                name, age = _display_name(self.model, element_id), age_in_words(cause.time, self.now)
                reason = f"{name}'s code is gone: its last file was removed {age} ({cause.commit[:7]})"
                first = Staleness(reason, cause)
            else:
                stamp = index.stamp(element_id, *cause, since=since)
                name = _display_name(self.model, element_id)
                first = Staleness(_drift_reason(name, verb, stamp, self.limits(element_id)[0], self.now), stamp)
        for anchor in memory.anchors:
            changed = self._anchor_cause(anchor, position)
            if changed is None:
                continue
            if first is None:
                first = _anchor_words(anchor, *changed, since=since, verb=verb, now=self.now)
            else:
                more += 1
        if first is not None and more:
            return Staleness(f"{first.reason} (and {more} more)", first.stamp)
        return first


    def _element_cause(self, element_id: str, position: int) -> _Cause | None:
        """Why an element makes a memory VERIFY from ``position``: the stamp of the commit
        that removed its last file, or the entries of its drift (``DriftIndex.crossing``)."""
        key = (element_id, position)
        if key in self._causes:
            return self._causes[key]
        index = self.index
        cause: _Cause | None = None
        if element_id in self.missing:
            stamp = index.missing(element_id)
            if stamp is not None and index.position(Baseline(stamp.commit, stamp.time)) > position:
                cause = stamp
        else:
            cause = index.crossing(element_id, position, *self.limits(element_id))
        self._causes[key] = cause
        return cause

    def _anchor_cause(self, anchor: str, position: int) -> tuple[FileActivity, str] | None:
        key = (anchor, position)
        if key not in self._anchor_causes:
            self._anchor_causes[key] = self.anchor_changed(anchor, position)
        return self._anchor_causes[key]


def _drift_reason(name: str, verb: str, stamp: DriftStamp, churn_limit: int, now: datetime) -> str:
    """``ApiGateway drifted since this was confirmed: 412 lines in 9 commits, last 3
    days ago (a1b2c3d)``; file events are named when they, not the lines, crossed."""
    moved = f"{_count(stamp.lines, 'line')} in {_count(stamp.commits, 'commit')}"
    if stamp.lines < churn_limit:
        moved = f"{_count(stamp.file_events, 'file')} added, removed or moved, {moved}"
    age = age_in_words(stamp.time, now)
    return f"{name} drifted since this was {verb}: {moved}, last {age} ({stamp.commit[:7]})"


def _anchor_words(
    anchor: str, activity: FileActivity, how: str, *, since: datetime, verb: str, now: datetime
) -> Staleness:
    """``services/gateway/router.go changed since this was confirmed: 3 commits, last 2
    days ago (a1b2c3d)``; for ``path#Symbol`` the symbol, or why the whole file counted."""
    assert activity.last_commit is not None and activity.last_time is not None
    stamp = DriftStamp(
        element=anchor,
        commit=activity.last_commit,
        time=activity.last_time,
        lines=activity.lines,
        files=1,
        commits=activity.commits,
        file_events=0,
        since=since,
    )
    path = anchor.partition("#")[0]
    commits = _count(activity.commits, "commit")
    last = f"last {age_in_words(activity.last_time, now)} ({activity.last_commit[:7]})"
    if how == _SYMBOL_CHANGED:
        return Staleness(f"{anchor} changed since this was {verb}: {commits} to its file, {last}", stamp)
    because = f" ({how})" if how else ""
    return Staleness(f"{path} changed since this was {verb}{because}: {commits}, {last}", stamp)


def _display_name(model: ArchitectureModel | None, element_id: str) -> str:
    element = model.get(element_id) if model is not None else None
    return element.name if element is not None and element.name else element_id


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"

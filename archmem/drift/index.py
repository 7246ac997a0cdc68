"""The drift index: per-element prefix sums over history, so ``drift(element, since)``
is two binary searches instead of a walk over every commit after ``since``.

Built once per scan from the commit list (oldest first). For each element it keeps the
commits that touched its code, in history order, with cumulative churn and file events;
for each changed path, the commits that touched it (for memory anchors). Ignored files
(lock files, generated code) are not part of any element, as in ``compute_ownership``.

Order: from a ``Baseline`` (element drift: the commit that described the element), the
commits after it in the first-parent history count, whatever their dates: many commits
share a second, and clocks are skewed. From a time (memory staleness: ``confirmed_at``
is a wall-clock moment), a commit counts when its committer time is later; history order
is kept, so a clock-skewed commit dated before its parent is given its parent's time (a
running maximum). With an honest clock that is the committer time itself.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from itertools import accumulate
from math import ceil
from typing import TYPE_CHECKING, NamedTuple

from archmem.clock import format_time, parse_time
from archmem.drift.types import Baseline, DriftStamp, ElementSize, Thresholds
from archmem.git.types import Commit, FileChange
from archmem.model.paths import compile_globs, has_wildcard, is_negated

if TYPE_CHECKING:
    import numpy as np

_TIME_TEXT = len("2026-01-01T00:00:00.000000Z")
_ADDED = frozenset({"A", "C"})
_NUMPY_FROM = 96
"""Ranges of file occurrences longer than this are counted with numpy (imported only
then: it is a heavy import for a CLI), shorter ones in Python."""


def timestamp(moment: datetime) -> float:
    """Seconds since the epoch; a naive time is taken as UTC (as ``clock.parse_time``)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def whole_limits(thresholds: Thresholds, size: ElementSize) -> tuple[int, int]:
    """The threshold as whole numbers: a count reaches 20.5 exactly when it reaches 21."""
    return ceil(thresholds.churn_limit(size)), ceil(thresholds.events_limit(size))


class FileActivity(NamedTuple):
    """How one file (or folder) changed after a time: unpacks as (commits, sha, time)."""

    commits: int
    last_commit: str | None
    last_time: datetime | None
    lines: int = 0


class _Series:
    """One element's touching commits as parallel lists (entry j = the j-th commit).

    After ``finish``: ``churn`` and ``events`` are prefix sums with a leading 0
    (``churn[k]`` = lines of entries before k, so entries ``s..e`` changed
    ``churn[e + 1] - churn[s]``); ``occ_prev[p]`` is, for
    the p-th file occurrence, the entry where the same file last appeared before (-1 if
    never). Entries ``s..k`` hold exactly the occurrences ``occ_off[s]:occ_off[k+1]``,
    and the distinct files among them are those whose previous appearance is before ``s``.
    """

    __slots__ = ("churn", "commit", "delta", "events", "occ_off", "occ_prev", "paths", "prev_array")

    def __init__(self) -> None:
        self.commit: list[int] = []
        self.churn: list[int] = []
        self.events: list[int] = []
        self.delta: list[int] = []
        self.paths: list[str] = []
        self.occ_off: list[int] = []
        self.occ_prev: list[int] = []
        self.prev_array: np.ndarray | None = None

    def count(self, ci: int, path: str, churn: int, events: int, delta: int) -> None:
        """One file change of commit ``ci``: a new entry, or added to this commit's."""
        if self.commit and self.commit[-1] == ci:
            self.churn[-1] += churn
            self.events[-1] += events
            self.delta[-1] += delta
        else:  # raw counts per entry until ``finish``
            self.commit.append(ci)
            self.churn.append(churn)
            self.events.append(events)
            self.delta.append(delta)
            self.occ_off.append(len(self.paths))
        self.paths.append(path)

    def finish(self) -> None:
        """Prefix sums, and each file occurrence's previous entry."""
        self.churn = list(accumulate(self.churn, initial=0))
        self.events = list(accumulate(self.events, initial=0))
        self.occ_off.append(len(self.paths))
        off, prev = self.occ_off, self.occ_prev
        last: dict[str, int] = {}
        entries = [j for j in range(len(self.commit)) for _ in range(off[j + 1] - off[j])]
        for path, j in zip(self.paths, entries, strict=True):
            prev.append(last.get(path, -1))
            last[path] = j
        self.paths = []

    def distinct_files(self, start: int, end: int) -> int:
        """Distinct files touched by entries ``start..end`` (inclusive)."""
        a, b = self.occ_off[start], self.occ_off[end + 1]
        if b - a <= _NUMPY_FROM:
            return len([p for p in self.occ_prev[a:b] if p < start])
        import numpy as np

        if self.prev_array is None:
            self.prev_array = np.asarray(self.occ_prev, dtype=np.int64)
        return int(np.count_nonzero(self.prev_array[a:b] < start))


class _FileSeries:
    """The commits that touched one path, with cumulative churn after ``finish``."""

    __slots__ = ("churn", "commit")

    def __init__(self) -> None:
        self.commit: list[int] = []
        self.churn: list[int] = []

    def record(self, ci: int, churn: int) -> None:
        if self.commit and self.commit[-1] == ci:
            self.churn[-1] += churn
        else:
            self.commit.append(ci)
            self.churn.append(churn)

    def finish(self) -> None:
        self.churn = list(accumulate(self.churn))


class _Moments:
    """Commit times as kept in a saved index (ISO text, each commit's own offset), made a
    ``datetime`` only when a stamp shows one."""

    __slots__ = ("_made", "texts")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self._made: dict[int, datetime] = {}

    def __getitem__(self, position: int) -> datetime:
        found = self._made.get(position)
        if found is None:
            found = self._made[position] = datetime.fromisoformat(self.texts[position])
        return found

    def __len__(self) -> int:
        return len(self.texts)


class _PathOwners:
    """Which elements own a path: each glob is tried only on paths under its literal
    prefix (``src/api/**`` → ``src/api``), and each distinct path is matched once."""

    def __init__(
        self, element_paths: Mapping[str, Sequence[str]], ignore: Sequence[str], ignore_files: Collection[str] = ()
    ) -> None:
        grouped: dict[str, dict[str, list[str]]] = {}
        for element_id, globs in element_paths.items():
            negations = any(is_negated(glob) for glob in globs)
            for glob in globs:
                if is_negated(glob):
                    continue
                # with a negation, every prefix tries the whole list: what it takes away is decided there
                members = grouped.setdefault(_literal_prefix(glob), {})
                if negations:
                    members[element_id] = list(globs)
                else:
                    members.setdefault(element_id, []).append(glob)
        self._by_prefix: dict[str, list[tuple[str, Callable[[str], bool]]]] = {
            prefix: [(eid, compile_globs(globs)) for eid, globs in members.items()]
            for prefix, members in grouped.items()
        }
        self._ignored = compile_globs(list(ignore))
        self._ignored_files = ignore_files
        self._cache: dict[str, tuple[str, ...]] = {}

    def __call__(self, path: str) -> tuple[str, ...]:
        found = self._cache.get(path)
        if found is None:
            found = self._cache[path] = self._match(path)
        return found

    def _match(self, path: str) -> tuple[str, ...]:
        if self._ignored(path) or path in self._ignored_files:
            return ()
        owners: list[str] = []
        parts = path.split("/")
        for depth in range(len(parts) + 1):
            for element_id, matches in self._by_prefix.get("/".join(parts[:depth]), ()):
                if element_id not in owners and matches(path):
                    owners.append(element_id)
        return tuple(owners)


def _literal_prefix(glob: str) -> str:
    """The folders of a glob before its first wildcard; a plain path is its own prefix."""
    if not has_wildcard(glob):
        return glob
    literal: list[str] = []
    for part in glob.split("/"):
        if has_wildcard(part):
            break
        literal.append(part)
    return "/".join(literal)


class DriftIndex:
    """Answers drift, missing-code and anchor questions for one history, each in
    O(log n) plus the distinct-file count of the range it reports.

    ``position(since)`` turns a time into a place in history once; ``crossing`` finds
    where the threshold is crossed from there; ``stamp`` describes it. ``drift`` is the
    three in a row; batch callers (staleness) reuse the position and the limits.
    """

    def __init__(self) -> None:
        self.shas: list[str] = []
        self.times: list[float] = []
        """Committer times as seconds, made non-decreasing (a running maximum)."""
        self._moments: list[datetime] | _Moments = []
        self._ordinals: dict[str, int] | None = None
        self._time_texts: list[str] | None = None
        self._series: dict[str, _Series] = {}
        self._files: dict[str, _FileSeries] = {}
        self._sorted_paths: list[str] | None = None
        self.owners: Callable[[str], tuple[str, ...]] = lambda path: ()

    # ---- building -------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        commits: Sequence[Commit],
        element_paths: Mapping[str, Sequence[str]],
        *,
        ignore: Sequence[str] = (),
        ignore_files: Collection[str] = (),
    ) -> DriftIndex:
        """One pass over ``commits`` (oldest first); ``element_paths`` are effective globs;
        changes to ``ignore`` globs and ``ignore_files`` (generated code) count for no element."""
        index = cls()
        owners = index.owners = _PathOwners(element_paths, ignore, ignore_files)
        series = index._series = {element_id: _Series() for element_id in element_paths}
        files = index._files
        moments: list[datetime] = []
        index._moments = moments
        latest = float("-inf")
        for ci, commit in enumerate(commits):
            t = timestamp(commit.time)
            if t < latest:
                moment = datetime.fromtimestamp(latest, UTC)
            else:
                latest, moment = t, commit.time
            index.shas.append(commit.sha)
            index.times.append(latest)
            moments.append(moment)
            for change in commit.changes:
                path, churn = change.path, change.added + change.deleted
                found = files.get(path)
                if found is None:
                    found = files[path] = _FileSeries()
                found.record(ci, churn)
                old_path = change.old_path if change.status == "R" else None
                if old_path and old_path != path:
                    found = files.get(old_path)
                    if found is None:
                        found = files[old_path] = _FileSeries()
                    found.record(ci, churn)
                    _count_rename(series, ci, owners(path), owners(old_path), change)
                    continue
                if change.status in _ADDED:
                    events, delta = 1, 1
                elif change.status == "D":
                    events, delta = 1, -1
                else:
                    events = delta = 0
                for element_id in owners(path):
                    series[element_id].count(ci, path, churn, events, delta)
        for mine in series.values():
            mine.finish()
        for found in files.values():
            found.finish()
        return index

    # ---- keeping ---------------------------------------------------------------------

    DATA_VERSION = 1

    def to_data(self) -> tuple[object, ...]:
        """The built index as plain values (lists, dicts, strings, numbers): what
        ``from_data`` takes back, for a cache."""
        moments = self._moments.texts if isinstance(self._moments, _Moments) else [m.isoformat() for m in self._moments]
        series = {element: (s.commit, s.churn, s.events, s.delta, s.occ_off, s.occ_prev)
                  for element, s in self._series.items()}
        files = {path: (f.commit, f.churn) for path, f in self._files.items()}
        return (self.DATA_VERSION, self.shas, self.times, moments, series, files)

    @classmethod
    def from_data(
        cls,
        data: object,
        element_paths: Mapping[str, Sequence[str]],
        *,
        ignore: Sequence[str] = (),
        ignore_files: Collection[str] = (),
    ) -> DriftIndex | None:
        """The index ``to_data`` gave, for the same paths and ignores it was built with
        (None: not data this version wrote)."""
        if not isinstance(data, tuple) or len(data) != 6 or data[0] != cls.DATA_VERSION:
            return None
        _, shas, times, moments, series, files = data
        index = cls()
        index.owners = _PathOwners(element_paths, ignore, ignore_files)
        index.shas, index.times, index._moments = shas, times, _Moments(moments)
        for element, (commit, churn, events, delta, occ_off, occ_prev) in series.items():
            kept = index._series[element] = _Series()
            kept.commit, kept.churn, kept.events, kept.delta = commit, churn, events, delta
            kept.occ_off, kept.occ_prev = occ_off, occ_prev
        for path, (commit, churn) in files.items():
            found = index._files[path] = _FileSeries()
            found.commit, found.churn = commit, churn
        return index

    # ---- questions ------------------------------------------------------------------

    def drift(
        self,
        element_id: str,
        since: Baseline | datetime | None,
        size: ElementSize,
        thresholds: Thresholds,
    ) -> DriftStamp | None:
        """The first commit after ``since`` at which the change counted from ``since``
        crosses the threshold (``None``: from the start of history), or ``None``."""
        churn_limit, events_limit = whole_limits(thresholds, size)
        found = self.crossing(element_id, self.position(since), churn_limit, events_limit)
        if found is None:
            return None
        moment = since.time if isinstance(since, Baseline) else since
        return replace(self.stamp(element_id, *found, since=moment), size=size)

    def position(self, since: Baseline | datetime | None) -> int:
        """Where history goes past ``since``: the index of the first commit after it.
        A baseline on the first-parent line is placed by the line, else by its time."""
        if since is None:
            return 0
        if isinstance(since, Baseline):
            if since.commit is not None:
                if self._ordinals is None:
                    self._ordinals = {sha: ci for ci, sha in enumerate(self.shas)}
                found = self._ordinals.get(since.commit)
                if found is not None:
                    return found + 1
            since = since.time
        return bisect_right(self.times, timestamp(since))

    def position_at(self, stored: str) -> int:
        """``position`` of a time as the store keeps it (``format_time``'s fixed-width text
        sorts as it reads), compared as text: counting many memories makes no datetime each."""
        if len(stored) != _TIME_TEXT or not stored.endswith("Z"):
            return self.position(parse_time(stored))
        if self._time_texts is None:
            self._time_texts = [format_time(datetime.fromtimestamp(t, UTC)) for t in self.times]
        return bisect_right(self._time_texts, stored)

    def crossing(self, element_id: str, position: int, churn_limit: int, events_limit: int) -> tuple[int, int] | None:
        """(first, crossing) entries of the element's series counted from ``position``:
        two bisects, as the prefix sums of churn and events never decrease. The limits
        are whole numbers (``whole_limits``): counts are, and int comparisons are faster."""
        series = self._series.get(element_id)
        if series is None:
            return None
        start = bisect_left(series.commit, position)
        count = len(series.commit)
        if start >= count:
            return None
        churn, events = series.churn, series.events
        end = bisect_left(churn, churn[start] + churn_limit, start + 1)
        if end > start + 1:
            end = bisect_left(events, events[start] + events_limit, start + 1, end)
        return (start, end - 1) if end <= count else None

    def stamp(self, element_id: str, start: int, end: int, *, since: datetime | None = None) -> DriftStamp:
        """The stamp for entries ``start..end`` of an element (from ``crossing``)."""
        series = self._series[element_id]
        ci = series.commit[end]
        return DriftStamp(
            element=element_id,
            commit=self.shas[ci],
            time=self._moments[ci],
            lines=series.churn[end + 1] - series.churn[start],
            files=series.distinct_files(start, end),
            commits=end - start + 1,
            file_events=series.events[end + 1] - series.events[start],
            since=since,
        )

    def missing(self, element_id: str) -> DriftStamp | None:
        """The commit that removed the element's last file: the last one where the count
        of its live files (+1 added or renamed in, -1 deleted or renamed out) drops to 0
        (the last removal, if history never shows it at 0). Only meaningful when no file
        matches at HEAD; ``None`` if none was ever removed."""
        series = self._series.get(element_id)
        if series is None:
            return None
        live, removed_at, last_removal = 0, None, None
        for j, delta in enumerate(series.delta):
            live += delta
            if delta < 0:
                last_removal = j
                if live <= 0:
                    removed_at = j
        found = removed_at if removed_at is not None else last_removal
        if found is None:
            return None
        return self.stamp(element_id, found, found)

    def file_changes(self, path: str, since: datetime | None) -> FileActivity:
        """Commits after ``since`` that touched ``path`` (a file, or every file under a
        folder), the last of them and its time. Ignore globs do not apply to a file an
        anchor names (the scan keeps such a file read); a folder counts the files the
        scan read, which leaves ignored ones out."""
        return self.activity(path, self.position(since))

    def activity(self, path: str, position: int) -> FileActivity:
        """``file_changes`` from a ``position`` in history (see ``position``)."""
        exact = self._files.get(path)
        if exact is not None:
            start = bisect_left(exact.commit, position)
            count = len(exact.commit) - start
            if not count:
                return FileActivity(0, None, None)
            last = exact.commit[-1]
            lines = exact.churn[-1] - (exact.churn[start - 1] if start else 0)
            return FileActivity(count, self.shas[last], self._moments[last], lines)
        commits: set[int] = set()
        lines = 0
        for name in self._paths_under(path):
            series = self._files[name]
            start = bisect_left(series.commit, position)
            if start < len(series.commit):
                commits.update(series.commit[start:])
                lines += series.churn[-1] - (series.churn[start - 1] if start else 0)
        if not commits:
            return FileActivity(0, None, None)
        last = max(commits)
        return FileActivity(len(commits), self.shas[last], self._moments[last], lines)

    def _paths_under(self, folder: str) -> list[str]:
        if self._sorted_paths is None:
            self._sorted_paths = sorted(self._files)
        folder = folder.rstrip("/")
        start = bisect_left(self._sorted_paths, folder + "/")
        end = bisect_left(self._sorted_paths, folder + "0")  # "0" sorts right after "/"
        return self._sorted_paths[start:end]

    def ordinal(self, sha: str) -> int | None:
        """The index of a commit of this history (None: not on its first-parent line)."""
        if self._ordinals is None:
            self._ordinals = {sha: ci for ci, sha in enumerate(self.shas)}
        return self._ordinals.get(sha)

    def commit_touches(self, ci: int, elements: Sequence[str], paths: Sequence[str]) -> bool:
        """Did commit ``ci`` change the code of one of ``elements`` or one of ``paths``?"""
        for series in [self._series.get(e) for e in elements] + [self._files.get(p) for p in paths]:
            if series is not None:
                at = bisect_left(series.commit, ci)
                if at < len(series.commit) and series.commit[at] == ci:
                    return True
        return False

    def commit_at(self, moment: datetime | None) -> str | None:
        """The last commit at or before ``moment``: the base to diff an anchor from
        (``None`` when ``moment`` precedes the history)."""
        position = self.position(moment) if moment is not None else 0
        return self.shas[position - 1] if position else None

    def elements_of(self, path: str) -> tuple[str, ...]:
        """The elements that own ``path`` (ignored files belong to none)."""
        return self.owners(path)

    def touched(self, element_id: str) -> int:
        """How many commits of the history touched the element's code."""
        series = self._series.get(element_id)
        return len(series.commit) if series else 0

    def __len__(self) -> int:
        return len(self.shas)


def _count_rename(
    series: Mapping[str, _Series], ci: int, new: tuple[str, ...], old: tuple[str, ...], change: FileChange
) -> None:
    """A rename is a file event for an element it moves into or out of; inside the
    element it is not, but its line changes count either way."""
    for element_id in dict.fromkeys(new + old):
        inside_now, inside_before = element_id in new, element_id in old
        events = int(inside_now != inside_before)
        delta = 0 if not events else 1 if inside_now else -1
        path = change.path if inside_now else change.old_path or change.path
        series[element_id].count(ci, path, change.churn, events, delta)

"""Drift as values: baselines, element sizes, drift stamps and thresholds (the commits
they are computed from are ``archmem.git.types``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from archmem.values import Record, Value


@dataclass(frozen=True, repr=False, eq=False)
class Baseline(Value):
    """Where element drift is counted from: the first-parent commit at which the model
    last described the element. The commits after it count, whatever their dates (a
    clock can be skewed, and many commits share a second); ``time`` is its committer
    time, shown as "since", and the place in history when ``commit`` is not on the line."""

    commit: str | None
    time: datetime


@dataclass(frozen=True, repr=False, eq=False)
class ElementSize(Value):
    """An element's code now, in files and lines (drift weighs change against it)."""

    files: int
    lines: int


class ElementSizes(Mapping[str, ElementSize]):
    """Each element's size, counted the first time it is asked for: a recall checks the
    memories of a few elements, and counting every element read every file of the
    repository on every call."""

    def __init__(self, ids: Iterable[str], count: Callable[[str], ElementSize]) -> None:
        self._ids = list(dict.fromkeys(ids))
        self._known = set(self._ids)
        self._count = count
        self._sizes: dict[str, ElementSize] = {}

    def __getitem__(self, element_id: str) -> ElementSize:
        if element_id not in self._known:
            raise KeyError(element_id)
        if element_id not in self._sizes:
            self._sizes[element_id] = self._count(element_id)
        return self._sizes[element_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


@dataclass(frozen=True, repr=False, eq=False)
class DriftStamp(Value):
    """The commit at which the change to an element's code, counted from ``since``,
    crossed the threshold; with the change counted up to that commit."""

    element: str
    commit: str
    time: datetime
    lines: int
    files: int
    commits: int
    file_events: int
    since: datetime | None = None
    size: ElementSize | None = None
    """The element's code at HEAD, against which the threshold was measured."""


@dataclass(repr=False, eq=False)
class Thresholds(Record):
    """Drifted when churn ≥ max(min_lines, churn_ratio × lines), or file events ≥
    max(min_file_events, file_event_ratio × files)."""

    min_lines: int = 20
    churn_ratio: float = 0.25
    min_file_events: int = 1
    file_event_ratio: float = 0.2
    ignore: list[str] = field(default_factory=list)

    def churn_limit(self, size: ElementSize) -> float:
        return max(self.min_lines, self.churn_ratio * size.lines)

    def events_limit(self, size: ElementSize) -> float:
        return max(self.min_file_events, self.file_event_ratio * size.files)

"""Drift as values: baselines, element sizes, drift stamps and thresholds (the commits
they are computed from are ``archmem.git.types``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Baseline:
    """Where element drift is counted from: the first-parent commit at which the model
    last described the element. The commits after it count, whatever their dates (a
    clock can be skewed, and many commits share a second); ``time`` is its committer
    time, shown as "since", and the place in history when ``commit`` is not on the line."""

    commit: str | None
    time: datetime


@dataclass(frozen=True)
class ElementSize:
    files: int
    lines: int


@dataclass(frozen=True)
class DriftStamp:
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


@dataclass
class Thresholds:
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

"""The drift report: each element's status against when the model last described it,
the memories that became VERIFY, and a score for the whole model.

    no_paths   the element owns no code (people, external systems)
    missing    its paths match nothing at HEAD (stamped where the last file went)
    drifted    the change since it was described crossed the threshold
    in_sync    otherwise

score = 100 × in_sync / (in_sync + drifted + missing): the share of the elements that
own code whose description still holds. An element without paths is either outside the
code (a person, an External system: ``external`` says why) or *not measured*: nobody
said where its code is yet. A score over zero measured elements is no score (None), and
every summary says drift is not measured and points at ``archmem paths suggest``. A
repository without commits has no history to measure along: its report says so and has
no score and no statuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

from archmem.clock import format_time
from archmem.drift.index import DriftIndex
from archmem.drift.staleness import Staleness
from archmem.drift.types import Baseline, DriftStamp, ElementSize, Thresholds
from archmem.memory.types import Memory
from archmem.model.types import ArchitectureModel
from archmem.values import Record


class _Shared(TypedDict):
    """The fields of an ``ElementDrift`` that do not depend on its status."""

    id: str
    name: str
    since: datetime | None
    size: ElementSize
    line: int | None
    file: str | None


@dataclass(repr=False, eq=False)
class ElementDrift(Record):
    """One element's drift: its status, since when, its stamp and its size."""

    id: str
    name: str
    status: str
    since: datetime | None
    stamp: DriftStamp | None
    size: ElementSize
    line: int | None = None
    file: str | None = None
    external: str | None = None
    """Why an element without paths is outside the code (None: it is not measured yet)."""

    @property
    def not_measured(self) -> bool:
        """It should own code, but no paths say which, so its drift is unknown."""
        return self.status == "no_paths" and self.external is None

    def model_file(self, root: Path) -> str | None:
        """The model file that describes it, relative to ``root`` (as it is when the
        model lies outside the repository); None when not known."""
        if not self.file:
            return None
        try:
            return Path(self.file).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return self.file

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "external": self.external,
            "since": format_time(self.since) if self.since else None,
            "stamp": stamp_dict(self.stamp),
            "size": {"files": self.size.files, "lines": self.size.lines},
        }


NO_COMMITS = (
    "no commits yet, so drift cannot be measured (it follows each element's code along git history "
    "from when the model described it); commit, then run archmem drift again"
)


@dataclass(repr=False, eq=False)
class DriftReport(Record):
    """Drift over the whole model: each element, the stale memories, what is documented."""

    elements: list[ElementDrift] = field(default_factory=list)
    stale: list[tuple[Memory, Staleness]] = field(default_factory=list)
    documented: int = 0
    commits: int = 0
    warnings: list[str] = field(default_factory=list)
    no_commits: bool = False
    """No history at all: nothing was measured (``score`` is None, ``elements`` empty)."""
    verify_ids: list[str] | None = None
    """The memories to VERIFY when the report found them without their reasons
    (``DriftView.report(reasons=False)``; ``stale`` is then empty); None: ``stale`` lists them."""

    @classmethod
    def without_history(cls, documented: int = 0) -> DriftReport:
        """The report for a repository with no commits yet."""
        return cls(documented=documented, no_commits=True, warnings=[NO_COMMITS])

    def count(self, status: str) -> int:
        return sum(1 for e in self.elements if e.status == status)

    @property
    def measured(self) -> int:
        """Elements whose code drift was measured (they own code, or owned it)."""
        return self.count("in_sync") + self.count("drifted") + self.count("missing")

    @property
    def not_measured(self) -> list[ElementDrift]:
        """Elements that should own code but have no paths yet."""
        return [e for e in self.elements if e.not_measured]

    @property
    def score(self) -> int | None:
        """0–100 over the measured elements; None when none is measured (no score is
        not a perfect one)."""
        if self.no_commits or not self.measured:
            return None
        return round(100 * self.count("in_sync") / self.measured)

    def not_measured_note(self) -> str | None:
        """The sentence every summary prints when elements own no code, or None."""
        if self.no_commits:
            return None
        missing = self.not_measured
        if not missing:
            return None if self.measured else "drift is not measured: no element of the model owns code"
        names = ", ".join(e.id for e in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        if not self.measured:
            return (f"drift is not measured: none of the {len(missing)} elements that should own code has paths "
                    f"({names}); `archmem paths suggest` proposes them")
        return (f"drift is not measured for {len(missing)} of {len(missing) + self.measured} elements, which have "
                f"no paths ({names}); `archmem paths suggest` proposes them")

    def counts(self) -> dict[str, int]:
        return {
            "total_elements": len(self.elements),
            "documented_elements": self.documented,
            "drifted": self.count("drifted"),
            "missing": self.count("missing"),
            "in_sync": self.count("in_sync"),
            "no_paths": self.count("no_paths"),
            "not_measured": len(self.not_measured),
            "external": sum(1 for e in self.elements if e.status == "no_paths" and e.external is not None),
            "stale_memories": len(self.stale) if self.verify_ids is None else len(self.verify_ids),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "counts": self.counts(),
            "elements": [e.to_dict() for e in self.elements],
            "stale_memories": [
                {
                    "id": memory.id,
                    "title": memory.title,
                    "elements": memory.elements,
                    "verify_reason": staleness.reason,
                    "stamp": stamp_dict(staleness.stamp),
                }
                for memory, staleness in self.stale
            ],
            "commits": self.commits,
            "no_commits": self.no_commits,
            "measured": self.measured,
            "not_measured": [e.id for e in self.not_measured],
            "note": self.not_measured_note(),
            "warnings": self.warnings,
        }


def stamp_dict(stamp: DriftStamp | None) -> dict[str, Any] | None:
    if stamp is None:
        return None
    return {
        "commit": stamp.commit,
        "time": format_time(stamp.time),
        "lines": stamp.lines,
        "files": stamp.files,
        "commits": stamp.commits,
    }


def element_drift(
    model: ArchitectureModel,
    index: DriftIndex,
    *,
    sizes: Mapping[str, ElementSize],
    since: Mapping[str, Baseline | None],
    missing: set[str],
    thresholds: Thresholds,
    external: Mapping[str, str] | None = None,
) -> list[ElementDrift]:
    """Every element's status, in the model's order; drift counts the commits after
    each element's baseline in history."""
    result = []
    for _, element in model.walk():
        size = sizes.get(element.id, ElementSize(0, 0))
        described = since.get(element.id)
        location = element.location
        common: _Shared = {
            "id": element.id, "name": element.name, "since": described.time if described else None, "size": size,
            "line": location.line if location else None, "file": location.file if location else None,
        }
        if not model.effective_paths(element.id):
            result.append(ElementDrift(status="no_paths", stamp=None, external=(external or {}).get(element.id),
                                       **common))
        elif element.id in missing:
            result.append(ElementDrift(status="missing", stamp=index.missing(element.id), **common))
        else:
            stamp = index.drift(element.id, described, size, thresholds)
            result.append(ElementDrift(status="drifted" if stamp else "in_sync", stamp=stamp, **common))
    return result

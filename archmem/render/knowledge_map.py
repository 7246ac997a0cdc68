"""The knowledge map: per element, what the project knows, how fresh, what to verify,
and the visible gaps; plus code no element owns and memories on no element.

It opens with the coverage sentence: ``3 of 19 elements documented``.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from archmem.clock import age_in_words
from archmem.memory.types import MEMORY_KINDS, Memory
from archmem.model.ownership import Ownership
from archmem.model.types import ArchitectureModel
from archmem.render.templates import render

FRESH_DAYS = 45
"""DESIGN's half-life: confirmed within it is fresh, within two is aging, beyond is old."""


@dataclass
class Cell:
    id: str
    name: str
    kind: str
    depth: int
    technology: str
    memories: dict[str, list[str]]
    newest_confirmation: datetime | None
    pitfalls: int
    verify: int
    drift: str | None
    files: int
    lines: int

    @property
    def documented(self) -> bool:
        return any(self.memories.values())

    def freshness(self, now: datetime) -> str:
        if self.newest_confirmation is None:
            return "unknown"
        days = (now - self.newest_confirmation).days
        return "fresh" if days <= FRESH_DAYS else "aging" if days <= 2 * FRESH_DAYS else "old"

    def to_dict(self, now: datetime) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "kind": self.kind, "depth": self.depth, "technology": self.technology,
            "documented": self.documented, "memories": self.memories,
            "newest_confirmation": self.newest_confirmation.isoformat() if self.newest_confirmation else None,
            "newest_confirmation_age": age_in_words(self.newest_confirmation, now) if self.newest_confirmation else None,
            "freshness": self.freshness(now), "pitfalls": self.pitfalls, "verify": self.verify, "drift": self.drift,
            "size": {"files": self.files, "lines": self.lines},
        }


@dataclass
class KnowledgeMap:
    title: str
    now: datetime
    cells: list[Cell] = field(default_factory=list)
    unowned: list[str] = field(default_factory=list)
    project_wide: list[dict[str, str]] = field(default_factory=list)
    drift_note: str | None = None

    @property
    def coverage(self) -> str:
        documented = sum(1 for c in self.cells if c.documented)
        return f"{documented} of {len(self.cells)} elements documented"

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title, "coverage": self.coverage,
            "documented": sum(1 for c in self.cells if c.documented), "total": len(self.cells),
            "elements": [c.to_dict(self.now) for c in self.cells], "unowned": self.unowned,
            "project_wide": self.project_wide, "drift_note": self.drift_note,
        }

    def render(self, output_format: str, *, overrides: Path | None = None) -> str:
        if output_format == "json":
            import json

            return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
        template = {"md": "map.md.j2", "html": "map.html.j2"}[output_format]
        return render(template, {"map": self.to_dict(), "kinds": MEMORY_KINDS}, overrides=overrides)


def _label(memory: Memory, width: int = 60) -> str:
    return memory.title or textwrap.shorten(memory.content, width, placeholder=" …")


def build_map(
    model: ArchitectureModel,
    memories: list[Memory],
    *,
    ownership: Ownership,
    now: datetime,
    verify: set[str],
    drift: dict[str, str] | None,
    drift_note: str | None = None,
) -> KnowledgeMap:
    """Cells in the model's hierarchy from the active memories, ownership and drift."""
    by_element: dict[str, list[Memory]] = {}
    project_wide = []
    for memory in memories:
        for element in memory.elements:
            by_element.setdefault(element, []).append(memory)
        if not memory.elements:
            project_wide.append({"id": memory.id, "title": _label(memory, 80), "kind": memory.kind})
    cells = []
    for depth, element in model.walk():
        mine = by_element.get(element.id, [])
        size = ownership.size(element.id)
        cells.append(
            Cell(
                id=element.id, name=element.name, kind=element.kind, depth=depth, technology=element.technology,
                memories={kind: [_label(m) for m in mine if m.kind == kind] for kind in MEMORY_KINDS},
                newest_confirmation=max((m.last_confirmed for m in mine), default=None),
                pitfalls=sum(1 for m in mine if m.kind == "pitfall"),
                verify=sum(1 for m in mine if m.id in verify),
                drift=(drift or {}).get(element.id), files=size.files, lines=size.lines,
            )
        )
    return KnowledgeMap(
        title=model.name or "Knowledge map", now=now, cells=cells, unowned=list(ownership.unowned),
        project_wide=project_wide, drift_note=drift_note,
    )

"""The knowledge map: per element, what the project knows, how fresh, what to verify,
and the visible gaps; plus code no element owns, memories on no element, and the
dependencies between elements' code that the model does not draw (conformance).

It opens with the coverage sentence: ``3 of 19 elements documented``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from archmem.clock import age_in_words
from archmem.conformance.types import EXAMPLES, Dependency
from archmem.memory.types import MEMORY_KINDS, Memory
from archmem.model.ownership import Ownership
from archmem.model.types import ArchitectureModel
from archmem.render.templates import render
from archmem.values import Record
from archmem.words import plural

FRESH_DAYS = 45
"""Recall's freshness half-life: confirmed within it is fresh, within two is aging, beyond is old."""


@dataclass(repr=False, eq=False)
class Cell(Record):
    """One element on the knowledge map, with what is known of it."""

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
    parent: str | None = None
    """The enclosing element's id (``None`` at the top level); the HTML map nests by it."""
    undeclared: list[str] = field(default_factory=list)
    """Names of the elements this one's code imports without a relationship in the model."""

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
            "size": {"files": self.files, "lines": self.lines}, "undeclared": self.undeclared,
        }


@dataclass(repr=False, eq=False)
class KnowledgeMap(Record):
    """The knowledge map: one cell per element, and what no element owns."""

    title: str
    now: datetime
    cells: list[Cell] = field(default_factory=list)
    unowned: list[str] = field(default_factory=list)
    project_wide: list[dict[str, str]] = field(default_factory=list)
    drift_note: str | None = None
    undeclared: list[dict[str, Any]] | None = None
    """The dependencies the model does not draw (None: conformance was not checked)."""
    conformance_note: str | None = None

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
            "undeclared": self.undeclared, "conformance_note": self.conformance_note,
        }

    def tree(self) -> list[dict[str, Any]]:
        """The cells as nested nodes for the HTML map: ``{"element": <cell dict>, "kind":
        "software system", "children": [...], "contains": "3 containers"}``. In each group the
        elements without children come first (model order kept among them and among the rest),
        so the boxes, which take a whole row, follow the ordinary cells and the grid has no
        holes; the DOM order is the reading order."""
        ids = {cell.id for cell in self.cells}
        children: dict[str | None, list[Cell]] = {}
        for cell in self.cells:
            children.setdefault(cell.parent if cell.parent in ids else None, []).append(cell)

        def nodes(parent: str | None) -> list[dict[str, Any]]:
            built = [
                {
                    "element": cell.to_dict(self.now), "kind": _kind_words(cell.kind), "children": nodes(cell.id),
                    "contains": _contains(children.get(cell.id, [])),
                }
                for cell in children.get(parent, [])
            ]
            return [n for n in built if not n["children"]] + [n for n in built if n["children"]]

        return nodes(None)

    def render(self, output_format: str, *, overrides: Path | None = None) -> str:
        if output_format == "json":
            import json

            return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
        template = {"md": "map.md.j2", "html": "map.html.j2"}[output_format]
        context: dict[str, Any] = {"map": self.to_dict(), "kinds": MEMORY_KINDS}
        if output_format == "html":
            context["tree"] = self.tree()
        return render(template, context, overrides=overrides)


def _kind_words(kind: str) -> str:
    """``softwareSystem`` → ``software system``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", kind).lower()


def _contains(cells: list[Cell]) -> str:
    """``3 containers``, ``1 component``; ``4 elements`` when the kinds are mixed."""
    if not cells:
        return ""
    kinds = {cell.kind for cell in cells}
    word = _kind_words(kinds.pop()) if len(kinds) == 1 else "element"
    return plural(len(cells), word)


def _label(memory: Memory, width: int = 60) -> str:
    return memory.title or textwrap.shorten(memory.content, width, placeholder=" …")


@dataclass(repr=False, eq=False)
class _Tally(Record):
    """One element's memories as the map shows them: labels by kind, the newest
    confirmation, how many to VERIFY."""

    labels: dict[str, list[str]]
    newest: datetime | None = None
    verify: int = 0

    def add(self, memory: Memory, label: str, verify: bool) -> None:
        self.labels[memory.kind].append(label)
        if self.newest is None or memory.last_confirmed > self.newest:
            self.newest = memory.last_confirmed
        self.verify += verify


def build_map(
    model: ArchitectureModel,
    memories: Iterable[Memory],
    *,
    ownership: Ownership,
    now: datetime,
    verify: set[str],
    drift: dict[str, str] | None,
    drift_note: str | None = None,
    undeclared: list[Dependency] | None = None,
    conformance_note: str | None = None,
    name: str | None = None,
) -> KnowledgeMap:
    """Cells in the model's hierarchy from the active memories (read once, in order),
    ownership, drift (``verify``: the ids of the memories to VERIFY) and the
    undeclared dependencies (``None``: not checked, ``conformance_note`` says why). The
    map is titled by the model's name, else ``name`` (the repository folder's): the
    templates add ": knowledge map" to it."""
    targets: dict[str, list[str]] = {}
    for dep in undeclared or ():
        targets.setdefault(dep.source, []).append(dep.target_name)
    tallies: dict[str, _Tally] = {}
    project_wide = []
    for memory in memories:  # once, as they come: a label is kept, the memory is not
        label = _label(memory)
        for element_id in memory.elements:
            tally = tallies.get(element_id)
            if tally is None:
                tally = tallies[element_id] = _Tally({kind: [] for kind in MEMORY_KINDS})
            tally.add(memory, label, memory.id in verify)
        if not memory.elements:
            project_wide.append({"id": memory.id, "title": _label(memory, 80), "kind": memory.kind})
    cells = []
    for depth, element in model.walk():
        mine = tallies.get(element.id) or _Tally({kind: [] for kind in MEMORY_KINDS})
        size = ownership.size(element.id)
        cells.append(
            Cell(
                id=element.id, name=element.name, kind=element.kind, depth=depth, technology=element.technology,
                memories=mine.labels, newest_confirmation=mine.newest, pitfalls=len(mine.labels.get("pitfall", [])),
                verify=mine.verify, drift=(drift or {}).get(element.id), files=size.files, lines=size.lines,
                parent=element.parent, undeclared=targets.get(element.id, []),
            )
        )
    return KnowledgeMap(
        title=model.name or name or "This repository", now=now, cells=cells, unowned=list(ownership.unowned),
        project_wide=project_wide, drift_note=drift_note, conformance_note=conformance_note,
        undeclared=None if undeclared is None else [
            {"source": d.source, "target": d.target, "source_name": d.source_name, "target_name": d.target_name,
             "imports": d.weight, "weight_text": d.weight_text(), "sites": [str(s) for s in d.sites[:EXAMPLES]]}
            for d in undeclared
        ],
    )

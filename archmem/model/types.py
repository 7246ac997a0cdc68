"""The architecture model as values: elements, relationships, decisions, deployment.

Every model format (Structurizr DSL, archmem YAML, Structurizr JSON) is parsed into
these types, and everything else in archmem reads only these. They are plain dataclasses
(keyword arguments only; copy one with ``dataclasses.replace``): every reader has checked
what it puts in them, and every command builds them, so they cost nothing at import.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from archmem.errors import UnknownNameError, closest
from archmem.values import Value

C4_KINDS = ("person", "softwareSystem", "container", "component")
"""The C4 kinds; any other ``kind`` is a custom element (Structurizr's ``element``)."""


@dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)
class Location(Value):
    """Where a definition sits in a model file (1-based lines; ``end_line`` closes its block)."""

    file: str
    line: int
    column: int = 1
    end_line: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)
class Element(Value):
    """A C4 element: person, software system, container, component or a custom kind.

    ``id`` is what a user writes (the DSL identifier, hierarchical ``a.b.c`` where the
    model says so, else the canonical name for anonymous elements). ``paths`` are
    repo-relative globs of the code the element owns; ``anchors`` keep ``path#Symbol``
    references found in ``source``/``code`` properties.
    """

    id: str
    name: str
    kind: str
    description: str = ""
    technology: str = ""
    tags: list[str] = field(default_factory=list)
    parent: str | None = None
    paths: list[str] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    url: str | None = None
    properties: dict[str, str] = field(default_factory=dict)
    perspectives: dict[str, str] = field(default_factory=dict)
    group: str | None = None
    canonical_name: str = ""
    location: Location | None = None

    @property
    def is_custom(self) -> bool:
        return self.kind not in C4_KINDS


@dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)
class Relationship(Value):
    """A directed relationship between two elements (by element ``id``)."""

    source: str
    destination: str
    description: str = ""
    technology: str = ""
    tags: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    id: str | None = None
    location: Location | None = None


@dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)
class Decision(Value):
    """An architecture decision record, from ``!adrs``/``!decisions`` or ``docs/adr``."""

    id: str
    title: str
    status: str = ""
    date: dt.date | None = None
    path: str
    format: str = ""
    element: str | None = None
    """The element the decision was attached to, ``None`` for workspace-wide ones."""


@dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)
class DeploymentNode(Value):
    """Anything inside a ``deploymentEnvironment``: kept apart from the C4 elements.

    ``kind`` is ``deploymentNode``, ``infrastructureNode``, ``softwareSystemInstance``
    or ``containerInstance``; an instance's ``instance_of`` is an element ``id``.
    """

    id: str
    name: str
    kind: str
    environment: str
    parent: str | None = None
    description: str = ""
    technology: str = ""
    tags: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    instances: int | str = 1
    instance_of: str | None = None
    location: Location | None = None


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class ArchitectureModel(Value):
    """A whole parsed model, with look-ups by id and name and the element tree.

    Not slotted: the look-ups are cached on the instance (a copy made with
    ``dataclasses.replace`` builds its own).
    """

    name: str = ""
    description: str = ""
    source: str | None = None
    """The model file it came from (absolute path), if any."""
    format: str = ""
    files: list[str] = field(default_factory=list)
    """Every file read to build the model (the model file, includes, the extended base)."""
    elements: list[Element] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    deployment: list[DeploymentNode] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    views: list[str] = field(default_factory=list)
    """Keys of the views defined (for reference; archmem does not render views)."""
    warnings: list[str] = field(default_factory=list)

    # ---- look-ups -----------------------------------------------------------------

    @cached_property
    def _by_id(self) -> dict[str, Element]:
        return {element.id: element for element in self.elements}

    @cached_property
    def _children(self) -> dict[str | None, list[Element]]:
        children: dict[str | None, list[Element]] = {}
        for element in self.elements:
            children.setdefault(element.parent, []).append(element)
        return children

    def get(self, id: str) -> Element | None:
        return self._by_id.get(id)

    def find(self, ref: str) -> Element:
        """An element by identifier, canonical name or (unique, case-insensitive) name."""
        found = self._by_id.get(ref)
        if found is not None:
            return found
        lowered = ref.strip().lower()
        for key in ("id", "canonical_name", "name"):
            matches = [e for e in self.elements if getattr(e, key).lower() == lowered]
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise UnknownNameError(
                    "element",
                    ref,
                    [m.id for m in matches],
                    hint="that name is ambiguous; use one of the identifiers listed",
                )
        names = [e.id for e in self.elements] + [e.name for e in self.elements]
        raise UnknownNameError("element", ref, closest(ref, names))

    def names(self, ids: Iterable[str]) -> list[str]:
        """Display names for element ids (an id the model no longer has stays as is)."""
        return [self._by_id[i].name if i in self._by_id else i for i in ids]

    def children(self, id: str | None) -> list[Element]:
        """Direct children of an element (``None``: the top-level elements)."""
        return list(self._children.get(id, []))

    def descendants(self, id: str) -> Iterator[Element]:
        for child in self._children.get(id, []):
            yield child
            yield from self.descendants(child.id)

    def ancestors(self, id: str) -> Iterator[Element]:
        element = self._by_id.get(id)
        while element is not None and element.parent is not None:
            element = self._by_id.get(element.parent)
            if element is not None:
                yield element

    def walk(self) -> Iterator[tuple[int, Element]]:
        """Elements depth-first in model order, with their depth (0 = top level)."""

        def visit(parent: str | None, depth: int) -> Iterator[tuple[int, Element]]:
            for element in self._children.get(parent, []):
                yield depth, element
                yield from visit(element.id, depth + 1)

        yield from visit(None, 0)

    def relationships_of(self, id: str) -> tuple[list[Relationship], list[Relationship]]:
        """(outgoing, incoming) relationships of one element."""
        outgoing = [r for r in self.relationships if r.source == id]
        incoming = [r for r in self.relationships if r.destination == id]
        return outgoing, incoming

    def decisions_of(self, id: str | None) -> list[Decision]:
        return [d for d in self.decisions if d.element == id]

    def effective_paths(self, id: str) -> list[str]:
        """An element's own globs, or else the union of its descendants'."""
        element = self._by_id[id]
        if element.paths:
            return list(element.paths)
        union: list[str] = []
        lists = [self.effective_paths(child.id) for child in self._children.get(id, [])]
        # a child's "!glob" takes away only its own code when the lists that take nothing come after it
        lists.sort(key=lambda globs: not any(g.startswith("!") for g in globs))
        for globs in lists:
            for glob in globs:
                if glob not in union or glob.startswith("!"):
                    union.append(glob)
        return union

    def counts(self) -> dict[str, int]:
        """Element counts by kind, in the corpus' vocabulary."""
        counts = {
            "people": 0,
            "softwareSystems": 0,
            "containers": 0,
            "components": 0,
            "customElements": 0,
        }
        names = {
            "person": "people",
            "softwareSystem": "softwareSystems",
            "container": "containers",
            "component": "components",
        }
        for element in self.elements:
            counts[names.get(element.kind, "customElements")] += 1
        counts["relationships"] = len(self.relationships)
        counts["decisions"] = len(self.decisions)
        counts["deploymentNodes"] = sum(1 for d in self.deployment if d.kind == "deploymentNode")
        return counts

"""Lifting file imports to elements: the element dependency graph (networkx).

A file belongs to the deepest elements whose paths match it (a component before its
container). An import between files of two elements is an edge weighted by its import
sites; an import between files of one element, or of an element and its own parent,
stays inside and is no dependency. Cycles are looked for between *siblings*: every
edge is lifted to the two children of the elements' lowest common parent, so a ring
through two containers' components is a ring between the two containers.

networkx (3.6.1: ~70 ms to import, 19 MB installed) is imported inside the functions
that build and search the graph, so only a conformance run pays for it; the CLI's
start-up test keeps it out of ``archmem --help``.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from archmem.conformance.types import Cycle, Dependency, ImportCounts, Site
from archmem.model.types import ArchitectureModel
from archmem.values import Record, Value

if TYPE_CHECKING:
    import networkx as nx


@dataclass(frozen=True, repr=False, eq=False)
class FileImport(Value):
    """An internal import after resolution: the importing file and line, the files it reached."""

    file: str
    line: int
    spec: str
    targets: tuple[str, ...]


class Lineage:
    """Ancestor chains of the model's elements, computed once."""

    def __init__(self, model: ArchitectureModel) -> None:
        self.model = model
        self.chain: dict[str, tuple[str, ...]] = {}
        for element in model.elements:
            ancestors = [a.id for a in model.ancestors(element.id)]
            self.chain[element.id] = (*reversed(ancestors), element.id)

    def above_or_self(self, element: str) -> set[str]:
        return set(self.chain.get(element, (element,)))

    def related(self, a: str, b: str) -> bool:
        """One is the other or contains it."""
        return a in self.chain.get(b, ()) or b in self.chain.get(a, ())

    def siblings(self, a: str, b: str) -> tuple[str, str]:
        """The two children of the lowest common parent that hold ``a`` and ``b``."""
        ca, cb = self.chain.get(a, (a,)), self.chain.get(b, (b,))
        i = 0
        while i < min(len(ca), len(cb)) and ca[i] == cb[i]:
            i += 1
        return ca[min(i, len(ca) - 1)], cb[min(i, len(cb) - 1)]

    def name(self, element: str) -> str:
        found = self.model.get(element)
        return found.name if found else element


def owners(files_of: Mapping[str, list[str]], lineage: Lineage) -> dict[str, tuple[str, ...]]:
    """File → the deepest elements owning it (usually one)."""
    by_file: dict[str, list[str]] = {}
    for element, files in files_of.items():
        for path in files:
            by_file.setdefault(path, []).append(element)
    result: dict[str, tuple[str, ...]] = {}
    for path, elements in by_file.items():
        if len(elements) == 1:
            result[path] = (elements[0],)
            continue
        deepest = [e for e in elements if not any(o != e and e in lineage.chain.get(o, ()) for o in elements)]
        result[path] = tuple(deepest)
    return result


@dataclass(repr=False, eq=False)
class ElementGraph(Record):
    """Element → element dependencies lifted from file imports."""

    graph: nx.DiGraph
    lineage: Lineage
    to_unowned: list[Site] = field(default_factory=list)

    def add_sites(self, sites: Iterable[tuple[str, str, Site]]) -> None:
        """Add element → element sites found elsewhere than in imports (network calls)."""
        for source, target, site in sites:
            if self.graph.has_edge(source, target):
                self.graph[source][target]["sites"].append(site)
            else:
                self.graph.add_edge(source, target, sites=[site])

    def dependencies(self) -> list[Dependency]:
        """Every edge as a ``Dependency``, heaviest first."""
        deps = [
            Dependency(a, b, self.lineage.name(a), self.lineage.name(b), sites=list(data["sites"]))
            for a, b, data in self.graph.edges(data=True)
        ]
        return sorted(deps, key=lambda d: (-d.weight, d.source, d.target))

    def cycles(self, dependencies: Iterable[Dependency]) -> list[Cycle]:
        """One ring per strongly connected group of sibling elements."""
        import networkx as nx

        lifted = nx.DiGraph()
        for dep in dependencies:
            a, b = self.lineage.siblings(dep.source, dep.target)
            if lifted.has_edge(a, b):
                lifted[a][b]["deps"].append(dep)
            else:
                lifted.add_edge(a, b, deps=[dep])
        found = []
        for group in nx.strongly_connected_components(lifted):
            if len(group) < 2:
                continue
            members = sorted(group)
            ring = nx.find_cycle(lifted.subgraph(group), source=members[0])
            steps = []
            for a, b in ring:
                deps = sorted(lifted[a][b]["deps"], key=lambda d: -d.weight)
                steps.append(Dependency(a, b, self.lineage.name(a), self.lineage.name(b),
                                        sites=[s for d in deps for s in d.sites]))
            elements = [a for a, _ in ring]
            found.append(Cycle(elements=elements, names=[self.lineage.name(e) for e in elements], steps=steps,
                               members=members))
        return sorted(found, key=lambda c: c.members)


def build_graph(
    imports: Iterable[FileImport], owner_of: Mapping[str, tuple[str, ...]], lineage: Lineage, counts: ImportCounts,
    *, generated: Container[str] = (),
) -> ElementGraph:
    """Lift resolved imports to elements, counting what stays inside or touches unowned
    code; ``generated`` files no element owns are nobody's by design, not unowned."""
    import networkx as nx

    graph = nx.DiGraph()
    result = ElementGraph(graph=graph, lineage=lineage)
    for item in imports:
        sources = owner_of.get(item.file, ())
        if not sources:
            counts.from_unowned += 1
            continue
        reached: dict[str, str] = {}
        unowned = None
        for target in item.targets:
            elements = owner_of.get(target, ())
            if not elements and target != item.file and target not in generated:
                unowned = unowned or target
            for element in elements:
                reached.setdefault(element, target)
        outside = False
        for source in sources:
            for element, target in reached.items():
                if lineage.related(source, element):
                    continue
                outside = True
                site = Site(item.file, item.line, item.spec, target)
                if graph.has_edge(source, element):
                    graph[source][element]["sites"].append(site)
                else:
                    graph.add_edge(source, element, sites=[site])
        if unowned is not None and not reached:
            counts.to_unowned += 1
            result.to_unowned.append(Site(item.file, item.line, item.spec, unowned))
        elif not outside:
            counts.within += 1
    for _, _, data in graph.edges(data=True):
        data["weight"] = len(data["sites"])
    return result

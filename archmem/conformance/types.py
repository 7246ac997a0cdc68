"""The conformance report as values: element dependencies with their import sites,
what the model does not draw, relationships without code, cycles, rule violations.

Plain dataclasses with ``to_dict()``, so the CLI, the Action, ``archmem pr``, the
knowledge map and briefings read the same thing; nothing here imports networkx.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from archmem.values import Record, Value

EXAMPLES = 3
"""Import sites shown per dependency where a list is not asked for (text, briefings)."""


@dataclass(frozen=True, repr=False, eq=False)
class Site(Value):
    """One import: the importing file and line, what it named, the file it reached."""

    file: str
    line: int
    spec: str
    target: str
    kind: str = "import"
    """``import``, or ``network``: a manifest line naming the service called (``target``)."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def verb(self) -> str:
        return "imports" if self.kind == "import" else "calls"

    def to_dict(self) -> dict[str, Any]:
        data = {"file": self.file, "line": self.line, "import": self.spec, "target": self.target}
        return data if self.kind == "import" else {**data, "kind": self.kind}


@dataclass(repr=False, eq=False)
class Dependency(Record):
    """Code of ``source`` imports code of ``target`` (element ids) at ``sites``."""

    source: str
    target: str
    source_name: str
    target_name: str
    sites: list[Site] = field(default_factory=list)
    declared: bool = False
    relationship: str | None = None
    """The model's relationship that covers it (``a -> b``), when there is one."""

    @property
    def weight(self) -> int:
        return len(self.sites)

    def weight_text(self) -> str:
        """``3 imports``, ``2 calls``, ``1 import, 2 calls``."""
        calls = sum(site.kind == "network" for site in self.sites)
        parts = [(self.weight - calls, "import"), (calls, "call")]
        return ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in parts if n) or "0 imports"

    def sentence(self, site: Site) -> str:
        """``orders/api.py:12 imports payments/internal.py: OrderService → PaymentService is not in the model``."""
        return f"{site} {site.verb} {site.target}: {self.source_name} → {self.target_name} is not in the model"

    def to_dict(self, *, all_sites: bool = True) -> dict[str, Any]:
        sites = self.sites if all_sites else self.sites[:EXAMPLES]
        return {
            "source": self.source, "target": self.target, "source_name": self.source_name,
            "target_name": self.target_name, "weight": self.weight, "declared": self.declared,
            "relationship": self.relationship, "sites": [s.to_dict() for s in sites],
        }


@dataclass(repr=False, eq=False)
class Unevidenced(Record):
    """A relationship of the model that no import realizes (informational: it may be a
    network call, a queue or configuration)."""

    source: str
    destination: str
    description: str
    source_name: str
    destination_name: str
    checkable: bool = True
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "destination": self.destination, "description": self.description,
                "source_name": self.source_name, "destination_name": self.destination_name,
                "checkable": self.checkable, "reason": self.reason}


@dataclass(repr=False, eq=False)
class Cycle(Record):
    """Sibling elements whose code depends on each other in a ring (``elements[0]`` →
    ``elements[1]`` → … → ``elements[0]``), with one dependency per step."""

    elements: list[str]
    names: list[str]
    steps: list[Dependency]
    members: list[str]
    """Every element of the strongly connected group (a ring is one path through it)."""
    drawn: bool = False
    """The model's relationships draw the same ring."""

    def to_dict(self) -> dict[str, Any]:
        return {"elements": self.elements, "names": self.names, "members": self.members, "drawn": self.drawn,
                "steps": [s.to_dict(all_sites=False) for s in self.steps]}


@dataclass(repr=False, eq=False)
class Violation(Record):
    """Code that breaks a rule of ``[conformance]`` in archmem.toml."""

    rule: str
    dependency: Dependency
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "reason": self.reason, **self.dependency.to_dict()}


@dataclass(repr=False, eq=False)
class Unresolved(Record):
    """An import that resolved to no file, where it is and why."""

    file: str
    line: int
    spec: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "import": self.spec, "reason": self.reason}


@dataclass(repr=False, eq=False)
class ImportCounts(Record):
    """How the imports were read and where they went."""

    files: int = 0
    """Files whose imports were read (test code and generated code aside)."""
    tests: int = 0
    """Test files left out: what tests import is no dependency of the architecture."""
    generated: int = 0
    """Generated or vendored files left out: nobody's code, so nobody's dependency."""
    read: int = 0
    """Files parsed in this run; the others came from the cache (same content hash)."""
    imports: int = 0
    internal: int = 0
    external: int = 0
    unresolved: int = 0
    from_unowned: int = 0
    """Internal imports in files no element owns (not lifted to any element)."""
    to_unowned: int = 0
    """Imports of files no element owns, from an element's code."""
    within: int = 0
    """Imports between files of one element (or of an element and its parent)."""
    languages: dict[str, int] = field(default_factory=dict)
    manifests: int = 0
    """Deployment manifests read for calls over the network (Kubernetes, compose, skaffold)."""
    calls: int = 0
    """Calls between elements those manifests state."""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(repr=False, eq=False)
class ConformanceReport(Record):
    """The code's dependencies against the model (docs/conformance.md)."""

    counts: ImportCounts = field(default_factory=ImportCounts)
    dependencies: list[Dependency] = field(default_factory=list)
    unevidenced: list[Unevidenced] = field(default_factory=list)
    cycles: list[Cycle] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    """(file, why) for files whose imports could not be read."""
    warnings: list[str] = field(default_factory=list)
    frozen: int = 0
    """Findings left out because the conformance baseline holds them."""
    ignored: list[Violation] = field(default_factory=list)
    """Dependencies ``[conformance] ignore_dependencies`` leaves out, each with its reason."""

    @property
    def undeclared(self) -> list[Dependency]:
        return [d for d in self.dependencies if not d.declared]

    @property
    def clean(self) -> bool:
        """Nothing the model does not draw: no undeclared dependency, no undrawn cycle,
        no rule broken."""
        return not self.undeclared and not self.violations and not [c for c in self.cycles if not c.drawn]

    @property
    def measured(self) -> bool:
        """Whether any dependency between elements was observed in the imports: with
        none, a report without findings says nothing about the model's shape (the
        elements may talk over the network, or own no code archmem reads)."""
        return bool(self.dependencies or self.frozen or self.ignored)

    @property
    def verdict(self) -> str:
        """One phrase for the whole report (text, job summary)."""
        if not self.clean:
            return "the code leaves the model"
        if not self.measured:
            return "not measured: no dependency between elements could be observed in the imports"
        return "the code has the model's shape"

    def undeclared_of(self, element_id: str) -> list[Dependency]:
        return [d for d in self.undeclared if d.source == element_id]

    def in_files(self, files: Iterable[str]) -> ConformanceReport:
        """The same report cut to import sites in ``files`` (a pull request's changed
        files): dependencies, violations and cycle steps keep only those sites, and go
        when none is left. Counts of imports and relationships stay the whole repository's."""
        wanted = set(files)

        def cut(dep: Dependency) -> Dependency | None:
            sites = [s for s in dep.sites if s.file in wanted]
            return replace(dep, sites=sites) if sites else None

        dependencies = [d for d in map(cut, self.dependencies) if d is not None]
        violations = [replace(v, dependency=d) for v in self.violations if (d := cut(v.dependency)) is not None]
        cycles = [c for c in self.cycles if any(cut(step) for step in c.steps)]
        return replace(self, dependencies=dependencies, violations=violations, cycles=cycles,
                       unresolved=[u for u in self.unresolved if u.file in wanted],
                       errors=[e for e in self.errors if e[0] in wanted])

    def summary_counts(self) -> dict[str, int]:
        return {
            "dependencies": len(self.dependencies),
            "undeclared": len(self.undeclared),
            "undeclared_sites": sum(d.weight for d in self.undeclared),
            "unevidenced": sum(1 for u in self.unevidenced if u.checkable),
            "cycles": len(self.cycles),
            "violations": len(self.violations),
            "frozen": self.frozen,
            "ignored": len(self.ignored),
            "unresolved": self.counts.unresolved,
            "files": self.counts.files,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "measured": self.measured,
            "verdict": self.verdict,
            "counts": self.summary_counts(),
            "imports": self.counts.to_dict(),
            "undeclared": [d.to_dict() for d in self.undeclared],
            "violations": [v.to_dict() for v in self.violations],
            "cycles": [c.to_dict() for c in self.cycles],
            "unevidenced": [u.to_dict() for u in self.unevidenced],
            "dependencies": [d.to_dict(all_sites=False) for d in self.dependencies],
            "unresolved": [u.to_dict() for u in self.unresolved],
            "errors": [{"file": f, "error": e} for f, e in self.errors],
            "ignored": [v.to_dict() for v in self.ignored],
            "warnings": self.warnings,
        }

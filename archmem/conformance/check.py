"""Comparing the element dependency graph with the model, and with the rules of
``[conformance]`` in archmem.toml.

A relationship covers code dependencies along the tree on both of its ends: the
dependency's source lies on one branch with the relationship's source (one is the other
or contains it), and likewise the destinations. So a container-level ``orders →
payments`` covers every import from orders' code into payments' code; a component-level
``orders.checkout → payments.api`` also covers code owned by the containers themselves
(the containers' relationship it implies), but not ``orders.checkout →
payments.internal``: to say "only through the API", draw the relationship to the API.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from archmem.config import ConformanceConfig, ConformanceRule, IgnoredDependencyRule
from archmem.conformance.graph import Lineage
from archmem.conformance.types import Cycle, Dependency, Unevidenced, Violation
from archmem.errors import ConfigError, UnknownNameError
from archmem.model.types import ArchitectureModel, Relationship


def _label(relationship: Relationship) -> str:
    return f"{relationship.source} -> {relationship.destination}"


class Coverage:
    """Which relationship covers a dependency, looked up by the dependency's source line
    (its ancestors and what is inside it), not by scanning every relationship."""

    def __init__(self, model: ArchitectureModel, lineage: Lineage) -> None:
        self.lineage = lineage
        self.by_source: dict[str, list[Relationship]] = {}
        self.inside: dict[str, list[Relationship]] = {}
        for relationship in model.relationships:
            if lineage.related(relationship.source, relationship.destination):
                continue
            self.by_source.setdefault(relationship.source, []).append(relationship)
            for above in lineage.chain.get(relationship.source, ())[:-1]:
                self.inside.setdefault(above, []).append(relationship)

    def find(self, source: str, target: str) -> Relationship | None:
        candidates = [r for s in self.lineage.chain.get(source, (source,)) for r in self.by_source.get(s, ())]
        for relationship in candidates + self.inside.get(source, []):
            if self.lineage.related(relationship.destination, target):
                return relationship
        return None


def mark_declared(dependencies: Sequence[Dependency], model: ArchitectureModel, lineage: Lineage) -> None:
    """Set ``declared`` and ``relationship`` on each dependency the model covers."""
    coverage = Coverage(model, lineage)
    for dep in dependencies:
        relationship = coverage.find(dep.source, dep.target)
        if relationship is not None:
            dep.declared = True
            dep.relationship = _label(relationship)


def unevidenced(
    dependencies: Sequence[Dependency], model: ArchitectureModel, lineage: Lineage, *,
    owns_code: Callable[[str], bool], readable: Callable[[str], bool],
) -> list[Unevidenced]:
    """Relationships that no import realizes; those an import could never show (an end
    without code, or without code archmem reads imports of) are marked not checkable."""
    shown = {(a, b) for d in dependencies for a in lineage.chain.get(d.source, (d.source,))
             for b in lineage.chain.get(d.target, (d.target,))}
    found = []
    for relationship in model.relationships:
        source, destination = relationship.source, relationship.destination
        if lineage.related(source, destination) or (source, destination) in shown:
            continue
        reason = ""
        for end in (source, destination):
            if not owns_code(end):
                reason = f"{lineage.name(end)} owns no code in this repository"
                break
        if not reason and not readable(source):
            reason = f"archmem reads no imports in {lineage.name(source)}'s code"
        if not reason and not readable(destination):
            reason = f"no import can name {lineage.name(destination)}'s code (no language archmem reads)"
        found.append(Unevidenced(
            source=source, destination=destination, description=relationship.description,
            source_name=lineage.name(source), destination_name=lineage.name(destination),
            checkable=not reason, reason=reason,
        ))
    return found


def mark_drawn(cycles: Sequence[Cycle], model: ArchitectureModel, lineage: Lineage) -> None:
    """A ring the model's own relationships draw (every step declared) is ``drawn``."""
    coverage = Coverage(model, lineage)
    for cycle in cycles:
        cycle.drawn = all(coverage.find(step.source, step.target) is not None for step in cycle.steps)


def _ids(names: Sequence[str], model: ArchitectureModel, where: str) -> list[str]:
    """The element ids ``names`` give (identifiers or names); a ``ConfigError`` at ``where``
    naming the closest for one the model does not have."""
    ids = []
    for name in names:
        try:
            ids.append(model.find(name).id)
        except UnknownNameError as exc:
            raise ConfigError(f"{where}: {exc.message}", hint=exc.hint) from None
    return ids


def _resolve_names(rule: ConformanceRule | IgnoredDependencyRule, kind: str, index: int, model: ArchitectureModel,
                   source: str | None) -> tuple[list[str], list[str]]:
    where = f"{source or 'archmem.toml'}: [conformance] {kind}[{index}]"
    if not rule.targets or (kind != "only" and not rule.sources):
        raise ConfigError(f"{where} needs both 'from' and 'to'" if kind != "only" else f"{where} needs 'to'")
    return _ids(rule.sources, model, f"{where} from"), _ids(rule.targets, model, f"{where} to")


class _Inside:
    """Whether an element is one of some roots or inside one."""

    def __init__(self, lineage: Lineage) -> None:
        self.lineage = lineage

    def __call__(self, element: str, roots: Sequence[str]) -> bool:
        chain = self.lineage.chain.get(element, (element,))
        return any(root in chain for root in roots)

    def which(self, element: str, groups: Sequence[Sequence[str]]) -> int | None:
        """The index of the first group ``element`` is inside of."""
        return next((i for i, roots in enumerate(groups) if self(element, roots)), None)


def ignored_dependencies(
    dependencies: Sequence[Dependency], model: ArchitectureModel, lineage: Lineage, config: ConformanceConfig,
    *, source: str | None = None,
) -> tuple[list[Dependency], list[Violation]]:
    """``dependencies`` without those ``ignore_dependencies`` names, and those, each with
    the rule's reason."""
    inside = _Inside(lineage)
    rules = []
    for index, rule in enumerate(config.ignore_dependencies):
        sources, targets = _resolve_names(rule, "ignore_dependencies", index, model, source)
        rules.append((sources, targets, f"ignore {', '.join(rule.sources)} → {', '.join(rule.targets)}", rule.reason))
    kept, ignored = [], []
    for dep in dependencies:
        match = next((r for r in rules if inside(dep.source, r[0]) and inside(dep.target, r[1])), None)
        if match is None:
            kept.append(dep)
        else:
            ignored.append(Violation(rule=match[2], dependency=dep, reason=match[3]))
    return kept, ignored


def violations(
    dependencies: Sequence[Dependency], model: ArchitectureModel, lineage: Lineage, config: ConformanceConfig,
    *, source: str | None = None, cycles: Sequence[Cycle] = (),
) -> list[Violation]:
    """Dependencies that break a rule (declared in the model or not): ``forbid``,
    ``only``, ``layers``, ``independent``; and each step of a ring of ``cycles`` that an
    ``acyclic`` rule covers."""
    found = []
    inside = _Inside(lineage)
    where = source or "archmem.toml"

    for index, rule in enumerate(config.forbid):
        sources, targets = _resolve_names(rule, "forbid", index, model, source)
        text = f"forbid {', '.join(rule.sources)} → {', '.join(rule.targets)}"
        for dep in dependencies:
            if inside(dep.source, sources) and inside(dep.target, targets):
                found.append(Violation(rule=text, dependency=dep, reason=rule.reason))
    for index, rule in enumerate(config.only):
        sources, targets = _resolve_names(rule, "only", index, model, source)
        allowed = ", ".join(rule.sources) or "nothing"
        text = f"only {allowed} → {', '.join(rule.targets)}"
        for dep in dependencies:
            if inside(dep.target, targets) and not inside(dep.source, targets) and not inside(dep.source, sources):
                found.append(Violation(rule=text, dependency=dep, reason=rule.reason))
    for index, layers in enumerate(config.layers):
        label = f"{where}: [conformance] layers[{index}]"
        groups = [_ids([layer] if isinstance(layer, str) else layer, model, f"{label} order") for layer in layers.order]
        names = [layer if isinstance(layer, str) else " | ".join(layer) for layer in layers.order]
        text = f"layers {' > '.join(names)}"
        for dep in dependencies:
            below, above = inside.which(dep.source, groups), inside.which(dep.target, groups)
            if below is not None and above is not None and above < below:
                found.append(Violation(rule=text, dependency=dep, reason=layers.reason
                                        or f"{names[below]} is below {names[above]}"))
    for index, independent in enumerate(config.independent):
        members = _ids(independent.elements, model, f"{where}: [conformance] independent[{index}] elements")
        text = f"independent {', '.join(independent.elements)}"
        for dep in dependencies:
            a, b = inside.which(dep.source, [[m] for m in members]), inside.which(dep.target, [[m] for m in members])
            if a is not None and b is not None and a != b:
                found.append(Violation(rule=text, dependency=dep, reason=independent.reason))
    for index, acyclic in enumerate(config.acyclic):
        parents = set(_ids(acyclic.within, model, f"{where}: [conformance] acyclic[{index}] within"))
        text = f"acyclic within {', '.join(acyclic.within)}"
        for cycle in cycles:
            parent = lineage.chain.get(cycle.members[0], ("",))[-2:-1]
            if parent and parent[0] in parents:
                found += [Violation(rule=text, dependency=step, reason=acyclic.reason
                                    or f"a cycle {' → '.join([*cycle.names, cycle.names[0]])}")
                          for step in cycle.steps]
    return found

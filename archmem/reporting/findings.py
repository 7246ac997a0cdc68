"""What conformance, drift and check found, as one list of findings for the CI report
formats (``sarif``, ``codequality``): each with its rule, level, message, file and line.

A finding's ``key`` names it without a line number (elements, import, file; a memory's
id), so its fingerprint stays the same while the code around it moves and code scanning
or a merge request widget tracks it across pushes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from archmem.conformance.types import ConformanceReport, Site
from archmem.drift.report import DriftReport
from archmem.memory.check import RULES as CHECK_RULES
from archmem.memory.check import CheckReport
from archmem.values import Value


@dataclass(frozen=True, repr=False, eq=False)
class Rule(Value):
    """A kind of finding: a stable id, a CamelCase name, one line, and what to do."""

    id: str
    name: str
    short: str
    help: str
    level: str = "warning"


@dataclass(frozen=True, repr=False, eq=False)
class Location(Value):
    """Where a finding points: a file, and a line and column when known."""

    path: str
    """From the repository root, POSIX."""
    line: int = 1
    column: int | None = None


@dataclass(frozen=True, repr=False, eq=False)
class Finding(Value):
    """One finding for a report format: its rule, message, place and stable key."""

    rule: Rule
    message: str
    location: Location
    key: str
    """The finding's identity without line numbers (see the module doc)."""
    level: str | None = None
    """When it differs from the rule's."""
    related: tuple[Location, ...] = ()

    @property
    def severity(self) -> str:
        return self.level or self.rule.level


@dataclass(frozen=True, repr=False, eq=False)
class Findings(Value):
    """One command's findings and every rule it can report (a rule with no finding too)."""

    command: str
    rules: tuple[Rule, ...]
    items: tuple[Finding, ...]
    frozen: int = 0
    """Findings left out because a baseline freezes them (conformance's): counted, never reported."""

    def fingerprints(self) -> list[str]:
        """One per finding, in order: a hash of the rule and the key, and of how many
        findings before it share both (so two equal imports in one file stay two)."""
        seen: dict[tuple[str, str], int] = {}
        out = []
        for finding in self.items:
            identity = (finding.rule.id, finding.key)
            seen[identity] = seen.get(identity, 0) + 1
            text = "\0".join([*identity, str(seen[identity])])
            out.append(hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32])
        return out


# ---- conformance ------------------------------------------------------------------------

UNDECLARED = Rule(
    "archmem/conformance/undeclared-dependency", "UndeclaredDependency",
    "An import between two elements the model draws no relationship for.",
    "The code of one element imports the code of another, and the architecture model has no relationship "
    "between them. Draw the relationship in the model if the dependency is intended; else remove the import.",
)
RULE_BROKEN = Rule(
    "archmem/conformance/rule-violation", "ConformanceRuleViolation",
    "An import that breaks a [conformance] rule of archmem.toml.",
    "archmem.toml's [conformance] forbids this dependency between elements (forbid, only). Remove the import, "
    "or change the rule if the architecture changed.", "error",
)
CYCLE = Rule(
    "archmem/conformance/cycle", "DependencyCycle",
    "An import that closes a dependency cycle between sibling elements the model does not draw.",
    "These elements depend on each other in a ring, so none can change or be deployed alone. Break the ring at "
    "one of its imports (or draw the ring in the model when it is intended).",
)
CONFORMANCE_RULES = (RULE_BROKEN, UNDECLARED, CYCLE)


def conformance_findings(report: ConformanceReport) -> Findings:
    """Every import site that breaks a rule, leaves the model or closes a cycle; what a
    baseline froze is already out of ``report`` (and only counted), so every format
    leaves the same findings out."""
    items: list[Finding] = []

    def at(site: Site) -> Location:
        return Location(site.file, site.line)

    for violation in report.violations:
        dep = violation.dependency
        why = f" ({violation.reason})" if violation.reason else ""
        for site in dep.sites:
            items.append(Finding(
                RULE_BROKEN, f"{site} {site.verb} {site.target}: {dep.source_name} → {dep.target_name} breaks the rule "
                f"{violation.rule}{why}", at(site), _key(violation.rule, dep.source, dep.target, site)))
    for dep in report.undeclared:
        for site in dep.sites:
            items.append(Finding(UNDECLARED, dep.sentence(site), at(site), _key(dep.source, dep.target, site)))
    for cycle in report.cycles:
        if cycle.drawn:
            continue
        ring = " → ".join([*cycle.names, cycle.names[0]])
        for step in cycle.steps:
            site = step.sites[0]
            items.append(Finding(CYCLE, f"{site} {site.verb} {site.target}: part of the cycle {ring}", at(site),
                                 _key(*sorted(cycle.members), step.source, step.target, site)))
    return Findings("conformance", CONFORMANCE_RULES, tuple(items), frozen=report.frozen)


def _key(*parts: object) -> str:
    words = [f"{p.file}\0{p.spec}\0{p.target}" if isinstance(p, Site) else str(p) for p in parts]
    return "\0".join(words)


# ---- drift ------------------------------------------------------------------------------

DRIFTED = Rule(
    "archmem/drift/drifted-element", "DriftedElement",
    "An element's code changed past the threshold since the model described it.",
    "The code under this element moved since the model last described it, so the model (and what agents are "
    "told) may no longer hold. Update the element in the model, or run `archmem drift accept ELEMENT` when the "
    "description still holds.",
)
MISSING = Rule(
    "archmem/drift/missing-element", "MissingElement",
    "An element whose paths match no file any more.",
    "Every file under this element's paths is gone. Point its paths at where the code went, or remove the "
    "element from the model.",
)
TO_VERIFY = Rule(
    "archmem/drift/memory-to-verify", "MemoryToVerify",
    "A memory whose code moved since it was last confirmed (VERIFY).",
    "The code this memory is about changed since someone last confirmed it. Check it against the code, then "
    "`archmem confirm ID`, or supersede it with what holds now.",
)
DRIFT_RULES = (DRIFTED, MISSING, TO_VERIFY)


def drift_findings(
    report: DriftReport, root: Path, *, memory_path: Callable[[str], str | None],
    changed: Mapping[str, Sequence[str]] | None = None,
) -> Findings:
    """Each drifted or missing element at its line in the model, each memory to verify
    at its file; ``changed`` (element or memory id → files) adds where the code moved."""
    changed = changed or {}
    items: list[Finding] = []
    if report.no_commits:
        return Findings("drift", DRIFT_RULES, ())
    for element in report.elements:
        if element.status not in ("drifted", "missing") or element.stamp is None:
            continue
        stamp, file = element.stamp, element.model_file(root)
        if file is None:
            continue
        if element.status == "drifted":
            rule = DRIFTED
            text = (f"{element.name} ({element.id}) drifted since the model described it: {stamp.lines} lines in "
                    f"{stamp.commits} commits ({stamp.commit[:7]})")
        else:
            rule = MISSING
            text = f"{element.name} ({element.id})'s code is gone: its last file was removed in {stamp.commit[:7]}"
        items.append(Finding(rule, text, Location(file, element.line or 1), element.id,
                             related=tuple(Location(p) for p in changed.get(element.id, ()))))
    for memory, staleness in report.stale:
        path = memory_path(memory.id)
        if path is None:
            continue
        title = memory.title or memory.id
        items.append(Finding(TO_VERIFY, f"{title} [{memory.kind}] is VERIFY: {staleness.reason}", Location(path, 1),
                             memory.id, related=tuple(Location(p) for p in changed.get(memory.id, ()))))
    return Findings("drift", DRIFT_RULES, tuple(items))


# ---- check ------------------------------------------------------------------------------


def _camel(rule: str) -> str:
    return "".join(part.capitalize() for part in rule.split("-"))


CHECK_RULES_BY_ID = {
    rule: Rule(f"archmem/check/{rule}", _camel(rule), text.split(";")[0].rstrip(".") + ".", text, level)
    for rule, (level, text) in CHECK_RULES.items()
}


def check_findings(report: CheckReport) -> Findings:
    """Each problem ``archmem check`` found, at its file, line and column."""
    items = []
    for problem in report.findings:
        rule = CHECK_RULES_BY_ID.get(problem.rule) or Rule(f"archmem/check/{problem.rule}", _camel(problem.rule),
                                                           problem.message, problem.message, problem.severity)
        items.append(Finding(rule, problem.message, Location(problem.path, problem.line, problem.column),
                             f"{problem.path}\0{problem.message}", level=problem.severity))
    rules = {rule.id: rule for rule in [*CHECK_RULES_BY_ID.values(), *(item.rule for item in items)]}
    return Findings("check", tuple(rules.values()), tuple(items))

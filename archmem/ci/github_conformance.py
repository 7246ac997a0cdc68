"""``archmem conformance --format github``: a ``::warning`` (or ``::error`` for a rule)
on every import line that leaves the model, step outputs with the counts, and the
lists in the job summary."""

from __future__ import annotations

from typing import Any

from archmem.ci.github import append_step_files
from archmem.conformance.types import EXAMPLES, ConformanceReport
from archmem.escape import workflow_command as _escape
from archmem.words import plural

MAX_ANNOTATIONS = 50
"""GitHub shows only so many per step; the summary always has the whole list."""

OUTPUTS = ("element-dependencies", "undeclared-dependencies", "undeclared-imports", "rule-violations", "cycles",
           "unevidenced-relationships", "unresolved-imports")


def outputs(report: ConformanceReport) -> dict[str, str]:
    counts = report.summary_counts()
    return {
        "element-dependencies": str(counts["dependencies"]),
        "undeclared-dependencies": str(counts["undeclared"]),
        "undeclared-imports": str(counts["undeclared_sites"]),
        "rule-violations": str(len(report.violations)),
        "cycles": str(len([c for c in report.cycles if not c.drawn])),
        "unevidenced-relationships": str(counts["unevidenced"]),
        "unresolved-imports": str(counts["unresolved"]),
    }




def _command(level: str, file: str, line: int, title: str, text: str) -> str:
    return (f"::{level} file={_escape(file, property=True)},line={line},"
            f"title={_escape(title, property=True)}::{_escape(text)}")


def conformance_annotations(report: ConformanceReport) -> list[str]:
    """One line per import site that breaks the model or a rule (rules first): the same
    findings, in the same words, as SARIF and Code Quality report."""
    from archmem.reporting.findings import CYCLE, RULE_BROKEN, conformance_findings

    titles = {RULE_BROKEN: "archmem conformance: rule", CYCLE: "archmem conformance: cycle"}
    return [_command(finding.severity, finding.location.path, finding.location.line,
                     titles.get(finding.rule, "archmem conformance"), finding.message)
            for finding in conformance_findings(report).items]


def summary(report: ConformanceReport) -> str:
    counts = report.summary_counts()
    state = report.verdict
    imports = report.counts
    out = [
        f"## archmem conformance: {state}",
        "",
        f"{plural(imports.files, 'file')}, {plural(imports.imports, 'import')} ({imports.internal} within the "
        f"repository, {imports.external} outside, {imports.unresolved} unresolved); "
        f"{plural(counts['dependencies'], 'dependency', 'dependencies')} between elements, "
        f"{counts['undeclared']} not in the model, {len(report.violations)} breaking a rule, "
        f"{plural(len([c for c in report.cycles if not c.drawn]), 'cycle')}."
        + (f" {plural(report.frozen, 'finding')} frozen by the baseline." if report.frozen else ""),
        "",
    ]
    if report.violations:
        out += ["### Rules broken", "", "| rule | dependency | imports |", "|---|---|---|"]
        for v in report.violations:
            dep = v.dependency
            out.append(f"| {v.rule}{f' ({v.reason})' if v.reason else ''} | {dep.source_name} → {dep.target_name} | "
                       f"{_sites(dep.sites)} |")
        out.append("")
    if report.undeclared:
        out += ["### Dependencies the model does not draw", "", "| from | to | imports |", "|---|---|---|"]
        for dep in report.undeclared:
            out.append(f"| {dep.source_name} (`{dep.source}`) | {dep.target_name} (`{dep.target}`) | {_sites(dep.sites)} |")
        out.append("")
    undrawn = [c for c in report.cycles if not c.drawn]
    if undrawn:
        out += ["### Cycles", ""]
        for cycle in undrawn:
            steps = "; ".join(f"{s.source_name} → {s.target_name} at `{s.sites[0]}`" for s in cycle.steps)
            out.append(f"- {' → '.join([*cycle.names, cycle.names[0]])}: {steps}")
        out.append("")
    checkable = [u for u in report.unevidenced if u.checkable]
    if checkable:
        out += ["### Relationships no import shows (informational: calls over the network, queues, configuration)", ""]
        for u in checkable:
            out.append(f"- {u.source_name} → {u.destination_name}" + (f": {u.description}" if u.description else ""))
        out.append("")
    return "\n".join(out)


def _sites(sites: list[Any]) -> str:
    shown = ", ".join(f"`{s}`" for s in sites[:EXAMPLES])
    return shown + (f" and {len(sites) - EXAMPLES} more" if len(sites) > EXAMPLES else "")


def write_github(report: ConformanceReport, env: dict[str, str]) -> dict[str, Any]:
    """Append the summary and outputs to the files GitHub names; return what was written
    (annotations beyond ``MAX_ANNOTATIONS`` are counted, not printed)."""
    every = conformance_annotations(report)
    written: dict[str, Any] = {"annotations": every[:MAX_ANNOTATIONS], "omitted": max(0, len(every) - MAX_ANNOTATIONS),
                               "outputs": outputs(report)}
    append_step_files(env, summary(report), written["outputs"])
    return written

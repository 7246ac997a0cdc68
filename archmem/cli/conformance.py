"""``archmem conformance``: the code's imports against the model, as text, JSON, GitHub
Actions output, SARIF or GitLab Code Quality."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from archmem.cli import cli, emit_json, json_option, workspace_options
from archmem.cli.reports import REPORT_FORMATS, REPORT_HELP, emit_report

if TYPE_CHECKING:
    from archmem.conformance.baseline import Entry
    from archmem.conformance.types import ConformanceReport, Dependency
    from archmem.workspace import Workspace

FAIL_ON = ("undeclared", "rules", "cycles", "any")


@cli.command("conformance")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github", *REPORT_FORMATS]),
              default="text", show_default=True,
              help=f"github: annotations on the import lines, step outputs, job summary; {REPORT_HELP}.")
@click.option("--fail-on", type=click.Choice(FAIL_ON), multiple=True,
              help="Exit 1 when there is any of these (repeatable): undeclared, rules, cycles, any.")
@click.option("--all-sites", is_flag=True, help="List every import site in text output, not a few per dependency.")
@click.option("--update-baseline", is_flag=True,
              help="Freeze today's findings in the baseline file (commit it): later runs report and fail only on "
                   "others; fixed ones drop out when it is updated again.")
@click.option("--no-baseline", is_flag=True, help="Report every finding, the frozen ones too.")
@workspace_options
@json_option
def conformance(
    workspace: Workspace, output_format: str, fail_on: tuple[str, ...], all_sites: bool, update_baseline: bool,
    no_baseline: bool, as_json: bool,
) -> None:
    """Whether the code still has the shape the model draws: dependencies the model does
    not draw (with their import lines), rules broken, cycles, relationships no import shows.
    Findings frozen in the baseline (``--update-baseline``) are counted, not reported."""
    if update_baseline:
        _update_baseline(workspace, as_json or output_format == "json")
        return
    fixed: list[Entry] = []
    if no_baseline:
        report = workspace.conformance()
    else:
        frozen = workspace.conformance_against_baseline()
        report, fixed = frozen.report, frozen.fixed
    baseline = workspace.config.conformance.baseline
    if as_json or output_format == "json":
        emit_json({**report.to_dict(), "baseline": {"path": baseline, "frozen": report.frozen,
                                                    "fixed": [e.to_dict() for e in fixed]}})
    elif output_format in REPORT_FORMATS:
        from archmem.reporting.findings import conformance_findings

        emit_report(conformance_findings(report), output_format)
    elif output_format == "github":
        from archmem.ci.github_conformance import write_github

        written = write_github(report, dict(os.environ))
        for line in written["annotations"]:
            click.echo(line)
        counts = report.summary_counts()
        more = f" ({written['omitted']} more annotations in the summary)" if written["omitted"] else ""
        click.echo(f"archmem conformance: {counts['undeclared']} undeclared dependencies, "
                   f"{len(report.violations)} rules broken, {written['outputs']['cycles']} cycles{more}")
    else:
        print_conformance(report, all_sites=all_sites)
        if report.frozen or fixed:
            click.echo(_baseline_note(report.frozen, fixed, baseline))
    if _fails(report, fail_on):
        raise SystemExit(1)


def _baseline_note(frozen: int, fixed: list[Entry], path: str) -> str:
    from archmem.words import plural

    note = f"{plural(frozen, 'finding')} frozen by the baseline ({path})"
    if fixed:
        note += (f"; {plural(len(fixed), 'frozen finding')} fixed since (e.g. {fixed[0].describe()}): "
                 "`archmem conformance --update-baseline` drops them")
    return note + "."


def _update_baseline(workspace: Workspace, as_json: bool) -> None:
    from archmem.words import plural

    kept, added, dropped = workspace.update_conformance_baseline()
    path = workspace.config.conformance.baseline
    if as_json:
        emit_json({"path": path, "frozen": len(kept) + len(added), "added": [e.to_dict() for e in added],
                   "dropped": [e.to_dict() for e in dropped]})
        return
    click.echo(f"Wrote {path}: {plural(len(kept) + len(added), 'finding')} frozen ({len(added)} new, "
               f"{len(dropped)} fixed and dropped). Commit it: conformance now reports and fails only on others.")


def _fails(report: ConformanceReport, fail_on: tuple[str, ...]) -> bool:
    wanted = set(FAIL_ON[:-1]) if "any" in fail_on else set(fail_on)
    return bool(
        ("undeclared" in wanted and report.undeclared)
        or ("rules" in wanted and report.violations)
        or ("cycles" in wanted and [c for c in report.cycles if not c.drawn])
    )


def print_conformance(report: ConformanceReport, *, all_sites: bool = False) -> None:
    from archmem.conformance.types import EXAMPLES
    from archmem.words import plural

    counts = report.counts
    languages = ", ".join(f"{name} {n}" for name, n in sorted(counts.languages.items()))
    click.echo(f"{plural(counts.files, 'file')}{f' ({languages})' if languages else ''}, "
               f"{plural(counts.imports, 'import')}: {counts.internal} within the repository, "
               f"{counts.external} outside, {counts.unresolved} unresolved; "
               f"{counts.read} read now, {counts.files - counts.read} from the cache")
    if counts.tests or counts.generated:
        click.echo(f"Left out: {plural(counts.tests, 'test file')} ([conformance] test_code), "
                   f"{plural(counts.generated, 'generated file')}")
    if counts.manifests:
        click.echo(f"{plural(counts.manifests, 'deployment manifest')}: "
                   f"{plural(counts.calls, 'call')} between elements over the network")

    def sites(dep: Dependency) -> None:
        shown = dep.sites if all_sites else dep.sites[:EXAMPLES]
        for site in shown:
            click.echo(f"    {site} {site.verb} {site.target}" + (f" ({site.spec})" if site.kind != "import" else ""))
        rest = len(dep.sites) - len(shown)
        if rest:
            click.echo(f"    … {rest} more (--all-sites)")

    if report.violations:
        click.secho(f"\nRules broken ({len(report.violations)})", bold=True)
        for v in report.violations:
            dep = v.dependency
            click.secho(f"  {dep.source_name} → {dep.target_name}: {v.rule}{f' ({v.reason})' if v.reason else ''}",
                        fg="red")
            sites(dep)
    if report.undeclared:
        click.secho(f"\nDependencies the model does not draw ({len(report.undeclared)})", bold=True)
        for dep in report.undeclared:
            click.secho(f"  {dep.source_name} → {dep.target_name}  ({dep.source} → {dep.target}, "
                        f"{dep.weight_text()})", fg="yellow")
            sites(dep)
    undrawn = [c for c in report.cycles if not c.drawn]
    if report.cycles:
        drawn = len(report.cycles) - len(undrawn)
        click.secho(f"\nCycles ({len(undrawn)}{f', and {drawn} the model draws' if drawn else ''})", bold=True)
        for cycle in report.cycles:
            note = "  (the model draws it)" if cycle.drawn else ""
            click.echo(f"  {' → '.join([*cycle.names, cycle.names[0]])}{note}")
            for step in cycle.steps:
                site = step.sites[0]
                click.echo(f"    {step.source_name} → {step.target_name}: {site} {site.verb} {site.target}")
    if report.ignored:
        click.secho(f"\nDependencies ignored by [conformance] ignore_dependencies ({len(report.ignored)})", bold=True)
        for v in report.ignored:
            click.echo(f"  {v.dependency.source_name} → {v.dependency.target_name}: {v.reason} "
                       f"({v.dependency.weight_text()})")
    checkable = [u for u in report.unevidenced if u.checkable]
    if checkable:
        click.secho(f"\nRelationships no import or manifest shows ({len(checkable)}; informational: calls over the network, "
                    "queues, configuration)", bold=True)
        for u in checkable:
            click.echo(f"  {u.source_name} → {u.destination_name}" + (f": {u.description}" if u.description else ""))
    unchecked = len(report.unevidenced) - len(checkable)
    if unchecked:
        click.echo(f"  ({plural(unchecked, 'relationship')} not checkable: an end owns no code archmem reads)")
    if report.unresolved or counts.unresolved:
        click.secho(f"\nUnresolved imports ({counts.unresolved})", bold=True)
        for item in report.unresolved[: None if all_sites else 10]:
            click.echo(f"  {item.file}:{item.line} {item.spec}: {item.reason}")
        if counts.unresolved > (len(report.unresolved) if all_sites else min(10, len(report.unresolved))):
            click.echo("  …")
    for path, error in report.errors:
        click.secho(f"warning: {path}: {error}", fg="yellow", err=True)
    for warning in report.warnings:
        click.secho(f"warning: {warning}", fg="yellow", err=True)
    declared = len(report.dependencies) - len(report.undeclared)
    verdict = report.verdict[0].upper() + report.verdict[1:] + "."
    if not report.measured:
        relationships = len(report.unevidenced)
        click.echo(f"\n{verdict} Imports show nothing of the {plural(relationships, 'relationship')} the model "
                   "draws: calls over the network, queues and configuration are not read as imports, and an element "
                   "whose code archmem cannot read is not checked.")
        return
    click.echo(f"\n{verdict} {declared} of {plural(len(report.dependencies), 'dependency', 'dependencies')} "
               f"between elements {'is' if declared == 1 else 'are'} in the model.")

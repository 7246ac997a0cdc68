"""``archmem drift``: element drift, memories to verify, GitHub Actions output."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from archmem.cli import cli, emit_json, json_option, read_only, workspace_options
from archmem.cli.reports import REPORT_FORMATS, REPORT_HELP, emit_report

if TYPE_CHECKING:
    from archmem.workspace import Workspace


@cli.group("drift", invoke_without_command=True)
@click.option("--since", "since_ref", default=None,
              help="Count drift from this commit, tag, branch or date (2025-01-01) instead.")
@click.option("--fail-on", type=click.IntRange(1), default=None, help="Exit 1 when this many elements drifted or more.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github", *REPORT_FORMATS]),
              default="text", show_default=True,
              help=f"github: job summary, step outputs and annotations; {REPORT_HELP}.")
@click.option("--deepen", is_flag=True, help="Fetch the full history first when this is a shallow clone.")
@workspace_options
@read_only
@json_option
@click.pass_context
def drift(
    ctx: click.Context, workspace: Workspace, since_ref: str | None, fail_on: int | None, output_format: str,
    deepen: bool, as_json: bool,
) -> None:
    """Which elements' code moved since the model described them, and which memories to verify."""
    if ctx.invoked_subcommand is not None:
        return
    if output_format != "text" or as_json:
        workspace.history_progress = None  # machine output: the bar stays off even on a terminal
    from archmem.ci.github import errors_as_annotations

    with errors_as_annotations(output_format == "github" and not as_json, "archmem drift"):
        report = workspace.drift_report(since_ref=since_ref, deepen=deepen)
    if as_json or output_format == "json":
        emit_json(report.to_dict())
    elif output_format in REPORT_FORMATS:
        from archmem.reporting.findings import drift_findings

        findings = drift_findings(report, workspace.root, memory_path=workspace.store.path_of,
                                  changed=workspace.drift_changed_files(report))
        emit_report(findings, output_format)
    elif output_format == "github":
        from archmem.ci.github_drift import write_github

        written = write_github(report, workspace.root, dict(os.environ))
        for line in written["annotations"]:
            click.echo(line)
        from archmem.words import plural

        if report.no_commits:
            click.echo(f"archmem drift: {report.warnings[0]}")
        else:
            score = "not measured" if report.score is None else f"score {report.score}/100"
            click.echo(f"archmem drift: {score}, {report.count('drifted')} drifted, "
                       f"{report.count('missing')} missing, {len(report.not_measured)} not measured, "
                       f"{plural(len(report.stale), 'memory', 'memories')} to verify")
            note = report.not_measured_note()
            if note:
                click.echo(f"::notice title=archmem drift::{note}")
    else:
        from archmem.cli.output import print_drift

        print_drift(report, workspace.clock())
    if fail_on is not None and report.count("drifted") >= fail_on:
        raise SystemExit(1)


@drift.command("accept")
@click.argument("element")
@click.option("--reason", "--note", "reason", default=None,
              help="Why the model still holds (written into the accept file; --note is its old name).")
@click.option("--yes", "-y", is_flag=True, help="Accept without asking (agents, scripts).")
@workspace_options
@json_option
def drift_accept(workspace: Workspace, element: str, reason: str | None, yes: bool, as_json: bool) -> None:
    """Record that the model's description of ELEMENT holds for the code at HEAD (resets its drift).

    First shows what changed in its code since the model described it (or it was last
    accepted), and on a terminal asks before accepting. The accept is a small file in
    .archmem/accepts/ naming the element, the commit, the time, who and why: commit it,
    so your team and CI count drift from it too. Without a terminal it needs --yes."""
    from archmem.cli.changes import ask_or_refuse, show_changes

    element_id, changes = workspace.element_changes(element)
    ask = ask_or_refuse(yes, "drift accept")
    if ask or not as_json:
        name = workspace.model.find(element_id).name
        click.secho(f"{name} ({element_id})", bold=True, err=as_json)
        show_changes(changes, err=as_json)
    if ask:
        click.confirm("Does the model's description still hold? Accept it", abort=True, err=as_json)
    result = workspace.accept_drift(element_id, reason)
    result["changes_since_described"] = changes.to_dict() if changes else None
    if as_json:
        emit_json(result)
        return
    at = f"commit {result['commit'][:12]}" if result["commit"] else "now (no commit yet)"
    click.echo(f"accepted {result['element']} as described at {at}, {result['accepted_at']}")
    click.echo(f"wrote {result['file']}: commit it to share the accept with your team")

"""``archmem drift``: element drift, memories to verify, GitHub Actions output."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from archmem.cli import cli, emit_json, json_option, read_only, workspace_options

if TYPE_CHECKING:
    from archmem.workspace import Workspace


@cli.group("drift", invoke_without_command=True)
@click.option("--since", "since_ref", default=None, help="Count drift from this commit, tag or branch instead.")
@click.option("--fail-on", type=click.IntRange(1), default=None, help="Exit 1 when this many elements drifted or more.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github"]), default="text",
              show_default=True, help="github: job summary, step outputs and annotations.")
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
    progress = None
    bar = None
    if output_format == "text" and not as_json and sys.stderr.isatty():
        bar = click.progressbar(length=0, label="reading history", file=sys.stderr, show_pos=True)
        bar.__enter__()

        def progress(count: int) -> None:
            bar.pos = count
            bar.render_progress()

    try:
        report = workspace.drift_report(since_ref=since_ref, deepen=deepen, progress=progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    if as_json or output_format == "json":
        emit_json(report.to_dict())
    elif output_format == "github":
        from archmem.drift.github import write_github

        written = write_github(report, workspace.root, dict(os.environ))
        for line in written["annotations"]:
            click.echo(line)
        from archmem.words import plural

        if report.no_commits:
            click.echo(f"archmem drift: {report.warnings[0]}")
        else:
            click.echo(f"archmem drift: score {report.score}/100, {report.count('drifted')} drifted, "
                       f"{report.count('missing')} missing, {plural(len(report.stale), 'memory', 'memories')} to verify")
    else:
        from archmem.cli_output import print_drift

        print_drift(report, workspace.clock())
    if fail_on is not None and report.count("drifted") >= fail_on:
        raise SystemExit(1)


@drift.command("accept")
@click.argument("element")
@click.option("--note", default=None, help="Why the model still holds (kept with the record).")
@workspace_options
@json_option
def drift_accept(workspace: Workspace, element: str, note: str | None, as_json: bool) -> None:
    """Record that the model's description of ELEMENT holds as of now (resets its drift)."""
    result = workspace.accept_drift(element, note)
    if as_json:
        emit_json(result)
        return
    click.echo(f"accepted {result['element']} as described at {result['accepted_at']}")

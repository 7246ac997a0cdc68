"""``archmem check``: validate the memory files (for people, CI and pre-commit hooks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from archmem.cli import cli, emit_json, json_option, workspace_options
from archmem.cli.reports import REPORT_FORMATS, REPORT_HELP, emit_report

if TYPE_CHECKING:
    from archmem.memory.check import CheckReport
    from archmem.workspace import Workspace


@cli.command("check")
@click.option("--format", "output_format", type=click.Choice(["text", "github", *REPORT_FORMATS]), default="text",
              show_default=True, help=f"github: ::error / ::warning annotations on the memory files; {REPORT_HELP}.")
@workspace_options
@json_option
@click.pass_context
def check(ctx: click.Context, workspace: Workspace, output_format: str, as_json: bool) -> None:
    """Validate every memory file (shared and private): front matter, unknown keys,
    unknown elements, dangling or ambiguous links, duplicate ids, title clashes, forks,
    supersede cycles, conflict markers and secrets, each at file:line:col; and the drift
    accept files (.archmem/accepts/). Reads the files themselves, so it needs no index
    (a fresh clone in CI is fine).

    \b
    Exit codes:
      0  clean
      1  warnings only
      2  errors
    (other codes are archmem's own errors, e.g. 4 when the model does not parse)
    """
    report = workspace.check()
    if as_json:
        emit_json(report.to_dict())
    elif output_format in REPORT_FORMATS:
        from archmem.reporting.findings import check_findings

        emit_report(check_findings(report), output_format)
    elif output_format == "github":
        from archmem.memory.check import github_annotations

        for line in github_annotations(report.findings):
            click.echo(line)
        click.echo(_summary(report))
    else:
        _print_report(report)
    ctx.exit(report.exit_code)


def _summary(report: CheckReport) -> str:
    from archmem.words import plural

    counted = plural(report.files, "memory file") + (
        f", {plural(report.accept_files, 'accept file')}" if report.accept_files else "")
    if not report.findings:
        return f"archmem check: {counted}, no problems"
    return (f"archmem check: {counted}, {plural(report.errors, 'error')}, "
            f"{plural(report.warnings, 'warning')}")


def _print_report(report: CheckReport) -> None:
    colours = {"error": "red", "warning": "yellow"}
    for finding in report.findings:
        where = f"{finding.path}:{finding.line}:{finding.column}:"
        severity = click.style(finding.severity, fg=colours.get(finding.severity), bold=True)
        click.echo(f"{where} {severity}: {finding.message} [{finding.rule}]")
    for note in report.notes:
        click.echo(f"note: {note}")
    click.echo(_summary(report))

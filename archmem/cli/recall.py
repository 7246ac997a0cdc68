"""The commands agents run most: recall and brief. Apart from the other memory commands,
so a recall builds only its own options at start-up. Each parses flags, calls
``Workspace``, prints the result or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from archmem.cli import cli, emit_json, json_option, read_only, workspace_options
from archmem.words import plural

if TYPE_CHECKING:
    from archmem.workspace import Workspace


@cli.command()
@click.argument("query")
@click.option("--element", "-e", "elements", multiple=True, help="An element the task is about (repeatable).")
@click.option("--changed-file", "changed_files", multiple=True, help="A file the task changes (repeatable).")
@click.option("--changed", is_flag=True, help="Take the changed files from git diff (working tree and staged).")
@click.option("--session", "session_id", default=None, help="Record what is shown as exposures of this session.")
@click.option("--limit", "-n", default=5, show_default=True, type=click.IntRange(1, 200), help="How many memories.")
@click.option("--explain", is_flag=True, help="Show every factor of each score.")
@workspace_options
@read_only
@json_option
def recall(
    workspace: Workspace, query: str, elements: tuple[str, ...], changed_files: tuple[str, ...], changed: bool,
    session_id: str | None, limit: int, explain: bool, as_json: bool,
) -> None:
    """Recall the memories that matter for QUERY (a task), best first."""
    from archmem.cli import agent_facing

    agent_facing(workspace, always=False)  # an agent's shell waits for no first history scan
    result = workspace.recall(
        query, elements=elements, changed_files=changed_files, changed=changed, session_id=session_id,
        limit=limit, explain=explain,
    )
    if as_json:
        emit_json(result.to_dict())
        return
    from archmem.cli.output import print_recall

    print_recall(result.to_dict(), workspace.clock(), explain=explain)


@cli.command()
@click.argument("task", required=False)
@click.option("--element", "-e", "elements", multiple=True, help="An element the task is about (repeatable).")
@click.option("--changed-file", "changed_files", multiple=True, help="A file the task changes (repeatable).")
@click.option("--changed", is_flag=True, help="Use the files changed in git (working tree and staged).")
@click.option("--overview", is_flag=True,
              help="With no task, element or changed file: brief the project (standing rules, what to verify).")
@click.option("--session", "session_id", default=None, help="Record the memories shown as this session's exposures.")
@click.option("--budget", type=click.IntRange(200), default=None, help="Budget in characters (default 8,000).")
@click.option("--budget-tokens", type=click.IntRange(50), default=None, help="Budget in tokens (tiktoken if installed).")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write to FILE.")
@click.option("--rules", is_flag=True, help="Refresh the path-scoped rule files (install --rules) instead.")
@click.option("--format", "output_format", type=click.Choice(["md", "json"]), default="md", show_default=True,
              help="md: the briefing file; json: it and the data behind it.")
@workspace_options
@read_only
@json_option
def brief(
    workspace: Workspace, task: str | None, elements: tuple[str, ...], changed_files: tuple[str, ...], changed: bool,
    overview: bool, session_id: str | None, budget: int | None, budget_tokens: int | None, out: Path | None,
    rules: bool, output_format: str, as_json: bool,
) -> None:
    """Write the pre-session briefing for TASK (or for --changed files): what to know first.
    --json is --format json. --rules rewrites the path-scoped rule files instead."""
    from archmem.cli import agent_facing

    if rules:
        from archmem.cli.rules import refresh_rules

        return refresh_rules(workspace, as_json=as_json)

    agent_facing(workspace)  # the start-up hook never waits for a first history scan
    if as_json:
        output_format = "json"
    briefing = workspace.brief(
        task, elements=elements, changed_files=changed_files, changed=changed, session_id=session_id,
        budget=budget, budget_tokens=budget_tokens, overview=overview,
    )
    if output_format == "json":
        import json

        text = json.dumps(briefing.to_dict(), indent=2, ensure_ascii=False) + "\n"
    else:
        text = briefing.markdown
    if out is None:
        click.echo(text, nl=False)
        return
    workspace.write_output(out, text)
    click.echo(f"wrote {out} ({plural(len(briefing.memory_ids), 'memory', 'memories')}"
               + (f", {briefing.cut} cut" if briefing.cut else "") + ")", err=True)

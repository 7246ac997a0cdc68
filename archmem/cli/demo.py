"""``archmem demo``: the example system end to end, with a short tour."""

from __future__ import annotations

from pathlib import Path

import click

from archmem.cli import cli, emit_json, json_option
from archmem.cli.output import secho
from archmem.words import plural


@cli.command()
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=Path("archmem-demo"),
              show_default=True, help="Where to build the demo repository.")
@click.option("--force", is_flag=True, help="Replace the folder if it is not empty.")
@json_option
def demo(directory: Path, force: bool, as_json: bool) -> None:
    """Build the bundled example as a git repository with history and memories, then run
    drift and write briefing.md and knowledge-map.html."""
    from archmem.clock import system_clock
    from archmem.demo import TASK, run_demo

    result = run_demo(directory.resolve(), now=system_clock(), force=force)
    counts = result.drift["counts"]
    if as_json:
        emit_json({"root": str(result.root), "briefing": str(result.briefing),
                   "knowledge_map": str(result.knowledge_map), "memories": result.memories,
                   "commits": result.commits, "coverage": result.coverage, "drift": result.drift})
        return
    drifted = [e["name"] for e in result.drift["elements"] if e["status"] == "drifted"]
    missing = [e["name"] for e in result.drift["elements"] if e["status"] == "missing"]
    secho(f"archmem demo: a small web shop with history, in {result.root}", bold=True)
    click.echo(f"  model     workspace.dsl: {counts['total_elements']} elements; {result.commits} commits over 320 days")
    click.echo(f"  memories  {result.memories} committed as files in .archmem/memories/ (pitfalls, conventions, "
               "notes, a superseded fact, links)")
    click.echo(f"  drift     score {result.drift['score']}/100: drifted {', '.join(drifted) or 'none'}; "
               f"missing {', '.join(missing) or 'none'}; "
               f"{plural(counts['stale_memories'], 'memory', 'memories')} to verify")
    click.echo(f"  briefing  {result.briefing}  (task: {TASK!r})")
    click.echo(f"  map       {result.knowledge_map}  ({result.coverage})")
    click.echo()
    click.echo("Try next:")
    for line in (f"cd {directory}", "git log --stat -1 -- .archmem/memories   # memories are committed files",
                 'archmem recall "tax rounding" --explain', "archmem drift",
                 "archmem map", 'archmem brief "add a payment provider webhook"',
                 "archmem brief --overview              # what a session with no task yet is told",
                 "archmem install claude-code --dry-run # connect an agent (MCP server + start-up hook)"):
        click.echo(f"  {line}")

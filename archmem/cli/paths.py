"""``archmem paths suggest``: where each element's code probably is, and recording it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from archmem.cli import cli, emit_json, json_option, workspace_options

if TYPE_CHECKING:
    from archmem.workspace import Workspace


@cli.group("paths")
def paths_group() -> None:
    """Connect the model to the code: which files each element owns."""


@paths_group.command("suggest")
@click.option("--element", "elements", multiple=True,
              help="Only this element (identifier or name; repeat for more), even one that owns code already.")
@click.option("--write", is_flag=True,
              help="Record the suggested globs in the [paths] table of archmem.toml; the model file is not edited.")
@workspace_options
@json_option
def paths_suggest(workspace: Workspace, elements: tuple[str, ...], write: bool, as_json: bool) -> None:
    """Suggest globs for the elements that own no code, with a confidence and the evidence:
    folder and file names, build and deployment files, technology, git history."""
    result = workspace.suggest_paths(elements, write=write)
    if as_json:
        emit_json(result.to_dict())
        return
    print_suggestions(result.to_dict(), write=write)


def print_suggestions(data: dict[str, Any], *, write: bool) -> None:
    from archmem.words import plural

    suggestions = data["suggestions"]
    if suggestions:
        click.secho(f"Suggested paths ({plural(len(suggestions), 'element')})", bold=True)
        width = min(max(len(s["element"]) for s in suggestions), 40)
        for item in suggestions:
            click.echo(f"  {item['element']:<{width}}  {', '.join(item['paths'])}  ", nl=False)
            click.secho(f"{item['confidence']:.2f}", fg="green" if item["confidence"] >= 0.7 else "yellow")
            for line in item["evidence"]:
                click.secho(f"  {'':<{width}}    {line}", dim=True)
    else:
        click.echo("No paths to suggest.")
    if data["unmatched"]:
        click.echo()
        click.secho(f"No confident match ({len(data['unmatched'])}): give these archmem.paths by hand", bold=True)
        for item in data["unmatched"]:
            click.echo(f"  {item['element']}: {item['reason']}")
    if data["external"]:
        click.echo()
        click.secho(f"Outside the code ({len(data['external'])}): no paths, drift is not measured for them", bold=True)
        click.echo("  " + "; ".join(f"{item['element']} ({item['reason']})" for item in data["external"]))
    click.echo()
    click.echo(f"Code no element owns: {plural(data['unowned_before'], 'file')} now, "
               f"{plural(data['unowned'], 'file')} with these paths.")
    if data["written"]:
        click.secho(f"Wrote {plural(len(suggestions), 'element')}' paths to the [paths] table of {data['written']}; "
                    "`archmem model` shows what each owns now.", fg="green")
    elif suggestions and not write:
        click.echo("Accept them with `archmem paths suggest --write` (archmem.toml [paths]; the model file stays as "
                   "it is), or copy a glob into the element's \"archmem.paths\" property.")

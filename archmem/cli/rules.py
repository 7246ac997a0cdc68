"""``archmem install --rules`` and ``archmem brief --rules``: write or refresh the
path-scoped rule files (``.claude/rules/``, ``.cursor/rules/``) and say what changed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from archmem.cli import emit_json

if TYPE_CHECKING:
    from archmem.workspace import Workspace

RULE_CLIENTS = ("claude-code", "cursor")


def write_rules(workspace: Workspace, clients: list[str], *, as_json: bool) -> None:
    """Write ``clients``' rule files and print what was written, removed and left alone."""
    from archmem.words import plural

    plan = workspace.write_rules(clients)
    if as_json:
        emit_json({"clients": clients, "written": sorted(plan.write), "removed": plan.remove,
                   "unchanged": plan.unchanged, "skipped": plan.foreign})
        return
    for path in sorted(plan.write):
        click.echo(f"  wrote    {path}")
    for path in plan.remove:
        click.echo(f"  removed  {path}  (its element has no memories or code any more)")
    for path in plan.foreign:
        click.echo(f"  skipped  {path}  (not written by archmem: left as it is)")
    click.echo(f"{plural(len(plan.write), 'rule file')} written, {len(plan.remove)} removed, "
               f"{len(plan.unchanged)} unchanged ({', '.join(clients)}); `archmem check` reports stale ones")


def refresh_rules(workspace: Workspace, *, as_json: bool) -> None:
    """``archmem brief --rules``: rewrite the rule files where install put them."""
    clients = workspace.rule_clients()
    if not clients:
        raise click.UsageError("there are no archmem rule files to refresh: `archmem install --rules` writes them")
    write_rules(workspace, clients, as_json=as_json)

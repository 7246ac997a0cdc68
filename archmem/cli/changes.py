"""What ``confirm`` and ``drift accept`` show before they clear anything: the memory (or
the element) and what changed in its code since it was last vouched for, then a
question on a terminal. Vouching without having looked is what the question prevents."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from archmem.drift.changes import ChangesSince
    from archmem.memory.types import Memory


def should_ask(yes: bool) -> bool:
    """Ask only a person at a terminal; ``--yes``, agents and scripts go straight on."""
    return not yes and sys.stdin.isatty()


def show_memory(memory: Memory, verify: str | None, names: list[str], *, err: bool = False) -> None:
    where = f" on {', '.join(names)}" if names else " (project-wide)"
    click.secho(f"{memory.label} [{memory.kind.upper()}] ({memory.id}){where}", bold=True, err=err)
    for line in memory.content.strip().splitlines():
        click.echo(f"  {line}", err=err)
    vouched = (f"confirmed {memory.confirmed_at.date()} ({memory.confirmations} confirmations)"
               if memory.confirmed_at else f"written {memory.created_at.date()}, never confirmed")
    click.echo(f"  {vouched}" + (f", by {memory.author}" if memory.author else ""), err=err)
    if verify:
        click.secho(f"  VERIFY: {verify}", fg="yellow", err=err)


def show_changes(changes: ChangesSince | None, *, err: bool = False) -> None:
    """The stat, then the anchors' diff, coloured on a terminal."""
    click.echo("", err=err)
    if changes is None:
        click.echo("no history to compare with (not a git repository, or no model)", err=err)
        return
    for line in changes.text().splitlines():
        colour = None
        if line.startswith("+") and not line.startswith("+++"):
            colour = "green"
        elif line.startswith("-") and not line.startswith("---"):
            colour = "red"
        click.secho(line, fg=colour, err=err)
    click.echo("", err=err)

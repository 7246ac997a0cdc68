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


def ask_or_refuse(yes: bool, command: str) -> bool:
    """Whether to ask (a person at a terminal); without a terminal and without ``--yes``
    refuse: nobody was asked, so nobody vouched."""
    if yes:
        return False
    if not sys.stdin.isatty():
        from archmem.errors import InvalidInputError

        raise InvalidInputError(f"{command} asks a person first, and stdin is not a terminal",
                                hint=f"run it in a terminal, or pass --yes to {command} without asking")
    return True


def show_memory(memory: Memory, verify: str | None, names: list[str], *, err: bool = False) -> None:
    where = f" on {', '.join(names)}" if names else " (project-wide)"
    click.secho(f"{memory.label} [{memory.kind.upper()}] ({memory.id}){where}", bold=True, err=err)
    for line in memory.content.strip().splitlines():
        click.echo(f"  {line}", err=err)
    if memory.confirmed_at:
        vouched = (f"confirmed {memory.confirmed_at.date()}"
                   + (f" by {memory.confirmed_by}" if memory.confirmed_by else "")
                   + (f" ({memory.confirm_reason})" if memory.confirm_reason else "")
                   + f", {memory.confirmations} confirmations")
    else:
        vouched = f"written {memory.created_at.date()}, never confirmed"
    click.echo(f"  {vouched}" + (f"; written by {memory.author}" if memory.author else ""), err=err)
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

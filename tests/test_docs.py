"""Docs that cannot go stale: every command has help text and appears in the README or
in a page of docs/."""

from __future__ import annotations

import re

import click
import pytest

from archmem.cli import cli

from .conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
DOCS = README + "".join(page.read_text(encoding="utf-8") for page in sorted((REPO_ROOT / "docs").glob("*.md")))


def commands(group: click.Group, prefix: str = "archmem") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in sorted(group.commands.items()):
        found.append((f"{prefix} {name}", command))
        if isinstance(command, click.Group):
            found += commands(command, f"{prefix} {name}")
    return found


@pytest.mark.parametrize(("name", "command"), commands(cli), ids=[n for n, _ in commands(cli)])
def test_every_command_has_help_and_is_in_the_readme(name: str, command: click.Command):
    assert command.help and command.help.strip(), f"{name} has no help text"
    assert re.search(re.escape(name) + r"(?![\w-])", DOCS), f"{name} is not documented in README.md or docs/"
    for param in command.params:
        if isinstance(param, click.Option) and param.name not in ("help",):
            assert param.help, f"{name} {param.opts[0]} has no help text"

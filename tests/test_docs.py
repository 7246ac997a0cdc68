"""Docs that cannot go stale: every command has help text and appears in the README or
in a page of docs/."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from archmem.cli import cli

from .conftest import REPO_ROOT, cli_commands

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
DOCS = README + "".join(page.read_text(encoding="utf-8") for page in sorted((REPO_ROOT / "docs").glob("*.md")))


def commands(group: click.Group) -> list[tuple[str, click.Command]]:
    return [(f"archmem {name}", command) for name, command in cli_commands(group)]


@pytest.mark.parametrize(("name", "command"), commands(cli), ids=[n for n, _ in commands(cli)])
def test_every_command_has_help_and_is_in_the_readme(name: str, command: click.Command):
    assert command.help and command.help.strip(), f"{name} has no help text"
    assert re.search(re.escape(name) + r"(?![\w-])", DOCS), f"{name} is not documented in README.md or docs/"
    for param in command.params:
        if isinstance(param, click.Option) and param.name not in ("help",):
            assert param.help, f"{name} {param.opts[0]} has no help text"


# ---- the README is a guide, and every page stays inside the repository -------------------------

README_MAX_LINES = 500
PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md")), REPO_ROOT / "bench" / "README.md"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"DESIGN\.md|\.\./shared|(?<![\w.])shared/c4-corpus")


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans, where links live."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        lines.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return "\n".join(lines)


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in prose(page.read_text(encoding="utf-8")).splitlines()
            if re.match(r"#{1,6} ", line)}


def broken_links(page: Path) -> list[str]:
    """``page: target (why)`` for each relative link that leads nowhere or out of the repository."""
    broken = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z+.-]*:", target):
            continue  # a web address
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        where = f"{page.relative_to(REPO_ROOT)}: {target}"
        if not resolved.is_relative_to(REPO_ROOT.resolve()):
            broken.append(f"{where} (outside the repository)")
        elif not resolved.exists():
            broken.append(f"{where} (no such file)")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{where} (no such heading)")
    return broken


def test_the_readme_is_a_guide_of_at_most_500_lines():
    lines = README.count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines: move reference sections to docs/*.md"


def test_every_relative_link_in_the_readme_and_docs_resolves():
    broken = [problem for page in PAGES for problem in broken_links(page)]
    assert not broken, "\n".join(broken)


def test_no_page_or_module_cites_a_file_outside_the_repository():
    """A clone holds everything its docs and code comments point at: the design is
    docs/architecture.md, not a file beside the checkout."""
    sources = [*PAGES, *sorted((REPO_ROOT / "archmem").rglob("*.py")), *sorted((REPO_ROOT / "templates").glob("*")),
               REPO_ROOT / "archmem.toml", REPO_ROOT / "workspace.dsl"]
    cited = [f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}"
             for path in sources
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if OUTSIDE.search(line)]
    assert not cited, "\n".join(cited)


def test_no_issue_numbers_in_what_users_read():
    """An issue number means nothing to someone reading a clone."""
    found = [f"{page.relative_to(REPO_ROOT)}:{number}: {line.strip()}"
             for page in PAGES
             for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\bissues? #?\d+", line, re.I)]
    assert not found, "\n".join(found)

"""``archmem merge-file`` (git's merge driver for memory files) and ``archmem install
merge-driver`` (which tells git to use it). Parse, call, print."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import click

from archmem.cli import cli, emit_json

if TYPE_CHECKING:
    from archmem.agents.install import FileChange
    from archmem.agents.merge_driver import GitSetting


@cli.command("merge-file")
@click.argument("base", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("path", required=False)
@click.pass_context
def merge_file(ctx: click.Context, base: Path, ours: Path, theirs: Path, path: str | None) -> None:
    """Merge three versions of one memory file, as git's merge driver (git passes BASE
    OURS THEIRS PATH as %O %A %B %P; `archmem install merge-driver` sets this up).

    Two confirmations merge cleanly (the later time, the confirmations of both);
    elements and anchors are united; any other field comes from the side that changed
    it. When both sides changed one field differently, OURS gets git's conflict
    markers. The result is written to OURS. Exit 0 when clean, 1 with conflicts.
    """
    from archmem.git.merge_file import merge_texts
    from archmem.memory.merge import merge_memory_file

    texts = [_read(file) for file in (base, ours, theirs)]
    result = merge_memory_file(texts[0], texts[1], texts[2], merge_texts)
    try:
        ours.write_bytes(result.text.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        from archmem.errors import StoreError

        raise StoreError(f"cannot write the merge result to {ours}: {exc.strerror or exc}") from None
    if result.conflicted:
        why = f" ({result.reason})" if result.reason else ""
        fix = "resolve the markers" if result.method == "text" and "<<<<<<<" in result.text else "fix the file"
        click.echo(f"archmem merge-file: {path or ours}: conflict{why}; {fix}, then run archmem check", err=True)
        ctx.exit(1)


def _read(file: Path) -> str:
    from archmem.errors import RepositoryError

    try:
        return file.read_bytes().decode("utf-8", "surrogateescape")
    except OSError as exc:
        raise RepositoryError(f"cannot read {file}: {exc.strerror or exc}") from None


def install_merge_driver(
    root: Path, *, dry_run: bool, force: bool, global_: bool, print_only: bool, as_json: bool
) -> None:
    """``archmem install merge-driver`` (called by ``archmem install``)."""
    from archmem.agents import merge_driver as plan
    from archmem.config import load_config

    memories = load_config(root).store.memories
    if print_only:
        click.echo(plan.snippet(root, memories), nl=False)
        return
    changes, settings = plan.plan_merge_driver(root, memories, global_=global_)
    conflicted = any(c.conflicts for c in changes) or any(s.conflicts for s in settings)
    if not dry_run and not force:
        plan.check_conflicts(changes, settings)
    if not dry_run:
        plan.apply_merge_driver(root, changes, settings, force=force)
    hints = ["git config is not committed: every clone runs `archmem install merge-driver` once (or once per "
             "user with --global); the .gitattributes line is committed for everyone."]
    if shutil.which("archmem") is None:
        hints.append("archmem is not on PATH here: git runs `archmem merge-file` by name during a merge.")
    if as_json:
        emit_json({"target": "merge-driver", "root": str(root), "dry_run": dry_run, "written": not dry_run,
                   "changes": [c.to_dict() for c in changes], "git_config": [s.to_dict() for s in settings],
                   "hints": hints})
    else:
        _print_plan(root, changes, settings, dry_run=dry_run, hints=hints)
    if dry_run and conflicted and not force:
        plan.check_conflicts(changes, settings)  # the exit code a real run would have


def _print_plan(
    root: Path, changes: list[FileChange], settings: list[GitSetting], *, dry_run: bool, hints: list[str]
) -> None:
    from archmem.cli.output import DRY_RUN_VERBS, print_diff

    click.echo(f"archmem install merge-driver{' --dry-run' if dry_run else ''} in {root}")
    verbs = {"created": "set", "updated": "replaced", "unchanged": "unchanged"}
    planned = {"created": "would set", "updated": "would replace", "unchanged": "unchanged"}
    rows = [(DRY_RUN_VERBS[c.action] if dry_run else c.action, c.name) for c in changes]
    rows += [((planned if dry_run else verbs)[s.action], s.command) for s in settings]
    width = max(len(verb) for verb, _ in rows)
    for verb, name in rows:
        click.echo(f"  {verb:<{width}}  {name}")
    for change in changes:
        if change.action == "updated" or (dry_run and change.action == "created"):
            click.echo()
            print_diff(change.diff())
    click.echo()
    for hint in hints:
        click.echo(f"note: {hint}")

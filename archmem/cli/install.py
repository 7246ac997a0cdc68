"""``archmem install``: connect a coding agent (Claude Code, Codex, any stdio MCP client)
to archmem. Parses flags, asks ``archmem.agents.install`` for the plan, prints or writes it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from archmem.cli import cli, emit_json, json_option
from archmem.cli.output import DRY_RUN_VERBS, print_diff, secho

if TYPE_CHECKING:
    from archmem.agents.install import FileChange

TARGETS = ["claude-code", "codex", "cursor", "merge-driver"]
@cli.command()
@click.argument("target", type=click.Choice(TARGETS), required=False)
@click.option("--print", "print_only", is_flag=True,
              help="Print the snippets for any stdio MCP client (JSON, Codex TOML, the AGENTS.md section); write nothing.")
@click.option("--dry-run", is_flag=True, help="Show what would change, as diffs; write nothing.")
@click.option("--force", is_flag=True, help="Replace an existing archmem entry that differs from what install writes.")
@click.option("--global", "global_", is_flag=True,
              help="codex: write the server to $CODEX_HOME/config.toml (~/.codex) instead of the project's .codex/; "
                   "merge-driver: set the driver in your global git config instead of the repository's.")
@click.option("--budget", type=click.IntRange(200), default=None,
              help="Characters of briefing the start-up hook adds to the context (default 6,000; at most 9,000, "
                   "below what the clients keep).")
@click.option("--rules", is_flag=True,
              help="Write path-scoped rule files instead: .claude/rules/<element>.md (claude-code) and "
                   ".cursor/rules/<element>.mdc (cursor); both without TARGET.")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Project folder (default: the git top level of the current folder).")
@json_option
def install(target: str | None, print_only: bool, dry_run: bool, force: bool, global_: bool, budget: int | None,
            rules: bool, repo: Path | None, as_json: bool) -> None:
    """Connect an agent to archmem: TARGET claude-code writes .mcp.json, the hooks in
    .claude/settings.json (SessionStart briefing, PostToolUse file notes, PreCompact,
    SessionEnd) and a CLAUDE.md section; codex writes .codex/config.toml, hooks in
    .codex/hooks.json (SessionStart, PostToolUse on apply_patch, PreCompact) and an
    AGENTS.md section; cursor writes .cursor/mcp.json, sessionStart, postToolUse and
    sessionEnd hooks in .cursor/hooks.json and the AGENTS.md section; merge-driver adds a
    .gitattributes line and git config so that git merges memory files with archmem
    merge-file (two confirmations merge without a conflict). Records this Python for the
    hooks in the git-ignored .archmem/hooks/. --rules writes path-scoped rule files with
    each element's top memories instead (archmem brief --rules refreshes them, archmem
    check reports stale ones). Merges, never clobbers; run it again safely."""
    from archmem.agents import install as plan
    from archmem.agents.hooks import clamp_budget

    if rules:
        return _install_rules(target, repo, as_json=as_json)
    if target == "merge-driver":
        from archmem.cli.merge import install_merge_driver

        return install_merge_driver(_project_root(repo), dry_run=dry_run, force=force, global_=global_,
                                    print_only=print_only, as_json=as_json)
    budget = budget if budget is not None else plan.DEFAULT_BUDGET
    budget, warning = clamp_budget(target or "claude-code", budget)
    warnings = [warning] if warning else []
    for warning in warnings:
        secho(f"warning: {warning}", fg="yellow", err=True)
    if print_only:
        if as_json:
            emit_json(plan.snippets(target, budget=budget))
        else:
            click.echo(plan.print_document(target, budget=budget), nl=False)
        return
    if target is None:
        raise click.UsageError("name a TARGET (claude-code, codex, cursor or merge-driver), or use --print for any "
                               "other client")
    if global_ and target != "codex":
        raise click.UsageError("--global is for codex and merge-driver (Claude Code's hook and .mcp.json belong "
                               "to the project)")

    root = _project_root(repo)
    if target == "claude-code":
        changes = plan.plan_claude_code(root, budget=budget)
    elif target == "cursor":
        changes = plan.plan_cursor(root, budget=budget)
    else:
        config_path, config_name = _codex_config(global_)
        changes = plan.plan_codex(root, config_path=config_path, config_name=config_name, budget=budget)
    conflicts = [c for change in changes for c in change.conflicts]
    if not dry_run and not force:
        plan.check_conflicts(changes)  # refuse before printing "created …"
    if not dry_run:
        plan.apply_changes(changes, force=force)
    hints = _hints(target, root, global_)
    if not dry_run:
        hints.append(_record_interpreter(root))
    if as_json:
        emit_json({
            "target": target, "root": str(root), "dry_run": dry_run, "written": not dry_run, "budget": budget,
            "changes": [change.to_dict() for change in changes], "hints": hints, "warnings": warnings,
        })
    else:
        _print_changes(target, root, changes, dry_run=dry_run, hints=hints)
    if dry_run and conflicts and not force:
        plan.check_conflicts(changes)  # say so, with the exit code a real run would have


def _install_rules(target: str | None, repo: Path | None, *, as_json: bool) -> None:
    from archmem.cli.rules import RULE_CLIENTS, write_rules
    from archmem.workspace import Workspace

    if target is not None and target not in RULE_CLIENTS:
        raise click.UsageError(f"--rules is for {' and '.join(RULE_CLIENTS)} ({target} has no path-scoped rule "
                               "files: its file hook and AGENTS.md carry the memories)")
    with Workspace.open(_project_root(repo)) as workspace:
        write_rules(workspace, [target] if target else list(RULE_CLIENTS), as_json=as_json)


def _project_root(repo: Path | None) -> Path:
    from archmem.git.repository import find_root

    if repo is not None:
        find_root(repo)  # exists, is a folder: the same errors as every other command
        return repo.resolve()
    return find_root(Path.cwd())[0]


def _codex_config(global_: bool) -> tuple[Path | None, str | None]:
    """Codex's user config (``$CODEX_HOME``, default ``~/.codex``) when ``--global``."""
    if not global_:
        return None, None
    home = os.environ.get("CODEX_HOME")
    folder = Path(home).expanduser() if home else Path.home() / ".codex"
    path = folder / "config.toml"
    try:
        shown = "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        shown = str(path)
    return path, shown


def _hints(target: str, root: Path, global_: bool) -> list[str]:
    import shutil

    hints = []
    if target == "claude-code":
        hints.append("Claude Code asks once to approve the project's MCP server 'archmem' (see /mcp); "
                     "the hooks and CLAUDE.md apply from the next session. After each Read, Edit, Write or "
                     "MultiEdit the PostToolUse hook adds the memories on that file's element (once per element "
                     "per session; again after compaction).")
    elif target == "cursor":
        hints.append("Cursor lists the server under Settings → MCP; turn it on there once. The hooks "
                     "(.cursor/hooks.json, Cursor 2.4 or newer) and AGENTS.md apply to new chats. The "
                     "postToolUse hook returns a file's memories as additional_context after a Read or Write; "
                     "afterFileEdit cannot add context. No compaction hook is installed for Cursor, so a "
                     "compacted chat is not shown them again.")
    else:
        if not global_:
            hints.append("Codex reads .codex/config.toml and .codex/hooks.json only in a trusted project; "
                         "if it does not list archmem (/mcp), run: archmem install codex --global")
        hints.append("Codex runs a hook only once you trust it (/hooks). Hooks are on by default in current "
                     "Codex; older versions need `[features] codex_hooks = true` in config.toml (install does "
                     "not turn feature flags on). After each apply_patch the PostToolUse hook adds the memories "
                     "on the patched files' elements; PreCompact has them shown again after compaction. Codex "
                     "has no session-end event (its hooks are SessionStart, UserPromptSubmit, PreToolUse, "
                     "PermissionRequest, PostToolUse, PreCompact, PostCompact and Stop, which runs after every "
                     "turn): the next session's start ends the sessions Codex left open.")
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        hints.append("the MCP SDK is not installed in this Python environment: `archmem mcp` exits until "
                     "it is (pip install 'archmem[mcp]', or pipx install 'archmem[mcp]').")
    if shutil.which("archmem") is None:
        hints.append("archmem is not on PATH here: the agent starts `archmem mcp` by name, "
                     "so install it where the agent runs (e.g. pipx install archmem).")
    if not _has_model(root):
        hints.append("No architecture model yet: run `archmem init`, then write workspace.dsl (or archmem.yaml).")
    return hints


def _record_interpreter(root: Path) -> str:
    """Write this interpreter into the git-ignored ``.archmem/hooks/python``: the hooks'
    way to start archmem where it is not on the agent's PATH (a virtualenv install)."""
    import sys

    from archmem.agents.edit_hook import record_interpreter

    try:
        path = record_interpreter(root, sys.executable)
    except OSError as exc:
        return f"could not record this Python for the hooks ({exc.strerror or exc}): they need archmem on PATH."
    return (f"where archmem is not on the agent's PATH, the hooks start it with {sys.executable} "
            f"(recorded in {path.relative_to(root).as_posix()}, git-ignored); `archmem status` checks them.")


def _has_model(root: Path) -> bool:
    from archmem.errors import ArchmemError
    from archmem.model.loader import discover_model

    if (root / "archmem.toml").exists():
        return True
    try:
        discover_model(root, None)
    except ArchmemError:
        return False
    return True


def _print_changes(target: str, root: Path, changes: list[FileChange], *, dry_run: bool, hints: list[str]) -> None:
    click.echo(f"archmem install {target}{' --dry-run' if dry_run else ''} in {root}")
    width = max(len(DRY_RUN_VERBS[c.action] if dry_run else c.action) for c in changes)
    for change in changes:
        verb = DRY_RUN_VERBS[change.action] if dry_run else change.action
        line = f"  {verb:<{width}}  {change.name}"
        if change.conflicts:
            line += "  (replaces a different archmem entry" + ("" if dry_run else ", --force") + ")"
        click.echo(line)
    for change in changes:
        if change.action == "updated" or (dry_run and change.action == "created"):
            click.echo()
            print_diff(change.diff())
    if hints:
        click.echo()
        for hint in hints:
            click.echo(f"note: {hint}")

"""``archmem hook``: what the agents' lifecycle hooks run (``archmem install`` writes them).

A hook must never get in an agent's way: these commands read the client's JSON payload
from stdin (its ``cwd`` or ``workspace_roots`` name the project), answer in the client's
format, and exit 0 with nothing on stdout whatever goes wrong (a missing model, a broken
store, no git); the reason goes to stderr, which the installed commands discard.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from archmem.cli import cli
from archmem.json_input import load_json

CLIENTS = ["claude-code", "codex", "cursor"]
CUT_NOTE = "\n\n… (cut to fit what {client} keeps from a hook: `archmem brief --changed --overview` shows it all)\n"


@cli.group("hook")
def hook() -> None:
    """What the agents' hooks run (archmem install writes them): the briefing at session
    start, the notes on a file as it is read or edited, the sessions left open at session
    end. Never fails, never blocks."""


def probed() -> bool:
    """``archmem status`` is checking that the installed command starts archmem: say so
    and do nothing else."""
    from archmem.agents.edit_hook import PROBE_ANSWER, PROBE_VARIABLE

    if os.environ.get(PROBE_VARIABLE):
        click.echo(PROBE_ANSWER)
        return True
    return False


def read_payload() -> dict[str, Any]:
    """The hook's JSON input on stdin ({} at a terminal, or when it is not JSON)."""
    if sys.stdin is None or sys.stdin.isatty():
        return {}
    try:
        data = load_json(sys.stdin.read() or "{}")
    except (ValueError, OSError):
        return {}
    return data if isinstance(data, dict) else {}


def project_of(payload: dict[str, Any], repo: Path | None) -> Path | None:
    """The project a hook runs for: ``--repo``, else the payload's workspace root or cwd,
    else the current folder (None)."""
    if repo is not None:
        return repo
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
        return Path(roots[0])
    cwd = payload.get("cwd")
    return Path(cwd) if isinstance(cwd, str) and cwd else None


def cap(text: str, client: str) -> str:
    """``text`` cut at a line to stay below what ``client`` keeps from a hook."""
    from archmem.agents.hooks import CLIENT_LIMITS, LIMIT_MARGIN

    limit = CLIENT_LIMITS[client] - LIMIT_MARGIN // 2
    if len(text) <= limit:
        return text
    note = CUT_NOTE.format(client=client)
    cut = text[: limit - len(note)]
    return cut[: cut.rfind("\n") if "\n" in cut else len(cut)].rstrip() + note


def as_output(markdown: str, client: str) -> str:
    """The briefing the way ``client`` takes context from a start-up hook."""
    if client == "codex":
        return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": markdown}})
    if client == "cursor":
        return json.dumps({"additional_context": markdown})
    return markdown


@hook.command("session-start")
@click.option("--client", type=click.Choice(CLIENTS), required=True, help="Whose hook this is (its output format).")
@click.option("--budget", type=click.IntRange(200), default=None, help="Characters of briefing (default 6,000).")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Project folder (default: the payload's workspace root or cwd, else the current folder).")
def session_start(client: str, budget: int | None, repo: Path | None) -> None:
    """Print the briefing for the changed files (on a clean tree, the project overview) in
    CLIENT's hook format, below what it keeps. Codex has no session-end hook: its start
    first ends the sessions Codex left open."""
    from archmem.agents.hooks import DEFAULT_BUDGET, clamp_budget

    if probed():
        return
    payload = read_payload()
    try:
        from archmem.workspace import Workspace

        with Workspace.open(project_of(payload, repo)) as ws:
            if client == "codex":
                ws.end_left_open(client="codex")
            if not ws.set_up:
                return
            briefing = ws.brief(changed=ws.repository.is_git, overview=True,
                                budget=clamp_budget(client, budget or DEFAULT_BUDGET)[0])
            text = briefing.markdown
    except Exception as exc:  # a hook never fails a session start
        click.echo(f"archmem hook: {exc}", err=True)
        return
    if text.strip():
        click.echo(as_output(cap(text, client), client))


@hook.command("session-end")
@click.option("--client", type=click.Choice(CLIENTS), required=True, help="Whose hook this is.")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Project folder (default: the payload's workspace root or cwd, else the current folder).")
def session_end(client: str, repo: Path | None) -> None:
    """End the archmem sessions the client's session left open: those its transcript
    names (the payload's transcript_path), citing the memories they were shown that the
    agent named itself; without a transcript, the open sessions CLIENT started."""
    if probed():
        return
    payload = read_payload()
    try:
        from archmem.workspace import Workspace

        with Workspace.open(project_of(payload, repo)) as ws:
            ended = ws.end_left_open(client=client, transcript=payload.get("transcript_path"))
    except Exception as exc:  # a hook never fails a session end
        click.echo(f"archmem hook: {exc}", err=True)
        return
    for end in ended:
        click.echo(f"ended {end.session_id}: {len(end.cited)} cited", err=True)


@hook.command("file")
@click.option("--client", type=click.Choice(CLIENTS), required=True, help="Whose hook this is (its JSON formats).")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Project folder (default: the payload's workspace root or cwd, else the current folder).")
def file_command(client: str, repo: Path | None) -> None:
    """Print the memories on the elements and anchors of the files a tool call reads or
    edits (the client's tool-hook JSON on stdin): VERIFY and pitfalls first, each element
    once per session, at most about 1,500 characters, nothing when there is nothing."""
    from archmem.entry import file_hook

    try:
        output = file_hook(client, read_payload(), repo)
    except Exception as exc:  # a hook never fails a tool call
        click.echo(f"archmem hook: {exc}", err=True)
        return
    if output:
        click.echo(output)


@hook.command("pre-compact")
@click.option("--client", type=click.Choice(CLIENTS), required=True, help="Whose hook this is.")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Project folder (default: the payload's workspace root or cwd, else the current folder).")
def pre_compact(client: str, repo: Path | None) -> None:
    """Before the client compacts its context: forget which elements the file hook showed
    this session, so their memories are shown again after compaction."""
    from archmem.agents import edit_hook as state

    if probed():
        return
    payload = read_payload()
    root = state.project_root(repo if repo is not None else state.start_folder(payload, os.environ))
    if root is not None and state.forget_shown(root, client, state.session_of(payload)):
        click.echo("archmem: the file notes will be shown again after compaction", err=True)

"""The ``archmem`` command line: parse flags, call ``Workspace``, print a table or JSON.

Start-up stays light: only click is imported here; each command's module loads when
that command runs (``COMMAND_MODULES``), and the workspace, pydantic and everything
heavier load inside the commands that need them.
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from archmem import __version__
from archmem.words import plural

if TYPE_CHECKING:
    from archmem.workspace import Workspace


COMMAND_MODULES: dict[str, str] = {
    "demo": "archmem.cli.demo",
    "drift": "archmem.cli.drift",
    "mcp": "archmem.cli.mcp",
    "recall": "archmem.cli.recall",
    "brief": "archmem.cli.recall",
    **dict.fromkeys(
        ["remember", "map", "embed", "confirm", "history", "archive", "unarchive", "show",
         "purge", "list", "session", "review", "export", "import"],
        "archmem.cli.memory",
    ),
    "conformance": "archmem.cli.conformance",
    "hook": "archmem.cli.hook",
    "install": "archmem.cli.install",
    "paths": "archmem.cli.paths",
    "pr": "archmem.cli.pr",
    "check": "archmem.cli.check",
    "merge-file": "archmem.cli.merge",
    "server": "archmem.cli.server",
}
"""Which module registers each command defined outside this one: a command's module is
imported when that command runs (or help lists it), so a command pays only for its own."""


class ArchmemGroup(click.Group):
    """Turns an ``ArchmemError`` into a clear message and its exit code, never a traceback,
    and prints everything through ``archmem.cli.output.SafeStream`` (no raw control character).
    Commands in ``COMMAND_MODULES`` are loaded when asked for, not at start-up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMAND_MODULES})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(COMMAND_MODULES[cmd_name])
        return super().get_command(ctx, cmd_name)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        from archmem.cli.output import safe_output

        with safe_output():
            return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        from archmem.errors import ArchmemError

        try:
            return super().invoke(ctx)
        except ArchmemError as exc:
            if ctx.meta.get("archmem.json"):
                click.echo(json.dumps(exc.to_dict(), indent=2), err=True)
            else:
                from archmem.cli.output import secho

                secho(f"error: {exc}", fg="red", err=True)
            ctx.exit(exc.exit_code)


def workspace_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--repo`` and ``--model`` on every command that reads the repository."""

    @click.option(
        "--repo",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Repository folder (default: the git top level of the current folder).",
    )
    @click.option(
        "--model",
        "model_file",
        type=click.Path(path_type=Path),
        default=None,
        help="Model file (or LikeC4 folder) to read instead of discovering one (may be outside the repository).",
    )
    @functools.wraps(command)
    def wrapper(*args: Any, repo: Path | None, model_file: Path | None, **kwargs: Any) -> Any:
        from archmem.store.failures import store_failures
        from archmem.workspace import Workspace

        workspace = Workspace.open(repo, model=model_file)
        bar = HistoryBar() if sys.stderr.isatty() else None
        workspace.history_progress = bar
        try:
            with store_failures(lambda: workspace.store_path):
                return command(*args, workspace=workspace, **kwargs)
        finally:
            if bar is not None:
                bar.close()
            report_files(workspace)
            show_model_warnings(workspace)

    return wrapper


def secho(message: object = "", **styles: Any) -> None:
    """Colour through ``archmem.cli.output.secho`` (words escaped, only archmem's colours kept),
    imported when a command prints, not when the CLI starts."""
    from archmem.cli.output import secho as safe_secho

    safe_secho(message, **styles)


class HistoryBar:
    """A progress bar on the terminal while history is read, with the true total
    (``git rev-list --count``); shown only once a scan starts, so fast commands stay quiet."""

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total <= 0:
                return
            self.bar = click.progressbar(length=total, label="reading git history", file=sys.stderr, show_pos=True)
            self.bar.__enter__()
        self.bar.length = max(total, done)
        self.bar.pos = done
        self.bar.render_progress()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def agent_facing(workspace: Workspace, *, always: bool = True) -> None:
    """An answer an agent waits for reads little uncached history on the way
    (``[drift] scan_budget``); a person at a terminal sees the bar instead."""
    if always or not sys.stderr.isatty():
        workspace.scan_budget = workspace.config.drift.scan_budget


NOT_SET_UP_NEXT = [
    "`archmem init` writes archmem.toml; then describe the architecture in workspace.dsl (Structurizr DSL) "
    "or archmem.yaml",
    "or start with a memory: archmem remember \"…\" --kind convention",
]


def read_only(command: Callable[..., Any]) -> Callable[..., Any]:
    """A reading command (under ``workspace_options``): where archmem has nothing to go on
    (no model, no memories, no config) it says so and what to do, on stderr, and exits 0
    with nothing on stdout (with ``--json``: ``{"set_up": false, …}``), creating nothing.
    An agent's start-up hook in such a repository so prints nothing."""

    @functools.wraps(command)
    def wrapper(*args: Any, workspace: Workspace, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        if workspace.set_up or ctx.invoked_subcommand is not None:
            return command(*args, workspace=workspace, **kwargs)
        message = f"archmem has nothing here yet: no architecture model and no memories in {workspace.root}"
        if kwargs.get("as_json"):
            emit_json({"set_up": False, "root": str(workspace.root), "message": message, "next": NOT_SET_UP_NEXT})
            return None
        click.echo(f"{message}\n" + "".join(f"  next: {step}\n" for step in NOT_SET_UP_NEXT), err=True, nl=False)
        return None

    return wrapper


def report_files(workspace: Workspace) -> None:
    """On stderr, once per command: memory files that could not be read, and a store
    (its memories, its drift accepts) moved to files (it happens once)."""
    report = workspace.last_sync
    if report is None:
        return
    if report.exported:
        secho(
            f"archmem: wrote the store's {plural(report.exported, 'memory', 'memories')} as files in "
            f"{workspace.config.store.memories}/ (once): commit them to share them with your team", fg="yellow", err=True,
        )
    if workspace.accepts_exported:
        secho(
            f"archmem: wrote the index's {plural(workspace.accepts_exported, 'drift accept')} as files in "
            f"{workspace.config.store.accepts}/ (once): commit them to share them with your team", fg="yellow",
            err=True,
        )
    if workspace.accepts_export_error:
        secho(f"warning: the index's drift accepts are not written as files yet: {workspace.accepts_export_error}",
              fg="yellow", err=True)
    ctx = click.get_current_context(silent=True)
    warned = ctx.meta.get("archmem.warned", set()) if ctx is not None else set()
    for line in report.warnings():
        if line not in warned:
            secho(f"warning: {line}", fg="yellow", err=True)


def show_model_warnings(workspace: Workspace) -> None:
    """What reading the model warned about, on stderr, whatever the command printed
    (``archmem model`` prints them in its own output instead)."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.meta.get("archmem.model_warnings_shown"):
        return
    for warning in workspace.model_warnings:
        secho(f"warning: {warning}", fg="yellow", err=True)


def json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--json``: machine output on stdout (errors as JSON on stderr)."""

    def remember(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
        ctx.meta["archmem.json"] = value
        return value

    return click.option(
        "--json", "as_json", is_flag=True, callback=remember, is_eager=True, help="Print JSON for machines."
    )(command)


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@click.group(cls=ArchmemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="archmem")
def cli() -> None:
    """archmem: an architecture-aware memory for coding agents.

    Memories attach to the C4 elements of the repository's architecture model
    (Structurizr DSL workspace.dsl or its JSON, a LikeC4 project, or archmem.yaml);
    drift in git history marks the ones to verify.
    """


@cli.command()
@click.option("--print", "print_only", is_flag=True, help="Print the commented archmem.toml and write nothing.")
@click.option("--starter-model", is_flag=True,
              help="Without a model, draft workspace.dsl from the repository's manifests (containers with paths "
                   "and technology, tagged Draft) for a person to review.")
@workspace_options
@json_option
def init(workspace: Workspace, print_only: bool, starter_model: bool, as_json: bool) -> None:
    """Write a commented archmem.toml, create the memory folder, and keep the local index
    and private memories out of git."""
    if print_only:
        from archmem.config_template import CONFIG_TEMPLATE

        click.echo(CONFIG_TEMPLATE, nl=False)
        return
    result = workspace.init(starter_model=starter_model)
    if as_json:
        emit_json(
            {
                "root": str(result.root),
                "starter_model": result.starter_model,
                "config": str(result.config_path),
                "config_written": result.config_written,
                "gitignore_updated": result.gitignore_updated,
                "model": result.model,
                "created": result.created,
            }
        )
        return
    if result.config_written:
        click.echo(f"wrote {result.config_path}")
    else:
        click.echo(f"kept the existing {result.config_path}")
    for created in result.created:
        if created.endswith("/"):
            click.echo(f"created {created}")
    if result.gitignore_updated:
        click.echo("kept the local index and private memories out of git (.gitignore)")
    click.echo(f"memories are files in {workspace.config.store.memories}/: commit them to share them")
    if result.starter_model:
        click.echo(f"drafted {result.model} from the repository's manifests: every element is tagged Draft; "
                   "review the names, add people, external systems and relationships, then commit it")
    elif result.model:
        click.echo(f"model: {result.model}" + (" (kept; --starter-model writes one only where there is none)"
                                               if starter_model else ""))
    else:
        click.echo("no model file yet: write workspace.dsl (Structurizr DSL) or archmem.yaml, "
                   "or draft one with `archmem init --starter-model`")


@cli.command("model")
@workspace_options
@json_option
def model_command(workspace: Workspace, as_json: bool) -> None:
    """Show the architecture model: elements with their code, relationships, decisions,
    and the code that no element owns."""
    summary = workspace.model_summary()
    click.get_current_context().meta["archmem.model_warnings_shown"] = True  # they are in the summary
    if as_json:
        emit_json(summary)
        return
    from archmem.cli.output import print_model_summary

    print_model_summary(summary)


@cli.command("elements")
@click.argument("query", required=False)
@click.option("--limit", "-n", type=click.IntRange(1), default=None,
              help="At most this many (default with a QUERY: 10; without: all).")
@workspace_options
@read_only
@json_option
def elements_command(workspace: Workspace, query: str | None, limit: int | None, as_json: bool) -> None:
    """The model's elements: with QUERY (a task, in words) the ones it is about, best
    first (the MCP tool find_elements); without, all of them. Each with its code and how
    many memories it holds."""
    found = workspace.elements(query, limit=limit)
    if as_json:
        emit_json({"query": query, "elements": found})
        return
    from archmem.cli.detail import print_elements

    print_elements(found, query=query)


@cli.command("status")
@click.option("--check-provider", is_flag=True, help="Also ask the embedding provider for one small embedding.")
@workspace_options
@json_option
def status_command(workspace: Workspace, check_provider: bool, as_json: bool) -> None:
    """Where archmem looks and what it found: model, store, recall mode, drift, connected
    agents, and what to do next. Changes no memory."""
    from archmem.status import workspace_status

    status = workspace_status(workspace, check_provider=check_provider)
    if as_json:
        emit_json(status)
        return
    from archmem.cli.output import print_status

    print_status(status)


def main() -> None:
    """Console entry point."""
    try:
        cli.main(prog_name="archmem")
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)

"""Memory commands: remember, map, embed, confirm, history, archive, purge, list, session,
review, export, import. Each parses flags, calls ``Workspace``, prints a table or JSON
(recall and brief, which agents run most, are ``archmem.cli.recall``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from archmem.cli import cli, emit_json, json_option, read_only, secho, workspace_options
from archmem.cli.output import terminal
from archmem.words import plural

if TYPE_CHECKING:
    from archmem.workspace import Workspace

KINDS = ["pitfall", "convention", "note", "session_outcome"]


def _read_content(content: str) -> str:
    """``-`` reads the content from standard input (for long or multi-line text)."""
    if content == "-":
        data = sys.stdin.buffer.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            from archmem.errors import InvalidInputError

            line = data[: exc.start].count(b"\n") + 1
            raise InvalidInputError(
                f"the content is not valid UTF-8 (byte {exc.start}, line {line}); nothing was stored"
            ) from None
    return content


@cli.command()
@click.argument("content")
@click.option("--kind", "-k", required=True, help=f"One of: {', '.join(KINDS)}.")
@click.option("--title", "-t", default=None, help="A unique title: makes the memory addressable as [[Title]].")
@click.option("--element", "-e", "elements", multiple=True, help="Element identifier or name (repeatable).")
@click.option("--anchor", "anchors", multiple=True, help="Repo path (optionally path#Symbol) it is about (repeatable).")
@click.option("--supersedes", default=None, help="Title or id of the memory this one replaces.")
@click.option("--author", default=None, help="Who wrote it, as client/name (e.g. claude-code/sarah).")
@click.option("--session", "session_id", default=None, help="The session this was learned in.")
@click.option("--private/--shared", "private", default=None,
              help="Keep it in the git-ignored folder (this clone only), or write it to the committed one "
                   "(default: [store] private_by_default, else shared).")
@workspace_options
@json_option
def remember(
    workspace: Workspace, content: str, kind: str, title: str | None, elements: tuple[str, ...],
    anchors: tuple[str, ...], supersedes: str | None, author: str | None, session_id: str | None,
    private: bool | None, as_json: bool,
) -> None:
    """Remember CONTENT (use - to read it from stdin). Restating a memory confirms it.

    The memory is written as a Markdown file in .archmem/memories/: commit it to share it."""
    result = workspace.remember(
        _read_content(content), kind=kind, title=title, elements=elements, anchors=anchors,
        supersedes=supersedes, author=author, session_id=session_id, private=private,
    )
    if as_json:
        emit_json(result.to_dict())
        return
    label = f"{result.title!r} " if result.title else ""
    where = f" in {result.path}" if result.path else ""
    if result.deduplicated:
        click.echo(f"confirmed {label}({result.id}): this restates it")
    elif result.supersedes:
        click.echo(f"remembered {label}({result.id}){where}, superseding {result.supersedes}")
    else:
        click.echo(f"remembered {label}({result.id}){where}")
    for similar in result.similar_to:
        shown = similar["title"] or similar["id"]
        secho(f"  similar to {shown!r} ({similar['id']}, {similar['score']:.2f}): supersede it on purpose?", fg="yellow")
    for link in result.links:
        click.echo(f"  linked [[{link['target']}]] → {link['kind']} {link['id']}")
    for pending in result.pending_links:
        secho(f"  pending link [[{pending}]]: attaches when a memory with that title is written", dim=True)
    for anchor in result.anchors:
        click.echo(f"  anchor {anchor}")


@cli.command("map")
@click.option("--format", "output_format", type=click.Choice(["md", "html", "json"]), default="md", show_default=True,
              help="md for reading, html for a self-contained page, json for machines.")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write to FILE.")
@workspace_options
@read_only
@json_option
def map_command(workspace: Workspace, output_format: str, out: Path | None, as_json: bool) -> None:
    """The knowledge map: per element what is known, how fresh, what to verify, and the
    gaps. --json is --format json."""
    if as_json:
        output_format = "json"
    knowledge = workspace.knowledge_map()
    text = knowledge.render(output_format, overrides=workspace.template_overrides)
    if out is None:
        click.echo(text, nl=False)
        return
    workspace.write_output(out, text)
    click.echo(f"wrote {out}: {knowledge.coverage}", err=True)


@cli.command()
@click.option("--batch-size", default=32, show_default=True, type=click.IntRange(1, 2048), help="Texts per request.")
@workspace_options
@json_option
def embed(workspace: Workspace, batch_size: int, as_json: bool) -> None:
    """Embed the memories that have no vector (or a stale one) for the configured model."""
    if as_json or not sys.stderr.isatty():
        report = workspace.embed_missing(batch_size=batch_size)
    else:
        with click.progressbar(length=1, label="embedding", file=terminal(err=True)) as bar:
            def progress(done: int, total: int) -> None:
                bar.length = max(total, 1)
                bar.update(done - bar.pos)

            report = workspace.embed_missing(batch_size=batch_size, progress=progress)
    data = {
        "model": report.identity, "embedded": report.embedded, "skipped": report.skipped,
        "failed": report.failed, "errors": report.errors,
    }
    if as_json:
        emit_json(data)
    else:
        click.echo(f"{report.identity}: embedded {report.embedded}, already up to date {report.skipped}, failed {report.failed}")
        for error in report.errors:
            secho(f"  {error}", fg="yellow")
    if report.failed:
        raise SystemExit(10)


@cli.command()
@click.argument("memory")
@click.option("--yes", "-y", is_flag=True, help="Confirm without asking (agents, scripts).")
@click.option("--reason", default=None, help="Why it still holds (written to the memory's file, with who and when).")
@workspace_options
@json_option
def confirm(workspace: Workspace, memory: str, yes: bool, reason: str | None, as_json: bool) -> None:
    """Confirm MEMORY (id or title) is still true: clears VERIFY, refreshes it.

    First shows the memory and what changed in its elements' code and its anchors since
    it was last confirmed (git diff --stat, and the anchors' diff), and on a terminal
    asks before confirming; without a terminal it needs --yes. Who confirmed, when and
    why (--reason) are written to the memory's file, for the pull request to show."""
    from archmem.cli.changes import ask_or_refuse, show_changes, show_memory

    found, changes = workspace.memory_changes(memory)
    ask = ask_or_refuse(yes, "confirm")
    if ask or not as_json:
        show_memory(found, workspace.staleness(found), workspace.model_or_empty.names(found.elements), err=as_json)
        show_changes(changes, err=as_json)
    if ask:
        click.confirm("Is it still true? Confirm it", abort=True, err=as_json)
    confirmed = workspace.confirm(found.id, reason=reason, seen=changes)
    if as_json:
        emit_json({**confirmed.to_json(),
                   "changes_since_confirmed": changes.to_dict() if changes else None})
        return
    by = f" by {confirmed.confirmed_by}" if confirmed.confirmed_by else ""
    click.echo(f"confirmed {confirmed.label!r} ({confirmed.id}){by}, "
               f"{plural(confirmed.confirmations, 'confirmation')}")


@cli.command()
@click.argument("memory")
@workspace_options
@json_option
def history(workspace: Workspace, memory: str, as_json: bool) -> None:
    """Show the supersede chain of MEMORY (id or title), oldest first."""
    chain = workspace.history(memory)
    if as_json:
        emit_json([m.to_json() for m in chain])
        return
    from archmem.cli.output import print_memories

    print_memories(chain, workspace.clock(), show_status=True)


@cli.command()
@click.argument("memory")
@click.option("--reason", required=True, help="Why it leaves recall (kept with it).")
@workspace_options
@json_option
def archive(workspace: Workspace, memory: str, reason: str, as_json: bool) -> None:
    """Archive MEMORY (id or title): out of recall, kept in history and export."""
    archived = workspace.archive(memory, reason)
    if as_json:
        emit_json(archived.to_json())
        return
    click.echo(f"archived {archived.label!r} ({archived.id})")


@cli.command()
@click.argument("memory")
@workspace_options
@json_option
def unarchive(workspace: Workspace, memory: str, as_json: bool) -> None:
    """Bring the archived MEMORY (id or title) back into recall."""
    restored = workspace.unarchive(memory)
    if as_json:
        emit_json(restored.to_json())
        return
    click.echo(f"unarchived {restored.label!r} ({restored.id}): back in recall")


@cli.command()
@click.argument("memory")
@workspace_options
@read_only
@json_option
def show(workspace: Workspace, memory: str, as_json: bool) -> None:
    """Show MEMORY (id or title; archived and superseded ones too) in full: its content,
    elements, anchors, author, confirmations, usage, file, VERIFY and history."""
    data = workspace.show(memory)
    if as_json:
        emit_json(data)
        return
    from archmem.cli.detail import print_memory

    print_memory(data, workspace.clock())


@cli.command()
@click.argument("memory_id")
@click.option("--reason", required=True, help="Why (written to the audit log).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@workspace_options
@json_option
def purge(workspace: Workspace, memory_id: str, reason: str, yes: bool, as_json: bool) -> None:
    """Delete MEMORY_ID for good (a secret written by mistake, a privacy request).

    The only hard delete: the memory's file and every trace in the local index go; the
    audit log keeps its id and hashes, not the text. A file that was committed stays in
    git history: the commits are named, and a secret in it must be rotated."""
    if not yes and sys.stdin.isatty():
        click.confirm(f"permanently delete {memory_id}?", abort=True)
    result = workspace.purge(memory_id, reason)
    if as_json:
        emit_json(result)
        return
    where = f", deleted {result['file']}" if result.get("file") else ""
    click.echo(f"purged {result['id']}{where} (logged: {result['reason']})")
    if result.get("outputs"):
        secho(f"these files archmem wrote still hold it: {', '.join(result['outputs'])}; delete them or write "
              "them again (brief --out, map --out, export)", fg="yellow", err=True)
    commits = result.get("committed_in") or []
    if commits:
        shown = ", ".join(sha[:12] for sha in commits[:5]) + (f" and {len(commits) - 5} more" if len(commits) > 5 else "")
        secho(
            f"its text is still in git history (commits {shown}): if it held a secret, rotate that secret now; "
            "rewriting history (git filter-repo) does not reach clones and forks that already have it",
            fg="yellow", err=True,
        )


@cli.command("list")
@click.option("--element", "-e", default=None, help="Only memories on this element.")
@click.option("--kind", "-k", default=None, help=f"Only this kind ({', '.join(KINDS)}).")
@click.option("--status", "-s", default="active", show_default=True, help="active, superseded, archived or all.")
@click.option("--limit", "-n", type=click.IntRange(1), default=None,
              help="Only the newest this many (still listed oldest first).")
@workspace_options
@read_only
@json_option
def list_command(
    workspace: Workspace, element: str | None, kind: str | None, status: str, limit: int | None, as_json: bool
) -> None:
    """List memories."""
    memories = workspace.list_memories(
        element=element, kind=kind, status=None if status == "all" else status, limit=limit
    )
    if as_json:
        emit_json([m.to_json() for m in memories])
        return
    from archmem.cli.output import print_memories

    if not memories:
        click.echo("no memories match")
        return
    print_memories(memories, workspace.clock(), show_status=status != "active")


@cli.group()
def session() -> None:
    """Start and end agent sessions (exposures and citations feed recall)."""


@session.command("start")
@click.argument("task")
@click.option("--element", "-e", "elements", multiple=True, help="Element the session works on (repeatable).")
@click.option("--agent", default=None, help="Who runs it, as client/name.")
@workspace_options
@json_option
def session_start(workspace: Workspace, task: str, elements: tuple[str, ...], agent: str | None, as_json: bool) -> None:
    """Open a session for TASK and print its id."""
    started = workspace.start_session(task, elements=elements, agent=agent)
    if as_json:
        emit_json(started.to_json())
        return
    click.echo(started.id)


@session.command("end")
@click.argument("session_id", required=False)
@click.option("--used", "used", multiple=True, help="Title or id of a memory the session used (repeatable).")
@click.option("--outcome", default=None, help="What the session achieved or learned (one session_outcome memory).")
@click.option("--auto", is_flag=True,
              help="End the sessions an agent left open: those --transcript names, else those --client started.")
@click.option("--client", default=None, help="With --auto: the agent client whose sessions to end (e.g. claude-code).")
@click.option("--transcript", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="With --auto: the client's session transcript (JSON Lines); the memories the agent named are cited.")
@workspace_options
@json_option
def session_end(
    workspace: Workspace, session_id: str | None, used: tuple[str, ...], outcome: str | None, auto: bool,
    client: str | None, transcript: Path | None, as_json: bool,
) -> None:
    """End SESSION_ID: record the memories it used and its outcome. With --auto, end the
    sessions an agent's client left open (what its session-end hook runs)."""
    if auto:
        if session_id or used or outcome:
            raise click.UsageError("--auto ends the sessions left open: no SESSION_ID, --used or --outcome with it")
        if not client and transcript is None:
            raise click.UsageError("--auto needs --client or --transcript: whose sessions to end")
        endings = workspace.end_left_open(client=client, transcript=transcript)
        if as_json:
            emit_json([end.to_dict() for end in endings])
            return
        if not endings:
            click.echo("no session was left open")
        for end in endings:
            click.echo(f"ended {end.session_id}: {plural(len(end.cited), 'memory citation')}")
        return
    if not session_id:
        raise click.UsageError("name the SESSION_ID to end (or --auto for the sessions an agent left open)")
    ended = workspace.end_session(session_id, used=used, outcome=outcome)
    if as_json:
        emit_json(ended.to_dict())
        return
    click.echo(f"ended {ended.session_id}: {plural(len(ended.cited), 'memory citation')}")
    for name in ended.unknown:
        secho(f"  no memory matches {name!r} (not recorded)", fg="yellow")
    if ended.outcome:
        click.echo(f"  outcome remembered as {ended.outcome.id}")


@cli.command()
@workspace_options
@read_only
@json_option
def review(workspace: Workspace, as_json: bool) -> None:
    """What needs a person: ignored memories, near-duplicates, pending links, VERIFY."""
    queue = workspace.review()
    if as_json:
        emit_json(queue.to_dict())
        return
    from archmem.cli.output import print_review

    print_review(queue.to_dict())


@cli.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@workspace_options
@read_only
@json_option
def export(workspace: Workspace, file: Path | None, as_json: bool) -> None:
    """Export every memory as JSON Lines to FILE (default: stdout); --json writes one JSON
    array instead (what `archmem import` reads is the JSON Lines)."""
    lines = workspace.export_memories()
    if as_json:
        import json

        text = json.dumps([json.loads(line) for line in lines], indent=2, ensure_ascii=False) + "\n"
        if file is None:
            click.echo(text, nl=False)
        else:
            workspace.write_output(file, text)
        return
    if file is None:
        for line in lines:
            click.echo(line)
        return
    written = [line + "\n" for line in lines]
    workspace.write_output(file, "".join(written))
    click.echo(f"exported {plural(len(written), 'memory', 'memories')} to {file}", err=True)


class _FileLines:
    """The lines of a file, read anew on each pass: import checks every line, then writes,
    and holds neither the file nor its memories."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __iter__(self) -> Iterator[str]:
        from archmem.errors import InvalidInputError

        try:
            with self.path.open(encoding="utf-8", newline="") as handle:
                yield from (line.rstrip("\r\n") for line in handle)
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"cannot read {self.path}: {exc}") from None


def _stdin_lines() -> Iterator[str]:
    return (line.rstrip("\r\n") for line in sys.stdin)


@cli.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True))
@click.option("--partial", is_flag=True, help="Import the good lines even when some are wrong.")
@workspace_options
@json_option
def import_command(workspace: Workspace, file: Path, partial: bool, as_json: bool) -> None:
    """Import memories from a JSON Lines FILE (- for stdin), ids and times kept."""
    lines = _stdin_lines() if str(file) == "-" else _FileLines(file)
    report = workspace.import_memories(lines, partial=partial, source=str(file))
    if as_json:
        emit_json(report.to_dict())
        return
    click.echo(f"imported {plural(len(report.imported), 'memory', 'memories')}"
               + (f", {len(report.unchanged)} already there" if report.unchanged else ""))
    for error in report.errors:
        secho(f"  {file}:{error['line']}: {error['message']} (skipped)", fg="yellow")

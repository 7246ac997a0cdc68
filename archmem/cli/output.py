"""Terminal rendering for the CLI: tables and trees from the data ``Workspace`` returns.

Everything the CLI prints goes through ``SafeStream`` (installed by ``safe_output``
around every command): a control character from a memory, an author, a file name or
the model is shown as its escape (``archmem.escape``), in text, Markdown and JSON
alike. Colours come only from ``secho``, which escapes the words before it styles them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import click

from archmem.escape import printable, terminal_output
from archmem.words import plural


class SafeStream:
    """A text stream that writes ``archmem.escape.terminal_output`` of what it is given.

    It has no ``buffer``, so click writes text to it rather than to the bytes beneath.
    """

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner
        self._styled = False

    @property
    def encoding(self) -> str:
        return getattr(self.inner, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str:
        return getattr(self.inner, "errors", None) or "strict"

    def write(self, text: str | bytes) -> int:
        if isinstance(text, (bytes, bytearray)):  # click echoes bytes (a completion script) to a stream without a buffer
            return self.write(bytes(text).decode("utf-8", "replace")) and len(text)
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str or bytes, not {type(text).__name__}")
        out = terminal_output(text, styled=self._styled)
        try:
            self.inner.write(out)
        except UnicodeEncodeError:  # a stream set to ASCII: UTF-8 bytes beneath it, as click writes them
            buffer = getattr(self.inner, "buffer", None)
            if buffer is None:
                self.inner.write(out.encode(self.encoding, "backslashreplace").decode(self.encoding))
            else:
                self.inner.flush()
                buffer.write(out.encode("utf-8", "replace"))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    def writable(self) -> bool:
        return True

    @contextmanager
    def styled(self) -> Iterator[None]:
        """Let colour sequences through, for text ``secho`` escaped before styling."""
        self._styled = True
        try:
            yield
        finally:
            self._styled = False


@contextmanager
def safe_output() -> Iterator[None]:
    """Standard output and error as ``SafeStream``s for the duration of a command."""
    saved = sys.stdout, sys.stderr
    if isinstance(sys.stdout, SafeStream) or sys.stdout is None or sys.stderr is None:
        yield
        return
    sys.stdout = SafeStream(sys.stdout)  # type: ignore[assignment]
    sys.stderr = SafeStream(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def terminal(*, err: bool = False) -> TextIO:
    """The real stream under ``SafeStream``, for what archmem draws itself (a progress
    bar's carriage returns) or speaks to a program (the MCP protocol)."""
    stream = sys.stderr if err else sys.stdout
    return stream.inner if isinstance(stream, SafeStream) else stream


@contextmanager
def raw_output() -> Iterator[None]:
    """The real streams back for a while: ``archmem mcp`` speaks JSON-RPC on them."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = terminal(), terminal(err=True)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def secho(message: object = "", *, err: bool = False, nl: bool = True, **styles: Any) -> None:
    """``click.secho`` with the words escaped first, so only archmem's colours are kept."""
    text = printable(str(message))
    stream = sys.stderr if err else sys.stdout
    if isinstance(stream, SafeStream):
        with stream.styled():
            click.secho(text, err=err, nl=nl, **styles)
    else:
        click.secho(text, err=err, nl=nl, **styles)


DRY_RUN_VERBS = {"created": "would create", "updated": "would update", "unchanged": "unchanged"}
"""What ``--dry-run`` says of a planned file change (``install``, ``install merge-driver``)."""


def print_diff(diff: str) -> None:
    """A unified diff of a planned file change, coloured by line."""
    for line in diff.splitlines():
        colour: dict[str, Any] = {}
        if line.startswith(("+++", "---")):
            colour = {"bold": True}
        elif line.startswith("+"):
            colour = {"fg": "green"}
        elif line.startswith("-"):
            colour = {"fg": "red"}
        elif line.startswith("@@"):
            colour = {"fg": "cyan"}
        secho(line, **colour)


KIND_LABELS = {
    "person": "person",
    "softwareSystem": "system",
    "container": "container",
    "component": "component",
}


def print_model_summary(summary: dict[str, Any]) -> None:
    title = summary["name"] or summary["model"]
    secho(f"{title}", bold=True, nl=False)
    click.echo(f"  ({summary['model']}, {summary['format']})")
    if not summary["git"]:
        secho(
            "not a git repository: sizes count the file system; drift needs git history",
            fg="yellow",
        )
    for warning in summary["warnings"]:
        secho(f"warning: {warning}", fg="yellow")

    elements = summary["elements"]
    click.echo()
    secho(f"Elements ({len(elements)})", bold=True)
    label_width = max((len("  " * e["depth"] + e["id"]) for e in elements), default=0)
    label_width = min(label_width, 48)
    for element in elements:
        label = ("  " * element["depth"] + element["id"]).ljust(label_width)
        kind = KIND_LABELS.get(element["kind"], element["kind"])
        name = element["name"] if element["name"] != element["id"] else ""
        tech = f" [{element['technology']}]" if element["technology"] else ""
        size = element["size"]
        if element["paths"] or element["paths_from_children"]:
            where = ", ".join(element["paths"]) if element["paths"] else "(its children's code)"
            code = f"{plural(size['files'], 'file')}, {plural(size['lines'], 'line')}  {where}"
            code_style: dict[str, Any] = {}
        else:
            code = "no paths"
            code_style = {"dim": True}
        click.echo(f"  {label}  {kind:<9} {name}{tech}  ", nl=False)
        secho(code, **code_style)

    relationships = summary["relationships"]
    if relationships:
        click.echo()
        secho(f"Relationships ({len(relationships)})", bold=True)
        for rel in relationships:
            text = f"  {rel['source']} -> {rel['destination']}"
            if rel["description"]:
                text += f"  {rel['description']}"
            if rel["technology"]:
                text += f" [{rel['technology']}]"
            click.echo(text)

    decisions = summary["decisions"]
    if decisions:
        click.echo()
        secho(f"Decisions ({len(decisions)})", bold=True)
        for decision in decisions:
            status = f" ({decision['status']})" if decision["status"] else ""
            click.echo(f"  {decision['id']:>6}  {decision['title']}{status}  {decision['path']}")

    unowned = summary["unowned"]
    click.echo()
    if unowned:
        secho(
            f"Code no element owns ({plural(len(unowned), 'file')}, {plural(summary['unowned_lines'], 'line')})",
            bold=True,
        )
        for path in unowned[:30]:
            click.echo(f"  {path}")
        if len(unowned) > 30:
            click.echo(f"  … and {len(unowned) - 30} more (archmem model --json lists them all)")
    else:
        secho("Every code file is owned by an element.", fg="green")


def print_memories(memories: list[Any], now: Any, *, show_status: bool = False) -> None:
    """One block per memory: kind, title or id, elements, author and age, content."""
    from archmem.clock import age_in_words

    for memory in memories:
        head = f"[{memory.kind.upper()}] "
        secho(head, bold=True, nl=False)
        click.echo(f"{memory.title or '(untitled)'}  {memory.id}", nl=False)
        if show_status and memory.status != "active":
            secho(f"  {memory.status}", fg="yellow", nl=False)
        if memory.private:
            secho("  private", fg="cyan", nl=False)
        click.echo()
        where = ", ".join(memory.elements) if memory.elements else "project-wide"
        who = memory.author or "unknown author"
        secho(
            f"    {where} · {who} · written {age_in_words(memory.created_at, now)}"
            f" · confirmed {age_in_words(memory.last_confirmed, now)}",
            dim=True,
        )
        for line in memory.content.splitlines()[:6]:
            click.echo(f"    {line}")
        if len(memory.content.splitlines()) > 6:
            secho("    …", dim=True)


def print_review(queue: dict[str, Any]) -> None:
    if not queue["total"]:
        secho("Nothing to review.", fg="green")
        return
    if queue["verify"]:
        secho(f"VERIFY ({len(queue['verify'])}): the code under these moved since they were confirmed", bold=True)
        for item in queue["verify"]:
            click.echo(f"  {item.get('title') or item['id']}: {item.get('verify_reason', '')}")
    if queue.get("forks"):
        secho(f"Forks ({len(queue['forks'])}): two memories supersede one; supersede one by the other", bold=True)
        for item in queue["forks"]:
            old = item["superseded"]
            heirs = ", ".join(f"{h['title'] or h['id']} ({h['id']})" for h in item["successors"])
            click.echo(f"  {old['title'] or old['id']} ({old['id']}) → {heirs}")
    if queue["ignored"]:
        secho(f"Ignored ({len(queue['ignored'])}): shown to many sessions, never cited", bold=True)
        for item in queue["ignored"]:
            click.echo(f"  {item['title'] or item['id']} ({item['id']}, {item['exposures']} sessions)")
    if queue["near_duplicates"]:
        secho(f"Near-duplicates ({len(queue['near_duplicates'])}): supersede one?", bold=True)
        for item in queue["near_duplicates"]:
            a, b = item["a"], item["b"]
            click.echo(f"  {a['title'] or a['id']}  ~  {b['title'] or b['id']}  ({item['score']:.2f})")
    if queue["pending_links"]:
        secho(f"Pending links ({len(queue['pending_links'])}): no memory has that title yet", bold=True)
        for item in queue["pending_links"]:
            source = item["source"]
            click.echo(f"  [[{item['target']}]] in {source['title'] or source['id']}")


def print_recall(result: dict[str, Any], now: Any, *, explain: bool = False) -> None:
    """Ranked memories, VERIFY in words, link neighbours under the memory that named them."""
    from archmem.clock import age_in_words, parse_time
    from archmem.recall.engine import neighbours_by_source, weak_line

    warned = _warned()
    for warning in result["warnings"]:
        secho(f"warning: {warning}", fg="yellow", err=True)
        warned.add(warning)
    ranked = result["results"]
    if not ranked and result.get("weak"):
        secho("archmem is not sure any of these fit (weak; skip what does not):", dim=True)
        for item in result["weak"]:
            click.echo(f"  - {weak_line(item)}")
        return
    if not ranked:
        click.echo("Nothing archmem knows is relevant to this task.")
        return
    neighbours = neighbours_by_source(result)
    for position, item in enumerate(ranked, start=1):
        secho(f"{position}. [{item['kind'].upper()}]", bold=True, nl=False)
        if item["verify"]:
            secho(" [VERIFY]", fg="yellow", bold=True, nl=False)
        title = item["title"] or item["id"]
        where = ", ".join(item["elements"]) or "project-wide"
        click.echo(f" {title}  ({where}; {item['author'] or 'unknown'}, {age_in_words(parse_time(item['created_at']), now)})"
                   + ("  [private]" if item.get("private") else ""))
        for line in item["content"].splitlines():
            click.echo(f"   {line}")
        if item["verify"]:
            secho(f"   ↳ verify: {item['verify_reason']}", fg="yellow")
        for neighbour in neighbours.get(item["id"], []):
            click.echo(f"   ↳ via [[{title}]] → {neighbour['kind']} {neighbour['title'] or neighbour['id']}")
        if explain and "factors" in item:
            factors = item["factors"]
            parts = [f"{name} {value:.3f}" for name, value in factors.items() if value is not None]
            secho("   " + " · ".join(parts), dim=True)
            if item.get("synonyms"):
                secho(f"   found through synonyms of: {', '.join(item['synonyms'])}", dim=True)
    scored = [e for e in result["elements"] if e["score"] is not None]  # the others came along through a link
    if scored:
        shown = ", ".join(f"{e['name']} ({e['score']:.2f})" for e in scored[:5])
        secho(f"elements: {shown}", dim=True)
    if explain and "known_words" in result:
        secho(f"task words archmem knows: {result['known_words']:.0%}", dim=True)


def _warned() -> set[str]:
    """The warnings this command printed already (so the CLI's closing report of memory
    files that could not be read does not say them twice)."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.setdefault("archmem.warned", set()) if ctx is not None else set()


def print_drift(report: Any, now: Any) -> None:
    from archmem.clock import age_in_words

    if report.no_commits:
        secho("Drift: ", bold=True, nl=False)
        click.echo(report.warnings[0])
        return
    counts = report.counts()
    if report.score is None:
        secho("Drift not measured", bold=True, fg="yellow", nl=False)
    else:
        secho(f"Drift score {report.score}/100", bold=True, nl=False)
    click.echo(
        f"  ({counts['in_sync']} in sync, {counts['drifted']} drifted, {counts['missing']} missing, "
        f"{counts['not_measured']} not measured, {counts['external']} outside the code; "
        f"{counts['documented_elements']} of {counts['total_elements']} "
        f"elements documented; {report.commits} commits read)"
    )
    note = report.not_measured_note()
    if note:
        click.secho(f"{note[:1].upper()}{note[1:]}.", fg="yellow")
    colours = {"drifted": "yellow", "missing": "red", "in_sync": "green", "no_paths": None}
    width = max((len(e.id) for e in report.elements), default=0)
    for element in report.elements:
        if element.status == "no_paths":
            continue
        click.echo(f"  {element.id:<{width}}  ", nl=False)
        secho(f"{element.status:<8}", fg=colours[element.status], nl=False)
        stamp = element.stamp
        if stamp is not None:
            click.echo(f"  {plural(stamp.lines, 'line')}, {plural(stamp.files, 'file')} in "
                       f"{plural(stamp.commits, 'commit')}, {stamp.commit[:7]} {age_in_words(stamp.time, now)}", nl=False)
        click.echo(f"  ({plural(element.size.files, 'file')}, {plural(element.size.lines, 'line')})")
    if report.stale:
        click.echo()
        secho(f"Memories to verify ({len(report.stale)})", bold=True)
        for memory, staleness in report.stale:
            click.echo(f"  [{memory.kind.upper()}] {memory.title or memory.id}: {staleness.reason}")
    for warning in report.warnings:
        secho(f"warning: {warning}", fg="yellow")


def print_status(status: dict[str, Any]) -> None:
    """``archmem status``: one line per part, an error in its place, then what to do."""
    secho(f"archmem {status['version']} in {status['root']}" + ("" if status["git"] else " (not a git repository)"),
                bold=True)
    model, store, recall, drift = status["model"], status["store"], status["recall"], status["drift"]

    def line(label: str, part: dict[str, Any], text: Callable[[dict[str, Any]], str]) -> None:
        if "error" in part:
            click.echo(f"  {label:<8}", nl=False)
            secho(part["error"].splitlines()[0], fg="red")
        else:
            click.echo(f"  {label:<8}{text(part)}")

    line("model", model, lambda m: (
        f"{m['file']} ({m['format']}): {plural(m['elements'], 'element')}, {plural(m['relationships'], 'relationship')}, "
        f"{plural(m['decisions'], 'decision')}; {m['documented']} of {m['elements']} elements documented"
        + (f"; {plural(m['warnings'], 'warning')}" if m["warnings"] else "")
        + (click.style(f"; {plural(len(m['ownership_warnings']), 'ownership warning')}", fg="yellow")
           if m.get("ownership_warnings") else "")
    ))

    def store_text(s: dict[str, Any]) -> str:
        if s.get("missing"):
            return f"{s['path']} does not exist yet (the first write creates it)"
        active = s["memories"].get("active", {})
        kinds = ", ".join(plural(n, kind.replace("_", " ")) for kind, n in sorted(active.items()))
        others = ", ".join(f"{sum(k.values())} {status}" for status, k in sorted(s["memories"].items())
                           if status != "active")
        return (f"{s['path']} (schema {s['schema']}, {s['bytes'] / 1e6:.1f} MB): "
                f"{plural(sum(active.values()), 'active memory', 'active memories')}"
                + (f" ({kinds})" if kinds else "") + (f"; {others}" if others else "")
                + f"; {plural(s['sessions'], 'session')}" + (f" ({s['open_sessions']} open)" if s["open_sessions"] else ""))

    def files_text(f: dict[str, Any]) -> str:
        text = f"{f['folder']}/: {plural(f['files'], 'memory file')}"
        if f["private"]:
            text += f", {f['private']} private (not committed)"
        if f["uncommitted"]:
            text += f"; {len(f['uncommitted'])} not committed yet"
        if f.get("unreadable"):
            text += "; " + click.style(plural(len(f["unreadable"]), "unreadable file"), fg="red")
        if f.get("forks"):
            text += "; " + click.style(plural(len(f["forks"]), "forked chain"), fg="red")
        accepts = f.get("accepts") or {}
        if accepts.get("files"):
            text += f"; {plural(accepts['files'], 'drift accept')} in {accepts['folder']}/"
            if accepts["uncommitted"]:
                text += f" ({len(accepts['uncommitted'])} not committed yet)"
        return text + ("" if f["indexed"] else "; not indexed yet")

    line("files", status["files"], files_text)
    line("index" if status["files"].get("files") is not None else "store", store, store_text)

    def recall_text(r: dict[str, Any]) -> str:
        if r["mode"] == "lexical":
            return "words only (BM25): no embedding provider configured"
        text = f"words and meaning: {r['provider']} {r['model']}, {r['embedded']} of {r['active_memories']} memories embedded"
        if "provider_ok" in r:
            text += "; provider answers" if r["provider_ok"] else f"; provider failed: {r['provider_error']}"
        return text

    line("recall", recall, recall_text)
    line("drift", drift, lambda d: (
        (f"score {d['score']}/100 over {plural(d.get('measured', 0), 'element')} with code"
         + (f" since {d['since'][:10]}, {plural(d.get('commits', 0), 'commit')} read" if d.get("since") else "")
         + f" ({d['drifted']} drifted, {d['missing']} missing, {d['in_sync']} in sync"
         + (f"; not measured for {d['not_measured']} without paths" if d.get("not_measured") else "") + "); "
         if d["score"] is not None else
         click.style(f"not measured: none of the {d.get('not_measured', 0)} elements that should own code has paths",
                     fg="yellow") + "; ")
        + f"{plural(d['stale_memories'], 'memory', 'memories')} to verify"
    ))
    agents = "; ".join(f"{target} {state}" for target, state in status["agents"].items())
    click.echo(f"  {'agents':<8}{agents}")
    if status.get("hooks"):
        working = sum(1 for hook in status["hooks"] if hook["works"])
        click.echo(f"  {'hooks':<8}{working} of {len(status['hooks'])} start archmem in a clean environment "
                   "(env -i PATH=/usr/bin:/bin)")
        for hook in status["hooks"]:
            if not hook["works"]:
                click.echo(f"  {'':<8}{hook['client']} {hook['event']}: {hook['detail']}")
    if status["next"]:
        click.echo()
        secho("Next:", bold=True)
        for step in status["next"]:
            click.echo(f"  - {step}")

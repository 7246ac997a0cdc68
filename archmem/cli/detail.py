"""Terminal rendering of one memory (``archmem show``) and of elements (``archmem
elements``), from the data ``Workspace`` returns."""

from __future__ import annotations

from typing import Any

import click

from archmem.words import plural


def print_memory(data: dict[str, Any], now: Any) -> None:
    """Everything about one memory, its whole content last. Every value is escaped
    before it is styled, so an escape sequence in a file (an element name, an author)
    is shown as ``\\u001b[31m``, never stripped by click or run by the terminal."""
    from archmem.clock import age_in_words, parse_time

    data = _escaped(data)
    click.secho(f"[{data['kind'].upper()}] ", bold=True, nl=False)
    click.echo(f"{data['title'] or '(untitled)'}  {data['id']}", nl=False)
    if data["status"] != "active":
        reason = f" ({data['status_reason']})" if data.get("status_reason") else ""
        click.secho(f"  {data['status']}{reason}", fg="yellow", nl=False)
    if data["private"]:
        click.secho("  private", fg="cyan", nl=False)
    click.echo()
    if data["verify"]:
        click.secho(f"  VERIFY: {data['verify_reason']}", fg="yellow", bold=True)
    rows = [
        ("elements", ", ".join(data["elements"]) or "project-wide"),
        ("anchors", ", ".join(data["anchors"])),
        ("author", data["author"] or "unknown"),
        ("written", age_in_words(parse_time(data["created_at"]), now)
         + (f" (session {data['session_id']})" if data["session_id"] else "")),
        ("confirmed", age_in_words(parse_time(data["confirmed_at"]), now)
         + (f" by {data['confirmed_by']}" if data.get("confirmed_by") else "")
         + f", {plural(data['confirmations'], 'time')}" if data["confirmed_at"] else "never"),
        ("because", data.get("confirm_reason") or ""),
        ("used", f"shown to {plural(data['exposures'], 'session')}, cited by {data['citations']}"),
        ("file", data["path"] or ""),
    ]
    if len(data["history"]) > 1:
        rows.append(("history", " → ".join(f"{h['title'] or h['id']} ({h['status']})" for h in data["history"])))
    for label, value in rows:
        if value:
            click.secho(f"  {label:<10}", dim=True, nl=False)
            click.echo(value)
    click.echo()
    for line in data["content"].splitlines():
        click.echo(f"  {line}")


def _escaped(value: Any) -> Any:
    """``value`` with every text in it ``printable`` (tab and newline kept)."""
    from archmem.escape import printable

    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {key: _escaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_escaped(item) for item in value]
    return value


def print_elements(found: list[dict[str, Any]], *, query: str | None) -> None:
    """One line per element: identifier, kind, name, score (for a query), code, memories."""
    if not found:
        click.echo("No element of the model matches this." if query else "The model has no elements.")
        return
    found = _escaped(found)
    width = min(max(len(e["id"]) for e in found), 40)
    for element in found:
        score = f"  {element['score']:.2f}" if element["score"] is not None else ""
        click.echo(f"  {element['id']:<{width}}  {element['kind']:<14} {element['name']}{score}  ", nl=False)
        code = ", ".join(element["paths"]) or "no paths"
        known = plural(element["memories"], "memory", "memories") if element["memories"] else "nothing known"
        click.secho(f"{code}; {known}", dim=True)

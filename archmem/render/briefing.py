"""The pre-session briefing: the task, its elements, the ranked memories with VERIFY
warnings and their [[linked]] neighbours, and the gaps, cut to a budget.

Every memory shows the name to cite it by (its title, else its id), so an agent can
name what it used at the end of its session or confirm what still holds. The budget
cuts the lowest-ranked memories first, down to the best one, then the least relevant
elements, and says how many memories were left out and how to see them in the client
the briefing was rendered for: the MCP tools or the command line.
"""

from __future__ import annotations

import json
import shlex
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from archmem.clock import age_in_words, parse_time
from archmem.conformance.types import Dependency
from archmem.memory.types import MEMORY_KINDS
from archmem.model.types import ArchitectureModel
from archmem.recall.engine import RecallResult, neighbours_by_source, weak_line
from archmem.render.templates import render
from archmem.values import Record

DEFAULT_BUDGET_CHARS = 8_000
KIND_ORDER = {kind: position for position, kind in enumerate(MEMORY_KINDS)}
"""pitfall, convention, note, session_outcome: the order a briefing shows them in."""
MAX_ELEMENTS = 6
ELEMENT_FLOOR = 0.12
"""An element below this relevance is not 'relevant' enough to be listed or be a gap."""


Client = Literal["cli", "mcp"]
"""Who a briefing is rendered for: how it names the commands that see more."""


def cite_name(item: dict[str, Any]) -> str:
    """How a memory is named for citing: its title in quotes, else its id in backticks."""
    return f'"{item["title"]}"' if item.get("title") else f"`{item['id']}`"


def how_to_cite(client: Client) -> str:
    """One line telling the reader how to use those names, in its own client."""
    if client == "mcp":
        return ("Name the memories you rely on in `end_session` (`used_memories`); "
                "`confirm_memory` one that still holds.")
    return ("Name the memories you rely on when the session ends (`archmem session end ID --used NAME`); "
            "`archmem confirm NAME --reason WHY` one that still holds (`--yes` where no one answers its prompt).")


def how_to_remember(client: Client) -> str:
    if client == "mcp":
        return "call `remember` with it, its kind (pitfall, convention, note) and its elements"
    return '`archmem remember "…" --kind pitfall|convention|note --element ELEMENT`'


def how_to_see_more(client: Client, task: str, limit: int) -> Any:
    """The call that shows the memories a budget cut, in the reader's client."""
    from markupsafe import Markup

    from archmem.escape import markdown_code

    if client == "mcp":  # plain text: the template's escaping keeps the task inert
        return f"call `recall` with query {json.dumps(task, ensure_ascii=False)} and limit {limit}"
    # a code span the task cannot close, whatever backticks it holds
    return Markup(markdown_code(f"archmem recall {shlex.quote(task)} --limit {limit}"))


def estimate_tokens(text: str) -> int:
    """Tokens by tiktoken when installed, else about four characters a token."""
    try:
        import tiktoken
    except ImportError:
        return (len(text) + 3) // 4
    return len(tiktoken.get_encoding("cl100k_base").encode(text))


@dataclass(repr=False, eq=False)
class Briefing(Record):
    """A briefing for a task: its Markdown, the memories it shows and the gaps it names."""

    task: str
    markdown: str
    memory_ids: list[str] = field(default_factory=list)
    cut: int = 0
    gaps: list[str] = field(default_factory=list)
    elements: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    mode: str = "lexical"

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task, "markdown": self.markdown, "memories": self.memory_ids, "cut": self.cut,
            "gaps": self.gaps, "elements": self.elements, "warnings": self.warnings, "mode": self.mode,
        }


def _verify_label(reason: str | None) -> str:
    text = reason or ""
    if "is gone" in text:
        return "its code is gone since this was written"
    if " drifted " in text:
        return "the element drifted since this was written"
    return "its code changed since this was written"


def memory_item(item: dict[str, Any], neighbours: list[dict[str, Any]], model: ArchitectureModel,
                 now: datetime) -> dict[str, Any]:
    names = model.names(item["elements"])
    where = "Project" if not names else names[0] + (f" (+{len(names) - 1})" if len(names) > 1 else "")
    return {
        "where": where,
        "kind": item["kind"].upper(),
        "verify": item["verify"],
        "verify_label": _verify_label(item["verify_reason"]),
        "verify_reason": item["verify_reason"],
        "author": item["author"] or "unknown author",
        "age": age_in_words(parse_time(item["created_at"]), now),
        "content": " ".join(item["content"].split()),
        "label": item["title"] or item["id"],
        "cite": cite_name(item),
        "neighbours": [
            {
                "name": f"ADR-{n['id'].rsplit('/', 1)[-1]}" if n["kind"] == "decision" else (n["title"] or n["id"]),
                "text": n["title"] if n["kind"] == "decision" else textwrap.shorten(
                    _element_description(n["id"], model) if n["kind"] == "element" else n["content"] or "", 160,
                    placeholder=" …"),
            }
            for n in neighbours
        ],
    }


def _element_description(element_id: str, model: ArchitectureModel) -> str:
    element = model.get(element_id)
    return element.description if element is not None else ""


UNDECLARED_SHOWN = 3
"""Undeclared dependencies named per element in a briefing (the rest are counted)."""


def _undeclared_lines(deps: Sequence[Dependency]) -> list[str]:
    """``PaymentService (orders/api.py:12, 2 more imports)``, heaviest first, a few."""
    lines = []
    for dep in deps[:UNDECLARED_SHOWN]:
        more = f", {dep.weight - 1} more import{'s' if dep.weight > 2 else ''}" if dep.weight > 1 else ""
        lines.append(f"{dep.target_name} ({dep.sites[0]}{more})")
    if len(deps) > UNDECLARED_SHOWN:
        lines.append(f"{len(deps) - UNDECLARED_SHOWN} more (`archmem conformance`)")
    return lines


def _element_item(
    element_id: str, model: ArchitectureModel, undeclared: Mapping[str, Sequence[Dependency]] | None = None
) -> dict[str, Any]:
    element = model.get(element_id)
    assert element is not None
    outgoing, incoming = model.relationships_of(element_id)

    def name(other: str) -> str:
        found = model.get(other)
        return found.name if found else other

    return {
        "name": element.name,
        "kind": element.kind,
        "technology": element.technology,
        "description": element.description.split("\n")[0],
        "outgoing": [name(r.destination) + (f" ({r.description})" if r.description else "") for r in outgoing],
        "incoming": [name(r.source) + (f" ({r.description})" if r.description else "") for r in incoming],
        "undeclared": _undeclared_lines((undeclared or {}).get(element_id, ())),
    }


def build_briefing(
    task: str,
    result: RecallResult,
    model: ArchitectureModel,
    *,
    now: datetime,
    documented: set[str],
    budget: int = DEFAULT_BUDGET_CHARS,
    measure: Callable[[str], int] = len,
    overrides: Path | None = None,
    undeclared: Mapping[str, Sequence[Dependency]] | None = None,
    notes: Sequence[str] = (),
    client: Client = "cli",
) -> Briefing:
    """Render the briefing for ``task`` from a recall, dropping the lowest-ranked
    memories until it fits ``budget`` (measured by ``measure``: characters or tokens).
    ``undeclared``: per element id, its code's dependencies the model does not draw;
    ``notes`` end it (drift not computed yet, and how to compute it); ``client`` says
    which commands it names."""
    # selected by relevance; shown pitfalls first (what goes wrong before the rules), each kind in rank order,
    # so a budget cut takes notes and outcomes before it takes a pitfall
    ranked = sorted(result.results, key=lambda r: KIND_ORDER.get(r["kind"], 9))
    neighbours = neighbours_by_source(result.to_dict())
    # an element that came along through a [[link]] has no score of its own: it is shown under that link
    relevant = [e for e in result.elements if e["score"] is not None and e["score"] >= ELEMENT_FLOOR][:MAX_ELEMENTS]
    items = [memory_item(r, neighbours.get(r["id"], []), model, now) for r in ranked]
    drawn = [_element_item(e["id"], model, undeclared) for e in relevant]

    def draw(shown: int, listed: int) -> str:
        context = {
            "task": task,
            "task_quoted": shlex.quote(task),
            "client": client,
            "elements": drawn[:listed],
            "memories": items[:shown],
            "weak": [weak_line(w) for w in result.weak] if not items else [],
            "cut": len(items) - shown,
            "more_limit": max(20, len(items)),
            "see_more": how_to_see_more(client, task, max(20, len(items))),
            "how_to_cite": how_to_cite(client),
            "how_to_remember": how_to_remember(client),
            "gaps": [e["name"] for e in relevant[:listed] if e["id"] not in documented],
            "notes": list(notes),
        }
        return render("briefing.md.j2", context, overrides=overrides)

    # the memories are what a briefing is for: the lowest-ranked go first, down to the best
    # one; then the least relevant elements, down to the first; only then that memory
    shown, listed = len(items), len(drawn)
    text = draw(shown, listed)
    while measure(text) > budget and (shown > 0 or listed > 1):
        if shown > 1 or (shown == 1 and listed <= 1):
            shown -= 1
        else:
            listed -= 1
        text = draw(shown, listed)
    gaps = [e["name"] for e in relevant[:listed] if e["id"] not in documented]
    return Briefing(
        task=task, markdown=text, memory_ids=[r["id"] for r in ranked[:shown]], cut=len(items) - shown,
        gaps=gaps, elements=[e["id"] for e in relevant[:listed]], warnings=list(result.warnings), mode=result.mode,
    )

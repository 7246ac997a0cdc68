"""The pre-session briefing: the task, its elements, the ranked memories with VERIFY
warnings and their [[linked]] neighbours, and the gaps, cut to a budget.

The budget cuts the lowest-ranked memories first and says how many were left out.
"""

from __future__ import annotations

import shlex
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from archmem.clock import age_in_words, parse_time
from archmem.conformance.types import Dependency
from archmem.memory.types import MEMORY_KINDS
from archmem.model.types import ArchitectureModel
from archmem.recall.engine import RecallResult
from archmem.render.templates import render

DEFAULT_BUDGET_CHARS = 8_000
KIND_ORDER = {kind: position for position, kind in enumerate(MEMORY_KINDS)}
"""pitfall, convention, note, session_outcome: the order a briefing shows them in."""
MAX_ELEMENTS = 6
ELEMENT_FLOOR = 0.12
"""An element below this relevance is not 'relevant' enough to be listed or be a gap."""


def estimate_tokens(text: str) -> int:
    """Tokens by tiktoken when installed, else about four characters a token."""
    try:
        import tiktoken
    except ImportError:
        return (len(text) + 3) // 4
    return len(tiktoken.get_encoding("cl100k_base").encode(text))


@dataclass
class Briefing:
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
        "neighbours": [
            {
                "name": f"ADR-{n['id'].rsplit('/', 1)[-1]}" if n["kind"] == "decision" else (n["title"] or n["id"]),
                "text": n["title"] if n["kind"] == "decision" else textwrap.shorten(n["content"] or "", 160, placeholder=" …"),
            }
            for n in neighbours
        ],
    }


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
) -> Briefing:
    """Render the briefing for ``task`` from a recall, dropping the lowest-ranked
    memories until it fits ``budget`` (measured by ``measure``: characters or tokens).
    ``undeclared``: per element id, its code's dependencies the model does not draw;
    ``notes`` end it (drift not computed yet, and how to compute it)."""
    # selected by relevance; shown pitfalls first (DESIGN.md), each kind in rank order,
    # so a budget cut takes notes and outcomes before it takes a pitfall
    ranked = sorted((r for r in result.results if r["via"] is None), key=lambda r: KIND_ORDER.get(r["kind"], 9))
    neighbours: dict[str, list[dict[str, Any]]] = {}
    for item in result.results:
        if item["via"] is not None:
            neighbours.setdefault(item["via"]["id"], []).append(item)
    relevant = [e for e in result.elements if e["score"] >= ELEMENT_FLOOR][:MAX_ELEMENTS]
    gaps = [e["name"] for e in relevant if e["id"] not in documented]
    items = [memory_item(r, neighbours.get(r["id"], []), model, now) for r in ranked]

    def draw(shown: int) -> str:
        context = {
            "task": task,
            "task_quoted": shlex.quote(task),
            "elements": [_element_item(e["id"], model, undeclared) for e in relevant],
            "memories": items[:shown],
            "cut": len(items) - shown,
            "more_limit": max(20, len(items)),
            "gaps": gaps,
            "notes": list(notes),
        }
        return render("briefing.md.j2", context, overrides=overrides)

    shown = len(items)
    text = draw(shown)
    while shown > 0 and measure(text) > budget:
        shown -= 1
        text = draw(shown)
    return Briefing(
        task=task, markdown=text, memory_ids=[r["id"] for r in ranked[:shown]], cut=len(items) - shown,
        gaps=gaps, elements=[e["id"] for e in relevant], warnings=list(result.warnings), mode=result.mode,
    )

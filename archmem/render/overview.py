"""The project overview: a briefing for a session that has no task yet.

A session often starts on a clean tree, before anyone has said what it is for. Then
the useful context is what holds everywhere: the conventions, the pitfalls attached
to no element, what drift says to verify, and how much of the model is documented.
Standing memories are ranked by the same formula recall uses, with full relevance,
so kind, freshness, usage and drift order them; the budget cuts the lowest first.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from archmem.clock import format_time
from archmem.config import RecallConfig
from archmem.memory.types import Memory
from archmem.model.types import ArchitectureModel
from archmem.recall.score import score_memory
from archmem.render.briefing import DEFAULT_BUDGET_CHARS, Briefing, Client, how_to_cite, memory_item
from archmem.render.templates import render

OVERVIEW_TASK = "this repository (no task yet)"
MAX_STANDING_SHOWN = 25
"""More standing rules than this at session start is noise; the rest are counted."""
MAX_VERIFY_LISTED = 8


def is_standing(memory: Memory) -> bool:
    """A convention anywhere, or a pitfall attached to no element: true for any task."""
    return memory.kind == "convention" or (memory.kind == "pitfall" and not memory.elements)


def build_overview(
    memories: Sequence[Memory],
    model: ArchitectureModel,
    *,
    now: datetime,
    config: RecallConfig,
    staleness: Callable[[Sequence[Memory]], Mapping[str, str | None]],
    budget: int = DEFAULT_BUDGET_CHARS,
    measure: Callable[[str], int] = len,
    overrides: Path | None = None,
    for_task: str | None = None,
    notes: Sequence[str] = (),
    client: Client = "cli",
) -> Briefing:
    """The overview; ``for_task`` titles it for a task no memory is about (a session
    that starts with a task still gets what holds for every task)."""
    title = for_task.strip() if for_task and for_task.strip() else OVERVIEW_TASK
    active = [m for m in memories if m.status == "active"]
    found = staleness(active)
    reasons = {m.id: found.get(m.id) for m in active}
    standing = sorted(
        (m for m in active if is_standing(m)),
        key=lambda m: (-_prior(m, now, config, reasons[m.id] is not None), m.id),
    )
    verify = sorted(
        (m for m in active if reasons[m.id] is not None), key=lambda m: (-_prior(m, now, config, True), m.id)
    )
    element_ids = {e.id for e in model.elements}
    documented = {e for m in active for e in m.elements if e in element_ids}
    items = [memory_item(_as_result(m, reasons[m.id]), [], model, now) for m in standing[:MAX_STANDING_SHOWN]]
    verify_items = [
        {
            "cite": f'**"{m.title}"**' if m.title else f"`{m.id}`",
            "titled": bool(m.title),
            "label": m.title or textwrap.shorten(" ".join(m.content.split()), 60, placeholder=" …"),
            "kind": m.kind.upper(),
            "where": ", ".join(model.names(m.elements)) or "Project",
            "reason": reasons[m.id],
        }
        for m in verify[:MAX_VERIFY_LISTED]
    ]

    def draw(shown: int, verify_shown: int) -> str:
        context = {
            "task": title,
            "for_task": title != OVERVIEW_TASK,
            "total": len(active),
            "documented": len(documented),
            "elements": len(element_ids),
            "memories": items[:shown],
            "cut": len(standing) - shown,
            "verify": verify_items[:verify_shown],
            "verify_total": len(verify),
            "notes": list(notes),
            "how_to_cite": how_to_cite(client),
            "see_more": "call `knowledge_map` for every memory by element" if client == "mcp"
            else "`archmem list --kind convention`",
            "see_verify": "call `review_queue`" if client == "mcp" else "`archmem review`",
        }
        return render("overview.md.j2", context, overrides=overrides)

    # the most standing rules that fit (the text grows with each one: a binary search),
    # then, if even none fit, fewer memories to verify
    verify_shown = len(verify_items)
    low, high = 0, len(items)
    while low < high:
        middle = (low + high + 1) // 2
        if measure(draw(middle, verify_shown)) <= budget:
            low = middle
        else:
            high = middle - 1
    shown = low
    text = draw(shown, verify_shown)
    while measure(text) > budget and verify_shown:
        verify_shown -= 1
        text = draw(shown, verify_shown)
    return Briefing(
        task=title, markdown=text, memory_ids=[m.id for m in standing[:shown]], cut=len(standing) - shown,
        gaps=[e.name for e in model.elements if e.id not in documented], elements=[], warnings=[], mode="overview",
    )


def _prior(memory: Memory, now: datetime, config: RecallConfig, verify: bool) -> float:
    """The score of a memory that is fully relevant: kind x freshness x usage x drift."""
    return score_memory(
        lexical=1.0, semantic=None, element=0.0, kind=memory.kind, last_confirmed=memory.last_confirmed, now=now,
        exposures=memory.exposures, citations=memory.citations, verify=verify, config=config,
    ).score


def _as_result(memory: Memory, reason: str | None) -> dict[str, object]:
    """The fields of a recall result that a briefing item shows."""
    return {
        "id": memory.id, "title": memory.title, "kind": memory.kind, "content": memory.content,
        "elements": memory.elements, "author": memory.author, "created_at": format_time(memory.created_at),
        "verify": reason is not None, "verify_reason": reason,
    }

"""The review queue: what a person should look at. Nothing here changes a memory.

- ignored: shown to many sessions and never cited (recall also lowers them);
- near-duplicates: pairs close enough that one may supersede the other;
- pending links: ``[[targets]]`` no memory, element or decision answers yet;
- VERIFY: memories whose code drifted since they were confirmed (from drift).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from archmem.memory import text as textrules
from archmem.memory.lifecycle import MemoryContext, neighbour_ids
from archmem.memory.types import Memory

NEIGHBOURS_PER_MEMORY = 8


@dataclass
class ReviewQueue:
    ignored: list[dict[str, Any]] = field(default_factory=list)
    near_duplicates: list[dict[str, Any]] = field(default_factory=list)
    pending_links: list[dict[str, Any]] = field(default_factory=list)
    verify: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ignored": self.ignored,
            "near_duplicates": self.near_duplicates,
            "pending_links": self.pending_links,
            "verify": self.verify,
            "total": len(self.ignored) + len(self.near_duplicates) + len(self.pending_links) + len(self.verify),
        }


def review_queue(
    ctx: MemoryContext, *, ignored_after: int, staleness: Callable[[Memory], str | None] | None = None
) -> ReviewQueue:
    """``ignored_after`` is ``[recall] ignored_after``: the number recall lowers by too;
    ``staleness`` is drift's VERIFY reason for a memory (None where drift is unknown)."""
    queue = ReviewQueue()
    active = ctx.store.list_memories(status="active")
    by_id = {m.id: m for m in active}
    for memory in active:
        reason = staleness(memory) if staleness is not None else None
        if reason is not None:
            queue.verify.append(
                {"id": memory.id, "title": memory.title, "kind": memory.kind, "elements": memory.elements,
                 "verify_reason": reason}
            )
    for memory in active:
        if memory.exposures >= ignored_after and memory.citations == 0:
            queue.ignored.append(
                {"id": memory.id, "title": memory.title, "kind": memory.kind, "exposures": memory.exposures}
            )
    seen: set[tuple[str, str]] = set()
    for memory in active:
        for other_id in neighbour_ids(ctx.store, memory.content, NEIGHBOURS_PER_MEMORY + 1):
            pair = tuple(sorted((memory.id, other_id)))
            if other_id == memory.id or pair in seen or other_id not in by_id:
                continue
            seen.add(pair)  # type: ignore[arg-type]
            score = textrules.token_set_similarity(memory.content, by_id[other_id].content)
            if textrules.classify_similarity(score, lexical=True) != "different":
                first, second = by_id[pair[0]], by_id[pair[1]]
                queue.near_duplicates.append(
                    {
                        "a": {"id": first.id, "title": first.title},
                        "b": {"id": second.id, "title": second.title},
                        "score": round(score, 3),
                    }
                )
    queue.near_duplicates.sort(key=lambda item: -item["score"])
    for link in ctx.store.links(pending=True):
        source = by_id.get(link.source_id)
        if source is None:
            continue
        queue.pending_links.append(
            {"source": {"id": source.id, "title": source.title}, "target": link.target_text}
        )
    return queue

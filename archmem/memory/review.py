"""The review queue: what a person should look at. Nothing here changes a memory.

- ignored: shown to many sessions and never cited (recall also lowers them);
- near-duplicates: pairs close enough that one may supersede the other;
- pending links: ``[[targets]]`` no memory, element or decision answers yet;
- VERIFY: memories whose code drifted since they were confirmed (from drift);
- forks: a memory two others supersede (two branches each replaced it): two truths
  where there should be one, until someone supersedes one successor by the other.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from archmem.memory import text as textrules
from archmem.memory.lifecycle import MemoryContext
from archmem.memory.types import Memory
from archmem.values import Record


@dataclass(repr=False, eq=False)
class ReviewQueue(Record):
    """What needs a person's look: ignored and near-duplicate memories, pending links, verifications, forks."""

    ignored: list[dict[str, Any]] = field(default_factory=list)
    near_duplicates: list[dict[str, Any]] = field(default_factory=list)
    pending_links: list[dict[str, Any]] = field(default_factory=list)
    verify: list[dict[str, Any]] = field(default_factory=list)
    forks: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ignored": self.ignored,
            "near_duplicates": self.near_duplicates,
            "pending_links": self.pending_links,
            "verify": self.verify,
            "forks": self.forks,
            "total": len(self.ignored) + len(self.near_duplicates) + len(self.pending_links) + len(self.verify)
            + len(self.forks),
        }


def near_duplicate_pairs(memories: list[Memory]) -> list[tuple[str, str, float]]:
    """Every pair of memories at or above the lexical "similar" threshold, exactly.

    An all-pairs similarity join (Bayardo et al.) instead of a word search per memory
    (18 s for 10k memories). Dice ≥ t means Jaccard ≥ j = t / (2 - t). Memories are
    taken smallest first, tokens rarest first; a pair reaching j shares a token between
    the larger one's probe prefix (``|x| - ceil(j |x|) + 1`` tokens) and the smaller
    one's index prefix (``|y| - ceil(2j / (1 + j) |y|) + 1``), and the smaller one
    holds at least ``j |x|`` tokens. Candidates are bounded by their set Dice, then
    scored by the same ``token_set_similarity`` (with its cap for a changed fact) that
    restatement uses.
    """
    tokens = {m.id: textrules.similarity_tokens(m.content) for m in memories}
    frequency: Counter[str] = Counter(token for found in tokens.values() for token in found)
    jaccard = textrules.LEXICAL_SIMILAR / (2 - textrules.LEXICAL_SIMILAR)
    indexed_share = 2 * jaccard / (1 + jaccard)
    content = {m.id: m.content for m in memories}
    index: dict[str, list[str]] = {}
    pairs = []
    for memory in sorted(memories, key=lambda m: (len(tokens[m.id]), m.id)):
        own = tokens[memory.id]
        ordered = sorted(own, key=lambda token: (frequency[token], token))
        size = len(ordered)
        smallest = jaccard * size
        candidates: set[str] = set()
        for token in ordered[: size - math.ceil(jaccard * size) + 1] if size else ():
            candidates.update(other for other in index.get(token, ()) if len(tokens[other]) >= smallest)
        for token in ordered[: size - math.ceil(indexed_share * size) + 1] if size else ():
            index.setdefault(token, []).append(memory.id)
        for other in sorted(candidates):
            theirs = tokens[other]
            # the set Dice bounds the score from above (a changed fact only lowers it)
            if 2 * len(own & theirs) < textrules.LEXICAL_SIMILAR * (size + len(theirs)):
                continue
            score = textrules.token_set_similarity(content[other], memory.content)
            if textrules.classify_similarity(score, lexical=True) != "different":
                first, second = sorted((other, memory.id))
                pairs.append((first, second, score))
    return pairs


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
    for first_id, second_id, score in near_duplicate_pairs(active):
        first, second = by_id[first_id], by_id[second_id]
        queue.near_duplicates.append(
            {"a": {"id": first.id, "title": first.title}, "b": {"id": second.id, "title": second.title},
             "score": round(score, 3)}
        )
    queue.near_duplicates.sort(key=lambda item: -item["score"])
    forks = getattr(ctx.store, "forks", None)
    for old_id, successor_ids in (forks() if forks is not None else {}).items():
        found = ctx.store.get_memories([old_id, *successor_ids])
        queue.forks.append({
            "superseded": {"id": old_id, "title": found[old_id].title if old_id in found else None},
            "successors": [{"id": i, "title": found[i].title if i in found else None} for i in successor_ids],
        })
    for link in ctx.store.links(pending=True):
        source = by_id.get(link.source_id)
        if source is None:
            continue
        queue.pending_links.append(
            {"source": {"id": source.id, "title": source.title}, "target": link.target_text}
        )
    return queue

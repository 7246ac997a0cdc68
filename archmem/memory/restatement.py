"""Whether a new memory restates an active one: the same content, the same meaning by
cosine (with vectors), or nearly the same words (token sets) among its lexical
neighbours. A changed number or negation is never a restatement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from archmem.memory import text as textrules
from archmem.memory.types import Memory
from archmem.recall.types import WordQuery
from archmem.store.base import Store
from archmem.values import Record

if TYPE_CHECKING:
    import numpy as np

    from archmem.recall.semantic import VectorIndex

DEDUP_CANDIDATES = 10
"""How many lexical neighbours a new memory is compared with for restatement."""
DEDUP_QUERY_TERMS = 8
"""The rarest terms of the new content that find those neighbours: a restatement
shares nearly every term, so it holds some of the rarest, and ranking only the
memories that hold rare terms keeps the check cheap as the store grows."""


@dataclass(repr=False, eq=False)
class Embedding(Record):
    """The vector of a memory about to be written, from the configured embedder."""

    index: VectorIndex
    vector: np.ndarray
    text_hash: str


def neighbour_ids(store: Store, content: str, limit: int) -> list[str]:
    """Active memories that may restate ``content``: ranked by BM25 over its rarest terms."""
    counts = store.term_document_counts(textrules.query_tokens(content))
    present = sorted((count, term) for term, count in counts.items() if count > 0)
    if not present:
        return []
    query = WordQuery(tuple(term for _, term in present[:DEDUP_QUERY_TERMS]), limit=limit)
    return [memory_id for memory_id, _ in store.lexical_search(query)]


def find_restatement(
    store: Store, content: str, digest: str, embedding: Embedding | None = None
) -> tuple[Memory | None, list[dict[str, Any]]]:
    """The active memory this content restates (if any), and the near ones."""
    exact = store.find_by_content_hash(digest)
    if exact:
        return exact[0], []
    if embedding is not None:
        scores = embedding.index.scores_for_vector(embedding.vector)
        if scores.top(1):
            return _judge(store, scores.top(DEDUP_CANDIDATES), lexical=False, content=content)
    ids = neighbour_ids(store, content, DEDUP_CANDIDATES)
    if not ids:
        return None, []
    candidates = store.get_memories(ids)
    pairs = [
        (memory_id, textrules.token_set_similarity(content, candidates[memory_id].content))
        for memory_id in ids
        if memory_id in candidates
    ]
    return _judge(store, pairs, lexical=True, content=content, known=candidates)


def _judge(
    store: Store,
    pairs: list[tuple[str, float]],
    *,
    lexical: bool,
    content: str,
    known: dict[str, Memory] | None = None,
) -> tuple[Memory | None, list[dict[str, Any]]]:
    """The best duplicate among scored neighbours, and the similar ones. A changed
    number or negation is never a restatement, whatever the cosine says."""
    candidates = known if known is not None else store.get_memories(memory_id for memory_id, _ in pairs)
    best: tuple[float, Memory] | None = None
    similar: list[dict[str, Any]] = []
    for memory_id, score in pairs:
        candidate = candidates.get(memory_id)
        if candidate is None or candidate.status != "active":
            continue
        verdict = textrules.classify_similarity(score, lexical=lexical)
        if verdict == "duplicate" and not lexical and not textrules.same_facts(content, candidate.content):
            verdict = "similar"
        if verdict == "duplicate" and (best is None or score > best[0]):
            best = (score, candidate)
        elif verdict == "similar":
            similar.append({"id": candidate.id, "title": candidate.title, "score": round(score, 3)})
    similar.sort(key=lambda item: -item["score"])
    return (best[1] if best else None), similar

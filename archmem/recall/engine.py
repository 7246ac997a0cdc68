"""Recall: gather candidates (words, elements, meaning), score them, add link neighbours.

Candidates come from three places: BM25 over the identifier-aware search text, the
memories of relevant elements, and (with vectors) the nearest vectors of the query's
embedding model. Each is scored by ``archmem.recall.score``; below ``min_relevance``
nothing is returned, so a task the store knows nothing about gets an empty list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from archmem.clock import format_time
from archmem.config import RecallConfig
from archmem.errors import ArchmemError
from archmem.memory import text as textrules
from archmem.memory.types import Link, Memory
from archmem.model.ownership import Ownership
from archmem.model.types import ArchitectureModel
from archmem.recall.elements import ElementIndex, ElementMatch, relevant_elements
from archmem.recall.score import (
    ANCHORED,
    Factors,
    answer_strength,
    idf,
    known_share,
    lexical_relevance,
    relevance,
    score_memory,
    semantic_relevance,
    synonym_evidence,
    terms_worth_ranking,
    worth_answering,
)
from archmem.recall.synonyms import Thesaurus
from archmem.store.base import Store

if TYPE_CHECKING:
    from archmem.recall.semantic import SemanticScores, VectorIndex

MAX_QUERY_TERMS = 64
RANKED_TERMS = 12

Staleness = Callable[[Sequence[Memory]], Mapping[str, "str | None"]]
"""The drift module's one interface to recall: the VERIFY reason of each of many
memories (None, or left out, when nothing moved), asked once for all candidates."""


def nothing_is_stale(memories: Sequence[Memory]) -> dict[str, str | None]:
    """Until drift is known, no memory is stale."""
    return {}


@dataclass
class RecallContext:
    store: Store
    model: ArchitectureModel
    config: RecallConfig
    now: datetime
    ownership: Ownership | None = None
    element_index: ElementIndex | None = None
    staleness: Staleness = nothing_is_stale
    semantic: VectorIndex | None = None
    thesaurus: Thesaurus | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class RecallResult:
    mode: str
    results: list[dict[str, Any]] = field(default_factory=list)
    elements: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    known_words: float = 1.0
    """The share of the task's words (IDF-weighted) that some memory holds, itself or as a
    synonym: what the decision to answer weighs the best relevance by."""

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "results": self.results, "elements": self.elements, "warnings": self.warnings,
                "known_words": round(self.known_words, 4)}

    @property
    def memory_ids(self) -> list[str]:
        return [r["id"] for r in self.results if r["kind"] not in ("decision", "element")]


def recall(
    ctx: RecallContext,
    query: str,
    *,
    elements: Sequence[str] = (),
    changed_files: Sequence[str] = (),
    limit: int = 5,
    explain: bool = False,
) -> RecallResult:
    config = ctx.config
    warnings = list(ctx.warnings)
    index = ctx.element_index or ElementIndex(
        ctx.model, ctx.store.index_forms, broad_weight=config.broad_word_weight,
        thesaurus=ctx.thesaurus, synonym_weight=config.synonym_weight,
    )
    matches = relevant_elements(
        ctx.model, index, ctx.ownership, query=query, hints=elements, changed_files=changed_files, config=config,
    )
    # what hints and changed files alone say (no words): a task's unknown words never weaken it
    pointed = relevant_elements(
        ctx.model, index, ctx.ownership, query="", hints=elements, changed_files=changed_files, config=config,
    ) if elements or changed_files else {}
    anchored = ctx.store.anchored_memory_ids(changed_files) if changed_files else {}
    # a changed file's name says what the change is about ("validation.py")
    words = " ".join([query, *textrules.file_stems(changed_files)]).strip()
    found_words = _lexical(ctx.store, words, config.candidates, config, ctx.thesaurus)
    lexical = found_words.relevance
    semantic = _meaning(ctx, query, warnings)
    mode = "hybrid" if semantic is not None else "lexical"

    candidate_ids = set(lexical) | set(anchored)
    candidate_ids |= {memory_id for memory_id, _ in (semantic.top(config.candidates) if semantic else [])}
    for element_id, match in matches.items():
        if config.element_weight * match.score >= config.min_relevance:
            # an element's memories tie on element relevance; the most recent come first
            candidate_ids.update(ctx.store.element_memory_ids(element_id, limit=config.candidates))
    memories = ctx.store.get_memories(candidate_ids)

    known = _known_words(found_words, index, config)
    scored: list[tuple[Factors, Memory, str | None]] = []
    strengths: list[float] = []
    active = [memory for memory in memories.values() if memory.status == "active"]
    reasons = ctx.staleness(active)
    for memory in active:
        element_score = max((matches[e].score for e in memory.elements if e in matches), default=0.0)
        pointed_score = max((pointed[e].score for e in memory.elements if e in pointed), default=0.0)
        if memory.id in anchored:
            element_score = pointed_score = ANCHORED
        cosine = semantic.get(memory.id) if semantic is not None else None
        reason = reasons.get(memory.id)
        factors = score_memory(
            lexical=lexical.get(memory.id, 0.0),
            semantic=semantic_relevance(cosine, config.semantic_floor) if cosine is not None else None,
            element=element_score,
            kind=memory.kind,
            last_confirmed=memory.last_confirmed,
            now=ctx.now,
            exposures=memory.exposures,
            citations=memory.citations,
            verify=reason is not None,
            config=config,
        )
        if factors.relevance >= config.min_relevance:
            scored.append((factors, memory, reason))
            # with meaning mixed in, a memory whose meaning matches vouches for words it does not share
            vouched = max(known, factors.semantic or 0.0)
            strengths.append(answer_strength(factors.relevance, vouched, relevance(0.0, pointed_score, config)))
    scored.sort(key=lambda item: (-item[0].score, item[1].id))
    if not worth_answering(strengths, config, hybrid=mode == "hybrid"):
        scored = []

    results = [_memory_result(m, f, reason, via=None, explain=explain) for f, m, reason in scored[:limit]]
    if explain:
        for result in results:
            result["synonyms"] = found_words.synonyms.get(result["id"], [])
    results += _neighbours(ctx, results[: config.link_sources], {r["id"] for r in results}, explain)
    element_list = sorted(matches.values(), key=lambda m: (-m.score, m.id))
    return RecallResult(
        mode=mode, results=results, elements=[m.to_dict() for m in element_list], warnings=warnings,
        known_words=known,
    )


def _meaning(ctx: RecallContext, query: str, warnings: list[str]) -> SemanticScores | None:
    """The query's cosines with the memories' vectors, or None (words only) when there is
    no provider, it fails (a provider failure never fails a recall) or no memory has a
    vector of its model yet; the last two say so in ``warnings``."""
    if ctx.semantic is None or not query.strip():
        return None
    try:
        semantic = ctx.semantic.scores(query)
    except ArchmemError as exc:
        warnings.append(f"semantic search unavailable ({exc.message}); ranked by words only")
        return None
    if not semantic.top(1):
        warnings.append(
            f"no memory has a vector of {ctx.semantic.identity} yet; ranked by words only (run: archmem embed)"
        )
        return None
    return semantic


def _known_words(found: WordMatch, index: ElementIndex, config: RecallConfig) -> float:
    """The share of the task's words archmem knows: a word is known when a memory or an
    element of the model holds it; the broad words ("add", "fix", the product's name) say
    what kind of work, not what about, and weigh ``broad_word_weight``."""
    weights = {
        form: value * (config.broad_word_weight if form in index.broad_terms else 1.0)
        for form, value in found.idfs.items()
    }
    return known_share(weights, found.held | index.vocabulary, found.held_as_synonym, config.synonym_weight)


@dataclass
class WordMatch:
    """What the task's words found: each memory's lexical relevance and the task's words
    it was found by through a synonym; each task word's IDF, the words some memory holds
    and those only a synonym of which some memory holds."""

    relevance: dict[str, float] = field(default_factory=dict)
    synonyms: dict[str, list[str]] = field(default_factory=dict)
    idfs: dict[str, float] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)
    held_as_synonym: set[str] = field(default_factory=set)


def _lexical(
    store: Store, query: str, limit: int, config: RecallConfig, thesaurus: Thesaurus | None = None
) -> WordMatch:
    """Lexical relevance in [0, 1] for the query's best BM25 matches, the synonyms of its
    words counting ``synonym_weight`` of the word they stand for."""
    found = WordMatch()
    terms = textrules.query_tokens(query)[:MAX_QUERY_TERMS]
    if not terms:
        return found
    # one term per stem: "retry retries" asks about one word, not two
    forms = store.index_forms(terms)
    first_of_form: dict[str, str] = {}
    for term in terms:
        first_of_form.setdefault(forms[term], term)
    terms = list(first_of_form.values())
    counts = store.term_document_counts(terms)
    total = store.memory_total()
    # a term no memory holds weighs in the ceiling as a term one memory holds: rare,
    # not infinitely telling (on a small store the difference would swamp everything)
    idfs = [idf(max(1, counts.get(term, 0)), max(total, 1)) for term in terms]
    idf_of_form = {forms[term]: value for term, value in zip(terms, idfs)}
    known = {forms[term] for term in terms if counts.get(term, 0) > 0}
    ranked = terms_worth_ranking(
        counts, total, min_relevance=config.min_relevance, exponent=config.lexical_exponent, cap=RANKED_TERMS
    )
    bm25: dict[str, float] = {}
    if ranked:
        match = " OR ".join(f'"{term}"' for term in ranked)
        bm25.update(store.lexical_search(match, limit=limit, parts_weight=config.parts_weight))
    known_through_synonyms: set[str] = set()
    if thesaurus is not None and config.synonym_weight > 0:
        for expansion in thesaurus.expansions(query):
            replaced = [idf_of_form[form] for form in expansion.entry if form in idf_of_form]
            if not replaced:
                continue
            # a memory that says the word itself has it counted already
            mates = " OR ".join(map(thesaurus.fts5_phrase, expansion.mates))
            match = f"({mates}) NOT {thesaurus.fts5_phrase(expansion.entry)}"
            hits = store.lexical_search(match, limit=limit, parts_weight=config.parts_weight)
            for memory_id, score in hits:
                bm25[memory_id] = bm25.get(memory_id, 0.0) + synonym_evidence(score, replaced, config.synonym_weight)
                found.synonyms.setdefault(memory_id, []).append(thesaurus.written(expansion.entry))
            if hits:
                known_through_synonyms.update(form for form in expansion.entry if form in idf_of_form)
    found.relevance = {
        memory_id: lexical_relevance(score, idfs, config.lexical_exponent) for memory_id, score in bm25.items()
    }
    found.idfs, found.held, found.held_as_synonym = idf_of_form, known, known_through_synonyms - known
    return found


def _memory_result(
    memory: Memory, factors: Factors | None, reason: str | None, *, via: dict[str, Any] | None, explain: bool
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": memory.id,
        "title": memory.title,
        "kind": memory.kind,
        "content": memory.content,
        "elements": memory.elements,
        "anchors": memory.anchors,
        "author": memory.author,
        "private": memory.private,
        "created_at": format_time(memory.created_at),
        "confirmed_at": format_time(memory.confirmed_at) if memory.confirmed_at else None,
        "score": round(factors.score, 4) if factors else None,
        "verify": reason is not None,
        "verify_reason": reason,
        "via": via,
    }
    if explain and factors is not None:
        result["factors"] = factors.to_dict()
    return result


def _neighbours(
    ctx: RecallContext, sources: list[dict[str, Any]], seen: set[str], explain: bool
) -> list[dict[str, Any]]:
    """The [[linked]] memories, decisions and elements of the top results, once each."""
    found: list[dict[str, Any]] = []
    decisions = {(f"{d.element}/{d.id}" if d.element else d.id): d for d in ctx.model.decisions}
    links_of: dict[str, list[Link]] = {}
    for link in ctx.store.links(source_ids=[source["id"] for source in sources], pending=False):
        links_of.setdefault(link.source_id, []).append(link)
    targets = ctx.store.get_memories(
        link.target_id for found in links_of.values() for link in found
        if link.target_kind == "memory" and link.target_id is not None
    )
    targets = {memory_id: memory for memory_id, memory in targets.items() if memory.status == "active"}
    reasons = ctx.staleness(list(targets.values())) if targets else {}
    for source in sources:
        via = {"id": source["id"], "title": source["title"]}
        for link in links_of.get(source["id"], []):
            target = link.target_id
            if target is None or target in seen:
                continue
            if link.target_kind == "memory":
                memory = targets.get(target)
                if memory is None:
                    continue
                entry = _memory_result(memory, None, reasons.get(memory.id), via=via, explain=explain)
            elif link.target_kind == "decision" and target in decisions:
                decision = decisions[target]
                entry = {
                    "id": target, "title": decision.title, "kind": "decision",
                    "content": f"{decision.status or 'no status'}; {decision.path}", "elements": [decision.element] if decision.element else [],
                    "score": None, "verify": False, "verify_reason": None, "via": via,
                }
            elif link.target_kind == "element" and ctx.model.get(target) is not None:
                element = ctx.model.get(target)
                assert element is not None
                entry = {
                    "id": element.id, "title": element.name, "kind": "element",
                    "content": element.description, "elements": [element.id],
                    "score": None, "verify": False, "verify_reason": None, "via": via,
                }
            else:
                continue
            seen.add(target)
            found.append(entry)
    return found


__all__ = ["ElementMatch", "RecallContext", "RecallResult", "Staleness", "nothing_is_stale", "recall"]

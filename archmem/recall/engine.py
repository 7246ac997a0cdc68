"""Recall: gather candidates (words, elements, meaning), score them, add link neighbours.

Candidates come from three places: BM25 over the identifier-aware search text, the
memories of relevant elements, and (with vectors) the nearest vectors of the query's
embedding model. Each is scored by ``archmem.recall.score``; below ``min_relevance``
nothing is returned, so a task the store knows nothing about gets an empty list.

The answer keeps three lists apart, so ``limit`` is a cap an agent can rely on:
``results`` (ranked memories, at most ``limit``), ``linked`` (the memories and decisions
the top results [[link]], each with ``via``) and ``elements`` (the relevant elements,
then those only a link brought, with ``via`` and no score of their own).
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
from archmem.recall.decision import Decision, Evidence, confidence, decide
from archmem.recall.elements import ElementIndex, ElementMatch, relevant_elements
from archmem.recall.named import anchor_mentions, titles_named
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
    store_coverage,
    synonym_evidence,
    terms_worth_ranking,
)
from archmem.recall.synonyms import Thesaurus
from archmem.recall.types import WordQuery
from archmem.store.base import Store
from archmem.values import Record

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


@dataclass(repr=False, eq=False)
class RecallContext(Record):
    """What a recall reads from outside: the index, the model, drift and the settings."""

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
    meanwhile: Callable[[], object] | None = None
    """Work the caller wants done while the words are searched (the Workspace reads
    drift's code listing and history then: SQLite ranks on another core)."""


@dataclass(repr=False, eq=False)
class RecallResult(Record):
    """A recall's answer: the ranked memories, their linked neighbours, the elements and the warnings."""

    mode: str
    results: list[dict[str, Any]] = field(default_factory=list)
    """Ranked memories only, best first, at most the limit."""
    linked: list[dict[str, Any]] = field(default_factory=list)
    """Memories and decisions a top result [[links]], each with ``via`` (that result)."""
    elements: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    known_words: float = 1.0
    """The share of the task's words (IDF-weighted) that some memory holds, itself or as a
    synonym: one of the things the decision to answer weighs."""
    weak: list[dict[str, Any]] = field(default_factory=list)
    """Candidates recall does not stand behind, shown apart when it is unsure."""
    decision: str = "answer"
    confidence: float = 1.0
    evidence: Evidence | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "results": self.results, "weak": self.weak, "linked": self.linked,
                "elements": self.elements, "warnings": self.warnings, "known_words": round(self.known_words, 4),
                "decision": self.decision, "confidence": round(self.confidence, 4),
                "evidence": self.evidence.to_dict() if self.evidence else None}

    @property
    def memory_ids(self) -> list[str]:
        """Every memory shown: the ranked ones, the weak ones and the linked ones."""
        return ([r["id"] for r in self.results] + [r["id"] for r in self.weak]
                + [r["id"] for r in self.linked if r["kind"] != "decision"])


def recall(
    ctx: RecallContext,
    query: str,
    *,
    elements: Sequence[str] = (),
    changed_files: Sequence[str] = (),
    limit: int = 5,
    explain: bool = False,
    always_answer: bool = False,
) -> RecallResult:
    """The memories that matter for a task, ranked, and whether recall stands behind them.
    ``always_answer``: rank without deciding (a pull request review wants the touched
    elements' memories whatever the task's words say)."""
    config = ctx.config
    warnings = list(ctx.warnings)
    index = ctx.element_index or ElementIndex(
        ctx.model, ctx.store.index_forms, broad_weight=config.broad_word_weight,
        thesaurus=ctx.thesaurus, synonym_weight=config.synonym_weight,
    )
    named = index.names.elements(query)
    matches = relevant_elements(
        ctx.model, index, ctx.ownership, query=query, hints=elements, changed_files=changed_files, named=named,
        config=config,
    )
    # what hints, changed files and names alone say (no words): a task's unknown words never weaken it
    # (an element the task names counts there as --element does, whatever it weighs in ranking)
    pointed = relevant_elements(
        ctx.model, index, ctx.ownership, query="", hints=[*elements, *named], changed_files=changed_files,
        config=config,
    ) if elements or changed_files or named else {}
    anchored = ctx.store.anchored_memory_ids(changed_files) if changed_files else {}
    # a changed file's name says what the change is about ("validation.py")
    words = " ".join([query, *textrules.file_stems(changed_files)]).strip()
    found_words = _lexical(ctx.store, words, config.candidates, config, ctx.thesaurus, ctx.meanwhile)
    lexical = found_words.relevance
    semantic = _meaning(ctx, query, warnings)
    mode = "hybrid" if semantic is not None else "lexical"

    # a file or symbol the task writes as code does names the memories anchored to it
    mentions = anchor_mentions(query)
    named_anchors = ctx.store.anchors_named(mentions) if mentions and config.named_title_weight > 0 else {}
    # a decision (ADR) whose title the task writes out names the memories that [[link]] it
    on_named_decisions = _linking_named_decisions(ctx, query) if config.named_title_weight > 0 else set()
    candidate_ids = set(lexical) | set(anchored) | set(named_anchors) | on_named_decisions
    candidate_ids |= {memory_id for memory_id, _ in (semantic.top(config.candidates) if semantic else [])}
    for element_id, match in matches.items():
        if config.element_weight * match.score >= config.min_relevance:
            # an element's memories tie on element relevance; the most recent come first
            candidate_ids.update(ctx.store.element_memory_ids(element_id, limit=config.candidates))
    memories = ctx.store.get_memories(candidate_ids)
    # a title the task writes out names its memory (it shares the words, so it is a candidate)
    titled = set(titles_named(query, ((m.id, m.title) for m in memories.values() if m.title))) \
        if config.named_title_weight > 0 else set()
    titled |= set(named_anchors) | on_named_decisions

    known = _known_words(found_words, index, config)
    scored: list[tuple[Factors, Memory, str | None]] = []
    strengths: list[float] = []
    pointers: list[float] = []
    active = [memory for memory in memories.values() if memory.status == "active"]
    reasons = ctx.staleness(active)
    for memory in active:
        element_score = max((matches[e].score for e in memory.elements if e in matches), default=0.0)
        pointed_score = max((pointed[e].score for e in memory.elements if e in pointed), default=0.0)
        if memory.id in titled:
            element_score = max(element_score, config.named_title_weight)
            pointed_score = max(pointed_score, config.named_title_weight)
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
            pointers.append(relevance(0.0, pointed_score, config))
            strengths.append(answer_strength(factors.relevance, vouched, pointers[-1]))
    scored.sort(key=lambda item: (-item[0].score, item[1].id))
    # asked for outright: on a hinted element (or inside one), anchored to a changed file, named
    hinted = {ctx.model.find(hint).id for hint in elements}
    hinted |= {d.id for element_id in list(hinted) for d in ctx.model.descendants(element_id)}
    asked = any(m.id in anchored or m.id in titled or set(m.elements) & hinted for _, m, _ in scored)
    on_named = any(set(m.elements) & set(named) for _, m, _ in scored)
    evidence = _evidence(scored, strengths, pointers, known, named=bool(named or titled),
                         explicit=asked, named_hit=on_named)
    verdict: Decision
    if always_answer:
        verdict, sure = ("answer" if scored else "nothing"), 1.0
    else:
        # with meaning mixed in, relevances run higher: the same decision, fitted apart
        hybrid = mode == "hybrid"
        sure = confidence(evidence, config.answer_model_hybrid if hybrid else config.answer_model)
        verdict = decide(sure, answer_at=config.answer_confidence_hybrid if hybrid else config.answer_confidence,
                         weak_at=config.weak_confidence_hybrid if hybrid else config.weak_confidence,
                         has_candidates=bool(scored),
                         explicit=bool(evidence.explicit or (config.named_answers and evidence.named_hit)),
                         named=bool(evidence.named_hit))
    shown = scored[:limit] if verdict == "answer" else []
    weak_shown = scored[:min(limit, config.weak_limit)] if verdict == "weak" else []

    results = [_memory_result(m, reason, factors=f, explain=explain) for f, m, reason in shown]
    weak = [_memory_result(m, reason, factors=f, explain=explain) for f, m, reason in weak_shown]
    if explain:
        for result in results:
            result["synonyms"] = found_words.synonyms.get(result["id"], [])
    element_list = [m.to_dict() for m in sorted(matches.values(), key=lambda m: (-m.score, m.id))]
    linked = _neighbours(ctx, results[: config.link_sources], {r["id"] for r in results}, element_list)
    return RecallResult(
        mode=mode, results=results, linked=linked, elements=element_list, warnings=warnings, known_words=known,
        weak=weak, decision=verdict, confidence=sure, evidence=evidence,
    )


def _linking_named_decisions(ctx: RecallContext, query: str) -> set[str]:
    """The memories that [[link]] a decision whose title the task writes out, word for word."""
    keys = {(f"{d.element}/{d.id}" if d.element else d.id): d.title for d in ctx.model.decisions}
    named = titles_named(query, keys.items())
    return {link.source_id for key in named for link in ctx.store.links_to(key) if link.target_kind == "decision"}


def _evidence(scored: list[tuple[Factors, Memory, str | None]], strengths: list[float], pointers: list[float],
              known: float, *, named: bool, explicit: bool = False, named_hit: bool = False) -> Evidence:
    """What the decision to answer weighs (``archmem.recall.decision.Evidence``)."""
    if not scored:
        return Evidence(known=known, named=1.0 if named else 0.0)
    scores = [f.score for f, _, _ in scored]
    return Evidence(
        strength=max(strengths), relevance=max(f.relevance for f, _, _ in scored),
        lexical=max(f.lexical for f, _, _ in scored), pointed=max(pointers), named=1.0 if named else 0.0,
        known=known, gap=scores[0] - (scores[1] if len(scores) > 1 else 0.0),
        explicit=1.0 if explicit else 0.0, named_hit=1.0 if named_hit else 0.0,
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
    return known_share(weights, found.held | index.vocabulary, found.held_as_synonym, config.synonym_weight,
                       store_coverage(found.memories))


@dataclass(repr=False, eq=False)
class WordMatch(Record):
    """What the task's words found: each memory's lexical relevance and the task's words
    it was found by through a synonym; each task word's IDF, the words some memory holds
    and those only a synonym of which some memory holds."""

    relevance: dict[str, float] = field(default_factory=dict)
    synonyms: dict[str, list[str]] = field(default_factory=dict)
    idfs: dict[str, float] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)
    held_as_synonym: set[str] = field(default_factory=set)
    memories: int = 0
    """How many active memories the store holds."""


def _lexical(
    store: Store, query: str, limit: int, config: RecallConfig, thesaurus: Thesaurus | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> WordMatch:
    """Lexical relevance in [0, 1] for the query's best BM25 matches, the synonyms of its
    words counting ``synonym_weight`` of the word they stand for; ``meanwhile`` is done
    while the words are ranked (always, once)."""
    found = WordMatch()
    terms = textrules.query_tokens(query)[:MAX_QUERY_TERMS]
    if not terms:
        if meanwhile is not None:
            meanwhile()
        return found
    # one term per stem: "retry retries" asks about one word, not two
    forms = store.index_forms(terms)
    first_of_form: dict[str, str] = {}
    for term in terms:
        first_of_form.setdefault(forms[term], term)
    terms = list(first_of_form.values())
    counts = store.term_document_counts(terms)
    total = store.memory_total()
    # a term no memory holds weighs in the known share as a term one memory holds: rare,
    # not infinitely telling (on a small store the difference would swamp everything)
    idfs = [idf(max(1, counts.get(term, 0)), max(total, 1)) for term in terms]
    idf_of_form = {forms[term]: value for term, value in zip(terms, idfs, strict=True)}
    known = {forms[term] for term in terms if counts.get(term, 0) > 0}
    ranked = terms_worth_ranking(
        counts, total, min_relevance=config.min_relevance, exponent=config.lexical_exponent, cap=RANKED_TERMS
    )
    bm25: dict[str, float] = {}
    searching = store.lexical_search_started(WordQuery(tuple(ranked), limit=limit, parts_weight=config.parts_weight)) \
        if ranked else list
    try:
        if meanwhile is not None:
            meanwhile()
    finally:
        bm25.update(searching())
    known_through_synonyms: set[str] = set()
    if thesaurus is not None and config.synonym_weight > 0:
        for expansion in thesaurus.expansions(query):
            replaced = [idf_of_form[form] for form in expansion.entry if form in idf_of_form]
            if not replaced:
                continue
            # a memory that says the word itself has it counted already
            hits = store.lexical_search(WordQuery(
                tuple(map(thesaurus.written, expansion.mates)), excluded=(thesaurus.written(expansion.entry),),
                limit=limit, parts_weight=config.parts_weight,
            ))
            for memory_id, score in hits:
                bm25[memory_id] = bm25.get(memory_id, 0.0) + synonym_evidence(score, replaced, config.synonym_weight)
                found.synonyms.setdefault(memory_id, []).append(thesaurus.written(expansion.entry))
            if hits:
                known_through_synonyms.update(form for form in expansion.entry if form in idf_of_form)
    # the ceiling: the words some memory holds, itself or as a synonym (what the store can match)
    held_idfs = [value for form, value in idf_of_form.items() if form in known or form in known_through_synonyms]
    found.relevance = {
        memory_id: lexical_relevance(score, held_idfs, config.lexical_exponent) for memory_id, score in bm25.items()
    }
    found.idfs, found.held, found.held_as_synonym = idf_of_form, known, known_through_synonyms - known
    found.memories = total
    return found


def _memory_result(
    memory: Memory, reason: str | None, *, factors: Factors | None = None, via: dict[str, Any] | None = None,
    explain: bool = False,
) -> dict[str, Any]:
    """A memory as recall shows it: ranked (with its ``score``) or linked (with ``via``)."""
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
        "verify": reason is not None,
        "verify_reason": reason,
    }
    if factors is not None:
        result["score"] = round(factors.score, 4)
        if explain:
            result["factors"] = factors.to_dict()
    if via is not None:
        result["via"] = via
    return result


def _neighbours(
    ctx: RecallContext, sources: list[dict[str, Any]], seen: set[str], elements: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The [[linked]] memories and decisions of the top results, once each and none
    already ranked; a linked element goes to ``elements`` instead: marked ``via`` where
    it is listed already, else added with no score of its own."""
    found: list[dict[str, Any]] = []
    listed = {e["id"]: e for e in elements}
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
                found.append(_memory_result(memory, reasons.get(memory.id), via=via))
            elif link.target_kind == "decision" and target in decisions:
                decision = decisions[target]
                found.append({
                    "id": target, "title": decision.title, "kind": "decision",
                    "content": f"{decision.status or 'no status'}; {decision.path}",
                    "elements": [decision.element] if decision.element else [], "status": decision.status or None,
                    "path": decision.path, "verify": False, "verify_reason": None, "via": via,
                })
            elif link.target_kind == "element" and (element := ctx.model.get(target)) is not None:
                if target in listed:
                    listed[target].setdefault("via", via)
                else:
                    listed[target] = {"id": element.id, "name": element.name, "kind": element.kind, "score": None,
                                      "reasons": [f"linked from {source['title'] or source['id']}"], "via": via}
                    elements.append(listed[target])
            else:
                continue
            seen.add(target)
    return found


def neighbours_by_source(result: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Per ranked result's id, what its [[links]] brought along, as one list to show
    under it: linked memories and decisions, then linked elements (``kind`` element,
    their name as ``title``, ``content`` empty)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for item in result["linked"]:
        found.setdefault(item["via"]["id"], []).append(item)
    for element in result["elements"]:
        if "via" in element:
            found.setdefault(element["via"]["id"], []).append(
                {"id": element["id"], "title": element["name"], "kind": "element", "content": "", "via": element["via"]}
            )
    return found


WEAK_LINE = 160
"""A weak candidate is one line: enough to tell whether it fits, cheap to skip."""


def weak_line(item: Mapping[str, Any]) -> str:
    """One line for a weak candidate: its title or first words, its id and its elements."""
    said = " ".join(str(item.get("title") or item.get("content") or "").split())
    if len(said) > WEAK_LINE:
        said = said[: WEAK_LINE - 1] + "…"
    where = ", ".join(item.get("elements") or []) or "project-wide"
    verify = " [VERIFY]" if item.get("verify") else ""
    return f"[{str(item['kind']).upper()}]{verify} {said} ({item['id']}; {where})"


__all__ = [
    "ElementMatch", "RecallContext", "RecallResult", "Staleness", "neighbours_by_source", "nothing_is_stale", "recall",
    "weak_line",
]

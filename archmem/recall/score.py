"""The score formula, in one place: every factor of recall's score as a pure function
(docs/architecture.md, "Recall").

    relevance = 1 - (1 - text) x (1 - element_weight x element)
    score     = relevance x kind x freshness x usage x drift

``text`` mixes semantic and lexical relevance, never below lexical (lexical alone
without vectors). Kind, freshness and usage are bounded by their *strength*:
``1 + s x (raw - 1)``, so they break near-ties instead of outranking relevance. Drift is the exception: a VERIFY
memory always drops to ``drift_factor`` (0.6) and carries its reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from archmem.config import RecallConfig
from archmem.values import Record

BM25_K1 = 1.2
"""FTS5's bm25() k1: a term's contribution saturates at idf x (k1 + 1)."""


def idf(document_count: int, total: int) -> float:
    """FTS5's inverse document frequency (never below a tiny positive number)."""
    value = math.log((total - document_count + 0.5) / (document_count + 0.5))
    return value if value > 0 else 1e-6


def lexical_relevance(bm25: float, held_idfs: Sequence[float], exponent: float = 1.0) -> float:
    """BM25 divided by its ceiling for this query, in [0, 1].

    The ceiling counts the task's words some memory holds (itself or as a synonym): the
    most any memory of this store could score. A word no memory holds cannot tell one
    memory from another; that the store does not know it is the decision's evidence
    (``known_share``), not a discount on every match. Counting it here sank a team's
    first memories: in a store of three, most of a task's words are unknown, and the one
    memory sharing its telling word fell below ``min_relevance`` before the decision saw it.
    """
    ceiling = sum(held_idfs) * (BM25_K1 + 1)
    if ceiling <= 0 or bm25 <= 0:
        return 0.0
    return min(1.0, bm25 / ceiling) ** exponent


def synonym_evidence(bm25: float, replaced_idfs: Sequence[float], weight: float) -> float:
    """What a memory's synonyms of a task's word add to its BM25 (``synonym_weight`` of
    what they scored), never more than that share of what the word they stand for could
    have given: "sluggish" found as "latency" counts as half a "sluggish", not as two."""
    ceiling = sum(replaced_idfs) * (BM25_K1 + 1)
    return weight * max(0.0, min(bm25, ceiling))


NEGLIGIBLE_SHARE = 0.05
"""Query terms whose IDF adds up to less than this share of the ceiling may go unranked."""


def terms_worth_ranking(
    document_counts: dict[str, int], total: int, *, min_relevance: float, exponent: float, cap: int
) -> list[str]:
    """The query terms BM25 must rank by, rarest first.

    A word in most memories makes FTS5 score most of the store for almost nothing: its
    IDF is near zero. Terms are taken rarest first until those left out could not,
    together, lift a memory to ``min_relevance`` on their own, nor move a ranked one by
    more than ``NEGLIGIBLE_SHARE`` of the ceiling (the bound is IDF x (k1 + 1) per term;
    the ceiling, as ``lexical_relevance``'s, counts the terms some memory holds).
    """
    idfs = {term: idf(count, max(total, 1)) for term, count in document_counts.items() if count > 0}
    ceiling = sum(idfs.values())
    present = sorted((count, term) for term, count in document_counts.items() if count > 0)
    limit = min(NEGLIGIBLE_SHARE, min_relevance ** (1 / exponent)) * ceiling
    left_out = sum(idfs[term] for _, term in present)
    chosen: list[str] = []
    for _, term in present:
        if len(chosen) == cap or (chosen and left_out < limit):
            break
        chosen.append(term)
        left_out -= idfs[term]
    return chosen


# ---- element evidence -------------------------------------------------------------


def specificity(files: int, total: int) -> float:
    """How telling it is that a task touches an element owning ``files`` of the
    repository's ``total`` files: 1 for an element of one file (or none: nothing to
    dilute), 0 for one that owns everything. Log-scaled, as information is: the system
    owning a third of a 364-file repository scores 0.19, a container of 11 files 0.59,
    a component of 2 files 0.88. ``files`` counts the element's descendants too, so a
    parent is never more specific than its children: depth enters through size."""
    if files <= 1 or total <= 1:
        return 1.0
    return max(0.0, 1.0 - math.log(files) / math.log(total))


def inherited_evidence(parent: float, share: float, related: float) -> float:
    """A child's evidence when its parent is relevant: the parent's, times the child's
    share of the parent's code, times ``related`` (``related_element_score``). A
    component holding half of a hinted container gets half of what it once got (0.7);
    a container under a system of twelve gets almost nothing."""
    return parent * related * max(0.0, min(1.0, share))


def hop_evidence(evidence: float, hop_weight: float) -> float:
    """An element one declared relationship away from a relevant one is relevant at
    ``hop_weight`` of its evidence (one hop only: "the checkout fails when the currency
    service is slow" reaches what is known about both ends)."""
    return evidence * hop_weight


ANCHORED = 1.0
"""A changed file that a memory anchors: the strongest evidence there is."""


def semantic_relevance(cosine: float, floor: float) -> float:
    """Cosine mapped to [0, 1]: at or below ``floor`` is unrelated."""
    if cosine <= floor:
        return 0.0
    return min(1.0, (cosine - floor) / (1 - floor))


def text_relevance(lexical: float, semantic: float | None, config: RecallConfig) -> float:
    """Semantic and lexical mixed when the memory has a vector of the query's model, but
    never below the lexical relevance: meaning adds to words, it does not take away. A
    memory that shares the task's rare words stays found when the embedding model misses
    the link (with the blend alone it fell below min_relevance). On the quality set this
    lifts hybrid with a real model from 0.714 to 0.716 nDCG@5 and recall@5 from 0.671 to
    0.682, with the no-answer empty rate unchanged (the original design had the blend alone)."""
    if semantic is None:
        return lexical
    total = config.semantic_weight + config.lexical_weight
    if total <= 0:
        return lexical
    blend = (config.semantic_weight * semantic + config.lexical_weight * lexical) / total
    return max(lexical, blend)


def relevance(text: float, element: float, config: RecallConfig) -> float:
    return 1 - (1 - text) * (1 - config.element_weight * element)


TASK_WORD_RATE = 0.15
"""How surely each memory of a store would hold a task's word, had the store written about
the task. Chosen leaving one repository out on small stores drawn from the labelled sets
(bench/recall_small.py --rates 0.047,0.15,1: every fold chose 0.15). 0.047, the median
share of memories holding a task's word in the full sets, left a third of the no-answer
tasks of stores of 3-5 memories answered; 1 (every unknown word counts in full) left a
fifth of their answerable tasks shown nothing."""


def store_coverage(memories: int, rate: float | None = None) -> float:
    """The chance that a store of ``memories`` holds a word a task uses, had it been written
    about: 1 - (1 - rate) ** memories. A store of 30 or more all but surely does (0.99),
    one of 10 likely (0.80), one of 3 maybe (0.39)."""
    return 1.0 - (1.0 - (TASK_WORD_RATE if rate is None else rate)) ** max(0, memories)


def known_share(idfs: dict[str, float], known: set[str], through_synonyms: set[str], synonym_weight: float,
                coverage: float = 1.0) -> float:
    """The IDF-weighted share of a task's words that archmem knows: in full when a memory
    or an element of the model holds the word, ``synonym_weight`` when only a synonym of
    it is in a memory. A task whose telling words nothing has ever used ("graphql",
    "wishlist") is most likely about something nobody wrote about, however well its
    other words match. But only as likely as the store would have used them: a word
    nothing holds counts ``coverage`` (``store_coverage``) of itself, so a team's first
    three memories, which know few words of any task, do not read every task as unknown."""
    held = sum(value for form, value in idfs.items() if form in known)
    held += synonym_weight * sum(value for form, value in idfs.items() if form in through_synonyms)
    unknown = sum(value for form, value in idfs.items() if form not in known and form not in through_synonyms)
    total = sum(idfs.values()) - unknown + coverage * unknown
    if total <= 0:
        return 1.0
    return min(1.0, held / total)


def answer_strength(relevance: float, known: float, pointed: float) -> float:
    """How surely a memory answers the task, for the decision to answer at all: its
    relevance weighed by the share of the task's words archmem knows (``known_share``),
    but never below what the task's hints, changed files and anchors alone give it
    (``pointed``): unknown words weaken what words found, not what a file says."""
    return max(pointed, relevance * known)


def _bounded(raw: float, strength: float) -> float:
    return 1 + strength * (raw - 1)


def kind_factor(kind: str, config: RecallConfig) -> float:
    weights = config.kind_weights
    lowest = min(weights.values()) if weights else 1.0
    raw = weights.get(kind, lowest) / lowest if lowest > 0 else 1.0
    return _bounded(raw, config.kind_strength)


def freshness_factor(last_confirmed: datetime, now: datetime, config: RecallConfig) -> float:
    """Half-life decay from the last confirmation, never below the floor."""
    age_days = max(0.0, (now - last_confirmed).total_seconds() / 86400)
    raw = max(config.freshness_floor, 0.5 ** (age_days / config.half_life_days))
    return _bounded(raw, config.freshness_strength)


def usage_factor(exposures: int, citations: int, config: RecallConfig) -> float:
    """Citations lift (log-scaled, capped); often shown and never cited lowers."""
    if citations > 0:
        raw = min(config.usage_cap, 1 + 0.25 * math.log1p(citations))
    elif exposures >= config.ignored_after:
        raw = config.ignored_factor
    else:
        raw = 1.0
    return _bounded(raw, config.usage_strength)


def drift_factor(verify: bool, config: RecallConfig) -> float:
    return config.drift_factor if verify else 1.0


@dataclass(repr=False, eq=False)
class Factors(Record):
    """Every number behind one result's score, for ``--explain``."""

    lexical: float
    semantic: float | None
    text: float
    element: float
    relevance: float
    kind: float
    freshness: float
    usage: float
    drift: float

    @property
    def score(self) -> float:
        return self.relevance * self.kind * self.freshness * self.usage * self.drift

    def to_dict(self) -> dict[str, float | None]:
        data: dict[str, float | None] = {
            name: (round(value, 4) if value is not None else None)
            for name, value in self.__dict__.items()
        }
        data["score"] = round(self.score, 4)
        return data


def score_memory(
    *,
    lexical: float,
    semantic: float | None,
    element: float,
    kind: str,
    last_confirmed: datetime,
    now: datetime,
    exposures: int,
    citations: int,
    verify: bool,
    config: RecallConfig,
) -> Factors:
    text = text_relevance(lexical, semantic, config)
    return Factors(
        lexical=lexical,
        semantic=semantic,
        text=text,
        element=element,
        relevance=relevance(text, element, config),
        kind=kind_factor(kind, config),
        freshness=freshness_factor(last_confirmed, now, config),
        usage=usage_factor(exposures, citations, config),
        drift=drift_factor(verify, config),
    )

"""Element relevance: which parts of the architecture a task is about.

Hinted elements and the elements owning a changed file score 1, their parent and
children ``related_element_score`` (0.7). Otherwise the task's words are matched
against each element's name, identifier, description, tags and technology with
IDF-weighted coverage, so "speed up checkout" finds ``OrderProcessor`` whose
description talks about checkout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from archmem.memory import text as textrules
from archmem.model.ownership import Ownership
from archmem.model.paths import compile_globs
from archmem.model.types import ArchitectureModel, Element


@dataclass
class ElementMatch:
    id: str
    name: str
    kind: str
    score: float
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "kind": self.kind, "score": round(self.score, 4), "reasons": self.reasons}


def element_terms(element: Element) -> set[str]:
    """The words an element is known by. Only the last part of a hierarchical id: a
    child's id (``shop.gateway.auth``) repeats its parent's words."""
    own_id = element.id.rsplit(".", 1)[-1] if "://" not in element.id else ""
    return set(
        textrules.query_tokens(" ".join([own_id, element.name, element.description, element.technology, *element.tags]))
    )


class ElementIndex:
    """Element texts tokenized once per model, with their document frequencies."""

    def __init__(self, model: ArchitectureModel) -> None:
        self.model = model
        self.terms = {element.id: element_terms(element) for element in model.elements}
        self.df: dict[str, int] = {}
        for terms in self.terms.values():
            for term in terms:
                self.df[term] = self.df.get(term, 0) + 1

    def idf(self, term: str) -> float:
        """A term no element holds weighs as one that a single element holds: the task's
        own words ("fix", "speed") should not drown the one that names the element."""
        total = max(1, len(self.terms))
        return math.log(1 + total / (max(1, self.df.get(term, 0)) + 0.5))

    def match(self, query: str) -> dict[str, float]:
        """IDF-weighted share of the query's terms each element's text holds."""
        terms = textrules.query_tokens(query)
        if not terms:
            return {}
        weights = {term: self.idf(term) for term in terms}
        ceiling = sum(weights.values())
        scores: dict[str, float] = {}
        for element_id, held in self.terms.items():
            hit = sum(w for term, w in weights.items() if term in held)
            if hit > 0:
                scores[element_id] = hit / ceiling
        return scores


def owners_of(model: ArchitectureModel, ownership: Ownership, path: str) -> list[str]:
    """The elements that own a file: those whose own globs match it, else the deepest
    ones whose inherited globs do."""
    direct = [e.id for e in model.elements if e.paths and compile_globs(e.paths)(path)]
    if direct:
        return direct
    holders = [element_id for element_id, files in ownership.files.items() if path in files]
    return [h for h in holders if not any(child.id in holders for child in model.children(h))]


def relevant_elements(
    model: ArchitectureModel,
    index: ElementIndex,
    ownership: Ownership | None,
    *,
    query: str,
    hints: Sequence[str] = (),
    changed_files: Sequence[str] = (),
    related_score: float = 0.7,
) -> dict[str, ElementMatch]:
    """Every element with a non-zero relevance to the task, with why."""
    matches: dict[str, ElementMatch] = {}

    def lift(element_id: str, score: float, reason: str) -> None:
        element = model.get(element_id)
        if element is None:
            return
        found = matches.get(element_id)
        if found is None:
            matches[element_id] = ElementMatch(element.id, element.name, element.kind, score, [reason])
            return
        if reason not in found.reasons:
            found.reasons.append(reason)
        found.score = max(found.score, score)

    anchored: list[tuple[str, str]] = [(model.find(hint).id, "hinted") for hint in hints]
    if ownership is not None:
        for path in changed_files:
            anchored += [(owner, f"owns {path}") for owner in owners_of(model, ownership, path)]
    for element_id, reason in anchored:
        lift(element_id, 1.0, reason)
    for element_id, _ in anchored:
        element = model.get(element_id)
        related = [c.id for c in model.children(element_id)]
        if element is not None and element.parent:
            related.append(element.parent)
        for other in related:
            lift(other, related_score, f"related to {element_id}")
    for element_id, score in index.match(query).items():
        lift(element_id, score, "matches the task")
    return matches


def describe_matches(
    model: ArchitectureModel, matches: dict[str, ElementMatch], memory_counts: dict[str, int], *, limit: int
) -> list[dict[str, object]]:
    """The best ``limit`` matches with what an agent needs to act on them: description,
    technology, parent, the code each owns and how many memories it holds."""
    found: list[dict[str, object]] = []
    for match in sorted(matches.values(), key=lambda m: (-m.score, m.id))[:limit]:
        element = model.get(match.id)
        assert element is not None
        found.append({
            **match.to_dict(),
            "description": element.description,
            "technology": element.technology,
            "parent": element.parent,
            "paths": model.effective_paths(element.id),
            "memories": memory_counts.get(element.id, 0),
        })
    return found

"""Element relevance: which parts of the architecture a task is about, and how surely.

Evidence is weighted by how specific it is (``archmem.recall.score`` holds the numbers):

- a hinted element scores 1;
- a changed file is evidence for every element whose code holds it, each in proportion
  to how specific that element is (``specificity``): the component that owns it is
  strong, the system that owns the whole repository says nothing;
- a child of a relevant element inherits its share of the parent (``inherited_evidence``),
  and an element one declared relationship away gets ``hop_evidence``;
- the task's words are matched against each element's name, identifier, description,
  tags and technology, analysed as memories are (identifier splitting, Porter stems),
  IDF-weighted, with broad words counting little (those naming the whole product, the
  workspace and its software systems, common verbs such as "add", particles such as
  "up"), and scaled by
  the element's specificity: a task that names the product is not about everything the
  product holds.

Anchors are per memory: the engine gives a memory whose anchor is a changed file
``ANCHORED``, more than any element can.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from archmem.config import RecallConfig
from archmem.memory import text as textrules
from archmem.model.ownership import Ownership
from archmem.model.paths import compile_globs
from archmem.model.types import ArchitectureModel, Element
from archmem.recall.graph import element_graph, spread
from archmem.recall.named import Names
from archmem.recall.score import hop_evidence, inherited_evidence, specificity
from archmem.recall.synonyms import Forms, Thesaurus
from archmem.values import Record


@dataclass(repr=False, eq=False)
class ElementMatch(Record):
    """An element a query is about, with its score and the reasons."""

    id: str
    name: str
    kind: str
    score: float
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "kind": self.kind, "score": round(self.score, 4), "reasons": self.reasons}


TASK_WORDS = frozenset(
    """allow enable disable support keep let want need try make change fix improve rework
    clean move replace show hide start stop work handle use add remove update create delete
    write read get set put run check new more less better way thing quick small""".split()
)
"""Words a task uses to say what kind of work it is, not where: "let shoppers keep a
wishlist" is not about the service that "keeps the items in each shopper's basket"."""


def element_terms(element: Element, technology_weight: float = 0.5) -> dict[str, float]:
    """The words an element is known by, each with how surely it names the element:
    1 for its name, identifier, description and tags, ``technology_weight`` for a word
    found only in its technology (many elements share "Node.js"; a task about a node of
    the cluster is not about them). Only the last part of a hierarchical id: a child's
    id (``shop.gateway.auth``) repeats its parent's words."""
    terms = dict.fromkeys(textrules.query_tokens(element.technology), technology_weight)
    terms.update(dict.fromkeys(textrules.query_tokens(element.description), 1.0))
    own_id = element.id.rsplit(".", 1)[-1] if "://" not in element.id else ""
    terms.update(dict.fromkeys(textrules.query_tokens(" ".join([own_id, element.name, *element.tags])), 1.0))
    return terms


def _as_written(terms: Iterable[str]) -> dict[str, str]:
    return {term: term for term in terms}


class ElementIndex:
    """Element texts analysed once per model (split, stemmed), with their document
    frequencies and the broad words that say little about where a task is."""

    def __init__(
        self,
        model: ArchitectureModel,
        forms: Forms | None = None,
        *,
        broad_weight: float = 0.1,
        thesaurus: Thesaurus | None = None,
        synonym_weight: float = 0.7,
    ) -> None:
        self.model = model
        self.forms = forms or _as_written
        self.broad_weight = broad_weight
        self.thesaurus = thesaurus
        self.synonym_weight = synonym_weight
        raw = {element.id: element_terms(element) for element in model.elements}
        known = self.forms({term for terms in raw.values() for term in terms})
        self.terms: dict[str, dict[str, float]] = {}
        for element_id, terms in raw.items():
            held: dict[str, float] = {}
            for term, strength in terms.items():
                held[known[term]] = max(strength, held.get(known[term], 0.0))
            self.terms[element_id] = held
        # a person says who, not where: "checkout" must not find the customer who "buys things"
        self.synonym_reachable = {
            element.id: set(self.terms[element.id]) if element.kind != "person" else set()
            for element in model.elements
        }
        self.df: dict[str, int] = {}
        for terms in self.terms.values():
            for term in terms:
                self.df[term] = self.df.get(term, 0) + 1
        self.vocabulary = frozenset(self.df)
        """Every word some element is known by (its index form)."""
        self.broad_terms = self._broad_terms()
        self.names = Names(model)
        """The identifiers and names a task can point at an element with."""
        self.graph = element_graph(model)
        """The identifiers and names a task can point at an element with."""

    def _broad_terms(self) -> frozenset[str]:
        """Words that say little about *where* a task is: the words of the workspace's
        name and of the software systems that contain elements ("Online Boutique" names
        everything), the names of the people the system serves ("shoppers" and
        "customers" are in tasks about every part), the verbs a task says its kind of
        work with ("add" a badge must not find the component whose description says it
        adds amounts), and the words a query keeps only because they change a fact
        ("up" in "looks up")."""
        names = [self.model.name]
        for element in self.model.elements:
            if (element.kind == "softwareSystem" and self.model.children(element.id)) or element.kind == "person":
                names += [element.name, element.id.rsplit(".", 1)[-1]]
        terms = [
            *textrules.query_tokens(" ".join(names)), *textrules.COMMON_VERB_PARTS, *TASK_WORDS, *textrules.FACT_WORDS,
        ]
        return frozenset(self.forms(terms).values())

    def idf(self, term: str) -> float:
        """A term no element holds weighs as one that a single element holds: the task's
        own words ("fix", "speed") should not drown the one that names the element."""
        total = max(1, len(self.terms))
        return math.log(1 + total / (max(1, self.df.get(term, 0)) + 0.5))

    def weight(self, term: str) -> float:
        base = self.idf(term)
        return base * self.broad_weight if term in self.broad_terms else base

    def match(self, query: str) -> dict[str, float]:
        """IDF-weighted share of the query's terms each element's text holds; a term the
        element does not hold counts ``synonym_weight`` when a synonym of it is there,
        unless the element is a person, never more than the synonym itself weighs:
        "purchase" finds the Checkout Service as surely as a rare word would, "service"
        finds nothing much."""
        tokens = textrules.query_tokens(query)
        if not tokens:
            return {}
        terms = dict.fromkeys(self.forms(tokens)[t] for t in tokens)
        weights = {term: self.weight(term) for term in terms}
        ceiling = sum(weights.values())
        expansions = []
        if self.thesaurus is not None and self.synonym_weight > 0:
            for expansion in self.thesaurus.expansions(query):
                said = [form for form in expansion.entry if form in weights]
                if said:
                    expansions.append((said, expansion.mates))
        scores: dict[str, float] = {}
        for element_id, held in self.terms.items():
            hit = sum(w * held[term] for term, w in weights.items() if term in held)
            reachable = self.synonym_reachable[element_id]
            for said, mates in expansions:
                if any(form in held for form in said):
                    continue
                found = [min(self.weight(form) for form in mate) for mate in mates if set(mate) <= reachable]
                if found:
                    hit += self.synonym_weight * min(sum(weights[form] for form in said), max(found))
            if hit > 0:
                scores[element_id] = hit / ceiling
        return scores


class Extents:
    """How much of the system each element spans, its descendants included, and so how
    specific it is (``specificity``). Measured in the repository's files when ownership
    is known (a changed file brought it), else in the model's leaf elements: recall
    without changed files never lists the repository."""

    def __init__(self, model: ArchitectureModel, ownership: Ownership | None) -> None:
        self.model = model
        self.by_files = ownership is not None and ownership.total_files > 0
        self.ownership = ownership
        self._units: dict[str, frozenset[str]] = {}
        self.total = ownership.total_files if self.by_files and ownership else len(self._leaves())

    def _leaves(self) -> list[str]:
        return [e.id for e in self.model.elements if not self.model.children(e.id)]

    def units(self, element_id: str) -> frozenset[str]:
        """The files (or leaf elements) an element spans."""
        if element_id not in self._units:
            children = self.model.children(element_id)
            if self.by_files:
                assert self.ownership is not None
                own = set(self.ownership.files.get(element_id, []))
            else:
                own = set() if children else {element_id}
            for child in children:
                own |= self.units(child.id)
            self._units[element_id] = frozenset(own)
        return self._units[element_id]

    def specificity(self, element_id: str) -> float:
        return specificity(len(self.units(element_id)), self.total)

    def share(self, child_id: str, parent_id: str) -> float:
        """The child's part of what its parent spans."""
        parent = len(self.units(parent_id))
        if parent == 0:
            return 1.0 / max(1, len(self.model.children(parent_id)))
        return len(self.units(child_id)) / parent


def owners_of(model: ArchitectureModel, ownership: Ownership, path: str) -> list[str]:
    """The elements that own a file: those whose own globs match it, else the deepest
    ones whose inherited globs do."""
    direct = [e.id for e in model.elements if e.paths and compile_globs(e.paths)(path)]
    if direct:
        return direct
    holders = [element_id for element_id, files in ownership.files.items() if path in files]
    return [h for h in holders if not any(child.id in holders for child in model.children(h))]


def partners(model: ArchitectureModel, element_id: str) -> set[str]:
    """The elements at the other end of a declared relationship of this element or of
    one of its descendants (Structurizr's implied relationships), outside its own tree."""
    own = {element_id, *(d.id for d in model.descendants(element_id))}
    family = own | {a.id for a in model.ancestors(element_id)}
    found: set[str] = set()
    for relationship in model.relationships:
        if relationship.source in own and relationship.destination not in family:
            found.add(relationship.destination)
        elif relationship.destination in own and relationship.source not in family:
            found.add(relationship.source)
    return found


def relevant_elements(
    model: ArchitectureModel,
    index: ElementIndex,
    ownership: Ownership | None,
    *,
    query: str,
    hints: Sequence[str] = (),
    changed_files: Sequence[str] = (),
    named: dict[str, str] | None = None,
    config: RecallConfig | None = None,
) -> dict[str, ElementMatch]:
    """Every element with a non-zero relevance to the task, with why. ``named``: the
    elements the task names outright (``archmem.recall.named``), each with how."""
    config = config or RecallConfig()
    extents = Extents(model, ownership)
    matches: dict[str, ElementMatch] = {}

    def lift(element_id: str, score: float, reason: str) -> None:
        element = model.get(element_id)
        if element is None or score <= 0:
            return
        found = matches.get(element_id)
        if found is None:
            matches[element_id] = ElementMatch(element.id, element.name, element.kind, score, [reason])
            return
        if reason not in found.reasons:
            found.reasons.append(reason)
        found.score = max(found.score, score)

    for hint in hints:
        hinted = model.find(hint).id
        lift(hinted, 1.0, "hinted")
        for ancestor in model.ancestors(hinted):
            lift(ancestor.id, config.related_element_score * extents.specificity(ancestor.id), f"holds {hinted}")
    for element_id, how in (named or {}).items():
        lift(element_id, config.named_element_weight, how)
        for ancestor in model.ancestors(element_id):
            lift(ancestor.id, config.related_element_score * extents.specificity(ancestor.id), f"holds {element_id}")
    if ownership is not None:
        for path in changed_files:
            for owner in owners_of(model, ownership, path):
                for element_id in (owner, *(a.id for a in model.ancestors(owner))):
                    lift(element_id, extents.specificity(element_id), f"owns {path}")
    for element_id, score in index.match(query).items():
        lift(element_id, score * extents.specificity(element_id), "matches the task")
    direct = {element_id: match.score for element_id, match in matches.items()}
    if config.graph == "pagerank" and direct:
        for element_id, score in spread(index.graph, direct, alpha=config.graph_alpha,
                                        weight=config.graph_weight).items():
            lift(element_id, score, "near the task in the model")
        return matches
    for element_id, score in direct.items():
        for child in model.children(element_id):
            share = extents.share(child.id, element_id)
            lift(child.id, inherited_evidence(score, share, config.related_element_score), f"part of {element_id}")
    if config.hop_weight > 0:
        for element_id, score in direct.items():
            for other in partners(model, element_id):
                lift(other, hop_evidence(score, config.hop_weight), f"related to {element_id}")
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

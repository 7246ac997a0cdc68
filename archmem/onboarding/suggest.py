"""``paths suggest``: for each element that owns no code, where its code probably is,
how sure that is, and the evidence, from what the repository already says.

Signals, strongest first: build and deployment files naming a folder (``manifests``),
the element's own name and identifier against folder and file names (``names``), its
technology against the languages there, and, for ties, which of the places git history
shows alive. Elements outside the code (``archmem.model.external``) get nothing, and
are said so. Nothing is written here: ``Workspace.suggest_paths`` records accepted
globs in ``archmem.toml`` (``archmem.onboarding.table``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from archmem.model.external import external_elements, is_data_store
from archmem.model.ownership import is_code
from archmem.model.paths import compile_globs
from archmem.model.types import ArchitectureModel, Element
from archmem.onboarding.candidates import Place, PlaceIndex, WordIndex, activity, build_index
from archmem.onboarding.manifests import Alias, Manifests, Read, read_manifests
from archmem.onboarding.names import GENERIC, joined, same_joined, similarity, stem, weight, words

MIN_CONFIDENCE = 0.4
"""Below this, a best guess is reported as a guess, never proposed."""
_TIE = 0.03
_TECHNOLOGIES: tuple[tuple[str, frozenset[str]], ...] = (
    (r"python|django|flask|fastapi|celery|pandas", frozenset({"py"})),
    (r"\bgo\b|golang", frozenset({"go"})),
    (r"java\b|spring|kotlin|jvm|quarkus|micronaut", frozenset({"java", "kt", "kts", "groovy"})),
    (r"scala|akka", frozenset({"scala"})),
    (r"type\s?script|javascript|node|react|vue|angular|next\.?js|svelte|express|nest\.?js|\bjs\b|\bts\b",
     frozenset({"js", "jsx", "ts", "tsx", "mjs", "cjs", "vue", "svelte"})),
    (r"c#|\.net|asp\.net|dotnet|blazor", frozenset({"cs", "fs", "vb"})),
    (r"ruby|rails|sinatra", frozenset({"rb"})),
    (r"php|laravel|symfony", frozenset({"php"})),
    (r"rust|actix|axum|tokio", frozenset({"rs"})),
    (r"elixir|phoenix", frozenset({"ex", "exs"})),
    (r"swift|\bios\b", frozenset({"swift", "m"})),
    (r"dart|flutter", frozenset({"dart"})),
    (r"c\+\+|\bcpp\b", frozenset({"cpp", "cc", "cxx", "h", "hpp"})),
)


@dataclass
class Suggestion:
    element: str
    name: str
    paths: list[str]
    confidence: float
    evidence: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"element": self.element, "name": self.name, "paths": self.paths,
                "confidence": round(self.confidence, 2), "evidence": self.evidence}


@dataclass
class Skipped:
    """An element left without a suggestion, and why."""

    element: str
    name: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"element": self.element, "name": self.name, "reason": self.reason}


@dataclass
class PathSuggestions:
    suggestions: list[Suggestion] = field(default_factory=list)
    external: list[Skipped] = field(default_factory=list)
    """Elements outside the code (people, External, managed services): no paths, by design."""
    unmatched: list[Skipped] = field(default_factory=list)
    """Elements that should own code but no place matched well enough (with the best guess)."""
    mapped: list[str] = field(default_factory=list)
    """Elements that already own code (left alone unless named with ``--element``)."""
    from_children: list[str] = field(default_factory=list)
    """Elements with no match of their own that will own their children's code."""
    unowned: int = 0
    """Code files no element would own once the suggestions are accepted."""
    unowned_before: int = 0
    written: str | None = None
    """The config file the accepted globs were written to (``--write``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "suggestions": [s.to_dict() for s in self.suggestions],
            "unowned": self.unowned, "unowned_before": self.unowned_before,
            "external": [s.to_dict() for s in self.external],
            "unmatched": [s.to_dict() for s in self.unmatched],
            "mapped": self.mapped, "from_children": self.from_children, "written": self.written,
        }


@dataclass
class _Scored:
    place: Place
    score: float
    """May pass 1 while places are ranked (a bonus must still tell two perfect names
    apart); a suggestion's confidence is clipped to 1."""
    evidence: list[str]


def suggest_paths(
    model: ArchitectureModel,
    files: Sequence[str],
    *,
    read: Read,
    elements: Sequence[str] = (),
    skip: Callable[[str], bool] = lambda path: False,
    change_sets: Iterable[Iterable[str]] = (),
) -> PathSuggestions:
    """Suggestions for the elements that own no code (or for ``elements``, resolved by
    ``model.find``). ``files`` are the repository's files now; ``skip`` says which are
    not anyone's code (ignored, generated, vendored); ``change_sets`` are the files of
    recent commits, to break ties by which place is alive."""
    chosen = [model.find(ref).id for ref in elements]
    index = build_index(files, skip)
    manifests = read_manifests([f for f in files if not skip(f)], read)
    aliases = _alias_index(manifests.aliases)
    alive = activity(change_sets)
    external = external_elements(model)
    result = PathSuggestions()
    owned = {e.id: model.effective_paths(e.id) for e in model.elements}
    own = {e.id: list(e.paths) for e in model.elements}
    taken: dict[str | None, list[tuple[str, str]]] = {}
    for element in model.elements:
        taken.setdefault(element.parent, []).extend((element.id, glob) for glob in element.paths)
    suggested: dict[str, list[str]] = {}
    targets = _targets(model, chosen, external, owned, result)
    by_depth: dict[int, list[Element]] = {}
    depth_of = {e.id: d for d, e in model.walk()}
    for element in targets:
        by_depth.setdefault(depth_of[element.id], []).append(element)
    for depth in sorted(by_depth):
        ranked: list[tuple[float, int, Element, _Scored]] = []
        for element in by_depth[depth]:
            given = own.get(element.parent or "", [])
            scored = _rank(element, index, aliases, manifests, alive, given, suggested.get(element.parent or "", []))
            if not scored or scored[0].score < MIN_CONFIDENCE:
                result.unmatched.append(_unmatched(element, scored))
                continue
            for order, item in enumerate(scored[:5]):
                ranked.append((item.score, -order, element, item))
        ranked.sort(key=lambda entry: (entry[0], entry[1]), reverse=True)
        done: set[str] = set()
        for score, _, element, item in ranked:
            if element.id in done or score < MIN_CONFIDENCE:
                continue
            siblings = taken.setdefault(element.parent, [])
            parent_scope = own.get(element.parent or "", []) or suggested.get(element.parent or "", [])
            others = [glob for owner, glob in siblings if owner != element.id]
            if _overlaps(item.place, others) or item.place.glob in parent_scope:
                continue
            done.add(element.id)
            siblings.append((element.id, item.place.glob))
            suggested[element.id] = [item.place.glob]
            result.suggestions.append(
                Suggestion(element.id, element.name, [item.place.glob], min(1.0, score), item.evidence)
            )
        for element in by_depth[depth]:
            if element.id not in done and not any(s.element == element.id for s in result.unmatched):
                result.unmatched.append(Skipped(
                    element.id, element.name, "its best places are owned by a sibling element already"
                ))
    _parents_own_children(model, result, suggested)
    order = {e.id: n for n, (_, e) in enumerate(model.walk())}
    result.suggestions.sort(key=lambda s: order[s.element])
    result.unmatched.sort(key=lambda s: order[s.element])
    code = [f for f in files if is_code(f) and not skip(f)]
    before = compile_globs([g for globs in owned.values() for g in globs])
    after = compile_globs([g for globs in [*owned.values(), *suggested.values()] for g in globs])
    result.unowned_before = sum(1 for f in code if not before(f))
    result.unowned = sum(1 for f in code if not after(f))
    return result


def _targets(
    model: ArchitectureModel, chosen: list[str], external: Mapping[str, str], owned: Mapping[str, list[str]],
    result: PathSuggestions,
) -> list[Element]:
    targets = []
    for _, element in model.walk():
        if chosen and element.id not in chosen:
            continue
        if element.id in external:
            result.external.append(Skipped(element.id, element.name, external[element.id]))
        elif owned[element.id] and not chosen:
            result.mapped.append(element.id)
        elif element.kind == "softwareSystem" and model.children(element.id) and not chosen:
            continue  # it owns the union of its containers' code
        else:
            targets.append(element)
    return targets


def _parents_own_children(model: ArchitectureModel, result: PathSuggestions, suggested: dict[str, list[str]]) -> None:
    """An element's own paths replace its children's (``effective_paths``), so a parent
    given a folder also gets its children's places outside it; a parent left without a
    match owns their union anyway and is no longer "unmatched"."""
    by_id = {s.element: s for s in result.suggestions}
    for _, element in reversed(list(model.walk())):
        below = [g for child in model.descendants(element.id) for g in suggested.get(child.id, [])]
        if not below:
            continue
        mine = by_id.get(element.id)
        if mine is None:
            if not element.paths:
                result.unmatched = [u for u in result.unmatched if u.element != element.id]
                result.from_children.append(element.id)
            continue
        inside = compile_globs(mine.paths)
        extra = [g for g in dict.fromkeys(below) if not inside(g.removesuffix("/**") + "/x") and g not in mine.paths]
        if extra:
            mine.paths.extend(extra)
            mine.evidence.append(f"also the code of its children: {', '.join(extra)}")
            suggested[element.id] = mine.paths


def _overlaps(place: Place, globs: Sequence[str]) -> bool:
    """Would ``place`` share code with one of these globs (the same, inside, around)?"""
    for glob in globs:
        base = glob.removesuffix("/**")
        if place.path == base or place.path.startswith(base + "/") or base.startswith(place.path + "/"):
            return True
    return False


def _alias_index(aliases: list[Alias]) -> tuple[list[Alias], WordIndex]:
    found = WordIndex()
    for number, alias in enumerate(aliases):
        found.add(number, words(alias.name))
    return aliases, found


def name_forms(element: Element) -> list[tuple[str, tuple[str, ...]]]:
    """The element's name as words, and its identifier when that says something else."""
    forms = [("name", words(element.name))]
    ident = element.id.rsplit(".", 1)[-1]
    if re.fullmatch(r"[\w-]+", ident) and joined(words(ident)) != joined(forms[0][1]):
        forms.append(("identifier", words(ident)))
    return [(label, tokens) for label, tokens in forms if tokens]


def name_score(tokens: tuple[str, ...], own: tuple[str, ...], above: frozenset[str] = frozenset()) -> float:
    """How well a place's name (``own`` words, ``above`` its folders' stems) says
    ``tokens``: the share of the element's words found (generic words weigh little,
    a word found only in a folder above counts half), times how much of the place's
    own name they explain. 0 unless a specific word (or the joined name) matches."""
    if not own or not tokens:
        return 0.0
    if (len(tokens) > 1 or len(own) > 1) and same_joined(tokens, own):
        return 1.0
    total = found = 0.0
    specific = False
    for token in tokens:
        best = max(similarity(token, word) for word in own)
        if best:
            specific = specific or token not in GENERIC
        elif stem(token) in above:
            best = 0.5
        total += weight(token)
        found += weight(token) * best
    if not specific:
        return 0.0
    explained = sum(1 for word in own if word in GENERIC or any(similarity(word, t) for t in tokens))
    return (found / total) * (0.55 + 0.45 * explained / len(own))


def _rank(
    element: Element, index: PlaceIndex, aliases: tuple[list[Alias], WordIndex], manifests: Manifests,
    alive: Mapping[str, int], given: Sequence[str], guessed: Sequence[str],
) -> list[_Scored]:
    """The element's places, best first, with the evidence for each."""
    forms = name_forms(element)
    alias_list, alias_words = aliases
    scored: dict[int, _Scored] = {}
    for label, tokens in forms:
        for number in index.words.matching(tokens):
            place = index.places[number]
            score = name_score(tokens, place.words, place.above)
            if score <= 0:
                continue
            kind = "folder" if place.folder else "file"
            evidence = f"{kind} name {place.path.rsplit('/', 1)[-1]!r} matches the {label} {element.name if label == 'name' else element.id.rsplit('.', 1)[-1]!r}"
            _keep(scored, number, place, score, evidence)
        for number in alias_words.matching(tokens):
            alias = alias_list[number]
            score = name_score(tokens, words(alias.name)) * alias.strength
            target = index.by_path.get(alias.target)
            if score <= 0 or target is None:
                continue
            _keep(scored, target, index.places[target], score, alias.evidence, alias=True)
    within = compile_globs(given) if given else None
    near = compile_globs(guessed) if guessed else None
    store = is_data_store(element)
    languages = _languages(element.technology)
    results = []
    for item in scored.values():
        place = item.place
        if store and item.score < 0.8 or place.glob in given or place.glob in guessed:
            continue  # a part never owns exactly its parent's folder (nor would it hide its own inside it)
        if place.aside:
            item.score *= 0.5
            item.evidence.append("under a test, docs or examples folder")
        if not place.folder and element.kind in ("softwareSystem", "container"):
            item.score *= 0.9
        if place.folder and place.path in manifests.units and element.kind in ("softwareSystem", "container"):
            item.score += 0.05
            item.evidence.append(manifests.units[place.path])
        if languages and place.code_files:
            share = sum(place.languages[e] for e in languages) / place.code_files
            item.score *= 0.7 + 0.3 * share
            if share:
                item.evidence.append(f"technology {element.technology!r}: {share:.0%} of its code files")
        if within is not None and not within(place.path + "/x") and not within(place.path):
            item.score *= 0.5
            item.evidence.append("outside its parent's code")
        elif near is not None and (near(place.path + "/x") or near(place.path)):
            item.score += 0.05
            item.evidence.append("inside the code suggested for its parent")
        results.append(item)
    results = _prune(results)
    results.sort(key=lambda item: (-item.score, item.place.depth, item.place.path))
    _break_ties(results, alive)
    return results


def _keep(scored: dict[int, _Scored], number: int, place: Place, score: float, evidence: str, alias: bool = False) -> None:
    """Record a score for a place; a second kind of evidence for it adds a little."""
    found = scored.get(number)
    if found is None:
        scored[number] = _Scored(place, score, [evidence])
        return
    if evidence in found.evidence:
        return
    low, high = sorted((found.score, score))
    found.score = high + 0.1 * low
    found.evidence.append(evidence)


def _prune(items: list[_Scored]) -> list[_Scored]:
    """The most specific match: a place inside another that scores about as well is
    the same code (``services/orders/orders.py`` in ``services/orders/``)."""
    kept = []
    for item in items:
        covered = any(
            other is not item and other.place.contains(item.place) and other.score >= item.score - 0.05
            for other in items
        )
        if not covered:
            kept.append(item)
    return kept


def _break_ties(results: list[_Scored], alive: Mapping[str, int]) -> None:
    """Two places as good as each other by name: the one history shows alive goes
    first; still tied, both are named and the confidence drops."""
    if len(results) < 2 or results[0].score - results[1].score > _TIE:
        return
    first, second = results[0], results[1]
    a, b = alive.get(first.place.path, 0), alive.get(second.place.path, 0)
    if a != b and alive:
        winner, loser = (first, second) if a > b else (second, first)
        counts = (max(a, b), min(a, b))
        winner.evidence.append(
            f"changed in {counts[0]} recent commits, {loser.place.path} in {counts[1]}"
        )
        winner.score = max(winner.score, loser.score)
        if winner is second:
            results[0], results[1] = second, first
        return
    first.score *= 0.85
    first.evidence.append(f"{second.place.path} matches as well")


def _languages(technology: str) -> frozenset[str]:
    found: set[str] = set()
    for pattern, extensions in _TECHNOLOGIES:
        if re.search(pattern, technology, re.I):
            found |= extensions
    return frozenset(found)


def _unmatched(element: Element, scored: list[_Scored]) -> Skipped:
    if is_data_store(element) and not scored:
        return Skipped(element.id, element.name, "a data store: it owns no code unless a schema or migrations folder is named like it")
    if not scored:
        return Skipped(element.id, element.name, "no folder or file is named like it")
    best = scored[0]
    return Skipped(element.id, element.name, f"best guess {best.place.glob} ({best.score:.2f}) is below {MIN_CONFIDENCE}")

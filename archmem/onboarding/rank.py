"""Ranking the places an element's code could be: names against folder and file names,
aliases from build and deployment files, the technology against the languages there,
the parent's code around it, and history for ties. ``suggest`` assigns the best ones.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from archmem.model.external import is_data_store
from archmem.model.paths import compile_globs
from archmem.model.types import Element
from archmem.onboarding.candidates import Place, PlaceIndex, WordIndex
from archmem.onboarding.manifests import Alias, Manifests
from archmem.onboarding.names import GENERIC, joined, same_joined, similarity, stem, weight, words
from archmem.values import Record

TIE = 0.03
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


_BUILT = re.compile(
    r"kubernetes|k8s|helm|kustomiz|terraform|yaml|html|css|template|protocol\s?buffers?|protobuf|proto|grpc"
    r"|graphql|openapi|sql|docker|ansible|bicep|cloudformation|pulumi|shell|bash|script|wasm|web|\bui\b|\br\b",
    re.I,
)
"""Technologies a repository writes itself without a programming language (manifests,
templates, schemas)."""


_COMMAND = re.compile(r"\bcommand|\btask|\bjob\b|\bjobs\b|\bcron|\bworker", re.I)
COMMAND_BONUS = 0.15
"""Added to a command's alias (a Django management command, a Procfile process) when the
element says it is a task, job or command."""


def runs_as_is(technology: str) -> bool:
    """A technology that names nothing a repository writes ("telegraf", "Extension for
    Firefox"): a product deployed as it comes, whose code is not a file named like it."""
    return bool(technology.strip()) and not languages_of(technology) and not _BUILT.search(technology)


@dataclass(repr=False, eq=False)
class Scored(Record):
    """A candidate place for an element's code, with its score and evidence."""

    place: Place
    score: float
    """May pass 1 while places are ranked (a bonus must still tell two perfect names
    apart); a suggestion's confidence is clipped to 1."""
    evidence: list[str]
    part: bool = False
    """Inside its container and named only with words of the component's name: one of
    possibly several places that together are the component."""


def alias_index(aliases: list[Alias]) -> tuple[list[Alias], WordIndex]:
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


def name_score(
    tokens: tuple[str, ...], own: tuple[str, ...], above: frozenset[str] = frozenset(),
    kinds: frozenset[str] = frozenset(),
) -> float:
    """How well a place's name (``own`` words, ``above`` its folders' stems) says
    ``tokens``: the share of the element's words found (generic words, and ``kinds``:
    the stems of its technology's words such as "canister", weigh little; a word found
    only in a folder above counts half), times how much of the place's own name they
    explain (a generic word there half). 0 unless a specific word (or the joined name)
    matches."""
    if not own or not tokens:
        return 0.0
    if (len(tokens) > 1 or len(own) > 1) and same_joined(tokens, own):
        return 1.0
    total = found = 0.0
    specific = False
    for token in tokens:
        kind = token in GENERIC or stem(token) in kinds
        best = max(similarity(token, word) for word in own)
        if best:
            specific = specific or not kind
        elif stem(token) in above:
            best = 0.5
        share = 0.25 if kind else weight(token)
        total += share
        found += share * best
    if not specific:
        return 0.0
    explained = sum(
        0.5 if word in GENERIC or stem(word) in kinds else 1.0 if any(similarity(word, t) for t in tokens) else 0.0
        for word in own
    )
    return (found / total) * (0.55 + 0.45 * explained / len(own))


def rank_places(
    element: Element, *, technology: str, index: PlaceIndex, aliases: tuple[list[Alias], WordIndex],
    manifests: Manifests, alive: Mapping[str, int], given: Sequence[str], guessed: Sequence[str],
    shared: str = "", others: Sequence[str] = (),
) -> list[Scored]:
    """The element's places, best first, with the evidence for each. ``technology`` is
    its own or its parent's; ``given`` and ``guessed`` are its parent's paths, from the
    model or suggested; ``shared`` names what all its siblings share (the system's
    name); ``others`` the code of the elements beside its parent. Words of the technology
    and of ``shared`` weigh little."""
    forms = name_forms(element)
    kinds = frozenset(stem(w) for w in words(f"{technology} {shared}"))
    tagged = frozenset(stem(w) for w in words(" ".join(element.tags))) - kinds
    if any(stem(t) not in kinds | tagged and t not in GENERIC for _, tokens in forms for t in tokens):
        kinds |= tagged  # "Task" in "Cleanup Task" tagged Task says little; "Database" alone is all it says
    runs_commands = bool(_COMMAND.search(f"{technology} {' '.join(element.tags)}"))
    alias_list, alias_words = aliases
    scored: dict[int, Scored] = {}
    for label, tokens in forms:
        named = element.name if label == "name" else element.id.rsplit(".", 1)[-1]
        for number in index.words.matching(tokens):
            place = index.places[number]
            score = name_score(tokens, place.words, place.above, kinds)
            if not score and element.kind == "component" and _all_named(place.words, forms, kinds):
                score = 0.01  # its words are the technology's ("rpc" of gRPC), yet the whole name: a part, if inside
            if score > 0:
                what = "folder" if place.folder else "file"
                _keep(scored, number, place, score,
                      f"{what} name {place.path.rsplit('/', 1)[-1]!r} matches the {label} {named!r}")
        for number in alias_words.matching(tokens):
            alias = alias_list[number]
            score = name_score(tokens, words(alias.name), kinds=kinds) * alias.strength
            if runs_commands and alias.command:
                score += COMMAND_BONUS  # a task container runs a command: the declared commands come first
            target = index.by_path.get(alias.target)
            if score > 0 and target is not None:
                _keep(scored, target, index.places[target], score, alias.evidence)
    within = compile_globs(given) if given else None
    beside = compile_globs(others) if others else None
    near = compile_globs(guessed) if guessed else None
    store = is_data_store(element)
    languages = languages_of(technology)
    product = runs_as_is(technology) and not store
    results = []
    for item in scored.values():
        place = item.place
        if product and (not place.folder or item.score < 0.9):
            continue  # a product's own folder may hold its configuration; a file named like it is not it
        if (store and item.score < 0.8) or place.glob in given or place.glob in guessed:
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
            item.score *= min(1.0, 0.7 + 0.6 * share)  # mostly the right language: no doubt
            if share:
                item.evidence.append(f"technology {technology!r}: {share:.0%} of its code files")
        if within is not None and not within(place.path + "/x") and not within(place.path):
            item.score *= 0.5
            item.evidence.append("outside its parent's code")
        elif near is not None and (near(place.path + "/x") or near(place.path)):
            item.score += 0.05
            item.evidence.append("inside the code suggested for its parent")
        elif beside is not None and (beside(place.path + "/x") or beside(place.path)):
            item.score *= 0.5  # a component is part of its own container, never of the one beside it
            item.evidence.append("inside the code of another element beside its parent")
        inside = any(match is not None and (match(place.path + "/x") or match(place.path)) for match in (within, near))
        if element.kind == "component" and inside and _all_named(place.words, forms, kinds):
            # inside its container, a place whose whole name is words of the component's
            # name is that part ("rpc.go" for "Backend RPC Clients")
            item.score = max(item.score, PART_NAMED)
            item.part = True
            item.evidence.append(f"its whole name is words of the name {element.name!r}")
        results.append(item)
    results = _prune(results)
    results.sort(key=lambda item: (-item.score, item.place.depth, item.place.path))
    _break_ties(results, alive)
    return results


PART_NAMED = 0.6
"""The score of a place inside a component's container whose whole name is words of the
component's name (above ``MIN_CONFIDENCE``, below a full name)."""


def _all_named(own: tuple[str, ...], forms: list[tuple[str, tuple[str, ...]]], kinds: frozenset[str]) -> bool:
    specific = [w for w in own if w not in GENERIC]
    return bool(specific) and all(
        any(similarity(word, t) for _, tokens in forms for t in tokens) for word in specific)


def _keep(scored: dict[int, Scored], number: int, place: Place, score: float, evidence: str) -> None:
    """Record a score for a place; a second kind of evidence for it adds a little."""
    found = scored.get(number)
    if found is None:
        scored[number] = Scored(place, score, [evidence])
        return
    if evidence in found.evidence:
        return
    low, high = sorted((found.score, score))
    found.score = high + 0.1 * low
    found.evidence.append(evidence)


def _prune(items: list[Scored]) -> list[Scored]:
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


def _break_ties(results: list[Scored], alive: Mapping[str, int]) -> None:
    """Two places as good as each other by name: the one history shows alive goes
    first; still tied, both are named and the confidence drops."""
    if len(results) < 2 or results[0].score - results[1].score > TIE or (results[0].part and results[1].part):
        return  # two parts named by the component are both its own, no coin toss
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
    for item in results:  # the order stays; the confidence says it is a coin toss
        item.score *= 0.85
    first.evidence.append(f"{second.place.path} matches as well")


def languages_of(technology: str) -> frozenset[str]:
    found: set[str] = set()
    for pattern, extensions in _TECHNOLOGIES:
        if re.search(pattern, technology, re.I):
            found |= extensions
    return frozenset(found)

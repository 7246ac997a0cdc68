"""``paths suggest``: for each element that owns no code, where its code probably is,
how sure that is, and the evidence, from what the repository already says.

Signals, strongest first: build and deployment files naming a folder (``manifests``),
the element's own name and identifier against folder and file names (``names``), its
technology against the languages there, and, for ties, which of the places git history
shows alive; then, for what names leave unmatched, what the repository declares for the
element's technology (``declared``). A suggested folder that holds a sibling's code gives
it back with ``!glob``, so siblings never overlap. Elements outside the code
(``archmem.model.external``) get nothing, and are said so. Nothing is written here: ``Workspace.suggest_paths`` records accepted
globs in ``archmem.toml`` (``archmem.onboarding.table``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from archmem.model.external import external_elements, is_data_store
from archmem.model.ownership import is_code
from archmem.model.paths import compile_globs, has_wildcard, is_negated
from archmem.model.types import ArchitectureModel, Element
from archmem.onboarding.candidates import Place, activity, build_index
from archmem.onboarding.declared import Declared, Folders, declared_places
from archmem.onboarding.manifests import Read, read_manifests
from archmem.onboarding.names import same_joined, words
from archmem.onboarding.rank import Scored, alias_index, rank_places
from archmem.values import Record

MIN_CONFIDENCE = 0.55
"""Below this, a best guess is reported as a guess, never proposed (half an element's
name found is not enough: "Notification relay" is not every folder named notifications)."""
STRONG = 0.9
"""A parent's own match at least this good is kept over the folder holding its parts."""
@dataclass(repr=False, eq=False)
class Suggestion(Record):
    """Paths suggested for one element, with the confidence and evidence."""

    element: str
    name: str
    paths: list[str]
    confidence: float
    evidence: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"element": self.element, "name": self.name, "paths": self.paths,
                "confidence": round(self.confidence, 2), "evidence": self.evidence}


@dataclass(repr=False, eq=False)
class Skipped(Record):
    """An element left without a suggestion, and why."""

    element: str
    name: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"element": self.element, "name": self.name, "reason": self.reason}


@dataclass(repr=False, eq=False)
class PathSuggestions(Record):
    """The suggestions for a whole model, and the elements left unmatched."""

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
    folders = Folders([f for f in files if not skip(f)])
    aliases = alias_index(manifests.aliases)
    alive = activity(change_sets)
    result = PathSuggestions()
    owned = {e.id: model.effective_paths(e.id) for e in model.elements}
    own = {e.id: list(e.paths) for e in model.elements}
    taken: dict[str | None, list[tuple[str, str]]] = {}
    for element in model.elements:
        taken.setdefault(element.parent, []).extend((element.id, glob) for glob in element.paths)
    suggested: dict[str, list[str]] = {}
    depth_of = {e.id: d for d, e in model.walk()}
    by_depth: dict[int, list[Element]] = {}
    for element in _targets(model, chosen, external_elements(model), owned, result):
        by_depth.setdefault(depth_of[element.id], []).append(element)
    for depth in sorted(by_depth):
        ranked: dict[str, list[Scored]] = {}
        for element in by_depth[depth]:
            parent = element.parent or ""
            scored = rank_places(
                element, technology=_technology(model, element), index=index, aliases=aliases, manifests=manifests,
                alive=alive, given=own.get(parent, []), guessed=suggested.get(parent, []),
                shared=_shared_words(model, element), others=_beside_parent(model, element, own, suggested),
            )
            if not scored or scored[0].score < MIN_CONFIDENCE:
                result.unmatched.append(_unmatched(element, scored))
            else:
                ranked[element.id] = scored
        _assign(model, ranked, taken, own, suggested, result)
        for element in by_depth[depth]:
            found = declared_places(element, _technology(model, element), manifests, folders)
            if found:
                found.globs = [g for g in found.globs if not _named_for_a_sibling(model, element, g)]
                _add_declared(model, element, found, taken, suggested, result)
    _parents_hold_their_parts(model, result, suggested, taken)
    _collections_by_tag(model, result, suggested)
    _take_back_siblings_code(model, result, own)
    order = {e.id: n for n, (_, e) in enumerate(model.walk())}
    result.suggestions.sort(key=lambda s: order[s.element])
    result.unmatched.sort(key=lambda s: order[s.element])
    code = [f for f in files if is_code(f) and not skip(f)]
    before = [compile_globs(globs) for globs in owned.values() if globs]
    after = before + [compile_globs(globs) for globs in suggested.values() if globs]
    result.unowned_before = sum(1 for f in code if not any(match(f) for match in before))
    result.unowned = sum(1 for f in code if not any(match(f) for match in after))
    return result


def _add_declared(
    model: ArchitectureModel, element: Element, found: Declared, taken: dict[str | None, list[tuple[str, str]]],
    suggested: dict[str, list[str]], result: PathSuggestions,
) -> None:
    """An element with no place by name gets what the repository declares for what it
    is; a database matched by name also gets its migrations."""
    siblings = [glob for owner, glob in taken.get(element.parent, []) if owner != element.id]
    globs = [g for g in found.globs if g not in siblings]
    if not globs:
        return
    mine = next((s for s in result.suggestions if s.element == element.id), None)
    if mine is not None and element.kind == "container" and mine.confidence < STRONG and not is_data_store(element) \
            and all(not g.endswith("/**") for g in mine.paths):
        mine.paths[:] = []  # a container declared by its technology is more than a file half named like it
        mine.evidence.insert(0, found.evidence)
        mine.paths.extend(globs)
    elif mine is not None:
        if not is_data_store(element):
            return
        extra = [g for g in globs if g not in mine.paths]
        mine.paths.extend(extra)
        mine.evidence.append(found.evidence)
    else:
        mine = Suggestion(element.id, element.name, globs, found.confidence, [found.evidence])
        result.suggestions.append(mine)
        result.unmatched = [u for u in result.unmatched if u.element != element.id]
    suggested[element.id] = mine.paths
    taken.setdefault(element.parent, []).extend((element.id, g) for g in globs)


def _collections_by_tag(model: ArchitectureModel, result: PathSuggestions, suggested: dict[str, list[str]]) -> None:
    """An element still without code whose name is a tag others carry ("Periodic Tasks",
    and tasks tagged ``in_periodic_tasks``) is the collection of them: it owns their code."""
    waiting = {u.element for u in result.unmatched}
    for element_id in list(waiting):
        element = model.get(element_id)
        if element is None:
            continue
        name = words(element.name)
        members = [e for e in model.elements if e.id != element_id and e.id in suggested
                   and any(same_joined(name, words(tag)) for tag in e.tags)]
        globs = list(dict.fromkeys(g for m in members for g in suggested[m.id] if not g.startswith("!")))
        if len(name) < 2 or not globs:
            continue
        tag = next(t for t in members[0].tags if same_joined(name, words(t)))
        result.suggestions.append(Suggestion(element_id, element.name, globs, 0.7,
                                             [f"the code of the {len(members)} elements tagged {tag!r}"]))
        result.unmatched = [u for u in result.unmatched if u.element != element_id]
        suggested[element_id] = globs


def _named_for_a_sibling(model: ArchitectureModel, element: Element, glob: str) -> bool:
    """A declared folder named exactly like a sibling is the sibling's (``kubernetes-manifests``
    holds a kustomization, but it is the "Kubernetes Manifests")."""
    name = words(glob.removesuffix("/**").rsplit("/", 1)[-1])
    siblings = [e for e in model.elements if e.parent == element.parent and e.id != element.id]
    return bool(name) and any(same_joined(words(sibling.name), name) for sibling in siblings)


def _take_back_siblings_code(model: ArchitectureModel, result: PathSuggestions, own: Mapping[str, list[str]]) -> None:
    """A suggested folder that holds a sibling's code gives it back (``!glob``), so two
    siblings never own the same file: the Django app without its management command."""
    paths = {**own, **{s.element: s.paths for s in result.suggestions}}
    for suggestion in result.suggestions:
        element = model.get(suggestion.element)
        parent = element.parent if element is not None else None
        folders = [g.removesuffix("/**") for g in suggestion.paths
                   if not is_negated(g) and not has_wildcard(g.removesuffix("/**"))]
        for sibling in model.children(parent) if parent else [e for e in model.elements if e.parent is None]:
            if sibling.id == suggestion.element:
                continue
            for glob in paths.get(sibling.id, []):
                base = glob.removesuffix("/**")
                if is_negated(glob) or any(ch in base for ch in "*?["):
                    continue
                if any(base.startswith(folder + "/") for folder in folders) and f"!{glob}" not in suggestion.paths:
                    suggestion.paths.append(f"!{glob}")
                    suggestion.evidence.append(f"gives {glob} back to {sibling.id}")


def _assign(
    model: ArchitectureModel, ranked: dict[str, list[Scored]], taken: dict[str | None, list[tuple[str, str]]],
    own: Mapping[str, list[str]], suggested: dict[str, list[str]], result: PathSuggestions,
) -> None:
    """Give each element of one level its best place, best scores first, so siblings
    never share code; a place that holds the best places of two or more siblings is an
    umbrella, not one element's code ("OpenChat Canisters" around every canister)."""
    top = {element_id: scored[0].place for element_id, scored in ranked.items()}
    entries = [
        (item.score, -order, element_id, item)
        for element_id, scored in ranked.items() for order, item in enumerate(scored[:5])
    ]
    entries.sort(key=lambda entry: (entry[0], entry[1]), reverse=True)
    umbrellas: dict[str, str] = {}
    for score, _, element_id, item in entries:
        element = model.get(element_id)
        assert element is not None
        if element_id in suggested or score < MIN_CONFIDENCE:
            continue
        held = [other for other, place in top.items()
                if other != element_id and (found := model.get(other)) is not None and found.parent == element.parent
                and item.place.contains(place)]
        if len(held) >= 2:
            umbrellas.setdefault(element_id, f"its best place, {item.place.glob}, holds the code of "
                                             f"{len(held)} sibling elements ({', '.join(held[:3])})")
            continue
        siblings = taken.setdefault(element.parent, [])
        parent = own.get(element.parent or "", []) or suggested.get(element.parent or "", [])
        if _overlaps(item.place, [glob for owner, glob in siblings if owner != element_id]) or item.place.glob in parent:
            continue
        siblings.append((element_id, item.place.glob))
        suggested[element_id] = [item.place.glob]
        result.suggestions.append(Suggestion(element_id, element.name, [item.place.glob], min(1.0, score),
                                             item.evidence))
        if item.part:  # "Page Templates and Static Assets": templates/ and static/
            for other in ranked[element_id]:
                others = [glob for owner, glob in siblings if owner != element_id]
                if other.part and other is not item and not _overlaps(other.place, [*others, *suggested[element_id]]) \
                        and other.place.folder == item.place.folder:
                    siblings.append((element_id, other.place.glob))
                    suggested[element_id].append(other.place.glob)
                    result.suggestions[-1].paths = suggested[element_id]
    for element_id in ranked:
        if element_id not in suggested:
            element = model.get(element_id)
            assert element is not None
            result.unmatched.append(Skipped(element_id, element.name, umbrellas.get(
                element_id, "its best places are owned by a sibling element already")))


def _beside_parent(
    model: ArchitectureModel, element: Element, own: Mapping[str, list[str]], suggested: Mapping[str, list[str]],
) -> list[str]:
    """The code of the elements beside a component's parent (its container's siblings)."""
    parent = model.get(element.parent) if element.parent else None
    if parent is None or element.kind != "component":
        return []
    return [g for e in model.children(parent.parent) if e.id != parent.id
            for g in own.get(e.id) or suggested.get(e.id, []) if not g.startswith("!")]


def _shared_words(model: ArchitectureModel, element: Element) -> str:
    """The names every part of a system shares: the workspace's and the enclosing
    software system's ("OpenChat" in "OpenChat Canisters" says nothing about which)."""
    systems = [a.name for a in model.ancestors(element.id) if a.kind == "softwareSystem"]
    return " ".join([model.name, *systems]) if systems else ""


def _technology(model: ArchitectureModel, element: Element) -> str:
    """An element's technology, else its nearest ancestor's (a component of a Go
    container is Go)."""
    if element.technology:
        return element.technology
    return next((a.technology for a in model.ancestors(element.id) if a.technology), "")


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


def _parents_hold_their_parts(
    model: ArchitectureModel, result: PathSuggestions, suggested: dict[str, list[str]],
    taken: dict[str | None, list[tuple[str, str]]],
) -> None:
    """An element's own paths replace its children's (``effective_paths``). So a parent
    whose own match is weak or holds none of its parts gets the folder that holds them
    all (when that folder is no sibling's); else its own place plus theirs. A parent left
    without any owns their union anyway and is no longer "unmatched"."""
    by_id = {s.element: s for s in result.suggestions}
    for _, element in reversed(list(model.walk())):
        below = list(dict.fromkeys(g for c in model.descendants(element.id) for g in suggested.get(c.id, [])))
        if not below or element.paths:
            continue
        mine = by_id.get(element.id)
        inside = compile_globs(mine.paths if mine else [])  # no globs: matches nothing
        if mine and all(inside(g.removesuffix("/**") + "/x") for g in below):
            continue
        holder = _holder(below)
        others = [glob for owner, glob in taken.get(element.parent, []) if owner != element.id]
        fits = holder and not any(_overlaps_path(holder, g) for g in others) and element.kind != "softwareSystem"
        holds_none = mine is not None and not any(inside(g.removesuffix("/**") + "/x") for g in below)
        if fits and (mine is None or mine.confidence < STRONG or holds_none):
            evidence = f"the folder that holds its parts' code ({len(below)} places)"
            if mine is None:
                mine = by_id[element.id] = Suggestion(element.id, element.name, [], 0.7, [])
                result.suggestions.append(mine)
            mine.paths[:] = [f"{holder}/**"]
            mine.evidence.insert(0, evidence)
            result.unmatched = [u for u in result.unmatched if u.element != element.id]
        elif mine is None:
            result.unmatched = [u for u in result.unmatched if u.element != element.id]
            result.from_children.append(element.id)
            continue
        else:
            extra = [g for g in below if not inside(g.removesuffix("/**") + "/x") and g not in mine.paths]
            mine.paths.extend(extra)
            mine.evidence.append(f"also the code of its children: {', '.join(extra)}")
        suggested[element.id] = mine.paths


def _holder(globs: Sequence[str]) -> str | None:
    """The deepest folder holding every glob's place (None: only the repository root)."""
    folders = [g.removesuffix("/**") if g.endswith("/**") else posixpath.dirname(g) for g in globs]
    common = posixpath.commonpath(folders) if folders else ""
    return common or None


def _overlaps_path(path: str, glob: str) -> bool:
    base = glob.removesuffix("/**")
    return path == base or path.startswith(base + "/") or base.startswith(path + "/")


def _overlaps(place: Place, globs: Sequence[str]) -> bool:
    """Would ``place`` share code with one of these globs (the same, inside, around)?"""
    return any(_overlaps_path(place.path, glob) for glob in globs)


def _unmatched(element: Element, scored: list[Scored]) -> Skipped:
    if is_data_store(element) and not scored:
        return Skipped(element.id, element.name,
                       "a data store: it owns no code unless a schema or migrations folder is named like it")
    if not scored:
        return Skipped(element.id, element.name, "no folder or file is named like it")
    best = scored[0]
    return Skipped(element.id, element.name,
                   f"best guess {best.place.glob} ({min(best.score, 1):.2f}) is below {MIN_CONFIDENCE}")

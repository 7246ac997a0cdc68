"""Resolving a memory's ``[[wikilinks]]`` against the store and the model, and storing
them: a memory title (the current one of its chain), then an element, then a decision.
The grammar itself is ``archmem.memory.links``; this module applies it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol

from archmem.memory import links as linkrules
from archmem.memory.types import Link, Memory
from archmem.model.types import ArchitectureModel
from archmem.store.base import Store


class LinkContext(Protocol):
    """What resolving links needs (``MemoryContext`` has it): the index and the model."""

    @property
    def store(self) -> Store: ...

    @property
    def model(self) -> ArchitectureModel: ...


def current_of(store: Store, memory: Memory) -> Memory:
    """Follow ``superseded_by`` to the head of the chain."""
    seen = {memory.id}
    while memory.superseded_by:
        successor = store.get_memory(memory.superseded_by)
        if successor is None or successor.id in seen:
            break
        seen.add(successor.id)
        memory = successor
    return memory


class _ActiveTitles(Mapping[str, str]):
    """Active memory titles as a mapping, answered by the store one key at a time, each
    key asked once (a link looks its key up twice: ``in``, then the id)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._known: dict[str, str | None] = {}

    def learn(self, keys: Iterable[str]) -> None:
        """Ask the store at once for the keys not asked yet (a chunk of files' link
        targets); a key no active memory has is left to ``_lookup``, one at a time."""
        unknown = [key for key in dict.fromkeys(keys) if key not in self._known]
        if unknown:
            self._known.update(self.store.active_title_ids(unknown))

    def __getitem__(self, key: str) -> str:
        if key not in self._known:
            self._known[key] = self._lookup(key)
        found = self._known[key]
        if found is None:
            raise KeyError(key)
        return found

    def _lookup(self, key: str) -> str | None:
        found = self.store.find_by_title(key, active_only=True)
        if found:
            return found[0].id
        # a title only a superseded memory holds: its chain's current memory answers, as a
        # link written before the supersede was moved to it (so a rebuilt index agrees)
        for older in self.store.find_by_title(key, active_only=False):
            head = current_of(self.store, older)
            if head.status == "active":
                return head.id
        return None

    def __iter__(self) -> Iterator[str]:
        return iter(linkrules.normalize_title(m.title) for m in self.store.list_memories() if m.title)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def memory_titles(store: Store) -> _ActiveTitles:
    """The active memories' titles (``normalize_title`` key → id), each asked of the
    store once: for resolving many links while no memory changes (a sync's links)."""
    return _ActiveTitles(store)


def link_targets(model: ArchitectureModel) -> tuple[dict[str, str], dict[str, str]]:
    """(element keys → id, decision keys → key) for link resolution.

    Identifiers win over names, and workspace-wide decisions over element ones, where
    two would share a key.
    """
    from archmem.model.adrs import decision_aliases

    elements: dict[str, str] = {}
    for element in model.elements:
        elements.update(dict.fromkeys(linkrules.element_keys(element.name, element.name), element.id))
    for element in model.elements:
        elements.update(dict.fromkeys(linkrules.element_keys(element.id, element.id), element.id))
    decisions: dict[str, str] = {}
    for decision in sorted(model.decisions, key=lambda d: d.element is None):
        key = decision_key(decision.id, decision.element)
        decisions.update(dict.fromkeys(linkrules.decision_keys(decision_aliases(decision)), key))
    return elements, decisions


LinkTargets = tuple[dict[str, str], dict[str, str]]
"""``link_targets`` of a model: made once by whoever resolves many links (a sync, an import)."""


def resolve_link_target(
    ctx: LinkContext, target: str, targets: LinkTargets | None = None, titles: Mapping[str, str] | None = None,
) -> tuple[str, str] | None:
    """(kind, id) for a link target: a memory title, then an element, then a decision."""
    elements, decisions = targets or link_targets(ctx.model)
    return linkrules.resolve_link(target, titles=titles if titles is not None else _ActiveTitles(ctx.store),
                                  elements=elements, decisions=decisions)


def decision_key(decision_id: str, element: str | None) -> str:
    return f"{element}/{decision_id}" if element else decision_id


def write_links(
    ctx: LinkContext, memory_id: str, content: str, targets: LinkTargets | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """Store the memory's links, resolved where possible; returns (resolved, pending)."""
    rows = resolved_links(ctx, memory_id, content, targets)
    resolved: list[dict[str, Any]] = []
    pending: list[str] = []
    for link, _key in rows:
        if link.target_id is not None:
            resolved.append({"target": link.target_text, "kind": link.target_kind, "id": link.target_id})
        elif link.target_text not in pending:
            pending.append(link.target_text)
    ctx.store.replace_links(memory_id, rows)
    return resolved, pending


def resolved_links(
    ctx: LinkContext, memory_id: str, content: str, targets: LinkTargets | None = None,
    titles: Mapping[str, str] | None = None,
) -> list[tuple[Link, str]]:
    """The memory's links, each resolved where possible, with its normalized target key
    (what ``Store.replace_links`` keeps; a sync stores a chunk of memories' at once)."""
    return _resolved(ctx, memory_id, linkrules.parse_links(content), targets, titles)


def resolved_links_of(
    ctx: LinkContext, contents: Mapping[str, str], targets: LinkTargets, titles: _ActiveTitles,
) -> dict[str, list[tuple[Link, str]]]:
    """``resolved_links`` of many memories ({id: content}), their link targets' titles
    asked of the store in one query first, not one a title."""
    parsed = {memory_id: linkrules.parse_links(content) for memory_id, content in contents.items()}
    titles.learn(linkrules.normalize_title(link.target) for links in parsed.values() for link in links)
    return {memory_id: _resolved(ctx, memory_id, links, targets, titles) for memory_id, links in parsed.items()}


def _resolved(
    ctx: LinkContext, memory_id: str, parsed_links: list[linkrules.WikiLink], targets: LinkTargets | None,
    titles: Mapping[str, str] | None,
) -> list[tuple[Link, str]]:
    rows: list[tuple[Link, str]] = []
    if parsed_links and targets is None:
        targets = link_targets(ctx.model)
    for parsed in parsed_links:
        target = resolve_link_target(ctx, parsed.target, targets, titles)
        link = Link(
            source_id=memory_id,
            target_text=parsed.target,
            shown=parsed.shown,
            target_kind=target[0] if target else None,  # type: ignore[arg-type]  # resolve_link: memory, element or decision
            target_id=target[1] if target else None,
        )
        rows.append((link, linkrules.normalize_title(parsed.target)))
    return rows

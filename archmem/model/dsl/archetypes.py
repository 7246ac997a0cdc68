"""Structurizr archetypes: named (or default) templates for elements and relationships.

``application = container { tag "Application" }`` makes ``application`` usable where
``container`` is; an unnamed ``softwareSystem { … }`` or ``-> { … }`` sets defaults for
every software system or relationship; ``--https->`` uses the relationship archetype
``https``. An archetype extends the one it is written from (its metadata, description,
technology and tags, as Structurizr copies them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from archmem.model.dsl.builder import Entity, Rel, add_tags
from archmem.values import Record

ELEMENT_TYPES = (
    "group",
    "element",
    "person",
    "softwareSystem",
    "container",
    "component",
    "deploymentNode",
    "infrastructureNode",
)
RELATIONSHIP = "->"
KEYWORDS = {t.lower(): t for t in ELEMENT_TYPES}


@dataclass(slots=True, repr=False, eq=False)
class Archetype(Record):
    """What an archetype gives the elements or relationships made from it."""

    type: str
    name: str
    metadata: str = ""
    description: str = ""
    technology: str = ""
    tags: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    perspectives: dict[str, str] = field(default_factory=dict)

    def extend(self, parent: Archetype) -> None:
        self.metadata = parent.metadata
        self.description = parent.description
        self.technology = parent.technology
        add_tags(self.tags, parent.tags)

    def apply(self, target: Entity | Rel) -> None:
        """Defaults for a new element or relationship (the statement may override them)."""
        target.description = self.description
        if isinstance(target, Entity) and target.kind == "element":
            target.technology = self.metadata
        else:
            target.technology = self.technology
        add_tags(target.tags, self.tags)
        target.properties.update(self.properties)
        target.perspectives.update(self.perspectives)


def relationship_archetype_name(token: str) -> str | None:
    """``->`` → ``->``; ``--https->`` → ``https``; anything else → ``None``."""
    if token == RELATIONSHIP:
        return RELATIONSHIP
    if token.startswith("--") and token.endswith("->") and len(token) > 4:
        return token[2:-2].lower()
    return None


class Archetypes:
    """The archetypes defined so far, by type and lower-case name."""

    def __init__(self) -> None:
        self.by_type: dict[str, dict[str, Archetype]] = {t: {} for t in (*ELEMENT_TYPES, RELATIONSHIP)}
        self._empty: dict[str, Archetype] = {}
        """One shared, never-changed archetype per type for "no archetype"."""

    def is_type(self, token: str, type_: str) -> bool:
        """Is ``token`` the keyword of ``type_`` or the name of one of its archetypes?"""
        low = token.lower()
        return low == type_.lower() or low in self.by_type[type_]

    def element_type(self, token: str, allowed: tuple[str, ...]) -> str | None:
        """Which of the ``allowed`` element types ``token`` stands for (keyword first)."""
        low = token.lower()
        for type_ in allowed:
            if low == type_.lower():
                return type_
        for type_ in allowed:
            if low in self.by_type[type_]:
                return type_
        return None

    def is_relationship(self, token: str) -> bool:
        name = relationship_archetype_name(token)
        return name == RELATIONSHIP or (name is not None and name in self.by_type[RELATIONSHIP])

    def get(self, type_: str, token: str) -> Archetype:
        """The archetype ``token`` names (the type's default for the bare keyword)."""
        name = (relationship_archetype_name(token) or token) if type_ == RELATIONSHIP else token.lower()
        found = self.by_type[type_].get(name)
        if found is None:
            found = self._empty.get(type_)
            if found is None:
                found = self._empty[type_] = Archetype(type_, type_)
        return found

    def define(self, type_: str, name: str | None, base: str) -> Archetype:
        """A new archetype named ``name`` (the type's default when unnamed) from ``base``."""
        key = name.lower() if name else (RELATIONSHIP if type_ == RELATIONSHIP else type_.lower())
        archetype = Archetype(type_, key)
        archetype.extend(self.get(type_, base))
        self.by_type[type_][key] = archetype
        return archetype

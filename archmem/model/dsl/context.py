"""The parser's contexts: one per open ``{ … }`` block, saying what the block is about.

Kept in their own module so the statement handlers (model, deployment, views,
directives, expressions) can share them without importing the parser.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from archmem.model.dsl.archetypes import Archetype
from archmem.model.dsl.builder import Entity, Rel
from archmem.values import Record

ROOT = "root"
WORKSPACE = "workspace"
MODEL = "model"
ELEMENT = "element"
"""An element or deployment element block (``entity``), maybe inside one of its groups."""
ENV = "env"
RELS = "rels"
ELEMENTS = "elements"
PROPS = "properties"
PERSP = "perspectives"
ARCHETYPES = "archetypes"
ARCHETYPE = "archetype"
NOREL = "norel"
VIEWS = "views"
VIEW = "view"
SKIP = "skip"
"""A block archmem reads past (configuration, styles, the inside of views)."""


@dataclass(slots=True, repr=False, eq=False)
class Ctx(Record):
    """One open ``{ … }`` block and what it is about."""

    kind: str
    entity: Entity | None = None
    group: Entity | None = None
    items: list[Any] = field(default_factory=list)
    """The elements of ``!elements`` (ELEMENTS) or the relationships of a block (RELS)."""
    targets: list[dict[str, str]] = field(default_factory=list)
    """Where ``properties``/``perspectives`` entries go."""
    archetype: Archetype | None = None
    env: Entity | None = None
    outer: Ctx | None = None
    """For ``!elements``: the block it was written in (for relative look-ups)."""
    linked: Rel | None = None
    """For ``-/>``: the relationship being replaced."""
    defines: Entity | Rel | None = None
    """What this block defines: its closing ``}`` sets that one's ``end_line``."""
    file: str = ""
    line: int = 0
    image: bool = False

    def describe(self) -> str:
        """How to name this block in a message: ``softwareSystem "Shop"``, ``model``."""
        if self.entity is not None:
            return f'{self.entity.kind} "{self.entity.name}"'
        if self.env is not None:
            return f'deploymentEnvironment "{self.env.name}"'
        return {SKIP: "views/configuration", VIEW: "view", RELS: "relationship", NOREL: "-/>"}.get(self.kind, self.kind)


@dataclass(slots=True, repr=False, eq=False)
class Session(Record):
    """What one top-level file has seen (Structurizr allows one workspace/model/views each)."""

    seen: set[str] = field(default_factory=set)

"""What a LikeC4 file declares, before names are resolved: element kinds, elements with
their FQNs, ``extend`` blocks, relationships with the reference text as written."""

from __future__ import annotations

from dataclasses import dataclass, field

from archmem.model.types import Location
from archmem.values import Record

STRING_PROPERTIES = frozenset({"title", "description", "summary", "technology", "notation", "notes"})
"""Properties whose value is one string."""
OTHER_PROPERTIES = frozenset({"link", "icon", "style", "metadata", "navigateTo"})
"""Properties with a URI, an icon, a block or a view name."""
PROPERTY_WORDS = STRING_PROPERTIES | OTHER_PROPERTIES


@dataclass(slots=True, repr=False, eq=False)
class KindSpec(Record):
    """An ``element`` kind of the ``specification``: what the kind mapping reads."""

    name: str
    notation: str = ""
    technology: str = ""
    shape: str = ""


@dataclass(slots=True, repr=False, eq=False)
class ElementDecl(Record):
    """An element (or an ``extend`` of one, ``extend=True``) with everything it says."""

    fqn: str
    name: str
    kind: str
    location: Location
    title: str | None = None
    summary: str = ""
    description: str = ""
    technology: str = ""
    notation: str = ""
    tags: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    metadata: dict[str, list[str]] = field(default_factory=dict)
    extend: bool = False
    display: str = ""
    """The file as the user knows it (relative to the repository), for warnings."""
    end_line: int | None = None
    """The line of the closing brace of its block, if it has one."""


@dataclass(slots=True, repr=False, eq=False)
class RelationDecl(Record):
    """A relationship as written: references resolve later against every file's elements,
    from ``scope`` (the element it was written in, ``None`` at the model's top)."""

    scope: str | None
    source: str | None
    target: str
    location: Location
    kind: str = ""
    title: str = ""
    technology: str = ""
    description: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, list[str]] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)
    display: str = ""


@dataclass(slots=True, repr=False, eq=False)
class DeploymentDecl(Record):
    """A deployment node or an ``instanceOf`` (``instance_of`` the element reference)."""

    id: str
    name: str
    kind: str
    environment: str
    location: Location
    parent: str | None = None
    title: str | None = None
    technology: str = ""
    description: str = ""
    tags: list[str] = field(default_factory=list)
    instance_of: str | None = None
    display: str = ""


@dataclass(slots=True, repr=False, eq=False)
class Declarations(Record):
    """Everything the files of one workspace declare, in file order."""

    kinds: dict[str, KindSpec] = field(default_factory=dict)
    relationship_kinds: set[str] = field(default_factory=set)
    tags: set[str] = field(default_factory=set)
    deployment_kinds: set[str] = field(default_factory=set)
    elements: list[ElementDecl] = field(default_factory=list)
    relations: list[RelationDecl] = field(default_factory=list)
    deployment: list[DeploymentDecl] = field(default_factory=list)
    views: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

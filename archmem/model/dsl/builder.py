"""The model being built while parsing: entities, identifiers, relationships.

Kept apart from the statement-by-statement parser because these are the rules of the
*model*, whichever statement triggers them: how identifiers are registered and looked
up (flat or hierarchical, case-insensitive, as Structurizr does), canonical names,
duplicate names, and when a relationship "already exists" (Structurizr also counts the
implied relationships it creates between parents, so archmem tracks them too, without
returning them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from archmem.errors import ModelSyntaxError, SourceLocation
from archmem.model.types import ArchitectureModel, Decision, DeploymentNode, Element, Location, Relationship

STATIC_KINDS = frozenset({"person", "softwareSystem", "container", "component", "element"})
DEPLOYMENT_KINDS = frozenset({"deploymentNode", "infrastructureNode", "softwareSystemInstance", "containerInstance"})
LABELS = {
    "person": "person",
    "softwareSystem": "software system",
    "container": "container",
    "component": "component",
    "element": "element",
    "deploymentNode": "deployment node",
    "infrastructureNode": "infrastructure node",
    "softwareSystemInstance": "software system instance",
    "containerInstance": "container instance",
    "deploymentEnvironment": "deployment environment",
    "group": "group",
}
_SCHEMES = {
    "person": "Person",
    "softwareSystem": "SoftwareSystem",
    "container": "Container",
    "component": "Component",
    "element": "CustomElement",
    "deploymentNode": "DeploymentNode",
    "infrastructureNode": "InfrastructureNode",
    "softwareSystemInstance": "SoftwareSystemInstance",
    "containerInstance": "ContainerInstance",
    "deploymentEnvironment": "DeploymentEnvironment",
    "group": "Group",
}


@dataclass(eq=False, slots=True)
class Entity:
    """Anything an identifier can name: an element, a deployment element, an environment
    or a group. ``key`` is the lower-case registered identifier used for look-ups;
    ``id`` is what the model returns (the identifier as written, or the canonical name)."""

    kind: str
    name: str
    parent: Entity | None = None
    env: Entity | None = None
    key: str = ""
    id: str = ""
    canonical: str = ""
    description: str = ""
    technology: str = ""
    tags: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    perspectives: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    group: str | None = None
    instances: str | None = None
    instance_of: Entity | None = None
    number: int = 0
    outer: Entity | None = None
    """For a group: the group it is nested in."""
    members: list[Entity] = field(default_factory=list)
    """For a group: its elements and nested groups, in order (``group_members``)."""
    lineage: tuple[Entity, ...] = ()
    file: str = ""
    line: int = 0
    column: int = 1
    end_line: int = 0


@dataclass(eq=False, slots=True)
class Rel:
    """A relationship; ``implied`` ones are kept only for Structurizr's duplicate rule."""

    source: Entity
    destination: Entity
    description: str = ""
    technology: str = ""
    tags: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    perspectives: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    id: str | None = None
    implied: bool = False
    file: str = ""
    line: int = 0
    column: int = 1
    end_line: int = 0


def split_tags(text: str) -> list[str]:
    """``"A, B,C"`` → ``["A", "B", "C"]``."""
    return [part.strip() for part in text.split(",") if part.strip()]


def add_tags(target: list[str], tags: list[str]) -> None:
    for tag in tags:
        if tag not in target:
            target.append(tag)


class Builder:
    """The growing model and its indexes; the parser asks it to create and find things."""

    def __init__(self) -> None:
        self.hierarchical = False
        self.implied = "unless-any"
        """Structurizr's implied-relationship strategy: ``unless-any``, ``unless-same``, ``none``."""
        self.name = ""
        self.description = ""
        self.workspace_properties: dict[str, str] = {}
        self.model_properties: dict[str, str] = {}
        self.entities: list[Entity] = []
        self.deployment: list[Entity] = []
        self.environments: dict[str, Entity] = {}
        self.relationships: list[Rel] = []
        self.decisions: list[Decision] = []
        self.views: list[str] = []
        self.warnings: list[str] = []
        self.by_key: dict[str, Entity] = {}
        self.rel_by_key: dict[str, Rel] = {}
        self.by_canonical: dict[str, Entity] = {}
        self.by_canonical_lower: dict[str, Entity] = {}
        self.deployment_groups: dict[tuple[str, str], str] = {}
        self._pairs: set[tuple[Entity, Entity]] = set()
        """(source, destination) of every relationship, explicit or implied."""
        self._triples: dict[tuple[Entity, Entity, str], Rel | None] = {}
        """(source, destination, description) → the explicit relationship (None: implied)."""
        self._explicit: dict[tuple[Entity, Entity], list[Rel]] = {}
        self._instance_counts: dict[tuple[int, int], int] = {}

    # ---- naming and identifiers -------------------------------------------------

    def canonical_name(self, entity: Entity) -> str:
        """Structurizr's canonical name, e.g. ``Container://System.Web`` or
        ``DeploymentNode://Live/AWS/EC2``."""
        scheme = _SCHEMES[entity.kind]
        if entity.kind in ("container", "component"):
            chain: list[str] = []
            node: Entity | None = entity
            while node is not None:
                chain.append(node.name)
                node = node.parent
            return f"{scheme}://" + ".".join(reversed(chain))
        if entity.kind in DEPLOYMENT_KINDS:
            chain = []
            node = entity.parent
            while node is not None:
                chain.append(node.name)
                node = node.parent
            path = "/".join([entity.env.name if entity.env else "Default", *reversed(chain)])
            if entity.instance_of is not None:
                target = entity.instance_of
                label = target.name if target.parent is None else f"{target.parent.name}.{target.name}"
                return f"{scheme}://{path}/{label}[{entity.number}]"
            return f"{scheme}://{path}/{entity.name}"
        return f"{scheme}://{entity.name}"

    def add(self, entity: Entity, identifier: str | None, where: SourceLocation) -> Entity:
        """Name, register and store a new entity (errors on duplicate names/identifiers)."""
        entity.canonical = self.canonical_name(entity)
        if entity.kind not in ("group", "deploymentEnvironment"):
            if entity.canonical in self.by_canonical:
                raise ModelSyntaxError(
                    f'A {LABELS[entity.kind]} named "{entity.name}" already exists'
                    + (f" in {entity.parent.canonical}" if entity.parent else ""),
                    location=where,
                )
            self.by_canonical[entity.canonical] = entity
            self.by_canonical_lower.setdefault(entity.canonical.lower(), entity)
        self.register(entity, identifier, where)
        if entity.kind in STATIC_KINDS:
            self.entities.append(entity)
        elif entity.kind in DEPLOYMENT_KINDS:
            self.deployment.append(entity)
        return entity

    def register(self, entity: Entity, identifier: str | None, where: SourceLocation) -> None:
        """Give the entity its key and id; hierarchical scope prefixes the parent's."""
        anchor = entity.parent
        if anchor is None and entity.kind == "deploymentNode":
            anchor = entity.env
        if not identifier:
            entity.id = entity.canonical
            entity.key = entity.canonical.lower()
            if self.hierarchical and anchor is not None:
                entity.key = f"{anchor.key}.{entity.key}"
            return
        if self.hierarchical and anchor is not None:
            entity.id = f"{anchor.id}.{identifier}"
            entity.key = f"{anchor.key}.{identifier.lower()}"
        else:
            entity.id = identifier
            entity.key = identifier.lower()
        existing = self.by_key.get(entity.key)
        if (existing is not None and existing is not entity) or entity.key in self.rel_by_key:
            raise ModelSyntaxError(f'The identifier "{entity.key}" is already in use', location=where)
        self.by_key[entity.key] = entity

    def register_relationship(self, rel: Rel, identifier: str, where: SourceLocation) -> None:
        key = identifier.lower()
        if key in self.by_key or (key in self.rel_by_key and self.rel_by_key[key] is not rel):
            raise ModelSyntaxError(f'The identifier "{key}" is already in use', location=where)
        self.rel_by_key[key] = rel
        rel.id = identifier

    def find(
        self,
        identifier: str,
        prefixes: list[str],
        kinds: frozenset[str] | set[str] | None = None,
        fallback: str | None = None,
    ) -> Entity | None:
        """Structurizr's look-up: in hierarchical scope, relative to each enclosing
        element (innermost first), then top-level; ``fallback`` is tried last."""
        low = identifier.lower()
        if self.hierarchical:
            for prefix in prefixes:
                found = self.by_key.get(f"{prefix}.{low}")
                if found is not None and (kinds is None or found.kind in kinds):
                    return found
        found = self.by_key.get(low)
        if found is not None and (kinds is None or found.kind in kinds):
            return found
        if fallback:
            found = self.by_key.get(f"{fallback}.{low}")
            if found is not None and (kinds is None or found.kind in kinds):
                return found
        return None

    def find_canonical(self, name: str) -> Entity | None:
        return self.by_canonical.get(name) or self.by_canonical_lower.get(name.lower())

    def next_instance_number(self, node: Entity, target: Entity) -> int:
        key = (id(node), id(target))
        self._instance_counts[key] = self._instance_counts.get(key, 0) + 1
        return self._instance_counts[key]

    # ---- relationships ----------------------------------------------------------

    def relate(self, source: Entity, destination: Entity, description: str, file: str, line: int, column: int) -> Rel:
        """Add an explicit relationship (and remember Structurizr's implied ones)."""
        if (source, destination, description) in self._triples:
            raise ModelSyntaxError(
                f'A relationship between "{source.canonical}" and "{destination.canonical}" already exists',
                location=SourceLocation(file, line, column),
                hint="give it another description, or remove one of the two (Structurizr also "
                "counts the implied relationships it creates between parents)",
            )
        rel = Rel(source, destination, description, file=file, line=line, column=column)
        self.store(rel)
        if self.implied != "none" and source.kind in STATIC_KINDS and destination.kind in STATIC_KINDS:
            self._imply(rel)
        return rel

    def store(self, rel: Rel) -> None:
        """Keep a relationship as given (no duplicate check, no implied ones)."""
        self.relationships.append(rel)
        pair = (rel.source, rel.destination)
        self._pairs.add(pair)
        self._triples.setdefault((*pair, rel.description), rel)
        self._explicit.setdefault(pair, []).append(rel)

    def _imply(self, rel: Rel) -> None:
        """Structurizr's implied relationships between the ancestors of both ends, kept
        as (source, destination, description) only: nothing is returned for them."""
        sources, destinations = lineage(rel.source), lineage(rel.destination)
        pairs, triples = self._pairs, self._triples
        description = rel.description
        same_only = self.implied == "unless-same"
        for source in sources:
            if source in destinations:
                continue  # the source is the destination's ancestor (or the destination)
            for destination in destinations:
                if destination in sources:
                    continue
                pair = (source, destination)
                if same_only:
                    triples.setdefault((source, destination, description), None)
                    pairs.add(pair)
                elif pair not in pairs:
                    pairs.add(pair)
                    triples[(source, destination, description)] = None

    def all_relationships(self) -> list[Rel]:
        """Explicit and implied relationships, as Structurizr's model holds them."""
        implied = [
            Rel(s, d, description, implied=True) for (s, d, description), rel in self._triples.items() if rel is None
        ]
        return [*self.relationships, *implied]

    def relationships_between(self, source: Entity, destination: Entity) -> list[Rel]:
        """What links the two (explicit ones first), for ``-/>``."""
        found = list(self._explicit.get((source, destination), []))
        if (source, destination) in self._pairs:
            found += [
                Rel(s, d, description, implied=True)
                for (s, d, description), rel in self._triples.items()
                if rel is None and s is source and d is destination
            ]
        return found

    # ---- the result -------------------------------------------------------------

    def to_model(self, *, source: str, files: list[str], fmt: str = "structurizr-dsl") -> ArchitectureModel:
        """The finished ``ArchitectureModel`` (implied relationships left out)."""
        elements = [
            Element(
                id=e.id,
                name=e.name,
                kind=e.kind,
                description=e.description,
                technology=e.technology,
                tags=list(e.tags),
                parent=e.parent.id if e.parent is not None else None,
                url=e.url,
                properties=dict(e.properties),
                perspectives=dict(e.perspectives),
                group=e.group,
                canonical_name=e.canonical,
                location=_location(e.file, e.line, e.column, e.end_line),
            )
            for e in self.entities
        ]
        relationships = [
            Relationship(
                source=r.source.id,
                destination=r.destination.id,
                description=r.description,
                technology=r.technology,
                tags=list(r.tags),
                properties=dict(r.properties),
                url=r.url,
                id=r.id,
                location=_location(r.file, r.line, r.column, r.end_line),
            )
            for r in self.relationships
        ]
        deployment = [
            DeploymentNode(
                id=d.id,
                name=d.name,
                kind=d.kind,
                environment=d.env.name if d.env is not None else "",
                parent=d.parent.id if d.parent is not None else None,
                description=d.description,
                technology=d.technology,
                tags=list(d.tags),
                properties=dict(d.properties),
                instances=_instances(d.instances),
                instance_of=d.instance_of.id if d.instance_of is not None else None,
                location=_location(d.file, d.line, d.column, d.end_line),
            )
            for d in self.deployment
        ]
        return ArchitectureModel(
            name=self.name,
            description=self.description,
            source=source,
            format=fmt,
            files=list(files),
            elements=elements,
            relationships=relationships,
            decisions=list(self.decisions),
            deployment=deployment,
            properties=dict(self.workspace_properties),
            views=list(self.views),
            warnings=list(self.warnings),
        )


def may_relate(source: Entity, destination: Entity) -> bool:
    """Structurizr's rule for which elements a relationship may connect."""
    s, d = source.kind, destination.kind
    if s == "element" or d == "element":
        return True
    if s in STATIC_KINDS and d in STATIC_KINDS:
        return True
    if s == "deploymentNode":
        return d in ("deploymentNode", "infrastructureNode")
    if s == "infrastructureNode":
        return d in DEPLOYMENT_KINDS
    if s in ("softwareSystemInstance", "containerInstance"):
        return d == "infrastructureNode"
    return False


def group_path(group: Entity) -> str:
    """``Outer/Inner``: a group's name after those of the groups around it.

    Worked out when an element is placed in the group and kept on that group only:
    keeping it on every group cost memory in the square of the nesting depth.
    """
    if group.group is None:
        names: list[str] = []
        node: Entity | None = group
        while node is not None and node.group is None:
            names.append(node.name)
            node = node.outer
        if node is not None:
            names.append(node.group)  # a group around it already knows its path
        group.group = "/".join(reversed(names))
    return group.group


def group_members(group: Entity) -> list[Entity]:
    """The elements of a group and of the groups nested in it, in the order written
    (a loop, not recursion: groups may nest as deep as the nesting limit)."""
    found: list[Entity] = []
    pending = [iter(group.members)]
    while pending:
        for member in pending[-1]:
            if member.kind == "group":
                pending.append(iter(member.members))
                break
            found.append(member)
        else:
            pending.pop()
    return found


def lineage(entity: Entity) -> tuple[Entity, ...]:
    """The entity and its ancestors, innermost first (computed once per entity)."""
    if entity.lineage:
        return entity.lineage
    chain = [entity]
    node = entity.parent
    while node is not None:
        chain.append(node)
        node = node.parent
    entity.lineage = tuple(chain)
    return entity.lineage


def _location(file: str, line: int, column: int, end_line: int) -> Location | None:
    if not file:
        return None
    return Location(file=file, line=line, column=column, end_line=max(end_line, line))


def _instances(value: str | None) -> int | str:
    if value is None or value == "":
        return 1
    return int(value) if value.isdigit() else value

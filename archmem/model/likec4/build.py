"""From a workspace's ``Declarations`` to an ``ArchitectureModel``: ``extend`` merged,
references resolved the way LikeC4 scopes them, kinds mapped to C4 levels.

A reference's first name is looked for as a child of the element it is written in, then
of each element around it, then among the top-level elements, then as the one element
so named in the same file, then anywhere; each later name is a child, else the one descendant so named.
A reference that names nothing, or more than one element, is a warning and the
relationship is left out: never a guess.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from archmem.model.likec4.kinds import c4_level
from archmem.model.likec4.syntax import Declarations, DeploymentDecl, ElementDecl, RelationDecl
from archmem.model.paths import PATHS_PROPERTY
from archmem.model.types import ArchitectureModel, DeploymentNode, Element, Relationship

PATHS_METADATA = ("archmem_paths", "archmem.paths")
"""Metadata keys whose values are the element's code globs."""
KIND_PROPERTY = "likec4.kind"
"""The element's own LikeC4 kind, kept beside its C4 level."""


class Resolver:
    """Element references by LikeC4's scoping (see the module docstring)."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.children: dict[str, dict[str, str]] = {}
        self.by_name: dict[str, list[str]] = {}
        self.in_file: dict[tuple[str, str], list[str]] = {}
        for fqn, file in files.items():
            parent, _, name = fqn.rpartition(".")
            self.children.setdefault(parent, {})[name] = fqn
            self.by_name.setdefault(name, []).append(fqn)
            self.in_file.setdefault((file, name), []).append(fqn)

    def resolve(self, ref: str, scope: str | None, file: str = "") -> str | None:
        """The FQN ``ref`` names when written inside ``scope`` in ``file``, else ``None``."""
        first, *rest = ref.split(".")
        found = self._first(first, scope, file)
        for name in rest:
            if found is None:
                return None
            found = self.children.get(found, {}).get(name) or self._descendant(found, name)
        return found

    def _first(self, name: str, scope: str | None, file: str) -> str | None:
        current = scope
        while current:
            child = self.children.get(current, {}).get(name)
            if child:
                return child
            current = current.rpartition(".")[0]
        top = self.children.get("", {}).get(name)
        if top:
            return top
        local = self.in_file.get((file, name), [])
        if len(local) == 1:
            return local[0]
        anywhere = self.by_name.get(name, [])
        return anywhere[0] if len(anywhere) == 1 else None

    def _descendant(self, parent: str, name: str) -> str | None:
        found = [fqn for fqn in self.by_name.get(name, []) if fqn.startswith(parent + ".")]
        return found[0] if len(found) == 1 else None


def build_model(
    decls: Declarations,
    *,
    name: str,
    source: str,
    files: list[str],
    kinds: Mapping[str, str] | None = None,
) -> ArchitectureModel:
    """The model the declarations draw; ``kinds`` is the configured kind → level mapping."""
    warnings = list(decls.warnings)
    merged = _merge(decls, warnings)
    levels: dict[str, str] = {}
    elements: list[Element] = []
    for decl in merged.values():
        parent = decl.fqn.rpartition(".")[0] or None
        level = c4_level(decl.kind, decls.kinds.get(decl.kind), levels.get(parent) if parent else None, kinds)
        levels[decl.fqn] = level
        elements.append(_element(decl, parent, level, decls))
    resolver = Resolver({fqn: decl.location.file for fqn, decl in merged.items()})
    relationships = [r for r in (_relationship(d, resolver, warnings) for d in decls.relations) if r is not None]
    deployment = _deployment(decls, resolver, warnings)
    return ArchitectureModel(
        name=name, source=source, format="likec4", files=files, elements=elements, relationships=relationships,
        deployment=deployment, views=list(decls.views), warnings=warnings,
    )


def _merge(decls: Declarations, warnings: list[str]) -> dict[str, ElementDecl]:
    """Elements by FQN, parents before children, each ``extend`` folded into its element."""
    merged: dict[str, ElementDecl] = {}
    for decl in decls.elements:
        if decl.extend:
            continue
        if decl.fqn in merged:
            warnings.append(f"{_where(decl)}: element {decl.fqn!r} is defined twice; the first is kept")
            continue
        parent = decl.fqn.rpartition(".")[0]
        if parent and parent not in merged and not any(e.extend and e.fqn == parent for e in decls.elements):
            warnings.append(f"{_where(decl)}: element {decl.fqn!r} is inside {parent!r}, which is not defined")
        merged[decl.fqn] = decl
    for decl in decls.elements:
        if not decl.extend:
            continue
        base = merged.get(decl.fqn)
        if base is None:
            warnings.append(f"{_where(decl)}: extend {decl.fqn!r}: no such element; what it holds is left out")
            continue
        base.tags.extend(t for t in decl.tags if t not in base.tags)
        base.links.extend(decl.links)
        for key, values in decl.metadata.items():
            base.metadata.setdefault(key, []).extend(values)
    orphans = [fqn for fqn in merged if "." in fqn and fqn.rpartition(".")[0] not in merged]
    for fqn in orphans:
        merged.pop(fqn)
        for child in [f for f in merged if f.startswith(fqn + ".")]:
            merged.pop(child)
    ordered = sorted(merged, key=lambda fqn: fqn.count("."))
    return {fqn: merged[fqn] for fqn in ordered}


def _element(decl: ElementDecl, parent: str | None, level: str, decls: Declarations) -> Element:
    spec = decls.kinds.get(decl.kind)
    properties = {KIND_PROPERTY: decl.kind}
    for key, values in decl.metadata.items():
        unique = list(dict.fromkeys(values))
        if key in PATHS_METADATA:
            properties[PATHS_PROPERTY] = ", ".join(unique)
        else:
            properties[key] = ", ".join(unique)
    return Element(
        id=decl.fqn,
        name=decl.title if decl.title is not None else decl.name,
        kind=level,
        description=decl.description or decl.summary,
        technology=decl.technology or (spec.technology if spec else ""),
        tags=list(dict.fromkeys(decl.tags)),
        parent=parent,
        url=next((link for link in decl.links if "://" in link), None),
        properties=properties,
        canonical_name=decl.fqn,
        location=dataclasses.replace(decl.location, end_line=decl.end_line or decl.location.line),
    )


def _relationship(decl: RelationDecl, resolver: Resolver, warnings: list[str]) -> Relationship | None:
    file = decl.location.file
    source = resolver.resolve(decl.source, decl.scope, file) if decl.source else decl.scope
    target = resolver.resolve(decl.target, decl.scope, file)
    for ref, found in ((decl.source, source), (decl.target, target)):
        if found is None:
            warnings.append(f"{_where(decl)}: {ref!r} names no element (or several); the relationship is left out")
            return None
    assert source is not None and target is not None
    properties = {key: ", ".join(dict.fromkeys(values)) for key, values in decl.metadata.items()}
    if decl.kind:
        properties[KIND_PROPERTY] = decl.kind
    if decl.description:
        properties.setdefault("description", decl.description)  # the label is the title alone, as LikeC4's
    return Relationship(
        source=source, destination=target, description=decl.title, technology=decl.technology,
        tags=list(dict.fromkeys(decl.tags)), properties=properties,
        url=next((link for link in decl.links if "://" in link), None), location=decl.location,
    )


def _deployment(decls: Declarations, resolver: Resolver, warnings: list[str]) -> list[DeploymentNode]:
    nodes: list[DeploymentNode] = []
    for decl in decls.deployment:
        instance_of = resolver.resolve(decl.instance_of, None, decl.location.file) if decl.instance_of else None
        if decl.instance_of and instance_of is None:
            warnings.append(f"{_where(decl)}: instanceOf {decl.instance_of!r} names no element")
        nodes.append(DeploymentNode(
            id=decl.id, name=decl.title or decl.name, environment=decl.environment, parent=decl.parent,
            kind="containerInstance" if decl.instance_of else "deploymentNode", technology=decl.technology,
            description=decl.description, tags=decl.tags, instance_of=instance_of, location=decl.location,
        ))
    return nodes


def _where(decl: ElementDecl | RelationDecl | DeploymentDecl) -> str:
    """Where a declaration is, for a warning: the file as the user knows it."""
    return f"{decl.display}:{decl.location.line}:{decl.location.column}"

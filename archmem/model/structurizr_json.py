"""Structurizr JSON workspaces: a standalone model format and the base of ``workspace extends``.

Read into the same builder the DSL parser uses, so a JSON element gets the id a DSL
author would use: its ``structurizr.dsl.identifier`` property when the workspace came
from the DSL (generated UUIDs are not identifiers), else its canonical name. Structurizr's
default tags (``Element``, ``Person``…) are dropped, as the DSL parser never adds them;
relationships copied between deployment instances (``linkedRelationshipId``) are left
out, as they are not written by anyone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from archmem.errors import ModelError, ModelNotFoundError, ModelSyntaxError, SourceLocation
from archmem.model.dsl.builder import Builder, Entity, Rel, split_tags
from archmem.model.limits import MAX_NESTING, check_json_depth, too_deep
from archmem.model.types import ArchitectureModel

IDENTIFIER_PROPERTY = "structurizr.dsl.identifier"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
_ID_LINE = re.compile(r'"id"\s*:\s*"?([^",}\s]+)')
_DEFAULT_TAGS = {
    "Element",
    "Person",
    "Software System",
    "Container",
    "Component",
    "Deployment Node",
    "Infrastructure Node",
    "Software System Instance",
    "Container Instance",
    "Relationship",
}
_VIEW_LISTS = (
    "systemLandscapeViews",
    "systemContextViews",
    "containerViews",
    "componentViews",
    "dynamicViews",
    "deploymentViews",
    "filteredViews",
    "customViews",
    "imageViews",
)


def parse_structurizr_json(path: Path) -> ArchitectureModel:
    """A Structurizr JSON workspace file as an ``ArchitectureModel``."""
    path = Path(path)
    if not path.is_file():
        raise ModelNotFoundError(f"model file not found: {path}")
    builder = Builder()
    resolved = path.resolve()
    load_into(builder, resolved)
    return builder.to_model(source=str(resolved), files=[str(resolved)], fmt="structurizr-json")


def load_into(builder: Builder, path: Path) -> None:
    """Add the workspace in ``path`` to ``builder`` (elements, relationships, views)."""
    _Loader(builder, path).load()


class _Loader:
    def __init__(self, builder: Builder, path: Path) -> None:
        self.b = builder
        self.file = str(path)
        try:
            self.text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise ModelError(f"cannot read {path}: {exc}") from None
        self.lines: dict[str, int] = {}
        for number, line in enumerate(self.text.split("\n"), start=1):
            for match in _ID_LINE.finditer(line):
                self.lines.setdefault(match.group(1), number)
        self.by_json_id: dict[str, Entity] = {}
        self.pending: list[tuple[dict[str, Any], Entity]] = []

    def where(self, json_id: str | None) -> SourceLocation:
        return SourceLocation(self.file, self.lines.get(str(json_id), 1), 1)

    def load(self) -> None:
        check_json_depth(self.text, self.file)
        try:
            data = json.loads(self.text)
        except json.JSONDecodeError as exc:
            raise ModelSyntaxError(
                f"not valid JSON: {exc.msg}", location=SourceLocation(self.file, exc.lineno, exc.colno)
            ) from None
        if not isinstance(data, dict):
            raise ModelSyntaxError("a Structurizr workspace must be a JSON object", location=self.where(None))
        self.b.name = self.b.name or str(data.get("name") or "")
        self.b.description = self.b.description or str(data.get("description") or "")
        self.b.workspace_properties.update(_strings(data.get("properties")))
        model = _dict(data.get("model"))
        for person in _list(model.get("people")):
            self.element("person", person, None)
        for system in _list(model.get("softwareSystems")):
            entity = self.element("softwareSystem", system, None)
            for container in _list(system.get("containers")):
                child = self.element("container", container, entity)
                for component in _list(container.get("components")):
                    self.element("component", component, child)
        for custom in _list(model.get("customElements")):
            self.element("element", custom, None)
        for node in _list(model.get("deploymentNodes")):
            self.deployment_node(node, None)
        for data_, source in self.pending:
            self.relationships(data_, source)
        for key in _VIEW_LISTS:
            for view in _list(_dict(data.get("views")).get(key)):
                if view.get("key") and view["key"] not in self.b.views:
                    self.b.views.append(str(view["key"]))

    def element(
        self, kind: str, data: dict[str, Any], parent: Entity | None, env: Entity | None = None, **extra: Any
    ) -> Entity:
        json_id = str(data.get("id", ""))
        properties = _strings(data.get("properties"))
        identifier = properties.pop(IDENTIFIER_PROPERTY, None)
        if identifier and _UUID.match(identifier.rsplit(".", 1)[-1]):
            identifier = None
        fallback_name = extra.pop("name", "")
        name = str(data.get("name") or fallback_name or "")
        where = self.where(json_id)
        entity = Entity(
            kind,
            name,
            parent=parent,
            env=env,
            file=self.file,
            line=where.line,
            end_line=where.line,
            description=str(data.get("description") or ""),
            technology=str(data.get("metadata" if kind == "element" else "technology") or ""),
            tags=[t for t in split_tags(str(data.get("tags") or "")) if t not in _DEFAULT_TAGS],
            properties=properties,
            perspectives={str(p.get("name")): str(p.get("description") or "") for p in _list(data.get("perspectives"))},
            url=data.get("url") or None,
            group=data.get("group") or None,
            **extra,
        )
        self.b.add(entity, identifier, where)
        if json_id:
            self.by_json_id[json_id] = entity
        self.pending.append((data, entity))
        return entity

    def environment(self, name: str) -> Entity:
        env = self.b.environments.get(name)
        if env is None:
            env = Entity("deploymentEnvironment", name, file=self.file, line=1)
            self.b.environments[name] = env
            self.b.add(env, None, SourceLocation(self.file, 1, 1))
        return env

    def deployment_node(self, data: dict[str, Any], parent: Entity | None, depth: int = 1) -> None:
        if depth > MAX_NESTING:
            raise too_deep("deployment nodes", MAX_NESTING, self.where(data.get("id")))
        env = self.environment(str(data.get("environment") or "Default"))
        instances = data.get("instances")
        node = self.element(
            "deploymentNode", data, parent, env, instances=None if instances is None else str(instances)
        )
        for child in _list(data.get("children")):
            self.deployment_node(child, node, depth + 1)
        for infra in _list(data.get("infrastructureNodes")):
            self.element("infrastructureNode", infra, node, env)
        for kind, key in (("softwareSystemInstance", "softwareSystemId"), ("containerInstance", "containerId")):
            for instance in _list(data.get(f"{kind}s")):
                target = self.by_json_id.get(str(instance.get(key)))
                if target is None:
                    raise ModelSyntaxError(
                        f"{kind} of unknown element id {instance.get(key)!r}", location=self.where(instance.get("id"))
                    )
                number = int(instance.get("instanceId") or 1)
                self.element(kind, instance, node, env, name=target.name, instance_of=target, number=number)

    def relationships(self, data: dict[str, Any], source: Entity) -> None:
        for rel in _list(data.get("relationships")):
            if rel.get("linkedRelationshipId"):
                continue
            destination = self.by_json_id.get(str(rel.get("destinationId")))
            if destination is None:
                raise ModelSyntaxError(
                    f"relationship {rel.get('id')!r} points at unknown element id {rel.get('destinationId')!r}",
                    location=self.where(rel.get("id")),
                )
            properties = _strings(rel.get("properties"))
            identifier = properties.pop(IDENTIFIER_PROPERTY, None)
            where = self.where(rel.get("id"))
            stored = Rel(
                source,
                destination,
                str(rel.get("description") or ""),
                str(rel.get("technology") or ""),
                [t for t in split_tags(str(rel.get("tags") or "")) if t not in _DEFAULT_TAGS],
                properties,
                url=rel.get("url") or None,
                file=self.file,
                line=where.line,
                end_line=where.line,
            )
            self.b.store(stored)
            if identifier and not _UUID.match(identifier):
                self.b.register_relationship(stored, identifier, where)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _strings(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

"""archmem's own YAML model format (``archmem.yaml`` / ``*.c4.yaml``), for teams without Structurizr.

The same concepts as Structurizr, in plain YAML (full reference: ``docs/yaml-model.md``)::

    name: Shop                         # optional workspace name, description, properties
    elements:                          # top-level elements: people, systems, custom kinds
      - id: customer                   # required; letters, digits, _ and -; unique
        kind: person                   # person | softwareSystem (system) | container |
        name: Customer                 #   component | any other word = custom kind
      - id: shop                       # name defaults to the id
        kind: system
        description: Sells things
        elements:                      # children: containers of a system, components of
          - id: api                    #   a container; plain (api) or dotted (shop.api)
            technology: Go             # kind may be left out under a system (container)
            paths: [services/api/**]   #   or a container (component)
            tags: [Backend]            # a list, or "a, b"
            properties: {owner: payments-team}
            url: https://example.com/api
            group: Backend services
            decisions: services/api/adr   # ADRs attached to this element
    relationships:
      - {source: customer, destination: api, description: Uses, technology: HTTPS}
    decisions: docs/adr                # a folder, {path, format, element}, or a list

Nesting follows C4: people and software systems sit at the top level, containers
directly inside a software system, components directly inside a container. Custom
kinds may sit at the top level or inside any element except a person, and hold only
custom children. Every mistake is a ``ModelSyntaxError`` at the exact line and column:
unknown keys (with the allowed ones and the closest), wrong types, duplicate ids,
keys or sibling names, wrong nesting, relationships naming unknown elements (with the
closest ids), and YAML syntax errors. Paths are kept as written; ``archmem.model.paths``
validates them. Folders (``decisions``) are relative to the model file.

The file and its typed values are read by ``yaml_nodes``; this module gives them
their meaning.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from yaml.nodes import MappingNode, Node, SequenceNode

from archmem.errors import ModelError, ModelNotFoundError, ModelSyntaxError, closest
from archmem.model.adrs import normalize_format, read_decisions
from archmem.model.confine import boundary, confine
from archmem.model.limits import MAX_NESTING, too_deep
from archmem.model.types import C4_KINDS, ArchitectureModel, Decision, Element, Relationship
from archmem.model.yaml_nodes import Fields, YamlDocument

FORMAT = "archmem-yaml"

TOP_KEYS = ("name", "description", "properties", "elements", "relationships", "decisions")
ELEMENT_KEYS = (
    "id", "kind", "name", "description", "technology", "tags", "paths",
    "properties", "url", "group", "elements", "decisions",
)
RELATIONSHIP_KEYS = ("source", "destination", "description", "technology", "tags", "properties", "url", "id")
DECISION_KEYS = ("path", "format", "element")

_KINDS = {
    "person": "person",
    "softwaresystem": "softwareSystem",
    "software_system": "softwareSystem",
    "software-system": "softwareSystem",
    "system": "softwareSystem",
    "container": "container",
    "component": "component",
}
_C4_PARENT = {"person": None, "softwareSystem": None, "container": "softwareSystem", "component": "container"}
_DEFAULT_CHILD_KIND = {"softwareSystem": "container", "container": "component"}
_SEGMENT = r"[A-Za-z0-9_][A-Za-z0-9_-]*"
_ID = re.compile(rf"^{_SEGMENT}(?:\.{_SEGMENT})*$")


def parse_yaml_model(path: Path, *, root: Path | None = None) -> ArchitectureModel:
    """Parse an archmem YAML model file; every mistake names its file, line and column.

    The ``decisions`` folders it names must stay inside ``root``, the repository
    (default, and for a model outside it: the model's folder).
    """
    path = Path(path)
    if not path.is_file():
        raise ModelNotFoundError(
            f"model file {path} does not exist" if not path.exists() else f"model file {path} is not a file"
        )
    return _Parser(path, boundary(path, root)).parse()


@dataclass
class _Entry:
    """One element while parsing: the value, its tree path (``shop.api``) and its id node."""

    element: Element
    tree_path: str
    node: Node
    depth: int = 1


class _Parser:
    """Walks the composed YAML node tree (which keeps marks) into model values."""

    def __init__(self, path: Path, within: Path) -> None:
        self.path = path
        self.within = within
        self.doc = YamlDocument(path)
        self.entries: dict[str, _Entry] = {}
        self.by_tree_path: dict[str, str] = {}
        self.order: list[Element] = []
        self.decision_specs: list[tuple[Node, str | None]] = []
        self.warnings: list[str] = []

    # ---- the document ------------------------------------------------------------

    def parse(self) -> ArchitectureModel:
        root = self.doc.compose(expected=TOP_KEYS)
        top = self.doc.mapping(root, "the model", TOP_KEYS)
        for node in self.doc.items(top, "elements"):
            self._element(node, None)
        relationships: list[Relationship] = []
        for node in self.doc.items(top, "relationships"):
            relationships.append(self._relationship(node, relationships))
        if "decisions" in top:
            self.decision_specs.insert(0, (top["decisions"][1], None))
        decisions = self._decisions()
        return ArchitectureModel(
            name=self.doc.text(top, "name"),
            description=self.doc.text(top, "description"),
            source=self.doc.file,
            format=FORMAT,
            files=[self.doc.file],
            elements=self.order,
            relationships=relationships,
            decisions=decisions,
            properties=self.doc.properties(top),
            warnings=self.warnings,
        )

    # ---- elements ------------------------------------------------------------------

    def _element(self, node: Node, parent: _Entry | None) -> None:
        what = "element" if parent is None else f"child of {parent.element.id!r}"
        depth = parent.depth + 1 if parent is not None else 1
        if depth > MAX_NESTING:
            raise too_deep("elements", MAX_NESTING, self.doc.at(node))
        fields = self.doc.mapping(node, what, ELEMENT_KEYS)
        if "id" not in fields:
            raise ModelSyntaxError(f"{what} has no id", location=self.doc.at(node), expected=["id"])
        id_node = fields["id"][1]
        raw_id = self.doc.scalar(id_node, "id") or ""
        if not _ID.match(raw_id):
            raise ModelSyntaxError(
                f"invalid id {raw_id!r}: use letters, digits, '_' and '-' (dots only to prefix a parent)",
                location=self.doc.at(id_node),
            )
        tree_path = self._tree_path(raw_id, id_node, parent)
        kind = self._kind(fields, node, parent)
        name = self.doc.text(fields, "name") or raw_id.rsplit(".", 1)[-1]
        self._check_unique(raw_id, tree_path, name, id_node, fields.get("name", (None, id_node))[1], parent)
        canonical = f"{kind[0].upper() + kind[1:] if kind in C4_KINDS else 'CustomElement'}://" + ".".join(
            [a.element.name for a in self._lineage(parent)] + [name]
        )
        element = Element(
            id=raw_id,
            name=name,
            kind=kind,
            description=self.doc.text(fields, "description"),
            technology=self.doc.text(fields, "technology"),
            tags=self.doc.strings(fields, "tags", r","),
            parent=parent.element.id if parent else None,
            paths=self.doc.strings(fields, "paths", r"[,;]"),
            url=self.doc.text(fields, "url") or None,
            properties=self.doc.properties(fields),
            group=self.doc.text(fields, "group") or None,
            canonical_name=canonical,
            location=self.doc.location(node),
        )
        entry = _Entry(element, tree_path, id_node, depth)
        self.entries[raw_id] = entry
        self.by_tree_path[tree_path] = raw_id
        self.order.append(element)
        if "decisions" in fields:
            self.decision_specs.append((fields["decisions"][1], raw_id))
        if "elements" in fields:
            key_node = fields["elements"][0]
            if kind == "person":
                raise ModelSyntaxError(
                    f"a person has no children ({raw_id!r})",
                    location=self.doc.at(key_node),
                    hint="model what the person uses as relationships instead",
                )
            for child in self.doc.items(fields, "elements"):
                self._element(child, entry)

    def _tree_path(self, raw_id: str, id_node: Node, parent: _Entry | None) -> str:
        if "." not in raw_id:
            return f"{parent.tree_path}.{raw_id}" if parent else raw_id
        if parent is None:
            raise ModelSyntaxError(
                f"invalid id {raw_id!r}: a dotted id names its parent, and top-level elements have none",
                location=self.doc.at(id_node),
            )
        prefix, _, last = raw_id.rpartition(".")
        if prefix not in (parent.element.id, parent.tree_path):
            raise ModelSyntaxError(
                f"dotted id {raw_id!r} does not start with its parent's id {parent.element.id!r}",
                location=self.doc.at(id_node),
                expected=[f"{parent.element.id}.{last}", last],
            )
        return f"{parent.tree_path}.{last}"

    def _kind(self, fields: Fields, node: Node, parent: _Entry | None) -> str:
        parent_kind = parent.element.kind if parent else None
        if "kind" in fields:
            kind_node = fields["kind"][1]
            raw = self.doc.scalar(kind_node, "kind") or ""
            kind = _KINDS.get(raw.strip().lower(), raw.strip())
            if not kind:
                raise ModelSyntaxError("kind is empty", location=self.doc.at(kind_node), expected=C4_KINDS)
            if kind not in C4_KINDS:
                near = difflib.get_close_matches(kind.lower(), list(_KINDS), n=1, cutoff=0.8)
                if near:
                    self.warnings.append(
                        f"{self.doc.at(kind_node)}: kind {kind!r} is taken as a custom kind; "
                        f"did you mean {_KINDS[near[0]]!r}?"
                    )
        else:
            kind_node = node
            default = _DEFAULT_CHILD_KIND.get(parent_kind or "")
            if default is None:
                raise ModelSyntaxError(
                    "element has no kind" + (f" (under {parent_kind} {parent.element.id!r})" if parent else ""),
                    location=self.doc.at(node),
                    expected=C4_KINDS,
                )
            kind = default
        if kind in _C4_PARENT:
            want = _C4_PARENT[kind]
            if parent_kind != want:
                where = "at the top level" if want is None else f"directly inside a {want}"
                found = "at the top level" if parent is None else f"inside {parent_kind} {parent.element.id!r}"
                raise ModelSyntaxError(
                    f"a {kind} belongs {where}, not {found}",
                    location=self.doc.at(kind_node),
                    hint="C4 nests containers in software systems and components in containers",
                )
        return kind

    def _check_unique(
        self, raw_id: str, tree_path: str, name: str, id_node: Node, name_node: Node, parent: _Entry | None
    ) -> None:
        clash = self.entries.get(raw_id) or self.entries.get(self.by_tree_path.get(tree_path, ""))
        if clash is not None:
            raise ModelSyntaxError(
                f"duplicate id {raw_id!r}: already defined at line {clash.node.start_mark.line + 1}",
                location=self.doc.at(id_node),
                hint="element ids are unique across the whole model",
            )
        parent_id = parent.element.id if parent else None
        for other in self.entries.values():
            if other.element.parent == parent_id and other.element.name == name:
                raise ModelSyntaxError(
                    f"duplicate name {name!r}: {other.element.id!r} at line "
                    f"{other.node.start_mark.line + 1} has the same name and parent",
                    location=self.doc.at(name_node),
                )

    def _lineage(self, entry: _Entry | None) -> list[_Entry]:
        chain: list[_Entry] = []
        while entry is not None:
            chain.insert(0, entry)
            entry = self.entries.get(entry.element.parent or "")
        return chain

    # ---- relationships and decisions ---------------------------------------------

    def _relationship(self, node: Node, earlier: list[Relationship]) -> Relationship:
        """One relationship; like Structurizr, the same source, destination and
        description twice is an error, and so is a repeated relationship id."""
        fields = self.doc.mapping(node, "relationship", RELATIONSHIP_KEYS)
        ends: dict[str, str] = {}
        for key in ("source", "destination"):
            if key not in fields:
                raise ModelSyntaxError(f"relationship has no {key}", location=self.doc.at(node), expected=[key])
            ends[key] = self._reference(fields[key][1], f"relationship {key}")
        rel = Relationship(
            source=ends["source"],
            destination=ends["destination"],
            description=self.doc.text(fields, "description"),
            technology=self.doc.text(fields, "technology"),
            tags=self.doc.strings(fields, "tags", r","),
            properties=self.doc.properties(fields),
            url=self.doc.text(fields, "url") or None,
            id=self.doc.text(fields, "id") or None,
            location=self.doc.location(node),
        )
        for other in earlier:
            line = other.location.line if other.location else 0
            if (other.source, other.destination, other.description) == (rel.source, rel.destination, rel.description):
                raise ModelSyntaxError(
                    f"a relationship from {rel.source!r} to {rel.destination!r} described "
                    f"{rel.description!r} already exists (line {line})",
                    location=self.doc.at(node),
                )
            if rel.id and other.id == rel.id:
                raise ModelSyntaxError(
                    f"duplicate relationship id {rel.id!r} (first at line {line})", location=self.doc.at(fields["id"][1])
                )
        return rel

    def _reference(self, node: Node, what: str) -> str:
        """An element id from a reference: its id, or its dotted tree path (``shop.api``)."""
        ref = (self.doc.scalar(node, what) or "").strip()
        if ref in self.entries:
            return ref
        if ref in self.by_tree_path:
            return self.by_tree_path[ref]
        candidates = closest(ref, list(self.entries) + list(self.by_tree_path)) if ref else []
        message = f"{what} {ref!r} is not an element id"
        if candidates:
            message += "; did you mean " + ", ".join(repr(c) for c in candidates) + "?"
        raise ModelSyntaxError(message, location=self.doc.at(node))

    def _decisions(self) -> list[Decision]:
        decisions: list[Decision] = []
        for node, element in self.decision_specs:
            items = node.value if isinstance(node, SequenceNode) else [node]
            for item in items:
                decisions.extend(self._decision_folder(item, element))
        return decisions

    def _decision_folder(self, node: Node, element: str | None) -> list[Decision]:
        fmt: str | None = None
        if isinstance(node, MappingNode):
            fields = self.doc.mapping(node, "decisions entry", DECISION_KEYS)
            if "path" not in fields:
                raise ModelSyntaxError("decisions entry has no path", location=self.doc.at(node), expected=["path"])
            path_node = fields["path"][1]
            if "format" in fields:
                fmt_node = fields["format"][1]
                try:
                    fmt = normalize_format(self.doc.scalar(fmt_node, "format") or "")
                except ModelError as exc:
                    raise ModelSyntaxError(exc.message, location=self.doc.at(fmt_node)) from None
            if "element" in fields:
                if element is not None:
                    raise ModelSyntaxError(
                        "decisions inside an element belong to that element; 'element' is not allowed here",
                        location=self.doc.at(fields["element"][0]),
                    )
                element = self._reference(fields["element"][1], "decisions element")
        else:
            path_node = node
        folder = self.doc.scalar(path_node, "decisions path") or ""
        if not folder.strip():
            raise ModelSyntaxError("decisions path is empty", location=self.doc.at(path_node))
        target = confine(
            folder.strip(), base=self.path.resolve().parent, within=self.within, what="decisions",
            location=self.doc.at(path_node),
        )
        try:
            return read_decisions(target, fmt, element=element, within=self.within, warn=self.warnings.append)
        except ModelError as exc:
            if exc.location is not None:
                raise
            raise ModelError(exc.message, location=self.doc.at(path_node), hint=exc.hint) from None

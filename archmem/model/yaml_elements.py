"""The elements of an archmem YAML model: ids, kinds, C4 nesting and uniqueness.

Its own module because these rules are most of what the format checks: an id's
grammar and its dotted parent prefix, a kind's spelling (and a custom kind that looks
like a typo), which kind may sit inside which, ids unique across the model and names
unique among siblings. ``ElementTree`` builds the ``Element`` values in document order
and resolves the references of relationships and decisions; ``yaml_model`` drives it.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from yaml.nodes import Node

from archmem.errors import ModelSyntaxError, closest
from archmem.model.limits import MAX_NESTING, too_deep
from archmem.model.types import C4_KINDS, Element
from archmem.model.yaml_nodes import Fields, YamlDocument
from archmem.values import Record

ELEMENT_KEYS = (
    "id", "kind", "name", "description", "technology", "tags", "paths",
    "properties", "url", "group", "elements", "decisions",
)

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


@dataclass(repr=False, eq=False)
class _Entry(Record):
    """One element while parsing: the value, its tree path (``shop.api``) and its id node."""

    element: Element
    tree_path: str
    node: Node
    depth: int = 1


class ElementTree:
    """The elements read so far: by id, by tree path and in document order, with the
    ``decisions`` nodes written on them."""

    def __init__(self, doc: YamlDocument, warnings: list[str]) -> None:
        self.doc = doc
        self.warnings = warnings
        self.entries: dict[str, _Entry] = {}
        self.by_tree_path: dict[str, str] = {}
        self.order: list[Element] = []
        self.decision_specs: list[tuple[Node, str | None]] = []

    def add(self, node: Node) -> None:
        """A top-level element and everything nested in it."""
        self._element(node, None)

    def reference(self, node: Node, what: str) -> str:
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

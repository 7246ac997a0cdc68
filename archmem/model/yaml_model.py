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
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from archmem.errors import ModelError, ModelNotFoundError, ModelSyntaxError, SourceLocation, closest
from archmem.model.adrs import normalize_format, read_decisions
from archmem.model.confine import boundary, confine
from archmem.model.limits import MAX_NESTING, compose_yaml, too_deep
from archmem.model.types import C4_KINDS, ArchitectureModel, Decision, Element, Location, Relationship

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
_NULL = "tag:yaml.org,2002:null"
_MERGE = "tag:yaml.org,2002:merge"


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
        self.file = path.resolve().as_posix()
        self.lines: list[str] = []
        self.entries: dict[str, _Entry] = {}
        self.by_tree_path: dict[str, str] = {}
        self.order: list[Element] = []
        self.decision_specs: list[tuple[Node, str | None]] = []
        self.warnings: list[str] = []

    # ---- the document ------------------------------------------------------------

    def parse(self) -> ArchitectureModel:
        root = self._compose()
        top = self._mapping(root, "the model", TOP_KEYS)
        for node in self._items(top, "elements"):
            self._element(node, None)
        relationships: list[Relationship] = []
        for node in self._items(top, "relationships"):
            relationships.append(self._relationship(node, relationships))
        if "decisions" in top:
            self.decision_specs.insert(0, (top["decisions"][1], None))
        decisions = self._decisions()
        return ArchitectureModel(
            name=self._text(top, "name"),
            description=self._text(top, "description"),
            source=self.file,
            format=FORMAT,
            files=[self.file],
            elements=self.order,
            relationships=relationships,
            decisions=decisions,
            properties=self._properties(top),
            warnings=self.warnings,
        )

    def _compose(self) -> MappingNode:
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise ModelError(f"cannot read model file {self.path}: {exc.strerror or exc}") from None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            before = data[: exc.start]
            raise ModelSyntaxError(
                "the model file is not UTF-8 text",
                location=SourceLocation(self.file, before.count(b"\n") + 1, exc.start - before.rfind(b"\n")),
            ) from None
        self.lines = text.splitlines()
        try:
            root = compose_yaml(text, self.file)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            problem = exc.problem or exc.context or "invalid YAML"
            where = SourceLocation(self.file, mark.line + 1, mark.column + 1) if mark else self._at_start()
            context = f"{exc.context} at line {exc.context_mark.line + 1}" if exc.context and exc.context_mark else None
            raise ModelSyntaxError(f"YAML syntax error: {problem}", location=where, hint=context) from None
        except yaml.reader.ReaderError as exc:
            prefix = text[: exc.position]
            line = prefix.count("\n") + 1
            column = exc.position - (prefix.rfind("\n") + 1) + 1
            raise ModelSyntaxError(
                f"YAML syntax error: character {exc.character!r} is not allowed in YAML",
                location=SourceLocation(self.file, line, column),
            ) from None
        except yaml.YAMLError as exc:  # pragma: no cover - every PyYAML error above has a mark
            raise ModelSyntaxError(f"YAML syntax error: {exc}", location=self._at_start()) from None
        if root is None:
            raise ModelSyntaxError("the model file is empty", location=self._at_start(), expected=TOP_KEYS)
        return root

    # ---- elements ------------------------------------------------------------------

    def _element(self, node: Node, parent: _Entry | None) -> None:
        what = "element" if parent is None else f"child of {parent.element.id!r}"
        depth = parent.depth + 1 if parent is not None else 1
        if depth > MAX_NESTING:
            raise too_deep("elements", MAX_NESTING, self._loc(node))
        fields = self._mapping(node, what, ELEMENT_KEYS)
        if "id" not in fields:
            raise ModelSyntaxError(f"{what} has no id", location=self._loc(node), expected=["id"])
        id_node = fields["id"][1]
        raw_id = self._scalar(id_node, "id") or ""
        if not _ID.match(raw_id):
            raise ModelSyntaxError(
                f"invalid id {raw_id!r}: use letters, digits, '_' and '-' (dots only to prefix a parent)",
                location=self._loc(id_node),
            )
        tree_path = self._tree_path(raw_id, id_node, parent)
        kind = self._kind(fields, node, parent)
        name = self._text(fields, "name") or raw_id.rsplit(".", 1)[-1]
        self._check_unique(raw_id, tree_path, name, id_node, fields.get("name", (None, id_node))[1], parent)
        canonical = f"{kind[0].upper() + kind[1:] if kind in C4_KINDS else 'CustomElement'}://" + ".".join(
            [a.element.name for a in self._lineage(parent)] + [name]
        )
        element = Element(
            id=raw_id,
            name=name,
            kind=kind,
            description=self._text(fields, "description"),
            technology=self._text(fields, "technology"),
            tags=self._list(fields, "tags", r","),
            parent=parent.element.id if parent else None,
            paths=self._list(fields, "paths", r"[,;]"),
            url=self._text(fields, "url") or None,
            properties=self._properties(fields),
            group=self._text(fields, "group") or None,
            canonical_name=canonical,
            location=self._location(node),
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
                    location=self._loc(key_node),
                    hint="model what the person uses as relationships instead",
                )
            for child in self._items(fields, "elements"):
                self._element(child, entry)

    def _tree_path(self, raw_id: str, id_node: Node, parent: _Entry | None) -> str:
        if "." not in raw_id:
            return f"{parent.tree_path}.{raw_id}" if parent else raw_id
        if parent is None:
            raise ModelSyntaxError(
                f"invalid id {raw_id!r}: a dotted id names its parent, and top-level elements have none",
                location=self._loc(id_node),
            )
        prefix, _, last = raw_id.rpartition(".")
        if prefix not in (parent.element.id, parent.tree_path):
            raise ModelSyntaxError(
                f"dotted id {raw_id!r} does not start with its parent's id {parent.element.id!r}",
                location=self._loc(id_node),
                expected=[f"{parent.element.id}.{last}", last],
            )
        return f"{parent.tree_path}.{last}"

    def _kind(self, fields: dict[str, tuple[Node, Node]], node: Node, parent: _Entry | None) -> str:
        parent_kind = parent.element.kind if parent else None
        if "kind" in fields:
            kind_node = fields["kind"][1]
            raw = self._scalar(kind_node, "kind") or ""
            kind = _KINDS.get(raw.strip().lower(), raw.strip())
            if not kind:
                raise ModelSyntaxError("kind is empty", location=self._loc(kind_node), expected=C4_KINDS)
            if kind not in C4_KINDS:
                near = difflib.get_close_matches(kind.lower(), list(_KINDS), n=1, cutoff=0.8)
                if near:
                    self.warnings.append(
                        f"{self._loc(kind_node)}: kind {kind!r} is taken as a custom kind; "
                        f"did you mean {_KINDS[near[0]]!r}?"
                    )
        else:
            kind_node = node
            default = _DEFAULT_CHILD_KIND.get(parent_kind or "")
            if default is None:
                raise ModelSyntaxError(
                    "element has no kind" + (f" (under {parent_kind} {parent.element.id!r})" if parent else ""),
                    location=self._loc(node),
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
                    location=self._loc(kind_node),
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
                location=self._loc(id_node),
                hint="element ids are unique across the whole model",
            )
        parent_id = parent.element.id if parent else None
        for other in self.entries.values():
            if other.element.parent == parent_id and other.element.name == name:
                raise ModelSyntaxError(
                    f"duplicate name {name!r}: {other.element.id!r} at line "
                    f"{other.node.start_mark.line + 1} has the same name and parent",
                    location=self._loc(name_node),
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
        fields = self._mapping(node, "relationship", RELATIONSHIP_KEYS)
        ends: dict[str, str] = {}
        for key in ("source", "destination"):
            if key not in fields:
                raise ModelSyntaxError(f"relationship has no {key}", location=self._loc(node), expected=[key])
            ends[key] = self._reference(fields[key][1], f"relationship {key}")
        rel = Relationship(
            source=ends["source"],
            destination=ends["destination"],
            description=self._text(fields, "description"),
            technology=self._text(fields, "technology"),
            tags=self._list(fields, "tags", r","),
            properties=self._properties(fields),
            url=self._text(fields, "url") or None,
            id=self._text(fields, "id") or None,
            location=self._location(node),
        )
        for other in earlier:
            line = other.location.line if other.location else 0
            if (other.source, other.destination, other.description) == (rel.source, rel.destination, rel.description):
                raise ModelSyntaxError(
                    f"a relationship from {rel.source!r} to {rel.destination!r} described "
                    f"{rel.description!r} already exists (line {line})",
                    location=self._loc(node),
                )
            if rel.id and other.id == rel.id:
                raise ModelSyntaxError(
                    f"duplicate relationship id {rel.id!r} (first at line {line})", location=self._loc(fields["id"][1])
                )
        return rel

    def _reference(self, node: Node, what: str) -> str:
        """An element id from a reference: its id, or its dotted tree path (``shop.api``)."""
        ref = (self._scalar(node, what) or "").strip()
        if ref in self.entries:
            return ref
        if ref in self.by_tree_path:
            return self.by_tree_path[ref]
        candidates = closest(ref, list(self.entries) + list(self.by_tree_path)) if ref else []
        message = f"{what} {ref!r} is not an element id"
        if candidates:
            message += "; did you mean " + ", ".join(repr(c) for c in candidates) + "?"
        raise ModelSyntaxError(message, location=self._loc(node))

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
            fields = self._mapping(node, "decisions entry", DECISION_KEYS)
            if "path" not in fields:
                raise ModelSyntaxError("decisions entry has no path", location=self._loc(node), expected=["path"])
            path_node = fields["path"][1]
            if "format" in fields:
                fmt_node = fields["format"][1]
                try:
                    fmt = normalize_format(self._scalar(fmt_node, "format") or "")
                except ModelError as exc:
                    raise ModelSyntaxError(exc.message, location=self._loc(fmt_node)) from None
            if "element" in fields:
                if element is not None:
                    raise ModelSyntaxError(
                        "decisions inside an element belong to that element; 'element' is not allowed here",
                        location=self._loc(fields["element"][0]),
                    )
                element = self._reference(fields["element"][1], "decisions element")
        else:
            path_node = node
        folder = self._scalar(path_node, "decisions path") or ""
        if not folder.strip():
            raise ModelSyntaxError("decisions path is empty", location=self._loc(path_node))
        target = confine(
            folder.strip(), base=self.path.resolve().parent, within=self.within, what="decisions",
            location=self._loc(path_node),
        )
        try:
            return read_decisions(target, fmt, element=element, within=self.within, warn=self.warnings.append)
        except ModelError as exc:
            if exc.location is not None:
                raise
            raise ModelError(exc.message, location=self._loc(path_node), hint=exc.hint) from None

    # ---- typed values with marks -------------------------------------------------

    def _mapping(self, node: Node, what: str, allowed: tuple[str, ...]) -> dict[str, tuple[Node, Node]]:
        """A mapping's fields by key (key node, value node); unknown or repeated keys fail."""
        fields: dict[str, tuple[Node, Node]] = {}
        for key, key_node, value_node in self._pairs(node, what, allowed):
            if key not in allowed:
                near = closest(key, allowed, n=1)
                raise ModelSyntaxError(
                    f"unknown key {key!r} in {what}",
                    location=self._loc(key_node),
                    expected=allowed,
                    hint=f"did you mean {near[0]!r}?" if near else None,
                )
            fields[key] = (key_node, value_node)
        return fields

    def _pairs(self, node: Node, what: str, allowed: tuple[str, ...] = ()) -> list[tuple[str, Node, Node]]:
        """(key, key node, value node) of a mapping, after ``<<: *anchor`` merges.

        A key written twice fails (PyYAML would silently keep the last); a key that
        comes from a merge may be overridden, as YAML says.
        """
        if not isinstance(node, MappingNode):
            raise ModelSyntaxError(
                f"{what} must be a mapping of keys, found {self._describe(node)}",
                location=self._loc(node),
                expected=allowed,
            )
        seen: dict[str, Node] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag == _NULL or not key_node.value:
                raise ModelSyntaxError(f"{what} has a key that is not a name", location=self._loc(key_node))
            if key_node.tag == _MERGE:
                continue
            if key_node.value in seen:
                raise ModelSyntaxError(
                    f"duplicate key {key_node.value!r} in {what} (first at line {seen[key_node.value].start_mark.line + 1})",
                    location=self._loc(key_node),
                )
            seen[key_node.value] = key_node
        try:
            yaml.constructor.SafeConstructor().flatten_mapping(node)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or node.start_mark
            raise ModelSyntaxError(
                f"YAML merge error: {exc.problem}", location=SourceLocation(self.file, mark.line + 1, mark.column + 1)
            ) from None
        return [(str(k.value), k, v) for k, v in node.value]

    def _items(self, fields: dict[str, tuple[Node, Node]], key: str) -> list[Node]:
        """The items of an optional list field (absent or empty: none)."""
        if key not in fields:
            return []
        node = fields[key][1]
        if isinstance(node, ScalarNode) and node.tag == _NULL:
            return []
        if not isinstance(node, SequenceNode):
            raise ModelSyntaxError(
                f"{key} must be a list (items start with '- '), found {self._describe(node)}",
                location=self._loc(node),
            )
        return list(node.value)

    def _scalar(self, node: Node, what: str) -> str | None:
        """The text exactly as written (``8080``, ``yes`` and ``1.10`` stay strings)."""
        if not isinstance(node, ScalarNode):
            raise ModelSyntaxError(f"{what} must be a single value, found {self._describe(node)}", location=self._loc(node))
        if node.tag == _NULL and node.style is None:
            return None
        return str(node.value)

    def _text(self, fields: dict[str, tuple[Node, Node]], key: str) -> str:
        if key not in fields:
            return ""
        return (self._scalar(fields[key][1], key) or "").strip()

    def _list(self, fields: dict[str, tuple[Node, Node]], what: str, separators: str) -> list[str]:
        """A list of strings, or one string split on ``separators`` (``"a, b"``)."""
        if what not in fields:
            return []
        node = fields[what][1]
        if isinstance(node, SequenceNode):
            values = [self._scalar(item, f"an item of {what}") for item in node.value]
            return [v.strip() for v in values if v and v.strip()]
        text = self._scalar(node, what) or ""
        return [part.strip() for part in re.split(separators, text) if part.strip()]

    def _properties(self, fields: dict[str, tuple[Node, Node]]) -> dict[str, str]:
        """``properties``: names to values, kept as written (``8080`` stays ``"8080"``)."""
        if "properties" not in fields or _empty(fields["properties"][1]):
            return {}
        pairs = self._pairs(fields["properties"][1], "properties")
        return {key: self._scalar(value, f"property {key!r}") or "" for key, _, value in pairs}

    # ---- marks -----------------------------------------------------------------------

    def _location(self, node: Node) -> Location:
        return Location(
            file=self.file,
            line=node.start_mark.line + 1,
            column=node.start_mark.column + 1,
            end_line=self._end_line(node),
        )

    def _loc(self, node: Node) -> SourceLocation:
        return SourceLocation(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def _at_start(self) -> SourceLocation:
        return SourceLocation(self.file, 1, 1)

    @staticmethod
    def _describe(node: Node) -> str:
        if isinstance(node, MappingNode):
            return "a mapping"
        if isinstance(node, SequenceNode):
            return "a list"
        if node.tag == _NULL:
            return "nothing"
        return f"the value {node.value!r}"

    def _end_line(self, node: Node) -> int:
        """The last line holding the node's own text (1-based).

        PyYAML's end marks of block collections run on to the next item, so the end is
        taken from the last leaf; trailing blank and comment lines are not counted.
        """
        start = node.start_mark.line
        while True:
            if isinstance(node, MappingNode) and node.value and not node.flow_style:
                node = node.value[-1][1] if not _empty(node.value[-1][1]) else node.value[-1][0]
            elif isinstance(node, SequenceNode) and node.value and not node.flow_style:
                node = node.value[-1]
            else:
                break
        line, column = node.end_mark.line, node.end_mark.column
        index = line if column > 0 else line - 1
        while index > start and index < len(self.lines) and _is_filler(self.lines[index]):
            index -= 1
        return max(index, start) + 1


def _empty(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == _NULL and node.value == ""


def _is_filler(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")

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

The file and its typed values are read by ``yaml_nodes``, the elements built and
checked by ``yaml_elements``; this module reads the rest (relationships, decisions)
and puts the model together.
"""

from __future__ import annotations

from pathlib import Path

from yaml.nodes import MappingNode, Node, SequenceNode

from archmem.errors import ModelError, ModelNotFoundError, ModelSyntaxError
from archmem.model.adrs import normalize_format, read_decisions
from archmem.model.confine import boundary, confine
from archmem.model.types import ArchitectureModel, Decision, Relationship
from archmem.model.yaml_elements import ELEMENT_KEYS, ElementTree
from archmem.model.yaml_nodes import YamlDocument

FORMAT = "archmem-yaml"

TOP_KEYS = ("name", "description", "properties", "elements", "relationships", "decisions")
RELATIONSHIP_KEYS = ("source", "destination", "description", "technology", "tags", "properties", "url", "id")
DECISION_KEYS = ("path", "format", "element")

__all__ = ["DECISION_KEYS", "ELEMENT_KEYS", "FORMAT", "RELATIONSHIP_KEYS", "TOP_KEYS", "parse_yaml_model"]


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


class _Parser:
    """Walks the composed YAML node tree (which keeps marks) into model values."""

    def __init__(self, path: Path, within: Path) -> None:
        self.path = path
        self.within = within
        self.doc = YamlDocument(path)
        self.warnings: list[str] = []
        self.tree = ElementTree(self.doc, self.warnings)

    def parse(self) -> ArchitectureModel:
        root = self.doc.compose(expected=TOP_KEYS)
        top = self.doc.mapping(root, "the model", TOP_KEYS)
        for node in self.doc.items(top, "elements"):
            self.tree.add(node)
        relationships: list[Relationship] = []
        for node in self.doc.items(top, "relationships"):
            relationships.append(self._relationship(node, relationships))
        specs: list[tuple[Node, str | None]] = [(top["decisions"][1], None)] if "decisions" in top else []
        decisions = self._decisions(specs + self.tree.decision_specs)
        return ArchitectureModel(
            name=self.doc.text(top, "name"),
            description=self.doc.text(top, "description"),
            source=self.doc.file,
            format=FORMAT,
            files=[self.doc.file],
            elements=self.tree.order,
            relationships=relationships,
            decisions=decisions,
            properties=self.doc.properties(top),
            warnings=self.warnings,
        )

    def _relationship(self, node: Node, earlier: list[Relationship]) -> Relationship:
        """One relationship; like Structurizr, the same source, destination and
        description twice is an error, and so is a repeated relationship id."""
        fields = self.doc.mapping(node, "relationship", RELATIONSHIP_KEYS)
        ends: dict[str, str] = {}
        for key in ("source", "destination"):
            if key not in fields:
                raise ModelSyntaxError(f"relationship has no {key}", location=self.doc.at(node), expected=[key])
            ends[key] = self.tree.reference(fields[key][1], f"relationship {key}")
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

    def _decisions(self, specs: list[tuple[Node, str | None]]) -> list[Decision]:
        """The records of every ``decisions`` node (the model's first, then the elements')."""
        decisions: list[Decision] = []
        for node, element in specs:
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
                element = self.tree.reference(fields["element"][1], "decisions element")
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

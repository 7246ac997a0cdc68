"""Reading an archmem YAML model file: its text, its node tree, and typed values out of
the nodes, each mistake a ``ModelSyntaxError`` at its file, line and column.

Its own module because this is the YAML half of the format and knows no C4: PyYAML's
composed nodes keep where each value was written, and every reader of the format
(``yaml_elements``, ``yaml_model``) takes its mappings, lists, scalars and locations
from here. Values stay as written (``8080``, ``yes`` and ``1.10`` are strings); a key
written twice fails, where PyYAML would silently keep the last.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from archmem.errors import ModelError, ModelSyntaxError, SourceLocation, closest
from archmem.model.limits import compose_yaml
from archmem.model.types import Location

Fields = dict[str, tuple[Node, Node]]
"""A mapping's fields by key: (key node, value node)."""

_NULL = "tag:yaml.org,2002:null"
_MERGE = "tag:yaml.org,2002:merge"


class YamlDocument:
    """One model file: ``compose()`` reads it, the other methods read its nodes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = path.resolve().as_posix()
        self.lines: list[str] = []

    def compose(self, *, expected: Sequence[str]) -> Node:
        """The document's root node; an empty file fails, naming the ``expected`` keys."""
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
            raise ModelSyntaxError("the model file is empty", location=self._at_start(), expected=expected)
        return root

    # ---- typed values with marks -------------------------------------------------

    def mapping(self, node: Node, what: str, allowed: tuple[str, ...]) -> Fields:
        """A mapping's fields by key (key node, value node); unknown or repeated keys fail."""
        fields: Fields = {}
        for key, key_node, value_node in self.pairs(node, what, allowed):
            if key not in allowed:
                near = closest(key, allowed, n=1)
                raise ModelSyntaxError(
                    f"unknown key {key!r} in {what}",
                    location=self.at(key_node),
                    expected=allowed,
                    hint=f"did you mean {near[0]!r}?" if near else None,
                )
            fields[key] = (key_node, value_node)
        return fields

    def pairs(self, node: Node, what: str, allowed: tuple[str, ...] = ()) -> list[tuple[str, Node, Node]]:
        """(key, key node, value node) of a mapping, after ``<<: *anchor`` merges.

        A key written twice fails (PyYAML would silently keep the last); a key that
        comes from a merge may be overridden, as YAML says.
        """
        if not isinstance(node, MappingNode):
            raise ModelSyntaxError(
                f"{what} must be a mapping of keys, found {self._describe(node)}",
                location=self.at(node),
                expected=allowed,
            )
        seen: dict[str, Node] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag == _NULL or not key_node.value:
                raise ModelSyntaxError(f"{what} has a key that is not a name", location=self.at(key_node))
            if key_node.tag == _MERGE:
                continue
            if key_node.value in seen:
                raise ModelSyntaxError(
                    f"duplicate key {key_node.value!r} in {what} (first at line {seen[key_node.value].start_mark.line + 1})",
                    location=self.at(key_node),
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

    def items(self, fields: Fields, key: str) -> list[Node]:
        """The items of an optional list field (absent or empty: none)."""
        if key not in fields:
            return []
        node = fields[key][1]
        if isinstance(node, ScalarNode) and node.tag == _NULL:
            return []
        if not isinstance(node, SequenceNode):
            raise ModelSyntaxError(
                f"{key} must be a list (items start with '- '), found {self._describe(node)}",
                location=self.at(node),
            )
        return list(node.value)

    def scalar(self, node: Node, what: str) -> str | None:
        """The text exactly as written (``8080``, ``yes`` and ``1.10`` stay strings)."""
        if not isinstance(node, ScalarNode):
            raise ModelSyntaxError(f"{what} must be a single value, found {self._describe(node)}", location=self.at(node))
        if node.tag == _NULL and node.style is None:
            return None
        return str(node.value)

    def text(self, fields: Fields, key: str) -> str:
        if key not in fields:
            return ""
        return (self.scalar(fields[key][1], key) or "").strip()

    def strings(self, fields: Fields, what: str, separators: str) -> list[str]:
        """A list of strings, or one string split on ``separators`` (``"a, b"``)."""
        if what not in fields:
            return []
        node = fields[what][1]
        if isinstance(node, SequenceNode):
            values = [self.scalar(item, f"an item of {what}") for item in node.value]
            return [v.strip() for v in values if v and v.strip()]
        text = self.scalar(node, what) or ""
        return [part.strip() for part in re.split(separators, text) if part.strip()]

    def properties(self, fields: Fields) -> dict[str, str]:
        """``properties``: names to values, kept as written (``8080`` stays ``"8080"``)."""
        if "properties" not in fields or _empty(fields["properties"][1]):
            return {}
        pairs = self.pairs(fields["properties"][1], "properties")
        return {key: self.scalar(value, f"property {key!r}") or "" for key, _, value in pairs}

    # ---- marks -----------------------------------------------------------------------

    def location(self, node: Node) -> Location:
        """Where an element or relationship was written, down to its last line."""
        return Location(
            file=self.file,
            line=node.start_mark.line + 1,
            column=node.start_mark.column + 1,
            end_line=self._end_line(node),
        )

    def at(self, node: Node) -> SourceLocation:
        """Where a node starts, for an error."""
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

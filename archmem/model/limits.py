"""How deep a model may nest, in every format: one set of limits, one message.

Real models nest a dozen levels at most. The limits keep a hostile or generated file
from costing memory in the square of its depth (each element carries the names of
everything above it: group paths, canonical names, hierarchical identifiers) and keep
every reader that walks a tree (PyYAML's composer, ``json``, ``ArchitectureModel.walk``)
far inside Python's recursion limit, whatever stack the caller already has.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from archmem.errors import ModelSyntaxError, SourceLocation
from archmem.json_input import check_depth

if TYPE_CHECKING:
    from yaml.nodes import Node

MAX_NESTING = 64
"""Blocks inside blocks in a DSL file (groups, elements, deployment nodes, views…),
elements inside elements in a YAML model, deployment nodes inside deployment nodes in
a Structurizr JSON workspace."""

MAX_FILE_DEPTH = 32
"""DSL files that include or extend each other, counted along one chain."""

MAX_DOCUMENT_DEPTH = 2 * MAX_NESTING + 16
"""Lists and mappings inside each other in a YAML or JSON document (an element level
takes two: the element and its ``elements`` list), checked before the tree is built."""

def too_deep(what: str, limit: int, location: SourceLocation) -> ModelSyntaxError:
    """The error for nesting beyond a limit, at the place that went one level too deep."""
    return ModelSyntaxError(
        f"{what} nest more than {limit} deep, archmem's nesting limit",
        location=location,
        hint="flatten the model: no real architecture needs this depth",
    )


def check_json_depth(text: str, file: str) -> None:
    """Refuse a JSON text nested beyond ``MAX_DOCUMENT_DEPTH`` before ``json`` recurses into it."""
    try:
        check_depth(text, MAX_DOCUMENT_DEPTH)
    except json.JSONDecodeError as exc:
        raise too_deep("lists and objects", MAX_DOCUMENT_DEPTH, SourceLocation(file, exc.lineno, exc.colno)) from None


def compose_yaml(text: str, file: str) -> Node | None:
    """``yaml.compose`` with the safe loader, refusing lists and mappings nested beyond
    ``MAX_DOCUMENT_DEPTH`` (a ``ModelSyntaxError`` at the deepest one) before PyYAML's
    recursive composer reaches Python's recursion limit. YAML errors pass through."""
    loader = _depth_limited_loader()(text)
    loader.archmem_file = file
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


@cache
def _depth_limited_loader() -> Any:
    """The loader class, made on first use so the DSL parser never imports PyYAML."""
    import yaml

    class DepthLimitedLoader(yaml.SafeLoader):
        archmem_file = ""
        archmem_depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.archmem_depth += 1
            try:
                if self.archmem_depth > MAX_DOCUMENT_DEPTH:
                    mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]  # PyYAML stub unannotated
                    where = SourceLocation(self.archmem_file, mark.line + 1, mark.column + 1)
                    raise too_deep("lists and mappings", MAX_DOCUMENT_DEPTH, where)
                return super().compose_node(parent, index)
            finally:
                self.archmem_depth -= 1

    return DepthLimitedLoader

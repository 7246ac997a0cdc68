"""The model as data, for ``archmem model --json`` and its table."""

from __future__ import annotations

from typing import Any

from archmem.model.ownership import Ownership
from archmem.model.types import ArchitectureModel


def model_summary(model: ArchitectureModel, ownership: Ownership, *, model_file: str, git: bool) -> dict[str, Any]:
    """Elements (with the size of their code now), relationships, decisions, and the
    code that no element owns."""
    elements = []
    for depth, element in model.walk():
        size = ownership.size(element.id)
        elements.append(
            {
                "id": element.id,
                "name": element.name,
                "kind": element.kind,
                "parent": element.parent,
                "depth": depth,
                "paths": element.paths,
                "paths_from_children": not element.paths and bool(model.effective_paths(element.id)),
                "anchors": element.anchors,
                "tags": element.tags,
                "description": element.description,
                "technology": element.technology,
                "properties": element.properties,
                "size": {"files": size.files, "lines": size.lines},
            }
        )
    return {
        "model": model_file,
        "format": model.format,
        "name": model.name,
        "git": git,
        "elements": elements,
        "relationships": [
            {"source": r.source, "destination": r.destination, "description": r.description, "technology": r.technology}
            for r in model.relationships
        ],
        "decisions": [
            {"id": d.id, "title": d.title, "status": d.status, "path": d.path, "element": d.element}
            for d in model.decisions
        ],
        "deployment_nodes": len(model.deployment),
        "unowned": ownership.unowned,
        "unowned_lines": ownership.unowned_lines,
        "warnings": list(model.warnings),
    }

"""The drift accept files a change adds, edits, withdraws (deletes) or breaks.

An accept (``archmem drift accept``, ``archmem.drift.accepts``) says the model's
description of an element still holds for its code: a team decision, so it is a file
reviewed in the pull request that brings it. This reads each changed accept file at the
merge base and at head (``git show``), as ``memory_changes`` does for memory files, and
says what the change does to the accept, with the element it names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from archmem.clock import format_time
from archmem.drift.accept_folder import SUFFIX
from archmem.drift.accepts import (
    Accept,
    AcceptProblem,
    read_accept_bytes,
    resolve_element,
    unknown_element,
)
from archmem.drift.changes import ChangesSince
from archmem.git.revisions import ChangedFile
from archmem.model.types import ArchitectureModel
from archmem.values import Record

CHANGES = ("added", "edited", "deleted", "unreadable")
_COMPARED = ("element", "commit", "accepted_at", "author", "reason")


@dataclass(repr=False, eq=False)
class AcceptChange(Record):
    """What a change does to one accept file. ``accept`` is the head version (the base
    version for a deleted file, None for a file that does not read); ``element_name``
    is None when the model has no such element, and ``closest`` then names the nearest
    identifiers; ``changes`` is what an added or edited accept vouches for."""

    change: str
    path: str
    accept: Accept | None
    previous: Accept | None = None
    element_name: str | None = None
    closest: list[str] = field(default_factory=list)
    detail: str = ""
    line: int | None = None
    """The line at fault in an unreadable file (or of an unknown element)."""
    changes: ChangesSince | None = None

    @property
    def unknown_element(self) -> bool:
        return self.accept is not None and self.element_name is None

    def to_dict(self) -> dict[str, Any]:
        accept = self.accept
        return {
            "change": self.change, "path": self.path, "detail": self.detail, "line": self.line,
            "element": accept.element if accept else None, "element_name": self.element_name,
            "element_found": not self.unknown_element if accept else None, "closest": self.closest,
            "reason": accept.reason if accept else None, "author": accept.author if accept else None,
            "commit": accept.commit if accept else None,
            "accepted_at": format_time(accept.accepted_at) if accept else None,
            "changes": self.changes.to_dict() if self.changes else None,
        }


def is_accept_file(path: str | None, folder: str) -> bool:
    """A file the accept folder reads as an accept (``*.yaml`` directly in it, not hidden)."""
    prefix = folder.strip("/") + "/"
    if not path or not path.startswith(prefix):
        return False
    name = path[len(prefix):]
    return "/" not in name and name.endswith(SUFFIX) and not name.startswith(".")


def _read(path: str, text: str | None) -> tuple[Accept | None, AcceptProblem | None]:
    if text is None:
        return None, None
    accept, problems = read_accept_bytes(path, text.encode("utf-8"), None)
    return accept, next((p for p in problems if p.severity == "error"), None)


def accept_changes(
    files: Sequence[ChangedFile],
    *,
    folder: str,
    show: Callable[[str, str], str | None],
    base: str,
    head: str,
    model: ArchitectureModel,
    changes_for: Callable[[Accept], ChangesSince | None] | None = None,
) -> list[AcceptChange]:
    """One entry per changed accept file, in the diff's order; ``show(rev, path)`` reads
    a file at a revision, ``changes_for(accept)`` what an accept at head vouches for."""
    found: list[AcceptChange] = []
    for file in files:
        old_path = file.old_path or file.path
        now_text = show(head, file.path) if file.status != "D" and is_accept_file(file.path, folder) else None
        before_text = show(base, old_path) if file.status != "A" and is_accept_file(old_path, folder) else None
        now, problem = _read(file.path, now_text)
        before, _ = _read(old_path, before_text)
        if problem is not None:
            found.append(AcceptChange("unreadable", file.path, None, before, line=problem.line,
                                      detail=f"{problem} (archmem check lists every problem)"))
        elif now is None and before is not None:
            item = _named(AcceptChange("deleted", old_path, before, before), model)
            item.detail = (f"the accept is withdrawn: from this merge, drift of {item.element_name or before.element} "
                           "counts from the model's description again (or an earlier accept)")
            found.append(item)
        elif now is not None:
            item = _named(AcceptChange("added" if before is None else "edited", file.path, now, before), model)
            notes = [_edits(now, before, moved_from=old_path if old_path != file.path else None)]
            if item.unknown_element:
                notes.append(unknown_element(now.element, item.closest) + " (this accept is ignored)")
                item.line = now.line_of("element")
            item.detail = "; ".join(note for note in notes if note)
            if changes_for is not None and not item.unknown_element:
                item.changes = changes_for(item.accept or now)
            found.append(item)
    return found


def _edits(now: Accept, before: Accept | None, *, moved_from: str | None) -> str:
    """What an edit of an accept file changed ("" for a new file)."""
    if before is None:
        return ""
    edited = [name for name in _COMPARED if getattr(now, name) != getattr(before, name)]
    notes = ["changed: " + ", ".join(edited) if edited else "", f"moved from {moved_from}" if moved_from else ""]
    return "; ".join(note for note in notes if note)


def _named(item: AcceptChange, model: ArchitectureModel) -> AcceptChange:
    """The change with its accept's element as the model's identifier and name, or the
    closest identifiers when the model does not have it."""
    assert item.accept is not None
    resolved, near = resolve_element(item.accept, model)
    if near is not None:
        item.closest = near
        return item
    item.accept = resolved
    element = model.get(resolved.element)
    item.element_name = element.name if element is not None else resolved.element
    return item

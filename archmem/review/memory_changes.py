"""The memory files a change adds, supersedes, confirms, edits, archives or deletes.

Memories are files, so a pull request that changes what the team knows shows it in its
diff; this reads each changed memory file at the merge base and at head (``git show``)
and says, in one word and a line, what the change does to the memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from archmem.git.revisions import ChangedFile
from archmem.memory.file_format import MemoryFileError, parse_memory
from archmem.memory.types import Memory
from archmem.values import Record

CHANGES = ("added", "supersedes", "confirmed", "edited", "archived", "renamed", "deleted", "unreadable")
_COMPARED = ("title", "kind", "content", "elements", "anchors", "supersedes")


@dataclass(repr=False, eq=False)
class MemoryChange(Record):
    """What a change does to one memory file; ``memory`` is the head version (the base
    version for a deleted file, None for a file that does not parse)."""

    change: str
    path: str
    memory: Memory | None
    previous: Memory | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        memory = self.memory
        return {
            "change": self.change, "path": self.path, "detail": self.detail,
            "id": memory.id if memory else None, "title": memory.title if memory else None,
            "kind": memory.kind if memory else None, "elements": memory.elements if memory else [],
        }


def _parse(text: str | None) -> tuple[Memory | None, str | None]:
    if text is None:
        return None, None
    try:
        return parse_memory(text).memory, None
    except MemoryFileError as exc:
        return None, str(exc)


def memory_changes(
    files: Sequence[ChangedFile],
    *,
    show: Callable[[str, str], str | None],
    base: str,
    head: str,
    lookup: Callable[[str], Memory | None],
) -> list[MemoryChange]:
    """One entry per changed memory file, in the diff's order; ``show(rev, path)`` reads
    a file at a revision, ``lookup(id)`` finds a memory by id at head."""
    found: list[MemoryChange] = []
    for file in files:
        now, problem = _parse(show(head, file.path) if file.status != "D" else None)
        before, _ = _parse(show(base, file.old_path or file.path) if file.status != "A" else None)
        if file.status == "D":
            found.append(MemoryChange(
                "deleted", file.path, before, before,
                "the file is deleted, so the memory is gone for everyone: archive it instead "
                "(archmem archive ID --reason …), or purge it if it held a secret",
            ))
        elif problem is not None:
            found.append(MemoryChange("unreadable", file.path, None, before,
                                      f"{file.path}:{problem} (archmem check lists every problem)"))
        elif now is None:
            continue
        elif before is None:
            if now.supersedes:
                old = lookup(now.supersedes)
                label = f"{old.label!r} ({old.id})" if old is not None else now.supersedes
                found.append(MemoryChange("supersedes", file.path, now, old, f"replaces {label}"))
            else:
                found.append(MemoryChange("added", file.path, now))
        else:
            found.append(_compare(file, now, before))
    return found


def _compare(file: ChangedFile, now: Memory, before: Memory) -> MemoryChange:
    if now.status == "archived" and before.status != "archived":
        return MemoryChange("archived", file.path, now, before, now.status_reason or "no reason given")
    edited = [name for name in _COMPARED if getattr(now, name) != getattr(before, name)]
    confirmed = now.confirmations > before.confirmations or (
        now.confirmed_at is not None and (before.confirmed_at is None or now.confirmed_at > before.confirmed_at))
    if edited:
        also = f"; confirmed ({now.confirmations} confirmations)" if confirmed else ""
        return MemoryChange("edited", file.path, now, before, "changed: " + ", ".join(edited) + also)
    if confirmed:  # who and why, as the file says them: what a reviewer weighs
        return MemoryChange("confirmed", file.path, now, before,
                            f"{now.confirmations} confirmation{'' if now.confirmations == 1 else 's'}"
                            + (f" by {now.confirmed_by}" if now.confirmed_by else "")
                            + (f": {now.confirm_reason}" if now.confirm_reason else ""))
    if file.old_path and file.old_path != file.path:
        return MemoryChange("renamed", file.path, now, before, f"from {file.old_path}")
    return MemoryChange("edited", file.path, now, before, "changed: author, times or status")

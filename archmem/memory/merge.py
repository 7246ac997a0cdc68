"""The three-way merge of one memory file: what git's merge driver for memory files runs.

Two branches that confirm the same memory change the same two lines (``confirmed``,
``confirmations``); a line merge calls that a conflict, yet the answer is plain: the
later confirmation, counted from both sides. So the three versions are read as
memories and merged field by field:

    confirmed        the later of ours and theirs; its confirmed_by and confirm_reason
                     come with it (who said it and why belong to that confirmation)
    confirmations    ours + theirs − base
    elements,        the union in order (ours first); an item one side removed stays
    anchors          removed
    content          a line merge (edits to different lines both land)
    every other      three-way: from the side that changed it; both sides changing it
    field            differently is a conflict (status and its reason count as one)

A conflict, a version that does not parse, one with keys archmem does not know or
with YAML comments in its front matter (a rewrite would drop either) or versions of
different memories fall back to a line merge of the whole texts (``git merge-file``):
git-style conflict markers for a person to resolve, which ``archmem check`` reports
until they do.

Whatever the method, the merged text is read back by the one reader: one that holds a
credential (two clean halves can join into one) is a conflict, so git stops and says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from archmem.errors import ArchmemError
from archmem.memory.file_format import MemoryFileError, ParsedFile, parse_memory, render_memory
from archmem.memory.types import MAX_COUNT, Memory
from archmem.values import Value
from archmem.yaml_text import comment_line

TextMerge = Callable[[str, str, str], tuple[str, bool]]
"""(base, ours, theirs) → (merged text, conflicted): a line-based three-way merge."""

THREE_WAY_FIELDS = ("kind", "title", "author", "session_id", "created_at", "supersedes")


@dataclass(frozen=True, repr=False, eq=False)
class MergeResult(Value):
    """The merged file, whether it holds conflict markers, and how it was made."""

    text: str
    conflicted: bool
    method: str
    """``same`` (one side is the answer), ``fields`` (merged as a memory) or ``text``
    (a line merge of the whole files)."""
    conflicts: tuple[str, ...] = ()
    """Fields both sides changed differently (why a field merge fell back to text)."""
    reason: str | None = None
    """Why the versions were not merged as memories, when they were not."""


def merge_memory_file(base: str | None, ours: str, theirs: str, text_merge: TextMerge) -> MergeResult:
    """Merge three versions of one memory file; see the module docstring."""
    result = _merge(base or None, ours, theirs, text_merge)
    try:
        parse_memory(result.text)
    except MemoryFileError as exc:
        if exc.rule == "secret":
            return replace(result, conflicted=True, reason=f"line {exc.line} of the merged file {exc.message}")
    return result


def _merge(base: str | None, ours: str, theirs: str, text_merge: TextMerge) -> MergeResult:
    if ours == theirs or theirs == base:
        return MergeResult(ours, False, "same")
    if ours == base:
        return MergeResult(theirs, False, "same")
    versions, reason = _read_versions(base, ours, theirs)
    if versions is None:
        return _merge_text(base, ours, theirs, text_merge, reason=reason)
    merged, conflicts = merge_memories(*versions, text_merge=text_merge)
    if merged is None:
        return _merge_text(base, ours, theirs, text_merge, conflicts=conflicts,
                           reason=f"both sides changed {', '.join(conflicts)}")
    return MergeResult(render_memory(merged), False, "fields")


def merge_memories(
    base: Memory | None, ours: Memory, theirs: Memory, *, text_merge: TextMerge
) -> tuple[Memory | None, tuple[str, ...]]:
    """(the merged memory, ()) or (None, the fields both sides changed differently).
    Without a base (both sides added the file), equal fields merge and others conflict."""
    update: dict[str, Any] = {}
    conflicts: list[str] = []
    for name in THREE_WAY_FIELDS:
        value, clash = _three_way(_get(base, name), getattr(ours, name), getattr(theirs, name))
        update[name] = value
        if clash:
            conflicts.append(name)
    status, clash = _three_way(
        _get(base, "status", "status_reason"), (ours.status, ours.status_reason), (theirs.status, theirs.status_reason)
    )
    update["status"], update["status_reason"] = status
    if clash:
        conflicts.append("status")
    content, clash = _three_way(_get(base, "content"), ours.content, theirs.content)
    if clash:
        content, clash = _merge_content(base.content if base else "", ours.content, theirs.content, text_merge)
    update["content"] = content
    if clash:
        conflicts.append("content")
    if conflicts:
        return None, tuple(conflicts)
    update["elements"] = merge_lists(base.elements if base else None, ours.elements, theirs.elements)
    update["anchors"] = merge_lists(base.anchors if base else None, ours.anchors, theirs.anchors)
    later = theirs if _later(theirs.confirmed_at, ours.confirmed_at) else ours
    update["confirmed_at"], update["confirmed_by"], update["confirm_reason"] = (
        later.confirmed_at, later.confirmed_by, later.confirm_reason)
    if base is None:
        update["confirmations"] = max(ours.confirmations, theirs.confirmations)
    else:
        update["confirmations"] = min(max(0, ours.confirmations + theirs.confirmations - base.confirmations),
                                      MAX_COUNT)  # what the index holds
    return replace(ours, **update), ()


def merge_lists(base: Sequence[str] | None, ours: Sequence[str], theirs: Sequence[str]) -> list[str]:
    """Ours in order, then what theirs added; an item either side removed from the
    base stays removed (without a base: the union)."""
    removed = set() if base is None else (set(base) - set(ours)) | (set(base) - set(theirs))
    merged = [item for item in ours if item not in removed]
    merged += [item for item in theirs if item not in merged and item not in removed]
    return merged


_MISSING = object()


def _later(one: datetime | None, other: datetime | None) -> bool:
    """Whether ``one`` is a confirmation after ``other`` (a tie is not: ours stays)."""
    return one is not None and (other is None or one > other)


def _get(memory: Memory | None, *names: str) -> Any:
    if memory is None:
        return _MISSING
    values = tuple(getattr(memory, name) for name in names)
    return values[0] if len(values) == 1 else values


def _three_way(base: Any, ours: Any, theirs: Any) -> tuple[Any, bool]:
    """(the value, conflicted): the side that changed it, or ours when both agree."""
    if ours == theirs or theirs == base:
        return ours, False
    if ours == base:
        return theirs, False
    return ours, True


def _merge_content(base: str, ours: str, theirs: str, text_merge: TextMerge) -> tuple[str, bool]:
    from archmem.memory.links import validate_content

    text, conflicted = text_merge(base + "\n" if base else "", ours + "\n", theirs + "\n")
    if conflicted:
        return ours, True
    try:
        return validate_content(text), False
    except ArchmemError:
        return ours, True


def _read_versions(
    base: str | None, ours: str, theirs: str
) -> tuple[tuple[Memory | None, Memory, Memory] | None, str | None]:
    parsed: list[ParsedFile | None] = []
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        if text is None:
            parsed.append(None)
            continue
        try:
            found = parse_memory(text)
        except MemoryFileError as exc:
            return None, f"{name} is not a memory file ({exc})"
        if found.warnings:
            return None, f"{name} has keys archmem does not know ({found.warnings[0][1]})"
        comment = comment_line(_front_matter(text), first_line=2)
        if comment is not None:
            return None, f"{name} has a YAML comment at line {comment}, which a rewrite would drop"
        parsed.append(found)
    memories = [p.memory if p else None for p in parsed]
    ids = {memory.id for memory in memories if memory is not None}
    if len(ids) > 1:
        return None, f"the versions hold different memories ({', '.join(sorted(ids))})"
    return (memories[0], memories[1], memories[2]), None  # type: ignore[return-value]  # ours, theirs parsed


def _front_matter(text: str) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), len(lines))
    return "\n".join(lines[1:end])


def _merge_text(
    base: str | None, ours: str, theirs: str, text_merge: TextMerge, *, conflicts: tuple[str, ...] = (),
    reason: str | None = None,
) -> MergeResult:
    text, conflicted = text_merge(base or "", ours, theirs)
    return MergeResult(text, conflicted, "text", conflicts, reason)

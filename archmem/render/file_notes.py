"""File notes: the memories an agent is shown when it reads or edits a file, from a
prepared index (plain data, kept as JSON by the edit hook so a call reads no model).

The index is built once from the model, the active memories and drift: per element its
own path globs (as regular expressions) and its memories, VERIFY first, then pitfalls,
conventions, notes; and the memories anchored to files. A file's elements are those
whose own globs hold it, less any of them whose descendant holds it too (the component,
not its container); its anchors are the memories that name the file, a symbol in it or
a folder above it. Each element and each anchored memory is shown once per session; the
text stays within a budget and says what it left out.

Pure, standard library only at import: the edit hook imports this on every call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from archmem.memory.types import Memory
    from archmem.model.types import ArchitectureModel

INDEX_VERSION = 1
DEFAULT_LIMIT = 1500
"""Characters of notes one hook call adds to the context (about 400 tokens)."""
LINE_CHARS = 110
"""A memory's title (or first line) is cut here: the note points, recall explains."""
MORE = "… and {left} more: `archmem list --element ID` lists them all."
KIND_ORDER = {"pitfall": 0, "convention": 1, "note": 2, "session_outcome": 3}


def _line(memory: Memory) -> str:
    text = memory.title or next((line.strip() for line in memory.content.splitlines() if line.strip()), memory.id)
    text = " ".join(text.split())
    return text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1].rstrip() + "…"


def _note(memory: Memory, verify: str | None) -> dict[str, Any]:
    return {"id": memory.id, "kind": memory.kind, "line": _line(memory), "verify": verify is not None,
            "elements": list(memory.elements)}


def _rank(note: dict[str, Any]) -> tuple[int, int]:
    return (0 if note["verify"] else 1, KIND_ORDER.get(note["kind"], 9))


def empty_index() -> dict[str, Any]:
    """An index with nothing to show."""
    return {"version": INDEX_VERSION, "elements": {}, "notes": {}, "anchors": []}


def build_index(
    model: ArchitectureModel, memories: Iterable[Memory], verify: Callable[[Memory], str | None]
) -> dict[str, Any]:
    """The index the edit hook reads: elements with their own globs as regular
    expressions and their parents, each element's notes in the order they are shown,
    and the anchored notes."""
    from archmem.model.paths import glob_to_regex

    elements = {
        element.id: {"name": element.name, "parent": element.parent,
                     "patterns": [glob_to_regex(glob) for glob in element.paths]}
        for element in model.elements
    }
    notes: dict[str, list[dict[str, Any]]] = {}
    anchors: list[list[Any]] = []
    for memory in sorted(memories, key=lambda m: m.created_at, reverse=True):
        note = _note(memory, verify(memory))
        for element_id in memory.elements:
            if element_id in elements:
                notes.setdefault(element_id, []).append(note)
        anchors.extend([anchor, note] for anchor in memory.anchors)
    for listed in notes.values():
        listed.sort(key=_rank)  # stable: newest first within a rank
    return {"version": INDEX_VERSION, "elements": elements, "notes": notes, "anchors": anchors}


def elements_of(index: dict[str, Any], path: str) -> list[str]:
    """The elements whose own globs hold ``path`` (repo-relative, posix), less those
    with a descendant that holds it too."""
    elements = index["elements"]
    direct = [element_id for element_id, element in elements.items()
              if element["patterns"] and re.fullmatch("|".join(element["patterns"]), path)]
    above: set[str] = set()
    for element_id in direct:
        parent = elements[element_id]["parent"]
        while parent is not None and parent not in above:
            above.add(parent)
            parent = elements.get(parent, {}).get("parent")
    return [element_id for element_id in direct if element_id not in above]


def anchored(index: dict[str, Any], path: str) -> list[dict[str, Any]]:
    """The notes anchored to ``path``: the file, a ``file#symbol`` in it, or a folder above it."""
    parts = path.split("/")
    folders = {"/".join(parts[:i]) for i in range(1, len(parts))}
    found: dict[str, dict[str, Any]] = {}
    for anchor, note in index["anchors"]:
        anchor = anchor.rstrip("/")
        if anchor == path or anchor.startswith(path + "#") or anchor in folders:
            found.setdefault(note["id"], note)
    return sorted(found.values(), key=_rank)


def _entry(note: dict[str, Any], where: str) -> str:
    mark = "VERIFY " if note["verify"] else ""
    return f"- {mark}[{note['kind']}] {note['line']} ({note['id']}; {where})"


def file_notes(
    index: dict[str, Any], paths: Sequence[str], shown: Iterable[str] = (), *, limit: int = DEFAULT_LIMIT
) -> tuple[str, list[str]]:
    """The notes for ``paths`` not shown yet this session, as text within ``limit``
    characters ('' when there are none), and the keys (``element:ID``, ``memory:ID``)
    to remember as shown."""
    seen = set(shown)
    keys: list[str] = []
    groups: list[tuple[str, list[dict[str, Any]]]] = []
    printed: set[str] = set()
    for path in dict.fromkeys(paths):
        for element_id in elements_of(index, path):
            key = f"element:{element_id}"
            if key in seen:
                continue
            seen.add(key)
            keys.append(key)
            notes = [n for n in index["notes"].get(element_id, []) if n["id"] not in printed]
            printed.update(n["id"] for n in notes)
            for note in notes:  # shown here, so not again as an anchor
                seen.add(f"memory:{note['id']}")
                keys.append(f"memory:{note['id']}")
            if notes:
                groups.append((element_id, notes))
        pinned = []
        for note in anchored(index, path):
            key = f"memory:{note['id']}"
            if key in seen:
                continue
            seen.add(key)
            keys.append(key)
            printed.add(note["id"])
            pinned.append(note)
        if pinned:
            groups.append((path, pinned))
    if not groups:
        return "", keys
    return _render(groups, limit), keys


def _render(groups: list[tuple[str, list[dict[str, Any]]]], limit: int) -> str:
    """VERIFY first across every group, then each group's notes; cut at ``limit``."""
    entries = [(note, where) for where, notes in groups for note in notes]
    entries.sort(key=lambda pair: _rank(pair[0])[0])  # stable: VERIFY first, groups in order
    head = "archmem: what the team noted about the code you are working on (shown once per session):"
    tail = "VERIFY: drift since it was confirmed; check it, then confirm_memory or supersede it."
    lines = [head]
    used = len(head) + len(tail) + len(MORE) + 3
    left = 0
    for note, where in entries:
        entry = _entry(note, where)
        if used + len(entry) + 1 > limit:
            left += 1
            continue
        lines.append(entry)
        used += len(entry) + 1
    if left:
        lines.append(MORE.format(left=left))
    if any(note["verify"] for note, _ in entries):
        lines.append(tail)
    return "\n".join(lines)

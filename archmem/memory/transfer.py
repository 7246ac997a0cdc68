"""Export and import memories as JSON Lines, one memory a line, every field kept.

Ids and timestamps are kept exactly, so export → import → export is byte-identical
and a labelled test set can be loaded with its history. Import checks every line
first and, unless ``partial``, takes nothing when any line is wrong. Import *merges*:
a line for a memory the store has is a newer or an older version of it, and the one
confirmed later wins (as two clones' files would); chains are applied as the lines
draw them, and what is superseded follows from the chain, whatever ``status`` says.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import IO, Any, NamedTuple

from archmem.clock import TimeRangeError, format_time, parse_time
from archmem.errors import ArchmemError, InvalidInputError
from archmem.json_input import load_json
from archmem.memory import links as linkrules
from archmem.memory.fields import MAX_QUOTED_CHARS, clean_line
from archmem.memory.files import revised
from archmem.memory.kinds import parse_kind
from archmem.memory.lifecycle import (
    MemoryContext,
    content_hash,
    normalize_anchor,
    resolve_elements,
    search_fields,
)
from archmem.memory.linking import write_links
from archmem.memory.secrets import check_fields
from archmem.memory.types import MAX_COUNT, MEMORY_STATUSES, Memory
from archmem.values import Record

FIELDS = (
    "id", "title", "kind", "content", "elements", "anchors", "author", "session_id", "created_at",
    "confirmed_at", "confirmed_by", "confirm_reason", "confirmations", "supersedes", "superseded_by", "status",
    "status_reason", "exposures", "citations",
)


def memory_to_json(memory: Memory) -> str:
    record: dict[str, Any] = {}
    for name in FIELDS:
        value = getattr(memory, name)
        if name in ("created_at", "confirmed_at") and value is not None:
            value = format_time(value)
        record[name] = value
    if memory.private:
        record["private"] = True
    return json.dumps(record, ensure_ascii=False)


def export_lines(ctx: MemoryContext) -> Iterator[str]:
    """Every memory, whatever its status, in the order it was written, read a chunk at a
    time (an export holds no more memories than an import does)."""
    for memory in ctx.store.iter_memories(status=None):
        yield memory_to_json(memory)


@dataclass(repr=False, eq=False)
class ImportReport(Record):
    """What an import did, memory by memory, and the errors it met."""

    imported: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    """Memories the store had, replaced by the line's later-confirmed version."""
    unchanged: list[str] = field(default_factory=list)
    """Memories the store had in this version or a later-confirmed one."""
    errors: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"imported": len(self.imported), "updated": len(self.updated), "unchanged": len(self.unchanged),
                "errors": self.errors}


class ImportFailed(InvalidInputError):
    """Some lines could not be taken; nothing was imported (without --partial)."""

    kind = "import_failed"

    def __init__(self, source: str, report: ImportReport) -> None:
        self.report = report
        lines = [f"{source}:{e['line']}: {e['message']}" for e in report.errors[:20]]
        more = len(report.errors) - 20
        if more > 0:
            lines.append(f"… and {more} more")
        super().__init__(
            f"{len(report.errors)} line(s) could not be imported; nothing was imported\n  " + "\n  ".join(lines),
            hint="fix them, or pass --partial to import the other lines",
        )

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["errors"] = self.report.errors
        return data


def _parse_line(ctx: MemoryContext, text: str) -> Memory:
    try:
        record = load_json(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"invalid JSON at column {exc.colno}: {exc.msg}") from None
    if not isinstance(record, dict):
        raise InvalidInputError("each line must be a JSON object")
    # every text a line holds, as JSON decodes it (``\u0041KIA…`` is ``AKIA…``), before
    # any check below could quote it back
    check_fields({name: record.get(name) for name in FIELDS})
    unknown = sorted(set(record) - set(FIELDS) - {"private"})
    if unknown:
        raise InvalidInputError(f"unknown field(s) {', '.join(unknown)}; fields are {', '.join(FIELDS)}")
    for required in ("id", "kind", "content", "created_at"):
        if not record.get(required):
            raise InvalidInputError(f"missing {required!r}")
    data: dict[str, Any] = {
        name: _optional_text(record, name)
        for name in ("id", "title", "author", "session_id", "supersedes", "status_reason", "confirmed_by",
                     "confirm_reason")
    }
    data["kind"] = parse_kind(_optional_text(record, "kind") or "")
    content = record["content"]
    if not isinstance(content, str):
        raise InvalidInputError(f"'content' must be text, not {type(content).__name__}")
    data["content"] = linkrules.validate_content(content)
    data.update({name: clean_line(data[name], name)
                 for name in ("id", "author", "session_id", "confirmed_by", "confirm_reason")})
    if data["title"]:
        data["title"] = linkrules.validate_title(data["title"])
    for name in ("created_at", "confirmed_at"):
        if record.get(name) is not None:
            try:
                data[name] = parse_time(str(record[name]))
            except ValueError as exc:
                detail = str(exc) if isinstance(exc, TimeRangeError) else "ISO 8601 expected"
                raise InvalidInputError(f"bad date in {name!r}: {json.dumps(record[name])[:MAX_QUOTED_CHARS]} "
                                        f"({detail})") from None
    status = record.get("status") or "active"
    if status not in MEMORY_STATUSES:
        raise InvalidInputError(f"bad status {status!r}; one of {', '.join(MEMORY_STATUSES)}")
    data["status"] = "archived" if status == "archived" else "active"  # superseded follows from the chain
    if data["status"] != "archived":
        data["status_reason"] = None
    if data.get("confirmed_at") is None:  # who and why belong to a confirmation, as in a file
        data["confirmed_by"] = data["confirm_reason"] = None
    data["elements"] = resolve_elements(ctx.model, _text_list(record, "elements"))
    data["anchors"] = [normalize_anchor(a) for a in _text_list(record, "anchors")]
    for name in ("confirmations", "exposures", "citations"):
        value = record.get(name, 0) or 0
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
            raise InvalidInputError(f"{name!r} must be a whole number from 0 to {MAX_COUNT}, "
                                    f"not {json.dumps(value)[:MAX_QUOTED_CHARS]}")
        data[name] = value
    private = record.get("private", False)
    if not isinstance(private, bool):
        raise InvalidInputError(f"'private' must be true or false, not {private!r}")
    data["private"] = private
    try:
        return Memory(**data)
    except ValueError as exc:
        raise InvalidInputError(f"invalid memory: {exc}") from None


def _optional_text(record: dict[str, Any], name: str) -> str | None:
    value = record.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InvalidInputError(f"{name!r} must be text, not {type(value).__name__}")
    return value.strip() or None


def _text_list(record: dict[str, Any], name: str) -> list[str]:
    value = record.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidInputError(f"{name!r} must be a list of text, not {json.dumps(value)[:60]}")
    return [item for item in value if item.strip()]


class Line(NamedTuple):
    """What the chain checks need of one parsed line; the memory itself is parsed again
    when it is written, so an import holds no more than this per line."""

    number: int
    id: str
    title: str | None
    supersedes: str | None


def import_lines(ctx: MemoryContext, lines: Iterable[str], *, partial: bool = False, source: str = "-") -> ImportReport:
    """Two passes over ``lines`` (spooled to a temporary file when they can be read only
    once): every line checked first, then written; memory stays flat in their number."""
    if iter(lines) is lines:
        with _spooled(lines) as again:
            return _import(ctx, again, partial=partial, source=source)
    return _import(ctx, lines, partial=partial, source=source)


def _import(ctx: MemoryContext, lines: Iterable[str], *, partial: bool, source: str) -> ImportReport:
    report = ImportReport()
    parsed: list[Line] = []
    for number, memory in _memories(ctx, lines, report):
        parsed.append(Line(number, memory.id, memory.title, memory.supersedes))
    supersedes = _resolve_chains(ctx, parsed, report)
    if report.errors and not partial:
        raise ImportFailed(source, report)
    failed = {e["line"] for e in report.errors}
    del parsed
    with ctx.store.transaction():
        written: list[str] = []
        for number, memory in _memories(ctx, lines, None):
            if number in failed:
                continue
            if number in supersedes:
                memory = replace(memory, supersedes=supersedes[number])
            outcome = _merge_one(ctx, memory)
            if outcome.startswith("error: "):
                report.errors.append({"line": number, "message": outcome[len("error: "):]})
            else:
                getattr(report, outcome).append(memory.id)
                if outcome != "unchanged":
                    written.append(memory.id)
        if report.errors and not partial:
            raise ImportFailed(source, report)
        ctx.store.derive_chains()
        for memory in _stored(ctx, written):
            write_links(ctx, memory.id, memory.content)
        for memory in _stored(ctx, written):
            if memory.title and memory.status == "active":
                ctx.store.resolve_pending_links(linkrules.normalize_title(memory.title), "memory", memory.id)
        ctx.store.retarget_links_to_heads()
    return report


def _memories(ctx: MemoryContext, lines: Iterable[str], report: ImportReport | None) -> Iterator[tuple[int, Memory]]:
    """The memories of the non-blank lines, numbered; a line that does not parse goes to
    ``report`` (none on the second pass: those lines are skipped by number)."""
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            yield number, _parse_line(ctx, raw)
        except ArchmemError as exc:
            if report is not None:
                report.errors.append({"line": number, "message": exc.message})


STORED_CHUNK = 500


def _stored(ctx: MemoryContext, ids: list[str]) -> Iterator[Memory]:
    """The store's current version of ``ids``, in their order, a chunk at a time."""
    for start in range(0, len(ids), STORED_CHUNK):
        chunk = ids[start:start + STORED_CHUNK]
        found = ctx.store.get_memories(chunk)
        yield from (found[i] for i in chunk if i in found)


@contextmanager
def _spooled(lines: Iterable[str]) -> Iterator[Iterable[str]]:
    """Lines that can be read once (stdin), kept in a temporary file to be read twice."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n") as spool:
        for line in lines:
            spool.write(line.rstrip("\r\n").replace("\n", " ") + "\n")
        yield _SpooledLines(spool)


@dataclass(repr=False, eq=False)
class _SpooledLines(Record):
    """Lines spooled to a temporary file, read back in order."""

    spool: IO[str]

    def __iter__(self) -> Iterator[str]:
        self.spool.seek(0)
        return (line.rstrip("\n") for line in self.spool)


def _resolve_chains(ctx: MemoryContext, parsed: list[Line], report: ImportReport) -> dict[int, str]:
    """``supersedes`` may name an id or a title, in the file or in the store. A chain the
    lines would fork (two successors of one memory) or close into a cycle is an error.
    Returns the id each line's ``supersedes`` names, by line number."""
    by_id = {m.id: m for m in parsed}
    by_title = {linkrules.normalize_title(m.title): m for m in parsed if m.title}
    resolved: dict[int, str] = {}
    successor_of: dict[str, tuple[int, str]] = {}
    for line in parsed:
        if not line.supersedes:
            continue
        target_id = line.supersedes
        if target_id not in by_id:
            target = by_title.get(linkrules.normalize_title(target_id))
            stored = ctx.store.get_memory(target_id) or next(
                iter(ctx.store.find_by_title(linkrules.normalize_title(target_id), active_only=False)), None
            )
            chosen = target or stored
            if chosen is None:
                report.errors.append({"line": line.number, "message": f"supersedes {target_id!r}: no such memory"})
                continue
            target_id = chosen.id
            resolved[line.number] = target_id
        if target_id == line.id:
            report.errors.append({"line": line.number, "message": f"{line.id!r} supersedes itself"})
            continue
        earlier = successor_of.get(target_id)
        stored_head = ctx.store.get_memory(target_id)
        other = earlier[1] if earlier else (
            stored_head.superseded_by if stored_head and stored_head.superseded_by != line.id else None
        )
        if other is not None and other != line.id:
            report.errors.append({
                "line": line.number,
                "message": f"{target_id!r} is already superseded by {other!r}: two successors would fork "
                           "the chain (supersede the newer one instead)",
            })
            continue
        successor_of[target_id] = (line.number, line.id)
    chain = {m.id: resolved.get(m.number, m.supersedes) for m in parsed if m.supersedes}
    for line in parsed:
        seen = {line.id}
        step = chain.get(line.id)
        while step is not None:
            if step in seen:
                report.errors.append({"line": line.number, "message": f"supersede cycle through {line.id!r}"})
                break
            seen.add(step)
            older = ctx.store.get_memory(step) if step not in chain else None
            step = chain.get(step, older.supersedes if older else None)
    return resolved


def _merge_one(ctx: MemoryContext, memory: Memory) -> str:
    """Insert a new memory, or merge a version of a known one (the later confirmation
    wins); returns ``imported``, ``updated``, ``unchanged`` or ``error: …``."""
    existing = ctx.store.get_memory(memory.id)
    if existing is None:
        if memory.title and memory.status == "active":
            clash = ctx.store.find_by_title(linkrules.normalize_title(memory.title), active_only=True)
            if clash and clash[0].id != memory.supersedes:
                return f"error: an active memory is already titled {memory.title!r} ({clash[0].id})"
        if ctx.files is not None:
            ctx.files.write(memory)
        ctx.store.insert_memory(
            memory,
            title_key=linkrules.normalize_title(memory.title) if memory.title else None,
            content_hash=content_hash(memory.content),
            **search_fields(ctx.model, memory.title, memory.content, memory.elements),
        )
        return "imported"
    if existing.kind != memory.kind or existing.created_at != memory.created_at:
        return f"error: a different memory with id {memory.id!r} is in the store (another kind or creation time)"
    if memory.last_confirmed <= existing.last_confirmed and _same_version(existing, memory):
        return "unchanged"
    if memory.last_confirmed < existing.last_confirmed:
        return "unchanged"  # the store's version was confirmed later: it wins
    merged = revised(
        existing, title=memory.title, content=memory.content, author=memory.author,
        confirmed_at=memory.confirmed_at, confirmed_by=memory.confirmed_by, confirm_reason=memory.confirm_reason,
        confirmations=max(memory.confirmations, existing.confirmations),
        supersedes=memory.supersedes or existing.supersedes,
        status=memory.status if memory.status == "archived" else "active", status_reason=memory.status_reason,
        elements=list(dict.fromkeys(existing.elements + memory.elements)),
        anchors=list(dict.fromkeys(existing.anchors + memory.anchors)),
    )
    if ctx.files is not None:
        ctx.files.write(merged)
    ctx.store.update_memory(
        memory.id, title=merged.title,
        title_key=linkrules.normalize_title(merged.title) if merged.title else None,
        content=merged.content, content_hash=content_hash(merged.content), author=merged.author,
        confirmed_at=merged.confirmed_at, confirmed_by=merged.confirmed_by, confirm_reason=merged.confirm_reason,
        confirmations=merged.confirmations, supersedes=merged.supersedes, status=merged.status,
        status_reason=merged.status_reason,
        **search_fields(ctx.model, merged.title, merged.content, merged.elements),
    )
    ctx.store.add_elements(memory.id, memory.elements)
    ctx.store.add_anchors(memory.id, memory.anchors)
    return "updated"


def _same_version(a: Memory, b: Memory) -> bool:
    fields = {"id", "title", "kind", "content", "elements", "anchors", "author", "created_at", "confirmed_at",
              "confirmed_by", "confirm_reason", "confirmations", "supersedes", "status_reason"}
    return all(getattr(a, name) == getattr(b, name) for name in fields) and (
        (a.status == "archived") == (b.status == "archived")
    )

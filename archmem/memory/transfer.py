"""Export and import memories as JSON Lines, one memory a line, every field kept.

Ids and timestamps are kept exactly, so export → import → export is byte-identical
and a labelled test set can be loaded with its history. Import checks every line
first and, unless ``partial``, takes nothing when any line is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from archmem.clock import format_time, parse_time
from archmem.errors import ArchmemError, InvalidInputError
from archmem.memory import links as linkrules
from archmem.memory.kinds import parse_kind
from archmem.memory.lifecycle import (
    MemoryContext,
    content_hash,
    normalize_anchor,
    resolve_elements,
    search_fields,
    write_links,
)
from archmem.memory.fields import clean_line
from archmem.memory.secrets import check_fields
from archmem.memory.types import MEMORY_STATUSES, Memory

FIELDS = (
    "id", "title", "kind", "content", "elements", "anchors", "author", "session_id", "created_at",
    "confirmed_at", "confirmations", "supersedes", "superseded_by", "status", "status_reason",
    "exposures", "citations",
)


def memory_to_json(memory: Memory) -> str:
    record: dict[str, Any] = {}
    for name in FIELDS:
        value = getattr(memory, name)
        if name in ("created_at", "confirmed_at") and value is not None:
            value = format_time(value)
        record[name] = value
    return json.dumps(record, ensure_ascii=False)


def export_lines(ctx: MemoryContext) -> Iterator[str]:
    """Every memory, whatever its status, in the order it was written."""
    for memory in ctx.store.list_memories(status=None):
        yield memory_to_json(memory)


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"imported": len(self.imported), "unchanged": len(self.unchanged), "errors": self.errors}


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
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"invalid JSON at column {exc.colno}: {exc.msg}") from None
    if not isinstance(record, dict):
        raise InvalidInputError("each line must be a JSON object")
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        raise InvalidInputError(f"unknown field(s) {', '.join(unknown)}; fields are {', '.join(FIELDS)}")
    for required in ("id", "kind", "content", "created_at"):
        if not record.get(required):
            raise InvalidInputError(f"missing {required!r}")
    data = dict(record)
    data["kind"] = parse_kind(str(record["kind"]))
    data["content"] = linkrules.validate_content(str(record["content"]))
    check_fields({name: record.get(name) for name in ("title", "author", "status_reason", "content")})
    data.update({name: clean_line(record.get(name), name) for name in ("id", "author", "session_id")})
    if record.get("title"):
        data["title"] = linkrules.validate_title(str(record["title"]))
    for name in ("created_at", "confirmed_at"):
        if record.get(name) is not None:
            try:
                data[name] = parse_time(str(record[name]))
            except ValueError:
                raise InvalidInputError(f"bad date in {name!r}: {record[name]!r} (ISO 8601 expected)") from None
    status = record.get("status") or "active"
    if status not in MEMORY_STATUSES:
        raise InvalidInputError(f"bad status {status!r}; one of {', '.join(MEMORY_STATUSES)}")
    data["status"] = status
    data["elements"] = resolve_elements(ctx.model, record.get("elements") or [])
    data["anchors"] = [normalize_anchor(a) for a in record.get("anchors") or []]
    for name in ("confirmations", "exposures", "citations"):
        value = record.get(name, 0) or 0
        if not isinstance(value, int) or value < 0:
            raise InvalidInputError(f"{name!r} must be a whole number ≥ 0, not {value!r}")
        data[name] = value
    try:
        return Memory.model_validate(data)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise InvalidInputError(f"invalid memory: {exc}") from None


def import_lines(ctx: MemoryContext, lines: Iterable[str], *, partial: bool = False, source: str = "-") -> ImportReport:
    report = ImportReport()
    parsed: list[tuple[int, Memory]] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            parsed.append((number, _parse_line(ctx, raw)))
        except ArchmemError as exc:
            report.errors.append({"line": number, "message": exc.message})
    # supersedes may name a title or an id, in the file or already in the store
    by_id = {m.id: m for _, m in parsed}
    by_title = {linkrules.normalize_title(m.title): m for _, m in parsed if m.title}
    for number, memory in parsed:
        if memory.supersedes and memory.supersedes not in by_id:
            target = by_title.get(linkrules.normalize_title(memory.supersedes))
            stored = ctx.store.get_memory(memory.supersedes) or next(
                iter(ctx.store.find_by_title(linkrules.normalize_title(memory.supersedes), active_only=False)), None
            )
            chosen = target or stored
            if chosen is None:
                report.errors.append({"line": number, "message": f"supersedes {memory.supersedes!r}: no such memory"})
            else:
                memory.supersedes = chosen.id
    for _, memory in parsed:
        if memory.supersedes and memory.supersedes in by_id and not by_id[memory.supersedes].superseded_by:
            by_id[memory.supersedes].superseded_by = memory.id
    failed_lines = {e["line"] for e in report.errors}
    if report.errors and not partial:
        raise ImportFailed(source, report)
    with ctx.store.transaction():
        written: list[Memory] = []
        for number, memory in parsed:
            if number in failed_lines:
                continue
            existing = ctx.store.get_memory(memory.id)
            if existing is not None:
                if memory_to_json(existing) == memory_to_json(memory):
                    report.unchanged.append(memory.id)
                else:
                    report.errors.append(
                        {"line": number, "message": f"a different memory with id {memory.id!r} is already in the store"}
                    )
                continue
            if memory.title and memory.status == "active":
                clash = ctx.store.find_by_title(linkrules.normalize_title(memory.title), active_only=True)
                if clash:
                    report.errors.append(
                        {"line": number, "message": f"an active memory is already titled {memory.title!r} ({clash[0].id})"}
                    )
                    continue
            ctx.store.insert_memory(
                memory,
                title_key=linkrules.normalize_title(memory.title) if memory.title else None,
                content_hash=content_hash(memory.content),
                **search_fields(ctx.model, memory.title, memory.content, memory.elements),
            )
            written.append(memory)
            report.imported.append(memory.id)
        if report.errors and not partial:
            raise ImportFailed(source, report)
        for memory in written:
            write_links(ctx, memory.id, memory.content)
        for memory in written:
            if memory.title and memory.status == "active":
                ctx.store.resolve_pending_links(linkrules.normalize_title(memory.title), "memory", memory.id)
    return report


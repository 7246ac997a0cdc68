"""One memory as one Markdown file with YAML front matter: what a team commits and reviews.

The front matter holds what a memory *is* (id, kind, title, elements, anchors, author,
times, who gave the last confirmation and why, the count of confirmations, what it
supersedes, archived and why); the body is the content, so ``[[wikilinks]]`` read
naturally in any Markdown viewer. What is derived (superseded by whom) or personal to
one clone (exposures, citations, vectors) is never written: it lives in the local
index. Files are rendered deterministically, one value a line, so two branches that
touch different memories never conflict and a diff reads well.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from archmem.clock import TimeRangeError, format_time, parse_time
from archmem.errors import ArchmemError, InvalidInputError, closest
from archmem.memory import links as linkrules
from archmem.memory.fields import MAX_QUOTED_CHARS, clean_line, quoted
from archmem.memory.types import MAX_COUNT, MEMORY_KINDS, Memory
from archmem.patterns import lazy
from archmem.values import Record
from archmem.yaml_text import YamlTextError, read_mapping, yaml_scalar

FRONT_MATTER = "---"
FIELDS: tuple[str, ...] = (
    "id", "kind", "title", "elements", "anchors", "author", "session", "created", "confirmed",
    "confirmed_by", "confirm_reason", "confirmations", "supersedes", "status", "reason",
)
"""The front matter's keys, in the order they are written."""
_KNOWN_KEYS = frozenset(FIELDS)
FILE_STATUSES = ("active", "archived")
"""What a file may say of itself; "superseded" follows from another file's ``supersedes``."""
MAX_SLUG_CHARS = 48
MAX_FILE_BYTES = 256 * 1024
"""Content is capped at 20,000 characters; a file far over that is not a memory."""
SECRET_ADVICE = "remove it, and rotate it if it was ever committed: git history keeps it"

_ID = lazy(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}")
_KEY = lazy(r"([A-Za-z_][\w-]*)\s*:")
"""A front-matter line's key, for pointing at the line."""


@dataclass(repr=False, eq=False)
class MemoryFileError(Record, Exception):
    """A memory file that cannot be read as a memory, with where (1-based line, column)
    and which of ``archmem check``'s rules it breaks (``unreadable``,
    ``conflict-markers``, ``secret``, ``schema``)."""

    message: str
    line: int = 1
    column: int = 1
    rule: str = "schema"

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.message}"


@dataclass(repr=False, eq=False)
class ParsedFile(Record):
    """A memory read from its file, with the non-fatal remarks (unknown keys, a status
    that is derived)."""

    memory: Memory
    warnings: list[tuple[int, str]] = field(default_factory=list)
    source: _FrontSource | None = None
    """The file's lines, for ``lines``."""

    @property
    def lines(self) -> dict[str, int]:
        """The line each front-matter key stands on (for messages about it), worked out
        when asked: a sync reading every file never asks."""
        return self.source.keys if self.source is not None else {}


# ---- writing -------------------------------------------------------------------------


def render_memory(memory: Memory) -> str:
    """The file for a memory, byte-for-byte the same for the same memory."""
    out = [FRONT_MATTER, f"id: {yaml_scalar(memory.id)}", f"kind: {memory.kind}"]
    if memory.title:
        out.append(f"title: {yaml_scalar(memory.title)}")
    for key, values in (("elements", memory.elements), ("anchors", memory.anchors)):
        if values:
            out.append(f"{key}:")
            out.extend(f"  - {yaml_scalar(value)}" for value in values)
    if memory.author:
        out.append(f"author: {yaml_scalar(memory.author)}")
    if memory.session_id:
        out.append(f"session: {yaml_scalar(memory.session_id)}")
    out.append(f"created: {format_time(memory.created_at)}")
    if memory.confirmed_at is not None:
        out.append(f"confirmed: {format_time(memory.confirmed_at)}")
        if memory.confirmed_by:
            out.append(f"confirmed_by: {yaml_scalar(memory.confirmed_by)}")
        if memory.confirm_reason:
            out.append(f"confirm_reason: {yaml_scalar(memory.confirm_reason)}")
    if memory.confirmations:
        out.append(f"confirmations: {int(memory.confirmations)}")
    if memory.supersedes:
        out.append(f"supersedes: {yaml_scalar(memory.supersedes)}")
    if memory.status == "archived":
        out.append("status: archived")
        if memory.status_reason:
            out.append(f"reason: {yaml_scalar(memory.status_reason)}")
    out += [FRONT_MATTER, "", memory.content, ""]
    return "\n".join(out)


def file_name(memory: Memory) -> str:
    """A readable, stable name: a slug of the title (or the first words) and the id, so
    two clones never pick the same name for different memories."""
    source = memory.title or " ".join(memory.content.split(maxsplit=8)[:8])
    slug = slugify(source)[:MAX_SLUG_CHARS].rstrip("-") or "memory"
    ident = _NOT_IN_NAME.sub("-", memory.id).strip("-") or "m"
    return f"{slug}.{ident}.md"


def holder_rank(path: str, memory: Memory) -> tuple[bool, str]:
    """Which of two files holding one id holds it (lowest first), from the files alone
    so every clone chooses the same: the one under the name archmem gave the memory (a
    copy usually has another), then the first by path."""
    return (path.rpartition("/")[2] != file_name(memory), path)


def slugify(text: str) -> str:
    ascii_text = text if text.isascii() else unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _NOT_IN_SLUG.sub("-", ascii_text.lower()).strip("-")


_NOT_IN_NAME = lazy(r"[^A-Za-z0-9_-]+")
_NOT_IN_SLUG = lazy(r"[^a-z0-9]+")


# ---- reading -------------------------------------------------------------------------


def read_memory_file(data: bytes) -> ParsedFile:
    """The memory a file's bytes hold: the one reader every command uses (sync on open,
    ``check``, the merge driver, ``pr``), so a file ``check`` passes is one they all read.
    Size and encoding first, then ``parse_memory``."""
    if len(data) > MAX_FILE_BYTES:
        raise MemoryFileError(f"the file is {len(data):,} bytes; a memory file is at most {MAX_FILE_BYTES:,}",
                              rule="unreadable")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MemoryFileError("the file is not UTF-8 text", data[: exc.start].count(b"\n") + 1,
                              rule="unreadable") from None
    return parse_memory(text)


def parse_memory(text: str) -> ParsedFile:
    """The memory a file holds, or ``MemoryFileError`` at the line and column at fault.

    Limits before work: the size, then a credential anywhere in the text, then conflict
    markers, then the YAML (no anchors, aliases or tags: ``yaml_text``), then every
    decoded value is scanned for credentials again (escapes and folds hide them from the
    first scan) before any value is judged. Errors quote the file's own text, never a
    value built from it."""
    if len(text) * 4 > MAX_FILE_BYTES and len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:  # 4 bytes a char at most
        raise MemoryFileError(f"the file is over {MAX_FILE_BYTES:,} bytes, the most a memory file holds",
                              rule="unreadable")
    if "\x00" in text:
        raise MemoryFileError("the file holds a NUL byte: it is not text", rule="unreadable")
    joined = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
    from archmem.memory.secrets import find_secret  # only when a file is read: its patterns cost each import

    found = find_secret(joined)
    if found is not None:
        raise MemoryFileError(f"looks like a credential ({found.kind}); {SECRET_ADVICE}", found.line, found.column,
                              rule="secret")
    marker = linkrules.conflict_marker(joined)
    if marker is not None:
        raise MemoryFileError(
            "git conflict markers: resolve the merge (keep one version, or both confirmations) and save",
            joined.count("\n", 0, marker.start()) + 1, rule="conflict-markers",
        )
    first = joined.partition("\n")[0]
    if first.strip() != FRONT_MATTER:
        raise MemoryFileError("a memory file starts with a '---' line and its front matter")
    closing, after = _closing_line(joined, len(first))
    end = joined.count("\n", 0, closing) + 1
    front, verbatim = _load_front_matter(joined[len(first) + 1 : closing])
    source = _FrontSource(joined, end)
    if not verbatim:  # every value stands in the text the first scan read: nothing is hidden
        _check_decoded_secrets(front, source)
    return _read_front(front, source, joined[after + 1 :], end)


def _closing_line(text: str, start: int) -> tuple[int, int]:
    """Where the line that closes the front matter (the first after the opening one that
    is ``---``, trailing spaces aside) starts (the offset of the line break before it)
    and ends; found by searching the text, not by splitting every line of the body."""
    at = start
    while (at := text.find("\n" + FRONT_MATTER, at)) >= 0:
        end = text.find("\n", at + 1)
        end = len(text) if end < 0 else end
        if text[at + 1 : end].rstrip() == FRONT_MATTER:
            return at, end
        at = end
    raise MemoryFileError("the front matter is not closed by a '---' line", text.count("\n") + 1)


@dataclass(repr=False, eq=False)
class _FrontSource(Record):
    """The file's lines and where each front-matter key stands: what errors point at
    and quote."""

    text: str
    """The file's text, line breaks as ``\\n``."""
    end: int
    """The index of the closing ``---`` line."""

    @cached_property
    def lines(self) -> list[str]:
        """The file's lines, split when an error or ``check`` asks, not for every file read."""
        return self.text.split("\n")

    @cached_property
    def keys(self) -> dict[str, int]:
        """{key: its line}, found when first asked (an error, a warning, ``check``), not
        for every file a sync reads (about 3% of parsing 10,000 valid files)."""
        return {
            match.group(1): number
            for number, line in enumerate(self.lines[1 : self.end], start=2)
            if (match := _KEY.match(line))
        }

    def fail(self, key: str, message: str) -> MemoryFileError:
        return MemoryFileError(message, self.keys.get(key, 1))

    def written(self, key: str) -> str:
        """The value as the file writes it on its key's line (cut short), quoted."""
        number = self.keys.get(key)
        return quoted(self.lines[number - 1].partition(":")[2] if number else "")

    def item(self, value: str) -> tuple[int, str]:
        """The first front-matter line that holds ``value`` (a list item), and its text
        quoted; the anchors' line when none does (an escaped item)."""
        for number, line in enumerate(self.lines[1 : self.end], start=2):
            if value.strip() and value.strip() in line:
                return number, quoted(line.strip().removeprefix("-"))
        return self.keys.get("anchors", 1), self.written("anchors")


def _check_decoded_secrets(front: dict[str, Any], source: _FrontSource) -> None:
    """Every front-matter value as YAML decodes it, scanned by the one detector."""
    from archmem.errors import SecretFoundError
    from archmem.memory.secrets import check_decoded

    try:
        check_decoded(front, "\n".join(source.lines[1 : source.end]))
    except SecretFoundError as exc:
        line = min(source.keys.get(exc.field, 1) + exc.line - 1, source.end)
        raise MemoryFileError(f"{exc.field!r} looks like a credential once its YAML escapes and folds are read "
                              f"({exc.secret_kind}); {SECRET_ADVICE}", line, rule="secret") from None


def _read_front(front: dict[str, Any], source: _FrontSource, body: str, end: int) -> ParsedFile:
    fail, written = source.fail, source.written
    warnings: list[tuple[int, str]] = []
    for key in front:
        if key not in _KNOWN_KEYS:
            near = closest(str(key), list(FIELDS))
            hint = f"; did you mean {near[0]!r}?" if near else ""
            warnings.append((source.keys.get(str(key), 1), f"unknown key {key[:MAX_QUOTED_CHARS]!r} is ignored{hint}"))
    for required in ("id", "kind", "created"):
        if front.get(required) in (None, ""):
            raise MemoryFileError(f"the front matter has no {required!r}", 2)
    memory_id = _text(front, "id", fail)
    if not _ID.fullmatch(memory_id):
        raise fail("id", f"bad id {written('id')}: letters, digits, '_', '.', ':' and '-' only, at most 80")
    kind = _text(front, "kind", fail)
    if kind not in MEMORY_KINDS:
        near = closest(kind, list(MEMORY_KINDS))
        raise fail("kind", f"unknown kind {written('kind')}" + (f"; did you mean {near[0]!r}?" if near else "")
                   + f" (one of {', '.join(MEMORY_KINDS)})")
    status = _optional_text(front, "status", fail) or "active"
    if status == "superseded":
        warnings.append((source.keys.get("status", 1),
                         "'status: superseded' is not written: a memory is superseded when another supersedes it"))
        status = "active"
    elif status not in FILE_STATUSES:
        raise fail("status", f"bad status {written('status')}; one of {', '.join(FILE_STATUSES)}")
    try:
        content = linkrules.validate_content(body)
        title = _optional_text(front, "title", fail)
        title = linkrules.validate_title(title) if title and title.strip() else None
    except ArchmemError as exc:
        raise MemoryFileError(exc.message, end + 2) from None
    confirmations = front.get("confirmations", 0) or 0
    if isinstance(confirmations, bool) or not isinstance(confirmations, int) or not 0 <= confirmations <= MAX_COUNT:
        raise fail("confirmations", f"'confirmations' must be a whole number from 0 to {MAX_COUNT}, "
                                    f"not {written('confirmations')}")
    confirmed = _time(front, "confirmed", fail, written) if front.get("confirmed") else None
    confirmed_by = _one_line(front, "confirmed_by", source) if confirmed else None
    confirm_reason = _one_line(front, "confirm_reason", source) if confirmed else None
    for key in ("confirmed_by", "confirm_reason"):
        if front.get(key) not in (None, "") and confirmed is None:
            warnings.append((source.keys.get(key, 1), f"{key!r} without 'confirmed' is ignored: it says who and "
                                                    "why of a confirmation"))
    try:
        memory = Memory(
            id=memory_id,
            kind=kind,  # type: ignore[arg-type]  # checked above
            title=title,
            content=content,
            elements=_text_list(front, "elements", fail),
            anchors=_anchors(front, source),
            author=_optional_text(front, "author", fail),
            session_id=_optional_text(front, "session", fail),
            created_at=_time(front, "created", fail, written),
            confirmed_at=confirmed,
            confirmed_by=confirmed_by,
            confirm_reason=confirm_reason,
            confirmations=confirmations,
            supersedes=_optional_text(front, "supersedes", fail),
            status=status,  # type: ignore[arg-type]  # checked above
            status_reason=_optional_text(front, "reason", fail) if status == "archived" else None,
        )
    except ValueError as exc:  # a kind or status the checks above let through: a bug, said as a file error
        raise MemoryFileError(f"invalid memory ({exc})", 2) from None
    return ParsedFile(memory, warnings, source)


def _load_front_matter(text: str) -> tuple[dict[str, Any], bool]:
    """The front matter, and whether each of its texts stands in ``text`` as it is."""
    try:
        return read_mapping(text, first_line=2)
    except YamlTextError as exc:
        raise MemoryFileError(f"the front matter {exc.message}", exc.line, exc.column) from None


def _text(front: dict[str, Any], key: str, fail: Any) -> str:
    value = front.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise fail(key, f"{key!r} must be text, not {type(value).__name__}")
    return str(value).strip()


def _optional_text(front: dict[str, Any], key: str, fail: Any) -> str | None:
    if front.get(key) in (None, ""):
        return None
    return _text(front, key, fail) or None


def _one_line(front: dict[str, Any], key: str, source: _FrontSource) -> str | None:
    """A one-line field (who confirmed, why) by the rules ``confirm`` applies to what it
    is given, so a hand edit cannot hide a second line or an escape sequence in it."""
    value = _optional_text(front, key, source.fail)
    try:
        return clean_line(value, key.replace("_", " "))
    except InvalidInputError as exc:
        raise source.fail(key, f"{key!r} {source.written(key)}: {exc.message}") from None


def _text_list(front: dict[str, Any], key: str, fail: Any) -> list[str]:
    value = front.get(key)
    if value in (None, "", []):
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, (str, int)) and not isinstance(item, bool) for item in value):
        raise fail(key, f"{key!r} must be a list of names (one '- name' a line)")
    return list(dict.fromkeys(str(item).strip() for item in value if str(item).strip()))


def _anchors(front: dict[str, Any], source: _FrontSource) -> list[str]:
    """Anchors as ``remember`` takes them: repository paths (``path#Symbol``); one that is
    absolute or leaves the repository makes the file unreadable, so nothing outside the
    repository is ever looked at on a file's word."""
    listed = _text_list(front, "anchors", source.fail)
    if not listed:
        return []
    from archmem.model.paths import normalize_glob

    anchors = []
    for anchor in listed:
        path, sep, symbol = anchor.partition("#")
        try:
            clean = normalize_glob(path)
        except ValueError as exc:
            line, written = source.item(path)
            reason = str(exc).removeprefix(repr(path)).strip() or "is not a path in the repository"
            raise MemoryFileError(f"anchor {written}: {reason}", line) from None
        anchors.append(f"{clean}#{symbol.strip()}" if sep and symbol.strip() else clean)
    return anchors


def _time(front: dict[str, Any], key: str, fail: Any, written: Any) -> datetime:
    value = front.get(key)
    if not isinstance(value, str):
        raise fail(key, f"bad time in {key!r}: {written(key)} (ISO 8601, e.g. 2026-03-01T10:00:00Z)")
    try:
        return parse_time(value)
    except ValueError as exc:
        detail = str(exc) if isinstance(exc, TimeRangeError) else "ISO 8601, e.g. 2026-03-01T10:00:00Z"
        raise fail(key, f"bad time in {key!r}: {written(key)} ({detail})") from None

"""Memories, sessions and links as values: what the store keeps and the API returns.

Plain dataclasses (keyword arguments only; ``dataclasses.replace`` makes a changed
copy): the memory files, the store and the import check every field before one is
built, and every command builds them, so they cost nothing at import.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from archmem.values import Value

MemoryKind = Literal["pitfall", "convention", "note", "session_outcome"]
MEMORY_KINDS: tuple[str, ...] = ("pitfall", "convention", "note", "session_outcome")
MemoryStatus = Literal["active", "superseded", "archived"]
MEMORY_STATUSES: tuple[str, ...] = ("active", "superseded", "archived")

MAX_CONTENT_CHARS = 20_000
"""A memory is a note, not a document: longer content is refused with this number."""
MAX_TITLE_CHARS = 200
MAX_COUNT = 2**63 - 1
"""The largest count (confirmations, exposures, citations) the index holds: SQLite's int64."""


@dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)
class Memory(Value):
    """One thing a team learned, attached to zero (project-wide) or more elements.

    Timestamps are timezone-aware UTC. ``exposures`` and ``citations`` count distinct
    sessions that were shown the memory and that said they used it.
    """

    id: str
    title: str | None = None
    kind: MemoryKind
    content: str
    elements: list[str] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    author: str | None = None
    session_id: str | None = None
    created_at: datetime
    confirmed_at: datetime | None = None
    confirmed_by: str | None = None
    """Who vouched last (``client/name``): written to the file, so a pull request shows it."""
    confirm_reason: str | None = None
    """Why the last confirmation said it still holds (one line), beside who said it."""
    confirmations: int = 0
    supersedes: str | None = None
    superseded_by: str | None = None
    status: MemoryStatus = "active"
    status_reason: str | None = None
    exposures: int = 0
    citations: int = 0
    private: bool = False
    """Kept in the git-ignored folder: this clone's note, never committed."""

    def __post_init__(self) -> None:
        if self.kind not in MEMORY_KINDS:
            raise ValueError(f"unknown memory kind {self.kind!r}; one of {', '.join(MEMORY_KINDS)}")
        if self.status not in MEMORY_STATUSES:
            raise ValueError(f"unknown memory status {self.status!r}; one of {', '.join(MEMORY_STATUSES)}")

    def to_json(self) -> dict[str, Any]:
        """Every field as JSON values (times as ISO 8601, ``Z`` for UTC): what ``--json`` prints."""
        return as_json(self)

    @property
    def last_confirmed(self) -> datetime:
        """When someone last vouched for it: the confirmation, else the creation."""
        return self.confirmed_at or self.created_at

    @property
    def label(self) -> str:
        return self.title or self.id


@dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)
class Link(Value):
    """A ``[[wikilink]]`` written in a memory; ``target_id`` is None while pending.

    ``target_kind`` is ``memory``, ``element`` or ``decision`` once resolved.
    """

    source_id: str
    target_text: str
    shown: str | None = None
    target_kind: Literal["memory", "element", "decision"] | None = None
    target_id: str | None = None

    @property
    def pending(self) -> bool:
        return self.target_id is None


@dataclass(frozen=True, slots=True, kw_only=True, repr=False, eq=False)
class Session(Value):
    """A unit of agent work: a task, its elements, what it was shown and what it used."""

    id: str
    task: str
    agent: str | None = None
    elements: list[str] = field(default_factory=list)
    started_at: datetime
    ended_at: datetime | None = None
    outcome_memory_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return as_json(self)


def as_json(value: Any) -> dict[str, Any]:
    """A dataclass's fields as JSON values: times in ISO 8601 with ``Z`` for UTC."""
    return {item.name: _json_value(getattr(value, item.name)) for item in dataclasses.fields(value)}


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, list):
        return [_json_value(item) for item in value]
    return value

"""The ``Store`` interface: what the domain asks of a memory store.

``SQLiteStore`` is the one implementation today; a PostgreSQL store for teams that
outgrow one machine implements the same methods and nothing above this layer changes.
Writes happen inside ``transaction()``, which must serialize writers (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: ``SERIALIZABLE`` or an advisory lock).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from archmem.memory.types import Link, Memory, Session


class Store(Protocol):
    def close(self) -> None:
        """Release the connection."""

    def transaction(self) -> AbstractContextManager[None]:
        """One re-entrant write transaction: all of it commits, or none."""

    # memories
    def insert_memory(
        self, memory: Memory, *, title_key: str | None, content_hash: str, search_title: str, search_body: str,
        search_parts: str = "",
    ) -> None:
        """Insert a memory with its elements, anchors and search text (whole words of the
        title and the body, and the parts of their compounds)."""

    def add_elements(self, memory_id: str, elements: Iterable[str]) -> list[str]:
        """Attach elements in order; returns those newly attached."""

    def add_anchors(self, memory_id: str, anchors: Iterable[str]) -> list[str]:
        """Attach anchors in order; returns those newly attached."""

    def update_memory(self, memory_id: str, **fields: Any) -> None:
        """Change stored fields (status, confirmation, supersede pointers, search text)."""

    def delete_memory(self, memory_id: str) -> None:
        """The hard delete behind ``purge``."""

    def scrub(self) -> None:
        """Leave no copy of deleted text in the store's files (after a purge)."""

    def path_of(self, memory_id: str) -> str | None:
        """The memory's file, relative to the repository root (None: not in a file)."""

    def paths_of(self, memory_ids: Iterable[str]) -> dict[str, str]:
        """{memory id: its file} for many memories (those without a file left out)."""

    def get_memory(self, memory_id: str) -> Memory | None:
        """One memory by id."""

    def get_memories(self, memory_ids: Iterable[str]) -> dict[str, Memory]:
        """Many memories by id."""

    def find_by_title(self, title_key: str, *, active_only: bool = True) -> list[Memory]:
        """Memories with a normalized title, newest first."""

    def find_by_content_hash(self, content_hash: str) -> list[Memory]:
        """Active memories with exactly this content."""

    def list_memories(
        self, *, element: str | None = None, kind: str | None = None, status: str | None = "active",
        limit: int | None = None,
    ) -> list[Memory]:
        """Memories in the order they were written."""

    def element_memory_ids(self, element_id: str, *, limit: int) -> list[str]:
        """Active memories of one element, the most recently attached first."""

    def anchored_memory_ids(self, paths: Sequence[str]) -> dict[str, list[str]]:
        """{active memory id: the given paths it anchors (the file, a symbol in it, or a
        folder holding it)}."""

    def anchors_named(self, names: Sequence[str]) -> dict[str, list[str]]:
        """{active memory id: its anchors a task names}: the whole anchor, its path from a
        folder boundary on, or the symbol after ``#``."""

    def anchor_paths(self) -> list[str]:
        """The distinct files and folders any memory anchors (``#Symbol`` cut off)."""

    def memory_total(self) -> int:
        """How many active memories there are: N for IDF."""

    def count_memories(self, status: str | None = "active") -> int:
        """How many memories (of a status)."""

    def element_memory_counts(self) -> dict[str, int]:
        """Active memories per element id."""

    def memory_scopes(self) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...], str | None]]:
        """(id, last confirmed as stored, elements, anchors, file) of every active memory,
        without making a ``Memory``: what counting the ones to VERIFY needs."""

    def iter_memories(self, *, status: str | None = "active", chunk: int = 500) -> Iterator[Memory]:
        """``list_memories`` in order, a chunk at a time (for whoever reads each once)."""

    def lexical_search(
        self, match: str, *, limit: int = 50, title_weight: float = 2.0, parts_weight: float = 0.75
    ) -> list[tuple[str, float]]:
        """(id, BM25 relevance, higher is better) of active memories for a full-text query;
        a match among the parts of compounds counts ``parts_weight`` of a whole word."""

    def index_forms(self, terms: Sequence[str]) -> dict[str, str]:
        """The form the word index stores each term under (its stem)."""

    def term_document_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """How many active memories hold each search term."""

    def stats(self) -> dict[str, Any]:
        """Counts of what the store holds: memories by status and kind, sessions, vectors."""

    # links
    def replace_links(self, source_id: str, links: Sequence[tuple[Link, str]]) -> None:
        """Set a memory's links (each with its normalized target key)."""

    def links(self, *, source_ids: Iterable[str] | None = None, pending: bool | None = None) -> list[Link]:
        """Links from some memories, or all pending ones."""

    def links_to(self, target_id: str) -> list[Link]:
        """Links that point at a memory, element or decision."""

    def resolve_pending_links(self, target_key: str, target_kind: str, target_id: str) -> int:
        """Attach pending links to a target written later."""

    def retarget_links(self, old_id: str, new_id: str) -> int:
        """Move links from a superseded memory to its successor."""

    # vectors
    def vector_hash(self, memory_id: str, model: str) -> str | None:
        """The content hash of a stored vector, to skip re-embedding."""

    def put_vector(self, memory_id: str, model: str, vector: bytes, dims: int, content_hash: str, at: str) -> None:
        """Store a little-endian float32 vector for (memory, model)."""

    def vectors(self, model: str, *, status: str | None = "active") -> list[tuple[str, bytes, int]]:
        """Vectors of one embedding model only."""

    def vector_hashes(self, model: str) -> dict[str, str]:
        """{memory id: hash of the embedded text} for one model."""

    def vector_version(self, model: str) -> int:
        """Changes whenever a vector of this model is added, replaced or removed."""

    # sessions
    def insert_session(self, session: Session) -> None:
        """Open a session."""

    def get_session(self, session_id: str) -> Session | None:
        """One session by id."""

    def session_ids(self) -> list[str]:
        """Every session id, oldest first."""

    def end_session(self, session_id: str, ended_at: str, outcome_memory_id: str | None) -> bool:
        """Close a session; False when it was already closed."""

    def record_usage(self, table: str, session_id: str, memory_ids: Iterable[str], at: str) -> list[str]:
        """Record exposures or citations once per (session, memory)."""

    def count_exposures(self, session_id: str) -> int:
        """Count an ending session's exposures on its memories; returns how many."""

    def usage(self, table: str, session_id: str) -> list[str]:
        """Memory ids exposed to or cited by a session."""

    # audit
    def audit(self, at: str, action: str, memory_id: str | None, reason: str | None, detail: dict[str, Any]) -> None:
        """Append to the audit log."""

    def audit_entries(self) -> list[dict[str, Any]]:
        """The audit log, oldest first."""

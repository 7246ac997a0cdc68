"""The ``Store`` interface: what everything above this layer asks of the index.

The memory files are the truth (``archmem.memory.files`` writes them, ``archmem.memory.sync``
reads them); a store is the index derived from them, plus what is personal to one
clone (sessions, usage, the audit log) and the caches drift and conformance keep.
``SQLiteStore`` is the one implementation today; a PostgreSQL index implements the same
methods, passes the same contract tests (``tests/store_contract.py``), and nothing above
this layer changes. Writes happen inside ``transaction()``, which must serialize writers
(SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: ``SERIALIZABLE`` or an advisory lock).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from archmem.git.types import Commit
from archmem.memory.types import Link, Memory, Session
from archmem.recall.types import WordQuery
from archmem.store.files import FileStat
from archmem.values import Record, Value


@dataclass(frozen=True, repr=False, eq=False)
class FileRow(Value):
    """What the index knows of one memory file: which memory it held when last read,
    its size, mtime and hash then, and why it could not be read (if it could not)."""

    path: str
    memory_id: str | None
    size: int
    mtime_ns: int
    sha256: str
    error: str | None = None
    error_line: int | None = None

    def unchanged(self, stat: FileStat) -> bool:
        return self.size == stat.size and self.mtime_ns == stat.mtime_ns


@dataclass(repr=False, eq=False)
class FiledMemory(Record):
    """A memory as its file states it, with what the index derives from it for search
    (``upsert_from_files`` takes many at once)."""

    memory: Memory
    title_key: str | None
    content_hash: str
    search_title: str
    search_body: str
    search_parts: str = ""


class HistoryCache(Protocol):
    """The first-parent commits a drift scan read, oldest first, for one scope."""

    def head(self) -> str | None:
        """The newest cached commit."""

    def count(self) -> int:
        """How many commits are cached."""

    def all(self) -> list[Commit]:
        """Every cached commit, oldest first."""

    def meta(self) -> dict[str, str]:
        """What the cache belongs to (scope, branch)."""

    def scope(self) -> str | None:
        """What the cached commits were read for."""

    def set_meta(self, **values: str | None) -> None:
        """Set (or, with None, drop) facts about the cache."""

    def clear(self, *, scope: str | None = None) -> None:
        """Forget every commit; with ``scope``, claim the empty cache for it."""

    def contains(self, sha: str) -> bool:
        """Whether a commit is cached."""

    def truncate(self, sha: str) -> int | None:
        """Drop the commits after ``sha``; how many (None: ``sha`` is not cached)."""

    def append(self, commits: Iterable[Commit]) -> int:
        """Add commits newer than the head, in one transaction; how many were new."""


class ImportsCache(Protocol):
    """``(blob, extractor) → imports`` kept between conformance runs."""

    def get_many(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Any]:
        """The cached values of those keys that are cached."""

    def put_many(self, rows: Iterable[tuple[str, str, Any]], *, needed: Sequence[tuple[str, str]] = ()) -> None:
        """Store new rows, mark ``needed`` ones as used by this run, drop rows long unused."""

    def count(self) -> int:
        """How many rows are cached."""


class Store(Protocol):
    in_memory: bool
    """Whether the index lives in this process only (gone at ``close``)."""

    def close(self) -> None:
        """Release the connection."""

    def transaction(self) -> AbstractContextManager[None]:
        """One re-entrant write transaction: all of it commits, or none."""

    def on_rollback(self, undo: Callable[[], None]) -> None:
        """Run ``undo`` if the open transaction rolls back (last registered first): how a
        file written under the transaction is put back. Forgotten at COMMIT."""

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

    def successors(self, memory_id: str) -> list[Memory]:
        """The memories whose ``supersedes`` names it, oldest first (two or more: a fork)."""

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

    def anchors_generation(self) -> int | None:
        """A number that moves whenever any memory's anchors change (None: unknown): what
        is worked out from ``anchor_paths`` is kept under it."""

    def anchor_paths(self) -> list[str]:
        """The distinct files and folders any memory anchors (``#Symbol`` cut off)."""

    def memory_total(self) -> int:
        """How many active memories there are: N for IDF."""

    def count_memories(self, status: str | None = "active") -> int:
        """How many memories (of a status)."""

    def element_memory_counts(self) -> dict[str, int]:
        """Active memories per element id."""

    def documented_elements(self, element_ids: Iterable[str]) -> set[str]:
        """Those of ``element_ids`` that an active memory is about (each asks for one
        memory, not a count of them all)."""

    def memory_scopes(self) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...], str | None]]:
        """(id, last confirmed as stored, elements, anchors, file) of every active memory,
        without making a ``Memory``: what counting the ones to VERIFY needs."""

    def iter_memories(self, *, status: str | None = "active", chunk: int = 500) -> Iterator[Memory]:
        """``list_memories`` in order, a chunk at a time (for whoever reads each once)."""

    def lexical_search(self, query: WordQuery) -> list[tuple[str, float]]:
        """(id, BM25 relevance ≥ 0, higher is better) of the active memories a word query
        finds, best first (ties: in the order they were written)."""

    def lexical_search_started(self, query: WordQuery) -> Callable[[], list[tuple[str, float]]]:
        """``lexical_search`` started now, its answer waited for when the returned function
        is called (the caller works meanwhile)."""

    def index_forms(self, terms: Iterable[str]) -> dict[str, str]:
        """The form the word index stores each term under (its stem)."""

    def term_document_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """How many active memories hold each search term."""

    def stats(self) -> dict[str, Any]:
        """Counts of what the store holds: memories by status and kind, sessions, vectors."""

    def forks(self) -> dict[str, list[str]]:
        """{memory id: its successors' ids} where more than one supersedes it."""

    def derive_chains(self) -> int:
        """Set ``superseded_by`` and ``status`` from the ``supersedes`` the files state;
        how many memories changed."""

    # the memory files as the index last read them
    def upsert_from_files(self, filed: Sequence[FiledMemory]) -> None:
        """Index what files say, many at once: their fields replace the index's, usage
        stays; the same id twice keeps the last."""

    def bulk_load(self) -> AbstractContextManager[bool]:
        """A transaction for indexing many files at once; into an empty index, its
        secondary indexes are built once at the end rather than row by row, and the
        chains derived there. Yields whether the index was empty."""

    def forget_memory(self, memory_id: str) -> None:
        """Drop a memory whose file is gone; links to it become pending again."""

    def record_file(
        self, path: str, memory_id: str | None, stat: FileStat, sha256: str,
        error: str | None = None, error_line: int | None = None,
    ) -> None:
        """Record what a memory file held when read or written (or why it could not be read)."""

    def record_files(self, rows: Iterable[FileRow]) -> None:
        """``record_file`` for many files at once (a sync's chunk)."""

    def forget_file(self, path: str) -> None:
        """A file that is gone."""

    def file_row(self, path: str) -> FileRow | None:
        """What the index knows of one file."""

    def file_rows(self, paths: Iterable[str] | None = None) -> dict[str, FileRow]:
        """What the index knows of every file (of those of ``paths`` it knows, when given)."""

    def file_stamps(self) -> dict[str, tuple[int, int]]:
        """{path: (size, mtime_ns)} of every file the index knows."""

    def file_count(self, *, up_to: int | None = None) -> int:
        """How many files the index knows (with ``up_to``, counted no further)."""

    def file_counts(self, private_folder: str) -> tuple[int, int]:
        """(files, of which below ``private_folder``)."""

    def file_problems(self) -> list[FileRow]:
        """The files that could not be indexed, by path."""

    def unfiled_memory_ids(self) -> list[str]:
        """Memories no file holds (an index from before the files), in the order written."""

    def indexed_ids(self) -> set[str]:
        """The id of every memory in the index."""

    def meta(self, key: str) -> str | None:
        """A small fact about the index (what sync saw last, a pending migration step)."""

    def set_meta(self, key: str, value: str | None) -> None:
        """Set (or, with None, drop) a small fact about the index."""

    # links
    def replace_links(self, source_id: str, links: Sequence[tuple[Link, str]]) -> None:
        """Set a memory's links (each with its normalized target key)."""

    def replace_many_links(self, by_source: Mapping[str, Sequence[tuple[Link, str]]]) -> None:
        """Set the links of many memories at once (a sync's chunk of files)."""

    def links(self, *, source_ids: Iterable[str] | None = None, pending: bool | None = None) -> list[Link]:
        """Links from some memories, or all pending ones."""

    def links_to(self, target_id: str) -> list[Link]:
        """Links that point at a memory, element or decision."""

    def resolve_pending_links(self, target_key: str, target_kind: str, target_id: str) -> int:
        """Attach pending links to a target written later."""

    def retarget_links(self, old_id: str, new_id: str) -> int:
        """Move links from a superseded memory to its successor."""

    def retarget_links_to_heads(self) -> int:
        """Links to a superseded memory follow its chain to the current one."""

    def active_title_ids(self, title_keys: Iterable[str]) -> dict[str, str]:
        """{title key: the newest active memory with that title} for many keys in one
        query (as ``find_by_title``; keys no active memory has are left out)."""

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

    def open_sessions(self) -> list[Session]:
        """The sessions not ended yet, oldest first."""

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

    # what drift and conformance keep between runs
    def history_cache(self) -> HistoryCache:
        """The drift scan's commit cache."""

    def import_cache(self) -> ImportsCache:
        """Conformance's cache of each file's imports."""

    def legacy_accepts(self) -> list[tuple[int, str, str, str | None]]:
        """(seq, element, at, note) of the drift accepts an older archmem kept in the
        index, oldest first; written as files, they are dropped."""

    def drop_legacy_accepts(self, through_seq: int) -> None:
        """Drop the legacy accepts up to ``through_seq``."""

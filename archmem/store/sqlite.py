"""The SQLite index: memories, their word search, audit, on numbered migrations, over
``SQLiteConnection`` (WAL, busy timeout, ``BEGIN IMMEDIATE``). ``SQLiteStore`` also
composes what it knows of the memory files (``file_index``), the links between memories
(``links``), their vectors (``vectors``), the sessions with their usage counts
(``sessions``), and hands out the history and import caches. It implements ``Store``
(``archmem.store.base``) and writes no memory file.

Every write runs inside ``transaction()``, so a check and the write it decides (dedup,
title uniqueness, supersede) see the same database even with other processes writing;
the unique indexes of migration 1 are the last line of defence. Methods return
``Memory``/``Link``/``Session`` values, never rows.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from archmem.clock import format_time, parse_time
from archmem.memory.types import Memory
from archmem.recall.types import WordQuery
from archmem.store.commits import CommitCache
from archmem.store.connection import SQLiteConnection
from archmem.store.file_index import MemoryFileIndex
from archmem.store.imports import ImportCache
from archmem.store.links import LinkTable
from archmem.store.migrations import current_version, migrate
from archmem.store.sessions import SessionLog
from archmem.store.vectors import VectorTable
from archmem.store.words import IndexForms

_MEMORY_COLUMNS = (
    "id, title, kind, content, author, session_id, created_at, confirmed_at, confirmations, "
    "supersedes, superseded_by, status, status_reason, exposures, citations, private, confirmed_by, confirm_reason"
)
_SELECT_MEMORY = f"""
    SELECT {', '.join('m.' + c.strip() for c in _MEMORY_COLUMNS.split(','))},
        (SELECT json_group_array(element_id) FROM
            (SELECT element_id FROM memory_elements WHERE memory_id = m.id ORDER BY position)),
        (SELECT json_group_array(anchor) FROM
            (SELECT anchor FROM memory_anchors WHERE memory_id = m.id ORDER BY position))
    FROM memories m
"""
_SELECT_PLAIN = f"SELECT {', '.join('m.' + c.strip() for c in _MEMORY_COLUMNS.split(','))} FROM memories m"
_SELECT_NUMBERED = _SELECT_PLAIN.replace(" FROM memories m", ", m.seq FROM memories m")
_UPDATABLE = frozenset(
    {"title", "title_key", "content", "content_hash", "confirmed_at", "confirmations", "supersedes",
     "superseded_by", "status", "status_reason", "exposures", "citations", "search_title", "search_body",
     "search_parts", "author", "confirmed_by", "confirm_reason"}
)
_FILE_STATUSES = ("active", "archived")
"""The statuses a memory file can state (superseded is derived from the other files)."""


_TOTAL = "total"
_TERM = "term:"


class SQLiteStore(MemoryFileIndex, LinkTable, VectorTable, SessionLog, SQLiteConnection):
    """archmem's memory index in one SQLite file (``.archmem/archmem.db`` by default)."""

    def __init__(self, path: Path, *, busy_timeout_ms: int = 30_000, now: str | None = None) -> None:
        self._stats_version: tuple[int, int] | None = None
        self._stats: dict[str, int] = {}
        self._forms = IndexForms(kept=self)
        super().__init__(path, busy_timeout_ms=busy_timeout_ms)
        try:
            migrate(self.db, str(self.path), now=now or format_time_now())
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise self._explain(exc) from None
        except BaseException:
            self.db.close()
            raise

    # ---- memories -----------------------------------------------------------------

    def insert_memory(self, memory: Memory, *, title_key: str | None, content_hash: str,
                      search_title: str, search_body: str, search_parts: str = "") -> None:
        with self.transaction():
            self._execute(
                f"INSERT INTO memories ({_MEMORY_COLUMNS}, title_key, content_hash, search_title, search_body, "
                "search_parts, file_status) VALUES (" + ", ".join("?" * 24) + ")",
                (
                    memory.id, memory.title, memory.kind, memory.content, memory.author, memory.session_id,
                    format_time(memory.created_at),
                    format_time(memory.confirmed_at) if memory.confirmed_at else None,
                    memory.confirmations, memory.supersedes, memory.superseded_by, memory.status,
                    memory.status_reason, memory.exposures, memory.citations, int(memory.private),
                    memory.confirmed_by, memory.confirm_reason,
                    title_key, content_hash, search_title, search_body, search_parts,
                    "archived" if memory.status == "archived" else "active",
                ),
            )
            self._execute(  # no trigger does it: migration 14
                "INSERT INTO memory_fts (rowid, search_title, search_body, search_parts) "
                "SELECT seq, search_title, search_body, search_parts FROM memories WHERE id = ? AND status = 'active'",
                (memory.id,),
            )
            self.add_elements(memory.id, memory.elements)
            self.add_anchors(memory.id, memory.anchors)

    def add_elements(self, memory_id: str, elements: Iterable[str]) -> list[str]:
        """Attach elements (keeping order, ignoring ones already there); returns the new ones."""
        return self._attach("memory_elements", "element_id", memory_id, elements)

    def add_anchors(self, memory_id: str, anchors: Iterable[str]) -> list[str]:
        return self._attach("memory_anchors", "anchor", memory_id, anchors)

    def _attach(self, table: str, column: str, memory_id: str, values: Iterable[str]) -> list[str]:
        added: list[str] = []
        with self.transaction():
            start = self._execute(
                f"SELECT COALESCE(MAX(position) + 1, 0) FROM {table} WHERE memory_id = ?", (memory_id,)
            ).fetchone()[0]
            for value in values:
                cursor = self._execute(
                    f"INSERT OR IGNORE INTO {table} (memory_id, {column}, position) VALUES (?, ?, ?)",
                    (memory_id, value, start + len(added)),
                )
                if cursor.rowcount:
                    added.append(value)
        return added

    def update_memory(self, memory_id: str, **fields: Any) -> None:
        unknown = set(fields) - _UPDATABLE
        if unknown:
            raise ValueError(f"not updatable: {sorted(unknown)}")
        if fields.get("status") in _FILE_STATUSES:
            fields["file_status"] = fields["status"]
        values = [format_time(v) if isinstance(v, datetime) else v for v in fields.values()]
        with self.transaction():
            self._execute(
                f"UPDATE memories SET {', '.join(f'{k} = ?' for k in fields)} WHERE id = ?",
                (*values, memory_id),
            )

    def delete_memory(self, memory_id: str) -> None:
        with self.transaction():
            self._execute("UPDATE memories SET supersedes = NULL WHERE supersedes = ?", (memory_id,))
            self._execute("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?", (memory_id,))
            self._execute("UPDATE links SET target_id = NULL, target_kind = NULL WHERE target_id = ?", (memory_id,))
            self._execute("DELETE FROM memories WHERE id = ?", (memory_id,))

    def scrub(self) -> None:
        """Leave no copy of deleted text in the database files (after a purge): merge the
        word index's segments (FTS5 keeps a deleted row's terms until then), zero freed
        pages, and fold the WAL back and truncate it."""
        self.db.execute("PRAGMA secure_delete = ON")
        try:
            with self.transaction():
                self._execute("INSERT INTO memory_fts(memory_fts) VALUES ('optimize')")
            self._execute("VACUUM")
            self._execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self.db.execute("PRAGMA secure_delete = OFF")

    def get_memory(self, memory_id: str) -> Memory | None:
        row = self._execute(_SELECT_MEMORY + " WHERE m.id = ?", (memory_id,)).fetchone()
        return _memory(row) if row else None

    def get_memories(self, memory_ids: Iterable[str]) -> dict[str, Memory]:
        ids = list(dict.fromkeys(memory_ids))
        return {row[0]: _memory(row) for row in self._select_in(_SELECT_MEMORY + " WHERE m.id IN ({ids})", ids)}

    def find_by_title(self, title_key: str, *, active_only: bool = True) -> list[Memory]:
        """Memories with this title key, newest first (one at most when active_only)."""
        where = "m.title_key = ?" + (" AND m.status = 'active'" if active_only else "")
        rows = self._execute(_SELECT_MEMORY + f" WHERE {where} ORDER BY m.seq DESC", (title_key,)).fetchall()
        return [_memory(row) for row in rows]

    def find_by_content_hash(self, content_hash: str) -> list[Memory]:
        rows = self._execute(
            _SELECT_MEMORY + " WHERE m.content_hash = ? AND m.status = 'active' ORDER BY m.seq", (content_hash,)
        ).fetchall()
        return [_memory(row) for row in rows]

    def successors(self, memory_id: str) -> list[Memory]:
        rows = self._execute(
            _SELECT_MEMORY + " WHERE m.supersedes = ? AND m.id != ? ORDER BY m.created_at, m.id",
            (memory_id, memory_id),
        ).fetchall()
        return [_memory(row) for row in rows]

    def list_memories(
        self,
        *,
        element: str | None = None,
        kind: str | None = None,
        status: str | None = "active",
        limit: int | None = None,
    ) -> list[Memory]:
        where, params = [], []
        if element is not None:
            where.append("m.id IN (SELECT memory_id FROM memory_elements WHERE element_id = ?)")
            params.append(element)
        if kind is not None:
            where.append("m.kind = ?")
            params.append(kind)
        if status is not None:
            where.append("m.status = ?")
            params.append(status)
        sql = _SELECT_PLAIN + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY m.seq"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = self._execute(sql, params).fetchall()
        elements = self._ordered_lists("memory_elements", "element_id", [row[0] for row in rows])
        anchors = self._ordered_lists("memory_anchors", "anchor", [row[0] for row in rows])
        return [_memory((*row, elements.get(row[0], []), anchors.get(row[0], []))) for row in rows]

    def iter_memories(self, *, status: str | None = "active", chunk: int = 500) -> Iterator[Memory]:
        """``list_memories`` in order, ``chunk`` at a time: whoever reads every memory once
        (the knowledge map, an export) holds one chunk, not all of them."""
        after = 0
        while True:
            where = "m.seq > ?" + (" AND m.status = ?" if status is not None else "")
            rows = self._execute(f"{_SELECT_NUMBERED} WHERE {where} ORDER BY m.seq LIMIT {int(chunk)}",
                                 (after, status) if status is not None else (after,)).fetchall()
            if not rows:
                return
            ids = [row[0] for row in rows]
            elements = self._ordered_lists("memory_elements", "element_id", ids)
            anchors = self._ordered_lists("memory_anchors", "anchor", ids)
            for row in rows:
                yield _memory((*row[:-1], elements.get(row[0], []), anchors.get(row[0], [])))
            after = rows[-1][-1]

    def _ordered_lists(self, table: str, column: str, memory_ids: list[str]) -> dict[str, list[str]]:
        """{memory id: its elements or anchors in order}, in one pass over the table when
        many memories are asked for: two correlated subqueries per row cost 0.7 s at 100k."""
        found: dict[str, list[str]] = {}
        if len(memory_ids) > 2000:
            wanted = set(memory_ids)
            rows = self._execute(f"SELECT memory_id, {column} FROM {table} ORDER BY memory_id, position")
            for memory_id, value in rows:
                if memory_id in wanted:
                    found.setdefault(memory_id, []).append(value)
            return found
        for memory_id, value in self._select_in(
            f"SELECT memory_id, {column} FROM {table} WHERE memory_id IN ({{ids}}) ORDER BY memory_id, position",
            memory_ids,
        ):
            found.setdefault(memory_id, []).append(value)
        return found

    def element_memory_ids(self, element_id: str, *, limit: int) -> list[str]:
        """Active memories of one element, the most recently attached first (an index
        walk: sorting an element's thousands of memories by date cost tens of ms)."""
        rows = self._execute(
            "SELECT m.id FROM memory_elements e JOIN memories m ON m.id = e.memory_id "
            "WHERE e.element_id = ? AND m.status = 'active' ORDER BY e.rowid DESC LIMIT ?",
            (element_id, limit),
        ).fetchall()
        return [row[0] for row in rows]

    def anchored_memory_ids(self, paths: Sequence[str]) -> dict[str, list[str]]:
        """{active memory id: the given paths it anchors}: an anchor names the file itself,
        a ``file#Symbol`` in it, or a folder that holds it."""
        found: dict[str, list[str]] = {}
        for path in dict.fromkeys(paths):
            parts = path.split("/")
            folders = ["/".join(parts[:i]) for i in range(1, len(parts))]
            rows = self._execute(
                "SELECT DISTINCT a.memory_id FROM memory_anchors a JOIN memories m ON m.id = a.memory_id "
                f"WHERE m.status = 'active' AND (a.anchor IN ({', '.join('?' * (len(folders) + 1))}) "
                "OR (a.anchor >= ? AND a.anchor < ?))",
                (*folders, path, path + "#", path + "$"),
            ).fetchall()
            for (memory_id,) in rows:
                found.setdefault(memory_id, []).append(path)
        return found

    def anchors_named(self, names: Sequence[str]) -> dict[str, list[str]]:
        """{active memory id: the anchors a task names}: a name is a whole anchor, its file's
        path from a folder boundary on (``scraper_strategies.py`` names
        ``mealie/services/scraper/scraper_strategies.py``), or the symbol after ``#``."""
        found: dict[str, list[str]] = {}
        for name in dict.fromkeys(n for n in names if n):
            rows = self._execute(
                "SELECT DISTINCT a.memory_id, a.anchor FROM memory_anchors a JOIN memories m ON m.id = a.memory_id "
                "WHERE m.status = 'active' AND (a.anchor = ? OR a.anchor LIKE ? ESCAPE '\\' "
                "OR a.anchor LIKE ? ESCAPE '\\' OR a.anchor LIKE ? ESCAPE '\\')",
                (name, "%/" + _like(name), _like(name) + "#%", "%#" + _like(name)),
            ).fetchall()
            for memory_id, anchor in rows:
                found.setdefault(memory_id, []).append(anchor)
        return found

    def anchor_paths(self) -> list[str]:
        """The distinct files and folders any memory anchors (``#Symbol`` cut off), in one
        query along the index of anchors (cutting them in SQL sorted every row again)."""
        rows = self._execute("SELECT DISTINCT anchor FROM memory_anchors").fetchall()
        return sorted({row[0].partition("#")[0] for row in rows})

    def memory_total(self) -> int:
        """How many active memories there are: N for IDF (cached until the store changes)."""
        stats = self._cached_stats()
        if _TOTAL not in stats:
            kept = self._counter("active_memories")  # kept by triggers (migration 16)
            stats[_TOTAL] = kept if kept is not None else self.count_memories("active")
        return stats[_TOTAL]

    def anchors_generation(self) -> int | None:
        """A number that moves whenever any memory's anchors change (kept by triggers)."""
        return self._counter("anchors_generation")

    def _counter(self, key: str) -> int | None:
        row = self._execute("SELECT value FROM store_meta WHERE key = ?", (key,)).fetchone()
        try:
            return int(row[0]) if row is not None else None
        except (TypeError, ValueError):
            return None

    def _cached_stats(self) -> dict[str, int]:
        """Term statistics that stay valid until any connection writes: counting them costs
        milliseconds at 100k memories, and a warm process (the MCP server) asks often."""
        version = (self.db.execute("PRAGMA data_version").fetchone()[0], self.db.total_changes)
        if version != self._stats_version:
            self._stats_version = version
            self._stats = {}
        return self._stats

    def count_memories(self, status: str | None = "active") -> int:
        if status is None:
            return int(self._execute("SELECT COUNT(*) FROM memories").fetchone()[0])
        return int(self._execute("SELECT COUNT(*) FROM memories WHERE status = ?", (status,)).fetchone()[0])

    def element_memory_counts(self) -> dict[str, int]:
        rows = self._execute(
            "SELECT e.element_id, COUNT(*) FROM memory_elements e JOIN memories m ON m.id = e.memory_id "
            "WHERE m.status = 'active' GROUP BY e.element_id"
        ).fetchall()
        return {row[0]: int(row[1]) for row in rows}

    def documented_elements(self, element_ids: Iterable[str]) -> set[str]:
        rows = self._execute(
            "SELECT value FROM json_each(?) WHERE EXISTS (SELECT 1 FROM memory_elements e CROSS JOIN memories m "
            "ON m.id = e.memory_id WHERE e.element_id = value AND m.status = 'active')",  # from the element's rows
            (json.dumps(list(element_ids)),),
        )
        return {row[0] for row in rows}

    def memory_scopes(self) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...], str | None]]:
        """(id, last confirmed as stored, elements, anchors, file) of every active memory,
        without making a ``Memory``: what counting the VERIFY ones needs. Plain scans along
        indexes, joined here (joining them in SQL cost more); orders are not kept, and
        equal lists are one tuple, so grouping by them is cheap."""
        lists: dict[str | None, tuple[str, ...]] = {None: ()}
        elements, anchors = (
            {memory_id: lists[ids] if ids in lists else lists.setdefault(ids, tuple(sorted(ids.split("\0"))))
             for memory_id, ids in self._execute(
                 f"SELECT memory_id, group_concat({column}, char(0)) FROM {table} GROUP BY memory_id")}
            for table, column in (("memory_elements", "element_id"), ("memory_anchors", "anchor"))
        )
        paths: dict[str, str] = {}
        for memory_id, path in self._execute("SELECT memory_id, path FROM memory_files WHERE memory_id IS NOT NULL"):
            if memory_id not in paths or path < paths[memory_id]:  # its first file by name, as ``path_of``
                paths[memory_id] = path
        none = ()
        return [
            (memory_id, since, elements.get(memory_id, none), anchors.get(memory_id, none), paths.get(memory_id))
            for memory_id, since in self._execute(
                "SELECT id, COALESCE(confirmed_at, created_at) FROM memories WHERE status = 'active'")
        ]

    # ---- lexical search -----------------------------------------------------------

    def lexical_search(self, query: WordQuery) -> list[tuple[str, float]]:
        """(memory id, BM25 relevance ≥ 0, higher is better) for a word query, asked as
        an FTS5 ``MATCH`` (``fts5_match``).

        The word index holds active memories only (migration 5), so the ranking runs on
        the index alone and only the best ``limit`` rows are joined to their ids."""
        match = fts5_match(query)
        if not match:
            return []
        rows = self._execute(_RANKED, (float(query.title_weight), float(query.parts_weight), match, query.limit)).fetchall()
        return [(row[0], float(row[1])) for row in rows]

    def lexical_search_started(self, query: WordQuery) -> Callable[[], list[tuple[str, float]]]:
        """``lexical_search`` run now on a connection of its own in a thread, its answer
        waited for when asked: SQLite ranks without holding Python's lock, so the caller's
        work meanwhile runs on another core (at 50,000 memories the ranking takes 13 ms).
        Asked here at once where another connection would not see what this one sees (an
        index in memory, a transaction open) or cannot be had."""
        match = fts5_match(query)
        if not match or self.in_memory or self.db.in_transaction:
            return lambda: self.lexical_search(query)
        found: list[Any] = []

        def search() -> None:
            try:
                other = sqlite3.connect(self.path, isolation_level=None)
                try:
                    other.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
                    found.append(other.execute(_RANKED, (float(query.title_weight), float(query.parts_weight), match,
                                                         query.limit)).fetchall())
                finally:
                    other.close()
            except BaseException as exc:  # asked again by the caller, who then sees it as ever
                found.append(exc)

        thread = threading.Thread(target=search, name="archmem-word-search", daemon=True)
        thread.start()

        def answer() -> list[tuple[str, float]]:
            thread.join()
            if isinstance(found[0], BaseException):
                return self.lexical_search(query)  # asked again here: its error, if any, said as ever
            return [(row[0], float(row[1])) for row in found[0]]

        return answer

    def index_forms(self, terms: Iterable[str]) -> dict[str, str]:
        """The form the word index stores each term under ("retries" → "retri")."""
        return self._forms.of(terms)

    def term_document_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """How many active memories hold each search term, looked up by its index form
        (0 for terms none holds)."""
        forms = self._forms.of(terms)
        stats = self._cached_stats()
        unknown = [form for form in dict.fromkeys(forms.values()) if _TERM + form not in stats]
        for start in range(0, len(unknown), 500):
            chunk = unknown[start : start + 500]
            rows = self._execute(
                f"SELECT term, doc FROM memory_vocab WHERE term IN ({', '.join('?' * len(chunk))})", chunk
            ).fetchall()
            found = {row[0]: int(row[1]) for row in rows}
            stats.update((_TERM + form, found.get(form, 0)) for form in chunk)
        return {term: stats[_TERM + forms[term]] for term in terms}

    # ---- the whole store ----------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """What the store holds, in a few aggregate queries (for ``archmem status``)."""
        memories: dict[str, dict[str, int]] = {}
        for status, kind, count in self._execute(
            "SELECT status, kind, COUNT(*) FROM memories GROUP BY status, kind"
        ).fetchall():
            memories.setdefault(status, {})[kind] = int(count)
        sessions, open_sessions = self._execute(
            "SELECT COUNT(*), COALESCE(SUM(ended_at IS NULL), 0) FROM sessions"
        ).fetchone()
        vectors = dict(self._execute(
            "SELECT e.model, COUNT(*) FROM embeddings e JOIN memories m ON m.id = e.memory_id "
            "WHERE m.status = 'active' GROUP BY e.model"
        ).fetchall())
        pending = self._execute("SELECT COUNT(*) FROM links WHERE target_id IS NULL").fetchone()[0]
        size = 0 if self.in_memory else sum(
            path.stat().st_size for path in (self.path, Path(f"{self.path}-wal")) if path.exists()
        )
        return {
            "path": str(self.path), "schema": current_version(self.db), "bytes": size, "memories": memories,
            "sessions": int(sessions), "open_sessions": int(open_sessions), "vectors": vectors,
            "pending_links": int(pending),
        }

    # ---- what drift and conformance keep -------------------------------------------

    def history_cache(self) -> CommitCache:
        return CommitCache(self)

    def import_cache(self) -> ImportCache:
        return ImportCache(self)

    def legacy_accepts(self) -> list[tuple[int, str, str, str | None]]:
        rows = self._execute("SELECT seq, element_id, at, note FROM drift_accepts ORDER BY seq").fetchall()
        return [(int(seq), element, at, note) for seq, element, at, note in rows]

    def drop_legacy_accepts(self, through_seq: int) -> None:
        with self.transaction():
            self._execute("DELETE FROM drift_accepts WHERE seq <= ?", (through_seq,))

    # ---- audit --------------------------------------------------------------------

    def audit(self, at: str, action: str, memory_id: str | None, reason: str | None, detail: dict[str, Any]) -> None:
        with self.transaction():
            self._execute(
                "INSERT INTO audit_log (at, action, memory_id, reason, detail) VALUES (?, ?, ?, ?, ?)",
                (at, action, memory_id, reason, json.dumps(detail, ensure_ascii=False, sort_keys=True)),
            )

    def audit_entries(self) -> list[dict[str, Any]]:
        rows = self._execute("SELECT at, action, memory_id, reason, detail FROM audit_log ORDER BY seq").fetchall()
        return [
            {"at": r[0], "action": r[1], "memory_id": r[2], "reason": r[3], "detail": json.loads(r[4] or "{}")}
            for r in rows
        ]


def format_time_now() -> str:
    from archmem.clock import system_clock

    return format_time(system_clock())


def _memory(row: Sequence[Any]) -> Memory:
    return Memory(
        id=row[0], title=row[1], kind=row[2], content=row[3], author=row[4], session_id=row[5],
        created_at=parse_time(row[6]), confirmed_at=parse_time(row[7]) if row[7] else None,
        confirmations=row[8], supersedes=row[9], superseded_by=row[10], status=row[11],
        status_reason=row[12], exposures=row[13], citations=row[14], private=bool(row[15]),
        confirmed_by=row[16], confirm_reason=row[17], elements=_json_list(row[18]), anchors=_json_list(row[19]),
    )


def _json_list(value: str | list[str]) -> list[str]:
    """A json_group_array of strings (or the list itself, from a bulk load); most are
    empty, which needs no JSON parser."""
    if isinstance(value, list):
        return value
    if value in ("[]", "[null]"):
        return []
    return [item for item in json.loads(value) if item is not None]


_RANKED = ("SELECT m.id, -f.score FROM (SELECT rowid, bm25(memory_fts, ?, 1.0, ?) AS score FROM memory_fts "
           "WHERE memory_fts MATCH ? ORDER BY score LIMIT ?) AS f JOIN memories m ON m.seq = f.rowid "
           "ORDER BY f.score, m.seq")
"""The best rows of a word query by BM25 (title, body and parts weighed), joined to their ids."""


def fts5_match(query: WordQuery) -> str:
    """A ``WordQuery`` as an FTS5 ``MATCH`` expression: each phrase quoted (a quote in it
    doubled, so no word is read as an operator), joined by OR, the excluded ones after
    NOT; empty when it can find nothing."""
    phrases = [_fts5_phrase(p) for p in query.phrases if p.split()]
    if not phrases:
        return ""
    wanted = " OR ".join(phrases)
    excluded = [_fts5_phrase(p) for p in query.excluded if p.split()]
    if not excluded:
        return wanted
    return f"({wanted}) NOT " + (excluded[0] if len(excluded) == 1 else "(" + " OR ".join(excluded) + ")")


def _fts5_phrase(text: str) -> str:
    return '"' + " ".join(text.split()).replace('"', '""') + '"'


def _like(text: str) -> str:
    """``text`` as a literal inside a LIKE pattern (escape ``\\``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")

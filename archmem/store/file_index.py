"""The index's side of the memory files: which file held which memory when last read or
written (its size, mtime and hash), why a file could not be read, and the chains the
files draw. The files themselves are written by ``archmem.memory.files`` (the one
writer) and read by ``archmem.memory.sync``; this module only records what they said.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from archmem.clock import format_time
from archmem.store.base import FiledMemory, FileRow
from archmem.store.files import FileStat

if TYPE_CHECKING:
    import sqlite3

__all__ = ["FileRow", "MemoryFileIndex"]

_FILE_COLUMNS = (
    "id, title, kind, content, author, session_id, created_at, confirmed_at, confirmations, supersedes, "
    "file_status, status_reason, private, title_key, content_hash, search_title, search_body, search_parts, "
    "confirmed_by, confirm_reason"
)
"""What a memory file states (and what is derived from it for search), in
``_memory_row``'s order; usage, chains and vectors are the index's own."""
_WORDS_OF = (
    "INSERT INTO memory_fts (rowid, search_title, search_body, search_parts) "
    "SELECT seq, search_title, search_body, search_parts FROM memories WHERE {rows} AND status = 'active' "
    "ORDER BY seq"  # FTS5 writes out what it holds whenever a rowid goes down
)
"""The word-index rows of the active memories ``rows`` selects (no trigger writes them: migration 14)."""
_BULK_TABLES = ("memories", "memory_elements", "memory_anchors", "memory_files")
"""The tables a rebuild fills from the files (``bulk_load``)."""


class MemoryFileIndex:
    """Mixed into ``SQLiteStore``: needs ``_execute``, ``transaction`` and ``_select_in``."""

    db: sqlite3.Connection
    _words_deferred = False
    """Inside ``bulk_load`` into an empty index: new memories' words are written at its end."""

    if TYPE_CHECKING:  # what SQLiteStore provides

        def _execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

        def transaction(self) -> Any: ...

        def _select_in(self, sql: str, ids: Sequence[str], *, chunk: int = 500) -> Iterator[Any]: ...

    # ---- what the index knows of the files -----------------------------------------

    def file_row(self, path: str) -> FileRow | None:
        row = self._execute(
            "SELECT path, memory_id, size, mtime_ns, sha256, error, error_line FROM memory_files WHERE path = ?",
            (path,),
        ).fetchone()
        return FileRow(*row) if row else None

    def unfiled_memory_ids(self) -> list[str]:
        """Memories no file holds (an index from before the files), in the order written."""
        rows = self._execute(
            "SELECT id FROM memories WHERE id NOT IN (SELECT memory_id FROM memory_files "
            "WHERE memory_id IS NOT NULL) ORDER BY seq"
        ).fetchall()
        return [row[0] for row in rows]

    def file_rows(self, paths: Iterable[str] | None = None) -> dict[str, FileRow]:
        select = "SELECT path, memory_id, size, mtime_ns, sha256, error, error_line FROM memory_files"
        if paths is None:
            return {row[0]: FileRow(*row) for row in self._execute(select).fetchall()}
        rows = self._select_in(select + " WHERE path IN ({ids})", sorted(set(paths)))  # the few a pull brought
        return {row[0]: FileRow(*row) for row in rows}

    def file_stamps(self) -> dict[str, tuple[int, int]]:
        """{path: (size, mtime_ns)} of every file the index knows: all an open with nothing
        changed needs (no row objects: every command pays for this)."""
        rows = self._execute("SELECT path, size, mtime_ns FROM memory_files").fetchall()
        return {path: (size, mtime_ns) for path, size, mtime_ns in rows}

    def file_count(self, *, up_to: int | None = None) -> int:
        """How many memory files the index knows; with ``up_to``, counted no further (an
        open asks only whether there are that many: a count of 50,000 rows was 1.4 ms)."""
        if up_to is not None:
            return int(self._execute("SELECT COUNT(*) FROM (SELECT 1 FROM memory_files LIMIT ?)", (up_to,)).fetchone()[0])
        return int(self._execute("SELECT COUNT(*) FROM memory_files").fetchone()[0])

    def file_counts(self, private_folder: str) -> tuple[int, int]:
        """(files, of which below ``private_folder``) the index knows, counted in SQL."""
        prefix = private_folder.rstrip("/") + "/"
        row = self._execute(
            "SELECT COUNT(*), COUNT(CASE WHEN path >= ? AND path < ? THEN 1 END) FROM memory_files",
            (prefix, prefix[:-1] + "0"),  # "0" sorts right after "/"
        ).fetchone()
        return int(row[0]), int(row[1])

    def indexed_ids(self) -> set[str]:
        """The id of every memory in the index."""
        return {row[0] for row in self._execute("SELECT id FROM memories").fetchall()}

    def file_problems(self) -> list[FileRow]:
        """The files that could not be indexed, by path."""
        rows = self._execute(
            "SELECT path, memory_id, size, mtime_ns, sha256, error, error_line FROM memory_files "
            "WHERE error IS NOT NULL ORDER BY path"
        ).fetchall()
        return [FileRow(*row) for row in rows]

    def _paths_of(self, ids: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for memory_id, path in self._select_in(
            "SELECT memory_id, path FROM memory_files WHERE memory_id IN ({ids}) ORDER BY path", ids
        ):
            found.setdefault(memory_id, path)
        return found

    def path_of(self, memory_id: str) -> str | None:
        return self._paths_of([memory_id]).get(memory_id)

    def paths_of(self, memory_ids: Iterable[str]) -> dict[str, str]:
        """{memory id: its file} for many memories in one query, however many (those
        without a file left out; a memory in two files: the first by name)."""
        found: dict[str, str] = {}
        rows = self._execute(
            "SELECT memory_id, path FROM memory_files WHERE memory_id IN (SELECT value FROM json_each(?)) "
            "ORDER BY path",
            (json.dumps(list(dict.fromkeys(memory_ids))),),
        )
        for memory_id, path in rows:
            found.setdefault(memory_id, path)
        return found

    def record_file(
        self, path: str, memory_id: str | None, stat: FileStat, sha256: str,
        error: str | None = None, error_line: int | None = None,
    ) -> None:
        self.record_files([FileRow(path, memory_id, stat.size, stat.mtime_ns, sha256, error, error_line)])

    def record_files(self, rows: Iterable[FileRow]) -> None:
        with self.transaction():
            self.db.executemany(
                "INSERT INTO memory_files (path, memory_id, size, mtime_ns, sha256, error, error_line) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET memory_id = excluded.memory_id, "
                "size = excluded.size, mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256, "
                "error = excluded.error, error_line = excluded.error_line",
                [(row.path, row.memory_id, row.size, row.mtime_ns, row.sha256, row.error, row.error_line)
                 for row in rows],
            )

    def forget_file(self, path: str) -> None:
        self._execute("DELETE FROM memory_files WHERE path = ?", (path,))

    def upsert_from_files(self, filed: Sequence[FiledMemory]) -> None:
        """Index what files say, many at once (see ``Store``): new memories are inserted and
        their word-index rows written in one statement after them, as FTS5 writes a segment
        per statement that fires a trigger (a rebuild through the trigger was 6 times slower);
        memories already indexed are updated, and the update trigger re-indexes their words."""
        latest = {item.memory.id: item for item in filed}  # the same id twice: the last wins
        if not latest:
            return
        with self.transaction():
            ids = list(latest)
            known = {row[0] for row in self._select_in("SELECT id FROM memories WHERE id IN ({ids})", ids)}
            new = [_memory_row(item) for memory_id, item in latest.items() if memory_id not in known]
            self.db.executemany(
                f"INSERT INTO memories ({_FILE_COLUMNS}, status) VALUES ({', '.join('?' * 21)})",
                [(*row, row[10]) for row in new],  # a file says active or archived: chains are derived after
            )
            self.db.executemany(
                f"UPDATE memories SET {', '.join(f'{column.strip()} = ?' for column in _FILE_COLUMNS.split(',')[1:])} "
                "WHERE id = ?",
                [(*row[1:], row[0]) for row in (_memory_row(latest[memory_id]) for memory_id in ids if memory_id in known)],
            )
            if new and not self._words_deferred:
                self._execute(_WORDS_OF.format(rows="id IN (SELECT value FROM json_each(?))"),
                              (json.dumps([row[0] for row in new]),))
            replaced = [(memory_id,) for memory_id in ids if memory_id in known]
            for table, column, attribute in (("memory_elements", "element_id", "elements"),
                                             ("memory_anchors", "anchor", "anchors")):
                self.db.executemany(f"DELETE FROM {table} WHERE memory_id = ?", replaced)
                self.db.executemany(
                    f"INSERT INTO {table} (memory_id, {column}, position) VALUES (?, ?, ?)",
                    [(memory_id, value, position) for memory_id, item in latest.items()
                     for position, value in enumerate(dict.fromkeys(getattr(item.memory, attribute)))],
                )

    @contextmanager
    def bulk_load(self) -> Iterator[bool]:
        """A transaction for indexing many files: when the index holds no memory (a
        rebuild), the secondary indexes of the tables the files fill are dropped and made
        again, from their own definitions, once the rows are in (sorting once is cheaper
        than keeping each index in order row by row), and the word index is written in
        one statement at the end (one segment to merge, not one a chunk), after the chains
        are derived (no words written for a memory superseded meanwhile, to be deleted
        again). One transaction: a crash leaves the index as it was. Yields whether the
        index was empty (then the chains are derived when it ends)."""
        with self.transaction():
            if self._execute("SELECT 1 FROM memories LIMIT 1").fetchone() is not None:
                yield False
                return
            indexes = self._execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                f"AND tbl_name IN ({', '.join(repr(table) for table in _BULK_TABLES)}) ORDER BY name"
            ).fetchall()
            for name, _ in indexes:
                self._execute(f'DROP INDEX "{name}"')
            self._words_deferred = True
            try:
                yield True
            finally:
                self._words_deferred = False
            for _, sql in indexes:
                self._execute(sql)
            self.derive_chains()  # first: a memory superseded or archived gets no words to delete again
            # a memory updated meanwhile (two files, one id) had its words written by the trigger
            self._execute(_WORDS_OF.format(rows="seq NOT IN (SELECT rowid FROM memory_fts)"))

    def forget_memory(self, memory_id: str) -> None:
        """Drop a memory whose file is gone from the index: links to it become pending
        again; what supersedes it keeps saying so (its own file says it)."""
        with self.transaction():
            self._execute("UPDATE links SET target_id = NULL, target_kind = NULL WHERE target_id = ?", (memory_id,))
            self._execute("DELETE FROM memories WHERE id = ?", (memory_id,))

    def retarget_links_to_heads(self) -> int:
        """Links to a superseded memory follow its chain to the current one."""
        moved = 0
        for _ in range(64):  # one step of every chain per pass; chains are short
            cursor = self._execute(
                "UPDATE links SET target_id = (SELECT superseded_by FROM memories WHERE id = links.target_id) "
                "WHERE target_kind = 'memory' AND target_id IN "
                "(SELECT id FROM memories WHERE status = 'superseded' AND superseded_by IS NOT NULL)"
            )
            moved += cursor.rowcount
            if not cursor.rowcount:
                break
        return moved

    def derive_chains(self) -> int:
        """Set ``superseded_by`` and ``status`` from the chains the files draw: a memory
        is superseded when any other memory names it in ``supersedes`` (the earliest such
        is its successor; more than one is a fork), archived when its file says so, else
        active. Only rows that change are written. Returns how many changed."""
        successor = (
            "(SELECT s.id FROM memories s WHERE s.supersedes = memories.id AND s.id != memories.id "
            "ORDER BY s.created_at, s.id LIMIT 1)"
        )
        changed = self._execute(
            f"UPDATE memories SET superseded_by = {successor} WHERE superseded_by IS NOT {successor}"
        ).rowcount
        status = (
            "(CASE WHEN superseded_by IS NOT NULL THEN 'superseded' "
            "WHEN file_status = 'archived' THEN 'archived' ELSE 'active' END)"
        )
        changed += self._execute(f"UPDATE memories SET status = {status} WHERE status IS NOT {status}").rowcount
        return int(changed)

    def forks(self) -> dict[str, list[str]]:
        """{memory id: the ids of its successors} where more than one supersedes it (an
        archived successor was retired on purpose and ends the fork). Every recall asks:
        the memories superseded more than once are found in the index of ``supersedes``
        alone, and only their successors' rows are read and ordered."""
        rows = self._execute(
            "SELECT supersedes, json_group_array(id) FROM (SELECT supersedes, id FROM memories "
            "WHERE supersedes IN (SELECT supersedes FROM memories WHERE supersedes IS NOT NULL "
            "GROUP BY supersedes HAVING COUNT(*) > 1) AND file_status != 'archived' ORDER BY created_at, id) "
            "GROUP BY supersedes HAVING COUNT(*) > 1"
        ).fetchall()
        return {row[0]: json.loads(row[1]) for row in rows}

    # ---- small facts about the store ------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self._execute("SELECT value FROM store_meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str | None) -> None:
        with self.transaction():
            if value is None:
                self._execute("DELETE FROM store_meta WHERE key = ?", (key,))
            else:
                self._execute(
                    "INSERT INTO store_meta (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )



def _memory_row(item: FiledMemory) -> tuple[Any, ...]:
    """The values of ``_FILE_COLUMNS`` for a memory read from its file."""
    memory = item.memory
    return (
        memory.id, memory.title, memory.kind, memory.content, memory.author, memory.session_id,
        format_time(memory.created_at), format_time(memory.confirmed_at) if memory.confirmed_at else None,
        memory.confirmations, memory.supersedes, "archived" if memory.status == "archived" else "active",
        memory.status_reason, int(memory.private), item.title_key, item.content_hash, item.search_title,
        item.search_body, item.search_parts, memory.confirmed_by, memory.confirm_reason,
    )

"""The index's side of memory files: which file holds which memory, and the write path.

Every write to a memory goes through the store inside ``transaction()`` (the one lock:
SQLite's ``BEGIN IMMEDIATE``). The store marks each memory it changes; before COMMIT
the marked memories are rendered and written to their files atomically, and the file's
size, mtime and hash are recorded in the same transaction. If writing a file or the
COMMIT fails, the files written are put back as they were. So the files and the index
never disagree about a write, and a reader that lists the folder while a writer is
between its file and its COMMIT waits for the lock before it indexes anything. A file
that changed on disk since the index read it (an edit a long-running process has not
synced yet), or that does not parse, is never overwritten: the write is refused.

Reading files into the index (``archmem.memory.sync``) runs under ``indexing_only()``:
it takes what the files say and writes nothing back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from archmem.clock import format_time
from archmem.errors import ConflictError
from archmem.memory.types import Memory
from archmem.store.files import FileStat, MemoryFolder, content_sha

if TYPE_CHECKING:
    import sqlite3

FILE_FIELDS = frozenset(
    {"title", "content", "author", "confirmed_at", "confirmed_by", "confirm_reason", "confirmations", "supersedes",
     "status", "status_reason"}
)
"""Fields a file holds: changing one rewrites the file (usage counters and the derived
``superseded_by`` do not)."""


@dataclass(frozen=True)
class FileRow:
    """What the index knows of one memory file."""

    path: str
    memory_id: str | None
    size: int
    mtime_ns: int
    sha256: str
    error: str | None = None
    error_line: int | None = None

    def unchanged(self, stat: FileStat) -> bool:
        return self.size == stat.size and self.mtime_ns == stat.mtime_ns


WRITE_CHUNK = 500
"""Memories read back at a time to write their files."""


class MemoryFileIndex:
    """Mixed into ``SQLiteStore``: needs ``_execute``, ``transaction`` and ``get_memories``."""

    folder: MemoryFolder | None
    db: sqlite3.Connection

    def _init_files(self, folder: MemoryFolder | None) -> None:
        self.folder = folder
        self._dirty: dict[str, None] = {}
        self._written: list[tuple[str, bytes | None]] = []
        self._mirroring = folder is not None

    if TYPE_CHECKING:  # what SQLiteStore provides

        def _execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

        def transaction(self) -> Any: ...

        def _select_in(self, sql: str, ids: Sequence[str], *, chunk: int = 500) -> Iterator[Any]: ...

        def get_memories(self, memory_ids: Iterable[str]) -> dict[str, Memory]: ...

    # ---- the write path ------------------------------------------------------------

    def _mark(self, memory_id: str) -> None:
        if self._mirroring:
            self._dirty[memory_id] = None

    @contextmanager
    def indexing_only(self) -> Iterator[None]:
        """Index what the files say without writing any file (the sync from files)."""
        before = self._mirroring
        self._mirroring = False
        try:
            yield
        finally:
            self._mirroring = before

    def _before_commit(self) -> None:
        if not self._dirty or self.folder is None:
            self._dirty = {}
            return
        ids = list(self._dirty)
        self._dirty = {}
        self._written = []
        self._write_files(ids)

    def _write_files(self, ids: list[str]) -> None:
        """The files of ``ids``, read from the index a chunk at a time (an import of
        50,000 memories never holds them all)."""
        paths = self._paths_of(ids)
        taken = set(paths.values())
        for start in range(0, len(ids), WRITE_CHUNK):
            chunk = ids[start:start + WRITE_CHUNK]
            self._write_chunk(chunk, {i: paths[i] for i in chunk if i in paths}, taken)

    def _write_chunk(self, ids: list[str], paths: dict[str, str], taken: set[str]) -> None:
        folder = self.folder
        assert folder is not None
        recorded = self._recorded_files(list(paths.values()))
        memories = self.get_memories(ids)
        statuses = self._file_statuses(ids)
        for memory_id in ids:
            memory = memories.get(memory_id)
            path = paths.get(memory_id)
            if memory is None:  # purged: its file goes too
                if path is not None:
                    self._keep_for_rollback(path)
                    folder.remove(path)
                    self.forget_file(path)
                continue
            as_file = replace(memory, status=statuses.get(memory_id, "active"),  # type: ignore[arg-type]
                              superseded_by=None)
            data = folder.render(as_file).encode("utf-8")
            if path is None:
                path = folder.path_for(memory, private=memory.private, taken=taken.__contains__)
                taken.add(path)
            old = self._current(path)
            if path in recorded:
                _refuse_to_overwrite_an_edit(path, old, *recorded[path])
            self._written.append((path, old))
            if old != data:
                folder.write(path, data)
            self.record_file(path, memory_id, folder.stat(path), content_sha(data))

    def _current(self, path: str) -> bytes | None:
        assert self.folder is not None
        try:
            return self.folder.read(path)
        except OSError:
            return None

    def _keep_for_rollback(self, path: str) -> bytes | None:
        old = self._current(path)
        self._written.append((path, old))
        return old

    def _after_commit(self) -> None:
        self._written = []

    def _after_rollback(self) -> None:
        """Put back every file this transaction wrote or removed."""
        self._dirty = {}
        written, self._written = self._written, []
        if self.folder is None:
            return
        for path, old in reversed(written):
            try:
                if old is None:
                    self.folder.remove(path)
                else:
                    self.folder.write(path, old)
            except Exception:  # noqa: BLE001 - the original error is what the caller must see
                continue

    def write_all_files(self) -> int:
        """Write every memory of the index to a file (moving a store from before files)."""
        with self.transaction():
            ids = [row[0] for row in self._execute(
                "SELECT id FROM memories WHERE id NOT IN (SELECT memory_id FROM memory_files "
                "WHERE memory_id IS NOT NULL) ORDER BY seq"
            ).fetchall()]
            for memory_id in ids:
                self._mark(memory_id)
            self.set_meta("files_export", None)
        return len(ids)

    # ---- what the index knows of the files -----------------------------------------

    def file_rows(self) -> dict[str, FileRow]:
        rows = self._execute(
            "SELECT path, memory_id, size, mtime_ns, sha256, error, error_line FROM memory_files"
        ).fetchall()
        return {row[0]: FileRow(*row) for row in rows}

    def file_stamps(self) -> dict[str, tuple[int, int]]:
        """{path: (size, mtime_ns)} of every file the index knows: all an open with nothing
        changed needs (no row objects: every command pays for this)."""
        rows = self._execute("SELECT path, size, mtime_ns FROM memory_files").fetchall()
        return {path: (size, mtime_ns) for path, size, mtime_ns in rows}

    def file_count(self) -> int:
        """How many memory files the index knows."""
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

    def _recorded_files(self, paths: list[str]) -> dict[str, tuple[str, str | None, int | None]]:
        """{path: (sha256, error, error line)} as the index last read each file."""
        return {
            path: (sha, error, line)
            for path, sha, error, line in self._select_in(
                "SELECT path, sha256, error, error_line FROM memory_files WHERE path IN ({ids})", paths
            )
        }

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

    def _file_statuses(self, ids: list[str]) -> dict[str, str]:
        return dict(self._select_in("SELECT id, file_status FROM memories WHERE id IN ({ids})", ids))

    def record_file(
        self, path: str, memory_id: str | None, stat: FileStat, sha256: str,
        error: str | None = None, error_line: int | None = None,
    ) -> None:
        self._execute(
            "INSERT INTO memory_files (path, memory_id, size, mtime_ns, sha256, error, error_line) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET memory_id = excluded.memory_id, "
            "size = excluded.size, mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256, "
            "error = excluded.error, error_line = excluded.error_line",
            (path, memory_id, stat.size, stat.mtime_ns, sha256, error, error_line),
        )

    def forget_file(self, path: str) -> None:
        self._execute("DELETE FROM memory_files WHERE path = ?", (path,))

    def upsert_from_file(
        self, memory: Memory, *, title_key: str | None, content_hash: str, search_title: str, search_body: str,
        search_parts: str = "",
    ) -> None:
        """Index what a file says: its own fields replace the index's, usage stays."""
        with self.transaction():
            self._execute(
                "INSERT INTO memories (id, title, kind, content, author, session_id, created_at, confirmed_at, "
                "confirmations, supersedes, status, status_reason, file_status, private, title_key, content_hash, "
                "search_title, search_body, search_parts, confirmed_by, confirm_reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET title = excluded.title, kind = excluded.kind, "
                "content = excluded.content, author = excluded.author, session_id = excluded.session_id, "
                "created_at = excluded.created_at, confirmed_at = excluded.confirmed_at, "
                "confirmations = excluded.confirmations, supersedes = excluded.supersedes, "
                "status_reason = excluded.status_reason, file_status = excluded.file_status, "
                "private = excluded.private, title_key = excluded.title_key, content_hash = excluded.content_hash, "
                "search_title = excluded.search_title, search_body = excluded.search_body, "
                "search_parts = excluded.search_parts, confirmed_by = excluded.confirmed_by, "
                "confirm_reason = excluded.confirm_reason",
                (
                    memory.id, memory.title, memory.kind, memory.content, memory.author, memory.session_id,
                    format_time(memory.created_at),
                    format_time(memory.confirmed_at) if memory.confirmed_at else None,
                    memory.confirmations, memory.supersedes, memory.status, memory.status_reason,
                    "archived" if memory.status == "archived" else "active", int(memory.private),
                    title_key, content_hash, search_title, search_body, search_parts,
                    memory.confirmed_by, memory.confirm_reason,
                ),
            )
            for table, column, values in (
                ("memory_elements", "element_id", memory.elements), ("memory_anchors", "anchor", memory.anchors)
            ):
                self._execute(f"DELETE FROM {table} WHERE memory_id = ?", (memory.id,))
                for position, value in enumerate(dict.fromkeys(values)):
                    self._execute(
                        f"INSERT INTO {table} (memory_id, {column}, position) VALUES (?, ?, ?)",
                        (memory.id, value, position),
                    )

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
        archived successor was retired on purpose and ends the fork)."""
        rows = self._execute(
            "SELECT supersedes, json_group_array(id) FROM (SELECT supersedes, id FROM memories "
            "WHERE supersedes IS NOT NULL AND file_status != 'archived' ORDER BY created_at, id) "
            "GROUP BY supersedes HAVING COUNT(*) > 1"
        ).fetchall()
        import json

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


def _refuse_to_overwrite_an_edit(
    path: str, current: bytes | None, sha256: str, error: str | None, error_line: int | None
) -> None:
    """A write renders the memory from the index; if its file changed on disk since the
    index read it (a person's edit, a pull that a long-running process has not synced),
    or it does not parse, writing would put the old version back over the edit."""
    if error is not None:
        raise ConflictError(
            f"the memory file {path} does not parse (line {error_line or 1}: {error}); nothing was written, "
            "so the edit in it is kept",
            hint="fix the file (or `git checkout` it), then run the command again",
        )
    if current is None:
        raise ConflictError(
            f"the memory file {path} was deleted after archmem read it; nothing was written",
            hint="run the command again: it reads the memory files first",
        )
    if content_sha(current) != sha256:
        raise ConflictError(
            f"the memory file {path} changed on disk after archmem read it; nothing was written, so the change "
            "is kept",
            hint="run the command again: it reads the memory files first",
        )

"""One SQLite file opened the way archmem needs it.

WAL (readers never wait for the writer), a busy timeout, foreign keys on, and every
write inside ``transaction()`` (``BEGIN IMMEDIATE``, re-entrant), so a check and the
write it decides see the same database even with other processes writing. A file that
is not SQLite, is corrupt, read-only or locked too long is a ``StoreError`` that says
so, and nothing is changed.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from archmem.errors import StoreError
from archmem.store.failures import is_store_failure, store_error

SQLITE_HEADER = b"SQLite format 3\x00"
IN_MEMORY = ":memory:"
"""The path of an index that lives in this process only (a read where no index may be
created, see ``Workspace.store``): no file, no WAL, gone at ``close``."""


class SQLiteConnection:
    """The connection and its transactions; ``SQLiteStore`` adds what is stored."""

    def __init__(self, path: Path, *, busy_timeout_ms: int = 30_000) -> None:
        self.path = Path(path)
        self.in_memory = str(path) == IN_MEMORY
        self.busy_timeout_ms = busy_timeout_ms
        self._depth = 0
        self._undo: list[Callable[[], None]] = []
        self.db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        if self.in_memory:
            db = sqlite3.connect(IN_MEMORY, isolation_level=None)
            db.execute("PRAGMA foreign_keys = ON")
            return db
        path = self.path
        if path.exists():
            with path.open("rb") as handle:
                header = handle.read(16)
            if header and header != SQLITE_HEADER:
                raise StoreError(
                    f"{path} is not an archmem store (not a SQLite database); nothing was changed",
                    hint="move it aside, or point [store] path in archmem.toml at another file",
                )
        else:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the store folder {path.parent}: {exc.strerror}") from None
        if path.exists():
            try:
                # a real attempt, not os.access: root passes access checks on files it cannot write
                with path.open("r+b"):
                    pass
            except OSError:
                raise StoreError(
                    f"the store {path} is read-only; archmem needs to write to it; nothing was changed",
                    hint="check the file's permissions and attributes (and its folder's, for the WAL files)",
                ) from None
        try:
            db = sqlite3.connect(str(path), isolation_level=None, timeout=self.busy_timeout_ms / 1000)
            db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            mode = self._switch_to_wal(db)
            if str(mode).lower() != "wal":
                raise StoreError(f"{path}: could not switch the store to WAL mode (got {mode})")
            db.execute("PRAGMA foreign_keys = ON")
            db.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as exc:
            raise self._explain(exc) from None
        return db

    def _explain(self, exc: sqlite3.Error) -> StoreError:
        return store_error(exc, self.path)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction (re-entrant): everything inside commits or nothing does."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._begin()
        self._depth = 1
        try:
            yield
        except BaseException as exc:
            self._depth = 0
            self._rollback()
            if is_store_failure(exc) and not isinstance(exc, sqlite3.IntegrityError):
                raise self._explain(exc) from None
            raise
        self._depth = 0
        self._commit()

    def on_rollback(self, undo: Callable[[], None]) -> None:
        """Run ``undo`` if the open transaction rolls back (the last registered first): a
        memory file written under the transaction is put back so. Forgotten at COMMIT."""
        if self._depth:
            self._undo.append(undo)

    def _after_commit(self) -> None:
        """The transaction is durable: forget what would have been undone."""
        self._undo = []

    def _after_rollback(self) -> None:
        """Undo what was written outside the database under the transaction; a failing
        undo never hides the error that rolled back."""
        undo, self._undo = self._undo, []
        for action in reversed(undo):
            try:
                action()
            except Exception:  # noqa: BLE001, S112 - the original error is what the caller must see
                continue

    def _switch_to_wal(self, db: sqlite3.Connection) -> str:
        """``PRAGMA journal_mode = WAL``, retried while another process holds the new file:
        SQLite answers "database is locked" at once there, without its busy handler."""
        deadline = time.monotonic() + max(self.busy_timeout_ms, 1000) / 1000
        while True:
            try:
                return str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            except sqlite3.OperationalError as exc:
                if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _begin(self) -> None:
        deadline = time.monotonic() + max(self.busy_timeout_ms, 1000) / 1000 * 4
        while True:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.DatabaseError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise self._explain(exc) from None
                if time.monotonic() > deadline:
                    raise StoreError(
                        f"the store {self.path} stayed locked by another writer for too long; try again"
                    ) from None
                time.sleep(0.01)

    def _commit(self) -> None:
        try:
            self.db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            self._rollback()
            raise self._explain(exc) from None
        self._after_commit()

    def _rollback(self) -> None:
        """Roll back what is still open. On SQLITE_FULL or an I/O error SQLite has rolled
        back already, and a second ROLLBACK ("no transaction is active") would hide why."""
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the error that made us roll back is the one to report
        self._after_rollback()

    def _select_in(self, sql: str, ids: Sequence[str], *, chunk: int = 500) -> Iterator[Any]:
        """The rows of ``sql`` for many ids: its ``{ids}`` becomes the placeholders of one
        chunk at a time, under SQLite's limit on bound variables."""
        for start in range(0, len(ids), chunk):
            part = list(ids[start : start + chunk])
            yield from self._execute(sql.format(ids=", ".join("?" * len(part))), part).fetchall()

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """``db.execute`` with the database's failures (corrupt, full, locked, read-only)
        as ``StoreError``; constraint violations and FTS5 query errors stay for the caller."""
        try:
            return self.db.execute(sql, params)
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as exc:
            if not is_store_failure(exc) or "fts5" in str(exc) or "syntax error" in str(exc):
                raise
            raise self._explain(exc) from None

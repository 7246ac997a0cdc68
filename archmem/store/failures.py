"""What a SQLite failure means to the user: one ``StoreError`` per cause, with what to do.

The store translates the failures of its own statements (``SQLiteConnection._explain``);
``store_failures`` is the net at the interfaces for the few that surface elsewhere (a
row fetched after its statement ran, history-cache statements), so a corrupt page or a
full disk is never a traceback. Causes are read from SQLite's own error name
(``sqlite_errorname``), not guessed from the text, where Python gives it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeGuard

from archmem.errors import StoreError

CORRUPT_HINT = (
    "the memory files are the truth and this is only their index: delete {path} (and its -wal and -shm "
    "files) and the next command rebuilds it, losing only this clone's sessions and usage counts "
    "(to keep those, salvage first: `sqlite3 {path} .recover | sqlite3 recovered.db`)"
)
"""What to do about a corrupt index; ``{path}`` is the store's file."""


def is_store_failure(exc: BaseException) -> TypeGuard[sqlite3.DatabaseError]:
    """A failure of the database itself, not a bug in how archmem called it (wrong
    bindings, a closed connection: ``ProgrammingError``/``InterfaceError`` stay bugs)."""
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.ProgrammingError)


def store_error(exc: sqlite3.Error, path: Path | str) -> StoreError:
    """The ``StoreError`` for a failure of the store at ``path``."""
    text = str(exc)
    name = getattr(exc, "sqlite_errorname", None) or ""
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text or "not a database" in text:
        return StoreError(
            f"the archmem index {path} is corrupt ({text}); nothing was changed",
            hint=CORRUPT_HINT.format(path=path),
        )
    if name == "SQLITE_FULL" or "disk is full" in text:
        return StoreError(
            f"the disk holding the store {path} is full ({text}); nothing was changed",
            hint="free some space on that disk (or point [store] path in archmem.toml elsewhere) and try again",
        )
    if name.startswith("SQLITE_IOERR") or "disk I/O error" in text:
        return StoreError(
            f"cannot read or write the store {path} ({text}); nothing was changed",
            hint="check the disk and the file system it lives on, then try again",
        )
    if name.startswith("SQLITE_READONLY") or "readonly" in text or "read-only" in text:
        return StoreError(f"the store {path} is read-only ({text})")
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        return StoreError(f"cannot open the store {path} ({text})")
    if isinstance(exc, sqlite3.IntegrityError):
        return StoreError(
            f"the store {path} refused a write that would break its consistency ({text}); nothing was changed",
            hint="if it happens again for the same input, report it; "
            f"`sqlite3 {path} 'PRAGMA integrity_check'` tells whether the index is damaged",
        )
    return StoreError(f"{path}: {text}")


@contextmanager
def store_failures(path: Callable[[], Path | str]) -> Iterator[None]:
    """Any SQLite failure inside becomes its ``StoreError``; ``path`` is asked only then."""
    try:
        yield
    except sqlite3.Error as exc:
        if not is_store_failure(exc):
            raise
        raise store_error(exc, path()) from None

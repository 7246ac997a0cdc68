"""The index adapter. ``open_store`` is the one way in (and the one place outside this
package's modules that names the SQLite implementation): it always migrates."""

from __future__ import annotations

from pathlib import Path

from archmem.store.base import Store
from archmem.store.files import MemoryFolder
from archmem.store.sqlite import SQLiteStore


def open_store(path: Path, *, busy_timeout_ms: int = 30_000, now: str | None = None) -> SQLiteStore:
    """Open (creating and migrating as needed) the index at ``path`` (``:memory:``: an
    index in this process only). Callers outside ``archmem.store`` hold it as a ``Store``."""
    return SQLiteStore(path, busy_timeout_ms=busy_timeout_ms, now=now)


__all__ = ["MemoryFolder", "SQLiteStore", "Store", "open_store"]

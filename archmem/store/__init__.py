"""The memory store adapter. ``open_store`` is the one way in: it always migrates."""

from __future__ import annotations

from pathlib import Path

from archmem.store.files import MemoryFolder
from archmem.store.sqlite import SQLiteStore


def open_store(
    path: Path, *, busy_timeout_ms: int = 30_000, now: str | None = None, folder: MemoryFolder | None = None
) -> SQLiteStore:
    """Open (creating and migrating as needed) the index at ``path``; with ``folder``,
    every write also goes to the memory files."""
    return SQLiteStore(path, busy_timeout_ms=busy_timeout_ms, now=now, folder=folder)


__all__ = ["MemoryFolder", "SQLiteStore", "open_store"]

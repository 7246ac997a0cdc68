"""The per-content import cache for conformance, in the same SQLite database.

Rows are keyed by (content hash, extractor): the same file content on another branch,
path or clone reuses the row, and a new extractor version never reads an old row. A
run marks the rows it needed; rows unneeded for ``KEEP_RUNS`` runs are dropped, so the
cache follows the branches in use without growing forever. Table from migration 10.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from archmem.store.connection import SQLiteConnection

KEEP_RUNS = 20


class ImportCache:
    """``(blob, extractor) → imports`` (JSON values) on the index's connection."""

    def __init__(self, store: SQLiteConnection) -> None:
        self.store = store
        self.db = store.db

    def get_many(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Any]:
        """The cached imports of those keys that are cached (one query per 500 keys)."""
        found: dict[tuple[str, str], Any] = {}
        wanted = list(dict.fromkeys(keys))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            rows = self.db.execute(
                "SELECT c.blob, c.extractor, c.imports FROM json_each(?) AS k "
                "JOIN code_imports AS c ON c.blob = json_extract(k.value, '$[0]') "
                "AND c.extractor = json_extract(k.value, '$[1]')",
                (json.dumps(chunk),),
            ).fetchall()
            if rows:  # one decode for the chunk: thousands of small json.loads calls cost more
                values = json.loads("[" + ",".join(row[2] for row in rows) + "]")
                for (blob, extractor, _), value in zip(rows, values, strict=True):
                    found[(blob, extractor)] = value
        return found

    def put_many(self, rows: Iterable[tuple[str, str, Any]], *, needed: Sequence[tuple[str, str]] = ()) -> None:
        """Store new rows, mark ``needed`` ones as used by this run, drop rows long unused."""
        batch = [(blob, extractor, json.dumps(value, separators=(",", ":"))) for blob, extractor, value in rows]
        with self.store.transaction():
            run = int(self.db.execute("SELECT COALESCE(MAX(seen), 0) + 1 FROM code_imports").fetchone()[0])
            self.db.executemany(
                "INSERT INTO code_imports (blob, extractor, imports, seen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (blob, extractor) DO UPDATE SET imports = excluded.imports, seen = excluded.seen",
                [(b, e, i, run) for b, e, i in batch],
            )
            if needed:
                self.db.execute(
                    "UPDATE code_imports SET seen = ? WHERE (blob, extractor) IN "
                    "(SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))",
                    (run, json.dumps(list(needed))),
                )
            self.db.execute("DELETE FROM code_imports WHERE seen < ?", (run - KEEP_RUNS,))

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM code_imports").fetchone()[0])

"""The index's embedding vectors: one little-endian float32 blob per (memory, model).

Its own module because vectors live apart from the memories they describe: keyed by
the embedding model's identity, each with the hash of the text it was made from (so
``archmem.embeddings`` skips what has not changed), and versioned per model (migration
6) so recall can keep a model's vectors until one changes. Tables from migrations 1
and 6; mixed into ``SQLiteStore``.
"""

from __future__ import annotations

from typing import Any

from archmem.store.connection import SQLiteConnection


class VectorTable(SQLiteConnection):
    """Embedding vectors by memory and model, on the store's connection."""

    def vector_hash(self, memory_id: str, model: str) -> str | None:
        row = self._execute(
            "SELECT content_hash FROM embeddings WHERE memory_id = ? AND model = ?", (memory_id, model)
        ).fetchone()
        return row[0] if row else None

    def put_vector(self, memory_id: str, model: str, vector: bytes, dims: int, content_hash: str, at: str) -> None:
        with self.transaction():
            self._execute(
                "INSERT INTO embeddings (memory_id, model, dims, content_hash, vector, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (memory_id, model) DO UPDATE SET "
                "dims = excluded.dims, content_hash = excluded.content_hash, vector = excluded.vector, "
                "created_at = excluded.created_at",
                (memory_id, model, dims, content_hash, vector, at),
            )

    def vectors(self, model: str, *, status: str | None = "active") -> list[tuple[str, bytes, int]]:
        """(memory id, little-endian float32 blob, dims) of one embedding model only."""
        sql = "SELECT e.memory_id, e.vector, e.dims FROM embeddings e JOIN memories m ON m.id = e.memory_id WHERE e.model = ?"
        params: list[Any] = [model]
        if status:
            sql += " AND m.status = ?"
            params.append(status)
        return [(r[0], r[1], int(r[2])) for r in self._execute(sql + " ORDER BY m.seq", params).fetchall()]

    def vector_hashes(self, model: str) -> dict[str, str]:
        """{memory id: hash of the text its vector was made from} for one model."""
        rows = self._execute("SELECT memory_id, content_hash FROM embeddings WHERE model = ?", (model,)).fetchall()
        return {r[0]: r[1] for r in rows}

    def vector_version(self, model: str) -> int:
        """Changes whenever a vector of this model is added, replaced or removed (for caches)."""
        row = self._execute("SELECT version FROM embedding_versions WHERE model = ?", (model,)).fetchone()
        return int(row[0]) if row else 0

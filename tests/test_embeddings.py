"""Embedders against a real loopback server through the official clients; vectors in a real store."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from archmem.config import EmbeddingsConfig
from archmem.embeddings import (
    EmbeddingError,
    OllamaEmbedder,
    OpenAIEmbedder,
    backfill,
    blob_to_vector,
    cosine_top,
    embedding_text,
    make_embedder,
    text_hash,
    vector_to_blob,
)
from archmem.errors import ArchmemError, ConfigError
from archmem.memory.types import Memory
from archmem.store import open_store
from archmem.store.sqlite import SQLiteStore
from archmem.testing import EmbeddingServer, SemanticModel
from archmem.testing.embedding_server import OLLAMA_PATH, OPENAI_PATH

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
AT = "2026-11-01T12:00:00.000000Z"
DIMS = 64
FAST = 3.0  # seconds: every failure must be this quick to report


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer(dims=DIMS) as running:
        yield running


@pytest.fixture(autouse=True)
def _healthy(server: EmbeddingServer) -> Iterator[None]:
    server.reset()
    yield
    server.reset()


def openai_embedder(server: EmbeddingServer, timeout: float = 2.0, **kw) -> OpenAIEmbedder:
    return OpenAIEmbedder("fake-embed", server.openai_base_url, None, timeout, **kw)


def ollama_embedder(server: EmbeddingServer, timeout: float = 2.0, **kw) -> OllamaEmbedder:
    return OllamaEmbedder("fake-embed", server.ollama_host, timeout, **kw)


PROVIDERS = [openai_embedder, ollama_embedder]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# ---- providers ------------------------------------------------------------------------


@pytest.mark.parametrize("make", PROVIDERS)
def test_providers_return_normalized_float32_rows_and_name_their_identity(server, make):
    embedder = make(server)
    vectors = embedder.embed(["the checkout is slow", "gateway strips long headers", "x"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, DIMS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.identity == f"{embedder.provider}:fake-embed:{DIMS}"
    assert embedder.embed([]).shape == (0, DIMS)


@pytest.mark.parametrize("make", PROVIDERS)
def test_both_providers_agree_with_the_model_and_synonyms_are_closer(server, make):
    texts = ["purchase latency got worse", "the checkout is slow", "rotate the TLS certificates yearly"]
    vectors = make(server).embed(texts)
    assert np.allclose(vectors, SemanticModel(DIMS).embed(texts), atol=1e-5)
    similar, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert similar > 0.6 and unrelated < 0.35 and similar - unrelated > 0.4


def test_identity_probes_once_when_dimensions_are_unknown(server):
    embedder = openai_embedder(server)
    before = server.calls[OPENAI_PATH]
    assert embedder.identity.endswith(f":{DIMS}")
    assert embedder.identity.endswith(f":{DIMS}")
    assert server.calls[OPENAI_PATH] == before + 1


def test_configured_dimensions_name_the_identity_without_a_request(server):
    before = sum(server.calls.values())
    assert ollama_embedder(server, dimensions=DIMS).identity == f"ollama:fake-embed:{DIMS}"
    assert sum(server.calls.values()) == before


def test_openai_client_asks_for_base64_and_the_server_answers_it(server):
    openai_embedder(server).embed(["retry storms"])
    assert server.last_body is not None and server.last_body["encoding_format"] == "base64"


# ---- failures ---------------------------------------------------------------------------


def assert_fails_fast(embedder, *needles: str) -> EmbeddingError:
    started = time.monotonic()
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed(["the checkout is slow"])
    assert time.monotonic() - started < FAST
    error = caught.value
    assert isinstance(error, ArchmemError) and error.exit_code == 10 and error.kind == "embedding_error"
    assert error.message.startswith(f"{embedder.provider} embeddings at {embedder.where} failed: ")
    for needle in needles:
        assert needle in error.message
    return error


@pytest.mark.parametrize("make", PROVIDERS)
def test_http_500_is_retried_once_then_reported(server, make):
    embedder = make(server)
    path = OPENAI_PATH if embedder.provider == "openai" else OLLAMA_PATH
    server.fail_with(500)
    before = server.calls[path]
    assert_fails_fast(embedder, "HTTP 500", "fake failure")
    assert server.calls[path] == before + 2  # one retry, no storm


@pytest.mark.parametrize("make", PROVIDERS)
def test_one_transient_500_is_absorbed_by_the_retry(server, make):
    server.fail_with(503, times=1)
    assert make(server).embed(["cache"]).shape == (1, DIMS)


@pytest.mark.parametrize("make", PROVIDERS)
def test_a_client_error_is_not_retried(server, make):
    embedder = make(server)
    path = OPENAI_PATH if embedder.provider == "openai" else OLLAMA_PATH
    server.fail_with(404)
    before = server.calls[path]
    assert_fails_fast(embedder, "HTTP 404")
    assert server.calls[path] == before + 1


@pytest.mark.parametrize("make", PROVIDERS)
def test_a_slow_server_times_out_without_retrying(server, make):
    server.delay(5)
    error = assert_fails_fast(make(server, timeout=0.3), "timeout")
    assert "0.3 s" in error.message


@pytest.mark.parametrize("make", PROVIDERS)
def test_wrong_dimensions_after_the_first_answer(server, make):
    embedder = make(server)
    embedder.embed(["auth"])
    server.wrong_dimensions(DIMS + 1)
    assert_fails_fast(embedder, f"returned {DIMS + 1}-dimensional vectors, expected {DIMS}")


@pytest.mark.parametrize("make", PROVIDERS)
def test_dimensions_other_than_configured_are_refused(server, make):
    assert_fails_fast(make(server, dimensions=DIMS * 2), f"expected {DIMS * 2}")


@pytest.mark.parametrize("make", PROVIDERS)
def test_garbage_is_a_malformed_response(server, make):
    server.garbage()
    assert_fails_fast(make(server), "malformed response (not JSON)")


@pytest.mark.parametrize("make", PROVIDERS)
def test_a_wrong_number_of_vectors(server, make):
    server.wrong_count(-1)
    embedder = make(server)
    started = time.monotonic()
    with pytest.raises(EmbeddingError, match="returned 1 vector for 2 texts"):
        embedder.embed(["cache", "database"])
    assert time.monotonic() - started < FAST


@pytest.mark.parametrize("make", PROVIDERS)
def test_nan_is_refused(server, make):
    server.nan()
    assert_fails_fast(make(server), "NaN")


def test_connection_refused_on_a_closed_port():
    port = closed_port()
    for embedder in (OpenAIEmbedder("m", f"http://127.0.0.1:{port}/v1", None, 2.0),
                     OllamaEmbedder("m", f"http://127.0.0.1:{port}", 2.0)):
        error = assert_fails_fast(embedder, "connection refused")
        assert str(port) in error.message


def test_openai_without_a_key_fails_fast_naming_the_variable():
    embedder = make_embedder(EmbeddingsConfig(provider="openai", model="text-embedding-3-small",
                                              api_key_env="ARCHMEM_TEST_NO_SUCH_KEY"), {})
    assert embedder is not None
    with pytest.raises(EmbeddingError, match="ARCHMEM_TEST_NO_SUCH_KEY is not set"):
        embedder.embed(["x"])


# ---- configuration --------------------------------------------------------------------


def test_make_embedder_builds_each_provider(server):
    assert make_embedder(EmbeddingsConfig(), {}) is None
    openai = make_embedder(EmbeddingsConfig(provider="openai", model="fake-embed", base_url=server.openai_base_url,
                                            api_key_env="FAKE_KEY", timeout=2), {"FAKE_KEY": "sk-test"})
    assert isinstance(openai, OpenAIEmbedder) and openai.api_key == "sk-test" and openai.timeout == 2
    assert openai.embed(["x"]).shape == (1, DIMS)
    ollama = make_embedder(EmbeddingsConfig(provider="ollama", model="fake-embed"), {"OLLAMA_HOST": server.ollama_host})
    assert isinstance(ollama, OllamaEmbedder) and ollama.where == server.ollama_host
    assert ollama.identity == f"ollama:fake-embed:{DIMS}"


@pytest.mark.parametrize("fields", [{"provider": "openai"}, {"provider": "ollama", "model": "  "},
                                    {"provider": "ollama", "model": "m", "base_url": "localhost:11434"}])
def test_make_embedder_config_errors(fields):
    with pytest.raises(ConfigError):
        make_embedder(EmbeddingsConfig(**fields), {})


# ---- vectors --------------------------------------------------------------------------


def test_blobs_round_trip_as_little_endian_float32():
    vector = np.array([0.5, -1.25, 3.0e-8], dtype=np.float32)
    blob = vector_to_blob(vector)
    assert blob == np.array(vector, dtype="<f4").tobytes() and len(blob) == 12
    assert np.array_equal(blob_to_vector(blob, 3), vector)
    with pytest.raises(ValueError):
        blob_to_vector(blob, 4)


def test_cosine_top_ranks_best_first_and_keeps_row_order_on_ties():
    matrix = SemanticModel(DIMS).embed(["gateway headers", "slow checkout", "database migration", "slow checkout"])
    query = SemanticModel(DIMS).embed(["purchase latency"])[0]
    top = cosine_top(query, matrix, 2)
    assert [i for i, _ in top] == [1, 3] and top[0][1] == pytest.approx(1.0, abs=1e-5)
    assert len(cosine_top(query, matrix, 10)) == 4
    assert cosine_top(query, matrix[:0], 3) == [] and cosine_top(query, matrix, 0) == []
    with pytest.raises(ValueError):
        cosine_top(query[:5], matrix, 1)


def test_embedding_text_and_its_hash():
    text = embedding_text("Header limits", "  headers over 8KB are dropped \n", ["API Gateway", "Auth"])
    assert text == "Header limits\n\nheaders over 8KB are dropped\n\nElements: API Gateway, Auth"
    assert embedding_text(None, "x") == "x"
    assert text_hash(text) == text_hash(text) != text_hash(text + " ")
    assert len(text_hash(text)) == 64


# ---- backfill in a real store -----------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    with open_store(tmp_path / ".archmem" / "archmem.db") as opened:
        yield opened


def add(store: SQLiteStore, id: str, content: str, **fields) -> Memory:
    memory = Memory(id=id, kind=fields.pop("kind", "pitfall"), content=content, created_at=NOW, **fields)
    store.insert_memory(memory, title_key=None, content_hash=id + "-hash", search_title="", search_body=content)
    return memory


def memory_text(memory: Memory) -> str:
    return embedding_text(memory.title, memory.content, memory.elements)


def test_backfill_embeds_what_is_missing_once_and_re_embeds_changed_text(server, store):
    for n, content in enumerate(["the checkout is slow", "cache the token", "drop the table", "retry with backoff",
                                 "headers over 8KB are dropped"]):
        add(store, f"m{n}", content)
    add(store, "old", "archived memory", status="archived")
    embedder = ollama_embedder(server)
    seen: list[tuple[int, int]] = []
    before = server.requests[OLLAMA_PATH]
    first = backfill(store, embedder, memory_text, now=AT, batch_size=2, progress=lambda d, t: seen.append((d, t)))
    assert (first.embedded, first.skipped, first.failed, first.errors) == (5, 0, 0, [])
    assert first.identity == embedder.identity and seen == [(2, 5), (4, 5), (5, 5)]
    assert server.requests[OLLAMA_PATH] - before == 5 + 1  # five memories and the identity probe
    assert [i for i, _, _ in store.vectors(embedder.identity)] == [f"m{n}" for n in range(5)]

    second = backfill(store, embedder, memory_text, now=AT)
    assert (second.embedded, second.skipped, second.failed) == (0, 5, 0)
    assert server.requests[OLLAMA_PATH] - before == 6

    store.update_memory("m2", content="purge the table", search_body="purge the table")
    third = backfill(store, embedder, memory_text, now=AT)
    assert (third.embedded, third.skipped) == (1, 4)
    stored = {i: blob_to_vector(b, d) for i, b, d in store.vectors(embedder.identity)}
    assert np.allclose(stored["m2"], SemanticModel(DIMS).embed(["purge the table"])[0], atol=1e-6)
    assert store.vector_hash("m2", embedder.identity) == text_hash("purge the table")


def test_a_failing_batch_is_reported_and_the_rest_go_on(server, store):
    for n in range(5):
        add(store, f"m{n}", f"memory number {n}")
    embedder = openai_embedder(server, dimensions=DIMS)
    server.fail_with(500, times=2)  # the first batch and its retry
    report = backfill(store, embedder, memory_text, now=AT, batch_size=2)
    assert (report.embedded, report.failed) == (3, 2)
    assert len(report.errors) == 1 and "memories 1-2 of 5" in report.errors[0] and "HTTP 500" in report.errors[0]
    assert [i for i, _, _ in store.vectors(embedder.identity)] == ["m2", "m3", "m4"]
    again = backfill(store, embedder, memory_text, now=AT, batch_size=2)
    assert (again.embedded, again.skipped, again.failed) == (2, 3, 0)


def test_vectors_of_two_identities_are_kept_apart(server, store):
    add(store, "m1", "slow checkout")
    small = EmbeddingServer(dims=DIMS // 2).start()
    try:
        wide, narrow = ollama_embedder(server), OpenAIEmbedder("fake-embed", small.openai_base_url, None, 2.0)
        assert backfill(store, wide, memory_text, now=AT).embedded == 1
        assert backfill(store, narrow, memory_text, now=AT).embedded == 1
        assert backfill(store, wide, memory_text, now=AT).skipped == 1
    finally:
        small.close()
    assert wide.identity != narrow.identity
    assert [(i, d) for i, _, d in store.vectors(wide.identity)] == [("m1", DIMS)]
    assert [(i, d) for i, _, d in store.vectors(narrow.identity)] == [("m1", DIMS // 2)]


def test_the_server_shuts_down_promptly_even_with_a_request_asleep(server):
    extra = EmbeddingServer(dims=8).start()
    extra.delay(30)
    with pytest.raises(EmbeddingError):
        OllamaEmbedder("m", extra.ollama_host, 0.2).embed(["x"])
    started = time.monotonic()
    extra.close()
    assert time.monotonic() - started < 2

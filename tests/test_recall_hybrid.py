"""Hybrid recall and embedding on remember, against a real loopback embedding server."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.testing.embedding_server import EmbeddingServer
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, FrozenClock, write


@pytest.fixture(scope="module")
def server():
    with EmbeddingServer(dims=64) as running:
        yield running


@pytest.fixture
def repo(tmp_path: Path, server: EmbeddingServer) -> Path:
    root = tmp_path / "repo"
    write(root, {
        "archmem.yaml": MODEL,
        "docs/adr/0017-use-the-body.md": ADR,
        "archmem.toml": (
            '[embeddings]\nprovider = "openai"\nmodel = "fake"\n'
            f'base_url = "{server.openai_base_url}"\ntimeout = 2.0\n'
            # the words must meet through vectors alone: no thesaurus; and the bar to answer at
            # all is the retrieval's concern here, not this test's (test_recall_evidence, bench)
            "[recall]\nshipped_synonyms = false\nanswer_confidence_hybrid = 0.0\n"
        ),
    })
    server.reset()
    return root


@pytest.fixture
def ws(repo: Path):
    with Workspace.open(repo, clock=FrozenClock(), env={}) as workspace:
        yield workspace


def test_remember_stores_a_vector_and_recall_is_hybrid(ws: Workspace, server: EmbeddingServer):
    m = ws.remember("Checkout pages render slowly when the basket is large.", kind="pitfall")
    assert ws.store.vector_hashes(ws.embedder.identity).keys() == {m.id}
    result = ws.recall("purchase latency")  # no shared word; the fake model knows the synonyms
    assert result.mode == "hybrid"
    assert [r["id"] for r in result.results] == [m.id]
    factors = ws.recall("purchase latency", explain=True).results[0]["factors"]
    assert factors["lexical"] == 0 and factors["semantic"] > 0.5


def test_lexical_recall_would_miss_the_synonym(repo: Path, ws: Workspace):
    ws.remember("Checkout pages render slowly when the basket is large.", kind="pitfall")
    with Workspace.open(repo, clock=FrozenClock(), env={"ARCHMEM_EMBEDDINGS_PROVIDER": "none"}) as lexical:
        assert lexical.recall("purchase latency").results == []


def test_restating_by_vector_confirms_but_a_changed_number_does_not(ws: Workspace):
    first = ws.remember("The gateway drops request headers over 8KB.", kind="pitfall")
    again = ws.remember("Request headers over 8KB are dropped by the gateway!", kind="pitfall")
    assert again.deduplicated and again.id == first.id
    changed = ws.remember("The gateway drops request headers over 16KB.", kind="pitfall")
    assert not changed.deduplicated
    assert [s["id"] for s in changed.similar_to] == [first.id]


def test_provider_down_degrades_to_lexical_with_warnings(ws: Workspace, server: EmbeddingServer):
    server.fail_with(500)
    stored = ws.remember("Checkout pages render slowly when the basket is large.", kind="pitfall")
    assert any("not embedded" in w for w in stored.warnings)
    start = time.monotonic()
    result = ws.recall("checkout pages slowly")
    assert time.monotonic() - start < 5
    assert result.mode == "lexical" and [r["id"] for r in result.results] == [stored.id]
    assert any("semantic search unavailable" in w for w in result.warnings)
    server.reset()
    report = ws.embed_missing()
    assert report.embedded == 1 and report.failed == 0
    assert ws.recall("purchase latency").mode == "hybrid"


@pytest.mark.parametrize("failure", ["timeout", "wrong_dimensions", "garbage"])
def test_every_provider_failure_keeps_recall_working(ws: Workspace, server: EmbeddingServer, failure: str):
    ws.remember("Checkout pages render slowly when the basket is large.", kind="pitfall")
    {"timeout": lambda: server.delay(5), "wrong_dimensions": lambda: server.wrong_dimensions(7),
     "garbage": server.garbage}[failure]()
    result = ws.recall("checkout pages slowly")
    assert result.results and result.mode == "lexical" and result.warnings


def test_vectors_of_another_model_never_meet(repo: Path, ws: Workspace, server: EmbeddingServer):
    ws.remember("Checkout pages render slowly when the basket is large.", kind="pitfall")
    env = {"ARCHMEM_EMBEDDINGS_MODEL": "other-model"}
    with Workspace.open(repo, clock=FrozenClock(), env=env) as other:
        result = other.recall("purchase latency")
        assert result.results == [] and any("archmem embed" in w for w in result.warnings)
        assert other.embed_missing().embedded == 1
        assert other.recall("purchase latency").mode == "hybrid"


def test_embed_command_backfills_once(repo: Path, server: EmbeddingServer):
    with Workspace.open(repo, clock=FrozenClock(), env={"ARCHMEM_EMBEDDINGS_PROVIDER": "none"}) as lexical:
        for i in range(5):
            lexical.remember(f"Fact number {i} about queue {i * 11} draining.", kind="note")
    runner = CliRunner()
    first = json.loads(runner.invoke(cli, ["embed", "--repo", str(repo), "--json"]).output)
    assert first["embedded"] == 5 and first["failed"] == 0 and first["model"].startswith("openai:fake:")
    second = json.loads(runner.invoke(cli, ["embed", "--repo", str(repo), "--json"]).output)
    assert second["embedded"] == 0 and second["skipped"] == 5


def test_secrets_never_reach_the_provider(ws: Workspace, server: EmbeddingServer):
    from archmem.errors import SecretFoundError

    before = dict(server.requests)
    with pytest.raises(SecretFoundError):
        ws.remember("key AKIA" + "IOSFODNN7EXAMPLQ here", kind="note")
    assert dict(server.requests) == before

"""Several processes on one store: nothing lost, no duplicate, no fork, no lock errors.
And a writer killed mid-batch leaves a consistent store."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from archmem.testing import EmbeddingServer
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, REPO_ROOT, write

WRITER = Path(__file__).with_name("writer_process.py")
WORKERS = 8
OPS = 500


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    with Workspace.open(root, env={}) as ws:
        ws.remember("Chain link zero.", kind="note", title="Chain")
    return root


@pytest.mark.slow
def test_eight_processes_of_mixed_writes_lose_nothing(repo: Path, tmp_path: Path):
    results = [tmp_path / f"worker-{i}.json" for i in range(WORKERS)]
    procs = [
        subprocess.Popen([sys.executable, str(WRITER), str(repo), str(i), str(OPS), str(1000 + i), str(results[i])],
                         stderr=subprocess.PIPE, text=True)
        for i in range(WORKERS)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    reports = [json.loads(r.read_text()) for r in results]
    errors = [e for r in reports for e in r["errors"]]
    assert errors == [], errors[:5]

    with Workspace.open(repo, env={}) as ws:
        everything = {m.id: m for m in ws.list_memories(status=None)}
        # every unique fact a worker was told it stored is there, exactly once
        unique_ids = [i for r in reports for i in r["unique"]]
        assert len(unique_ids) == len(set(unique_ids))
        assert all(i in everything for i in unique_ids)
        # concurrent restatements of a shared fact collapse into one memory per fact
        by_fact: dict[int, set[str]] = {}
        for r in reports:
            for k, memory_id in r["shared"]:
                by_fact.setdefault(k, set()).add(memory_id)
        assert all(len(ids) == 1 for ids in by_fact.values()), by_fact
        shared_active = [m for m in everything.values() if m.content.startswith("Shared fact")]
        assert len(shared_active) == len(by_fact)
        # the supersede chain never forks: one active head, each memory superseded once
        chain = [m for m in everything.values() if m.title == "Chain"]
        assert sum(m.status == "active" for m in chain) == 1
        assert len(chain) == 1 + sum(r["chain"] for r in reports)
        successors = [m.supersedes for m in chain if m.supersedes]
        assert len(successors) == len(set(successors))
        head = ws.get_memory("Chain")
        assert len(ws.history(head.id)) == len(chain)
        # confirmations and session outcomes all landed
        assert head.confirmations + sum(m.confirmations for m in chain if m.id != head.id) == sum(r["confirms"] for r in reports)
        outcomes = [m for m in everything.values() if m.kind == "session_outcome"]
        assert len(outcomes) == sum(r["sessions"] for r in reports)


@pytest.mark.slow
def test_a_writer_killed_mid_batch_leaves_a_consistent_store(repo: Path):
    proc = subprocess.Popen([sys.executable, str(WRITER), str(repo), "--batch"], stdout=subprocess.PIPE, text=True)
    written: list[str] = []
    deadline = time.monotonic() + 60
    while len(written) < 150 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        written.append(line.strip())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(written) >= 150

    db_path = repo / ".archmem" / "archmem.db"
    raw = sqlite3.connect(db_path)
    assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert raw.execute("INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)") is not None
    orphans = raw.execute(
        "SELECT COUNT(*) FROM memory_elements WHERE memory_id NOT IN (SELECT id FROM memories)"
    ).fetchone()[0]
    assert orphans == 0
    fts_rows = raw.execute("SELECT COUNT(*) FROM memory_fts").fetchone()[0]
    memories = raw.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
    assert fts_rows == memories
    raw.close()

    with Workspace.open(repo, env={}) as ws:
        stored = {m.id for m in ws.list_memories()}
        # everything reported as written survived; at most the one in flight is extra
        assert set(written) <= stored
        assert len(stored - set(written)) <= 2  # the "Chain" seed + one committed but not yet printed
        for memory in ws.list_memories():
            if memory.title and memory.title.startswith("Batch"):
                assert memory.elements == ["orders", "gateway"]
        # and the store still takes writes
        ws.remember("After the crash.", kind="note")


class GatedEmbeddings(EmbeddingServer):
    """The loopback embedding server, holding its first ``parties`` requests until all
    have arrived. A writer asks for its vector only after it has resolved the memory it
    supersedes, so once the gate opens every writer has read the same version."""

    def __init__(self, parties: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.gate = threading.Barrier(parties, timeout=120)
        self.arrived = 0
        self._arrivals = threading.Lock()

    def _answer(self, path: str, body: Any) -> tuple[int, bytes]:
        with self._arrivals:
            held, self.arrived = self.arrived < self.gate.parties, self.arrived + 1
        if held:
            self.gate.wait()
        return super()._answer(path, body)


@pytest.mark.slow
def test_eight_writers_superseding_one_title_at_once_one_wins_the_rest_are_told(repo: Path):
    with Workspace.open(repo, env={}) as ws:
        first = ws.remember("Headers over 8KB are dropped.", kind="pitfall", title="Header limits").id
    with GatedEmbeddings(WORKERS, dims=64) as server:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "ARCHMEM_EMBEDDINGS_PROVIDER": "ollama",
               "ARCHMEM_EMBEDDINGS_BASE_URL": server.ollama_host, "ARCHMEM_EMBEDDINGS_MODEL": "fake-embed"}
        procs = [
            subprocess.Popen([sys.executable, "-m", "archmem", "remember", f"Writer {i}: the limit is {16 + i}KB now.",
                              "--kind", "pitfall", "--title", "Header limits", "--supersedes", "Header limits",
                              "--json", "--repo", str(repo)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for i in range(WORKERS)
        ]
        results = [(proc, *proc.communicate(timeout=180)) for proc in procs]
        assert server.arrived == WORKERS  # every writer had read the title before any wrote
    winners = [json.loads(out)["id"] for proc, out, _ in results if proc.returncode == 0]
    assert len(winners) == 1, [(proc.returncode, err) for proc, _, err in results]
    for proc, _, err in results:
        if proc.returncode != 0:
            assert proc.returncode == 9 and "Traceback" not in err, err
            told = json.loads(err)
            assert told["error"] == "conflict" and f"({first}) is already superseded" in told["message"]
            assert f"'Header limits' ({winners[0]})" in told["message"]  # the current head, by name and id
    with Workspace.open(repo, env={}) as ws:
        chain = ws.history("Header limits")
        assert [m.id for m in chain] == [first, winners[0]]
        assert [m.status for m in chain] == ["superseded", "active"]
        titled = [m for m in ws.list_memories(status=None) if m.title == "Header limits"]
        assert len(titled) == 2  # the chain never forked: nothing else was written

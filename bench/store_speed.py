"""Store benchmarks: remember throughput, and the cost of the dedup check as the store grows.

    python bench/store_speed.py [--quick]

remember: 10k memories through Workspace.remember (lexical, one process), against a
baseline of bare SQLite inserts into an FTS5 table (what a naive store would do).
dedup: at 1k / 10k / 100k memories, the restatement check archmem runs on every
remember (FTS5 neighbours, then token-set similarity) against a naive linear scan
that compares the new text with every memory.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import texts

from archmem.memory import text as textrules
from archmem.memory.lifecycle import content_hash
from archmem.memory.restatement import find_restatement
from archmem.memory.types import Memory
from archmem.store import open_store
from archmem.workspace import Workspace


def search_columns(text: str) -> dict[str, str]:
    """The search text the domain would index for a memory without title or elements."""
    body, parts = textrules.search_columns(text)
    return {"search_body": body, "search_parts": parts}


NOW = datetime(2026, 11, 1, tzinfo=UTC)


def bench_remember(count: int) -> None:
    corpus = texts(count, seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "archmem.yaml").write_text("elements:\n  - {id: api, kind: softwareSystem, name: Api}\n")
        with Workspace.open(root, env={}, clock=lambda: NOW) as ws:
            start = time.perf_counter()
            for text in corpus:
                ws.remember(text, kind="note", elements=["api"])
            archmem_s = time.perf_counter() - start
            stored = ws.store.count_memories()
        db = sqlite3.connect(root / "naive.db", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE VIRTUAL TABLE m USING fts5(content)")
        start = time.perf_counter()
        for text in corpus:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO m(content) VALUES (?)", (text,))
            db.execute("COMMIT")
        naive_s = time.perf_counter() - start
        db.close()
    print(f"remember x{count:,}: {archmem_s:.2f} s, {archmem_s / count * 1000:.2f} ms/op "
          f"({count / archmem_s:,.0f}/s; {stored:,} stored)")
    print(f"  baseline bare FTS5 insert: {naive_s / count * 1000:.3f} ms/op; ratio {archmem_s / naive_s:.1f}x "
          "(archmem also checks restatement, secrets, links and anchors per write)")


def populate(path: Path, corpus: list[str]) -> None:
    store = open_store(path)
    with store.transaction():
        for i, text in enumerate(corpus):
            store.insert_memory(
                Memory(id=f"m-{i:07d}", kind="note", content=text, created_at=NOW),
                title_key=None, content_hash=content_hash(text), search_title="", **search_columns(text),
            )
    store.close()


def bench_dedup(size: int, probes: int, naive_probes: int) -> None:
    corpus = texts(size, seed=2)
    probe_texts = texts(probes, seed=3)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.db"
        populate(path, corpus)
        store = open_store(path)
        times = []
        for text in probe_texts:
            textrules._normalized.cache_clear()  # each check starts cold, as in a fresh process
            start = time.perf_counter()
            find_restatement(store, text, content_hash(text))
            times.append(time.perf_counter() - start)
        store.close()
    naive = []
    for text in probe_texts[:naive_probes]:
        textrules._normalized.cache_clear()
        start = time.perf_counter()
        best = max(textrules.token_set_similarity(text, other) for other in corpus)
        naive.append(time.perf_counter() - start)
        assert best >= 0
    p50 = statistics.median(times) * 1000
    p95 = statistics.quantiles(times, n=20)[18] * 1000
    naive_p50 = statistics.median(naive) * 1000
    print(f"dedup check at {size:>7,} memories: p50 {p50:.2f} ms, p95 {p95:.2f} ms; "
          f"naive scan p50 {naive_p50:.1f} ms ({naive_p50 / p50:.0f}x slower)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = parser.parse_args()
    bench_remember(1_000 if args.quick else 10_000)
    for size in (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000):
        bench_dedup(size, probes=100 if args.quick else 200, naive_probes=5 if size >= 100_000 else 30)


if __name__ == "__main__":
    main()

"""Recall speed at 1k / 10k / 100k memories.

    python bench/recall_speed.py [--sizes 1000,10000,100000] [--queries 50] [--corpus zipf,template]

For each corpus and size: p50/p95 of Workspace.recall warm (lexical; hybrid with 384-d
vectors from the loopback embedding server), the `archmem recall` command cold (a new
process each time), and the ratio to a bare FTS5 `MATCH … ORDER BY bm25` query over
all the query's terms on the same data (what a naive store would run), all measured
in one run.

Two corpora: ``zipf`` draws words from a Zipf distribution over 60,000 word types, as
natural text and identifiers do; ``template`` fills one sentence template from ~60
words, so every query word is in 5-15% of the store: the worst case for a word index.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import ZipfCorpus, memory_text, texts

from archmem.embeddings import embedding_text, text_hash, vector_to_blob
from archmem.memory import text as textrules
from archmem.memory.lifecycle import content_hash
from archmem.memory.types import Memory
from archmem.recall import score
from archmem.store import open_store
from archmem.testing.embedding_server import EmbeddingServer
from archmem.testing.semantic_model import SemanticModel
from archmem.workspace import Workspace


def search_columns(text: str) -> dict[str, str]:
    """The search text the domain would index for a memory without title or elements."""
    body, parts = textrules.search_columns(text)
    return {"search_body": body, "search_parts": parts}


NOW = datetime(2026, 11, 1, tzinfo=UTC)
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "shop"
ELEMENTS = ["shop.storefront", "shop.gateway", "shop.gateway.router", "shop.gateway.auth", "shop.orders.checkout",
            "shop.orders.pricing", "shop.payments", "shop.database"]
DIMS = 384


def corpus_and_queries(name: str, size: int, count: int) -> tuple[list[str], list[str]]:
    if name == "template":
        rng = random.Random(5)
        return texts(size, seed=11), [memory_text(rng, 10**7 + i).rsplit("(", 1)[0] for i in range(count)]
    zipf = ZipfCorpus(seed=13)
    memories = zipf.memories(size)
    return memories, [zipf.task(memories) for _ in range(count)]


def build(root: Path, corpus: list[str], identity: str) -> None:
    shutil.copytree(EXAMPLE, root)
    size = len(corpus)
    rng = random.Random(size)
    model = SemanticModel(DIMS)
    store = open_store(root / ".archmem" / "archmem.db")
    batch = 2000
    for start in range(0, size, batch):
        chunk = corpus[start : start + batch]
        vectors = model.embed([embedding_text(None, text, []) for text in chunk])
        with store.transaction():
            for offset, (text, vector) in enumerate(zip(chunk, vectors, strict=True)):
                i = start + offset
                memory = Memory(id=f"m-{i:07d}", kind=rng.choice(["pitfall", "convention", "note"]), content=text,
                                created_at=NOW, elements=[rng.choice(ELEMENTS)])
                store.insert_memory(memory, title_key=None, content_hash=content_hash(text), search_title="",
                                    **search_columns(text))
                store.put_vector(memory.id, identity, vector_to_blob(vector), DIMS,
                                 text_hash(embedding_text(None, text, [])), "2026-11-01T00:00:00.000000Z")
    store.close()


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000


def time_calls(function, queries: list[str]) -> tuple[float, float]:
    function(queries[0])  # warm caches
    samples = []
    for query in queries:
        start = time.perf_counter()
        function(query)
        samples.append(time.perf_counter() - start)
    return percentiles(samples)


def console_script() -> str:
    """The installed ``archmem`` script beside this interpreter: a version manager's
    shim on PATH (pyenv's is a bash script) would add its own start-up to every run."""
    script = Path(sys.executable).parent / "archmem"
    return str(script) if script.exists() else shutil.which("archmem") or "archmem"


def top5_agreement(ws: Workspace, queries: list[str]) -> float:
    """Share of the top 5 that recall with every query term ranked would also return:
    what leaving near-zero-IDF terms out of the BM25 query costs in results."""
    pruned = [[r["id"] for r in ws.recall(q).results] for q in queries]
    saved = score.NEGLIGIBLE_SHARE
    score.NEGLIGIBLE_SHARE = 0.0
    try:
        exact = [[r["id"] for r in ws.recall(q).results] for q in queries]
    finally:
        score.NEGLIGIBLE_SHARE = saved
    shared = sum(len(set(a) & set(b)) for a, b in zip(pruned, exact, strict=True))
    return shared / max(1, sum(len(b) for b in exact))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--cold-runs", type=int, default=10)
    parser.add_argument("--corpus", default="zipf,template", help="zipf, template, or both (comma-separated)")
    args = parser.parse_args()
    for corpus_name in args.corpus.split(","):
        print(f"\ncorpus: {corpus_name}")
        run_corpus(corpus_name, args)


def run_corpus(corpus_name: str, args: argparse.Namespace) -> None:
    archmem = console_script()
    with EmbeddingServer(dims=DIMS) as server, tempfile.TemporaryDirectory() as tmp:
        identity = f"openai:fake:{DIMS}"
        print(f"{'memories':>9} {'FTS5 p50':>9} {'lexical p50/p95':>16} {'x FTS5':>7} {'same top 5':>10} "
              f"{'hybrid p50/p95':>15} {'cold cmd p50':>13}")
        for size in [int(s) for s in args.sizes.split(",")]:
            root = Path(tmp) / f"shop-{size}"
            start = time.perf_counter()
            corpus, queries = corpus_and_queries(corpus_name, size, args.queries)
            build(root, corpus, identity)
            built = time.perf_counter() - start
            db = sqlite3.connect(root / ".archmem" / "archmem.db")
            fts = time_calls(
                lambda q: db.execute(  # noqa: B023  (timed now, in this iteration)
                    "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25(memory_fts) LIMIT 5",
                    (textrules.fts5_query(q),),
                ).fetchall(),
                queries,
            )
            db.close()
            with Workspace.open(root, env={}, clock=lambda: NOW) as ws:
                lexical = time_calls(lambda q: ws.recall(q), queries)
                agreement = top5_agreement(ws, queries)
            env = {"ARCHMEM_EMBEDDINGS_PROVIDER": "openai", "ARCHMEM_EMBEDDINGS_MODEL": "fake",
                   "ARCHMEM_EMBEDDINGS_BASE_URL": server.openai_base_url, "ARCHMEM_EMBEDDINGS_DIMENSIONS": str(DIMS)}
            with Workspace.open(root, env=env, clock=lambda: NOW) as ws:
                probe = ws.recall(queries[0])
                assert probe.mode == "hybrid", probe.warnings
                hybrid = time_calls(lambda q: ws.recall(q), queries)
            cold = []
            for query in queries[: args.cold_runs]:
                start = time.perf_counter()
                subprocess.run([archmem, "recall", query, "--repo", str(root), "--json"], check=True,
                               capture_output=True, env={**os.environ, "ARCHMEM_SERVER": "off"})  # a cold process
                cold.append(time.perf_counter() - start)
            cold_p50 = statistics.median(cold) * 1000
            print(f"{size:>9,} {fts[0]:>7.1f}ms {lexical[0]:>7.1f}/{lexical[1]:<6.1f}ms {lexical[0] / fts[0]:>6.1f}x {agreement:>9.1%} "
                  f"{hybrid[0]:>7.1f}/{hybrid[1]:<5.1f}ms {cold_p50:>10.0f} ms   (built in {built:.0f} s)")
            shutil.rmtree(root)


if __name__ == "__main__":
    main()

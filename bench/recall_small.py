"""Recall quality on small stores: the labelled sets cut down to a team's first memories.

    python bench/recall_small.py                          # sizes 3, 5, 10, 30, ten draws each
    python bench/recall_small.py --folds /tmp/loo.json    # also held out: each set decided by
                                                          # the fold that left it out
    python bench/recall_small.py --sizes 3,5 --draws 2 --set mealie
    python bench/recall_small.py --folds /tmp/loo.json --rates 0.047,0.1,0.25,1
                                                          # choose TASK_WORD_RATE held out

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
With ``--rates``, the whole measure is repeated for each ``TASK_WORD_RATE`` (how surely a
store of N memories would hold a task's word, ``archmem/recall/score.py``'s
``store_coverage``; it moves nothing on the full sets, where every rate gives a coverage
near 1), and the rate is chosen leaving one repository out: each set scored at the rate
that maximized ``recall_loo.objective`` on the others' small stores (no-answer tasks with
nothing in results kept at ``MIN_EMPTY`` on average where a rate can).

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

from recall_loo import MIN_EMPTY, TaskRun, key, objective, ranking, score_set, task_run
from recall_quality import DEFAULTS, NOW, K, _workspace_class, recall_config_toml
from recall_sets import DATA, ROOT, SETS, LabelledSet

from archmem.recall import score

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

    return {"ndcg@5": by("ndcg@5", 0), "nothing": by("nothing", 0), "weak": by("weak", 0), "gain": by("gain", 0),
            "empty": by("empty", 1), "quiet": by("quiet", 1), "answerable_tasks": answerable,
            "no_answer_tasks": no_answer}


def decided(runs: list[TaskRun], choice: dict[str, Any]) -> tuple[dict[str, float], int, int]:
    scores = score_set(runs, choice["model"], choice["answer_at"], choice["weak_at"],
                       choice["setting"].get("named_answers", False))
    answerable = sum(1 for r in runs if r.task["relevant"])
    return scores, answerable, len(runs) - answerable


Scored = dict[str, dict[str, dict[int, list[tuple[dict[str, float], int, int]]]]]
"""variant -> set -> size -> each store's (figures, answerable tasks, no-answer tasks)."""


def measure(set_names: list[str], sizes: list[int], draws: int,
            choices: dict[str, dict[str, dict[str, Any]]]) -> tuple[Scored, dict[str, dict[str, Any]]]:
    """Every small store of every set ranked once per ranking setting, each variant's decision applied."""
    stores: dict[str, dict[str, Any]] = {}
    scored: Scored = {v: {name: {s: [] for s in sizes} for name in set_names} for v in choices}
    for name in set_names:
        labelled = SETS[name]
        settings = {key(ranking(c[name]["setting"])): ranking(c[name]["setting"]) for c in choices.values()}
        for setting_key, setting in settings.items():
            with labelled.repository(recall_config_toml({**setting, **DECISION_OFF})) as root:
                for size in sizes:
                    for draw in range(draws):
                        memories, tasks = draw_store(labelled, size, draw)
                        runs = rank_store(root, memories, tasks)
                        store = stores.setdefault(f"{name}:{size}:{draw}", {
                            "memories": sorted(m["id"] for m in memories),
                            "answerable": sorted(t["id"] for t in tasks if t["relevant"]), "by": {}})
                        for variant, choice in choices.items():
                            if key(ranking(choice[name]["setting"])) == setting_key:
                                result = decided(runs, choice[name])
                                scored[variant][name][size].append(result)
                                store["by"][variant] = {k: round(v, 4) for k, v in result[0].items()}
        print(f"  {name} done", flush=True)
    return scored, stores


def by_size(scored: dict[str, dict[int, list[tuple[dict[str, float], int, int]]]], sizes: list[int],
            names: list[str]) -> dict[str, dict[str, float]]:
    return {str(size): pooled([r for name in names for r in scored[name][size]]) for size in sizes}


def choose_rate(by_rate: dict[float, Scored], variant: str, sets: list[str], sizes: list[int]) -> float:
    """The rate whose small stores of ``sets`` score best by ``recall_loo.objective`` (each set
    weighing the same), keeping no-answer tasks with nothing in results at ``MIN_EMPTY`` on
    average where some rate does."""
    def figures(rate: float) -> list[dict[str, float]]:
        return [pooled([r for size in sizes for r in by_rate[rate][variant][name][size]]) for name in sets]

    values = {rate: (objective(figures(rate)), sum(f["empty"] for f in figures(rate)) / len(sets)) for rate in by_rate}
    allowed = [rate for rate, (_, empty) in values.items() if empty >= MIN_EMPTY] or list(values)
    return max(allowed, key=lambda rate: (values[rate][0], -rate))


def print_sizes(title: str, summary: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}: size  nDCG@5  nothing  weak  empty   (answerable · no-answer tasks)")
    for size, s in summary.items():
        print(f"  {size:>10}  {s['ndcg@5']:.3f}   {s['nothing']:.3f}  {s['weak']:.3f}  {s['empty']:.3f}   "
              f"({s['answerable_tasks']} · {s['no_answer_tasks']})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", choices=list(SETS), dest="sets")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--draws", type=int, default=DRAWS)
    parser.add_argument("--folds", type=Path, help="a leave-one-repository-out result (recall_quality.py --output)")
    parser.add_argument("--rates", help="comma-separated TASK_WORD_RATE values to compare, the choice made "
                                        "leaving one repository out (default: the shipped rate alone)")
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
    rates = [float(r) for r in args.rates.split(",")] if args.rates else [score.TASK_WORD_RATE]
    shipped_rate = score.TASK_WORD_RATE
    by_rate: dict[float, Scored] = {}
    stores: dict[str, dict[str, Any]] = {}
    for rate in rates:
        score.TASK_WORD_RATE = rate  # what store_coverage reads
        print(f"rate {rate}", flush=True)
        by_rate[rate], found = measure(set_names, sizes, args.draws, choices)
        if rate == shipped_rate or len(rates) == 1:
            stores = found
    score.TASK_WORD_RATE = shipped_rate
    out: dict[str, Any] = {"now": f"{NOW:%Y-%m-%dT%H:%M:%SZ}", "k": K, "sizes": sizes, "draws": args.draws,
                           "sets": set_names, "graded_share": GRADED_SHARE, "held_out": bool(args.folds)}
    out["rates"] = {str(rate): {variant: by_size(scored, sizes, set_names) for variant, scored in by.items()}
                    for rate, by in by_rate.items()}
    for rate, summary in out["rates"].items():
        for variant, figures in summary.items():
            print_sizes(f"rate {rate}, {variant}", figures)
    if len(rates) > 1:
        variant = "held_out" if args.folds else "shipped"
        folds_chosen = {name: choose_rate(by_rate, variant, [n for n in set_names if n != name], sizes)
                        for name in set_names}
        held: dict[int, list[tuple[dict[str, float], int, int]]] = {size: [] for size in sizes}
        for name, rate in folds_chosen.items():
            for size in sizes:
                held[size] += by_rate[rate][variant][name][size]
        out["rate_held_out"] = {"chosen": folds_chosen, "figures": {str(s): pooled(held[s]) for s in sizes},
                                "on_every_set": choose_rate(by_rate, variant, set_names, sizes)}
        print_sizes(f"each set at the rate the others chose {folds_chosen}", out["rate_held_out"]["figures"])
        print(f"the rate chosen on every set: {out['rate_held_out']['on_every_set']}")
    out["stores"] = stores
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

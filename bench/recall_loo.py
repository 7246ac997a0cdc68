"""Leave one repository out: every default chosen on the other sets, judged on the one left out.

Each labelled set is a repository. For each set in turn, the ranking settings of
``GRID`` and the decision to answer (a logistic model over ``Evidence``, and its two
confidence bars) are chosen on the *other* sets by ``objective``; the set left out is
then scored with that choice. The figures that count are the mean and the worst of the
held-out scores. The shipped defaults are the same procedure run on every set.

A run of archmem per (setting, set) ranks every task with the decision switched off
(``answer_confidence = weak_confidence = 0``) and keeps each task's top 5 and evidence;
the decision is then applied offline, so a fold costs a fit, not a rerun.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from archmem.recall.decision import FEATURES, Evidence, confidence, decide, fit

EVIDENCE = [f.name for f in fields(Evidence)]

K = 5
WEAK_LIMIT = 5

GRID: list[dict[str, list[Any]]] = [
    {"named_element_weight": [0.0, 0.3, 0.6], "shipped_synonyms": [True, False], "hop_weight": [0.0, 0.5]},
]
"""The ranking settings the folds choose among (each a [recall] key). Kept small on purpose:
with element_weight in {0.6, 0.8, 1.0} added, the folds chose more and held out worse (mean
0.689 against 0.695, worst 0.584 against 0.613)."""

GRAPH_GRID: list[dict[str, list[Any]]] = [
    {"named_element_weight": [0.3], "shipped_synonyms": [True], "graph": ["pagerank"], "graph_alpha": [0.3, 0.6],
     "graph_weight": [0.3, 0.6]},
]
"""Personalized PageRank in place of the fixed rules, compared held out with ``GRID``."""

BARS = [round(0.05 * i, 2) for i in range(1, 20)]
"""The confidence bars tried for answering and for showing weak candidates."""

MIN_EMPTY = 0.85
"""The bars must leave at least this share of no-answer tasks with nothing in results, on the
tuning sets on average (the aim is 0.80 held out; the margin is for the set left out)."""
EMPTY_WEIGHT = 0.25
NOTHING_WEIGHT = 1.0


@dataclass
class TaskRun:
    """One task ranked with the decision off: its top ids and the evidence behind them."""

    task: dict[str, Any]
    ranked: list[str]
    evidence: Evidence


def settings(grid: list[dict[str, list[Any]]] = GRID) -> list[dict[str, Any]]:
    """Every setting of every part of the grid (each part a product of its values)."""
    found = []
    for part in grid:
        keys = list(part)
        found += [dict(zip(keys, values, strict=True)) for values in itertools.product(*(part[k] for k in keys))]
    return found


def key(setting: dict[str, Any]) -> str:
    return json.dumps(setting, sort_keys=True)


def ranking(setting: dict[str, Any]) -> dict[str, Any]:
    """The part of a chosen setting that needs its own ranking run (the rest is the decision)."""
    return {name: value for name, value in setting.items() if name != "named_answers"}


def dcg(grades: list[int]) -> float:
    import math

    return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(grades[:K]))


WEAK_GAIN = 0.5
"""A weak answer is worth half a sure one: an agent may skip what recall does not stand behind;
and shown to a task with no answer, it costs half of what a wrong sure answer does."""


def shown(run: TaskRun, verdict: str) -> list[str]:
    if verdict == "answer":
        return run.ranked[:K]
    if verdict == "weak":
        return run.ranked[:WEAK_LIMIT]
    return []


def forced(run: TaskRun, named_answers: bool) -> bool:
    """Whether recall answers whatever the model says: a candidate asked for outright, or on
    a named element when ``named_answers``."""
    return bool(run.evidence.explicit or (named_answers and run.evidence.named_hit))


def score_set(runs: list[TaskRun], model: dict[str, float], answer_at: float, weak_at: float,
              named_answers: bool = False) -> dict[str, float]:
    """nDCG@5 of what is shown (results, else weak) over answerable tasks; the share of
    no-answer tasks with nothing in results; the share of answerable tasks shown nothing
    at all and with nothing in results; must-not ids shown."""
    ndcgs, empty, nothing, no_results, weak_share, must_not = [], [], [], [], [], 0
    gains, quiet, silent = [], [], []
    for run in runs:
        p = confidence(run.evidence, model)
        verdict = decide(p, answer_at=answer_at, weak_at=weak_at, has_candidates=bool(run.ranked),
                         explicit=forced(run, named_answers), named=bool(run.evidence.named_hit))
        ids = shown(run, verdict)
        relevant: dict[str, int] = run.task["relevant"]
        must_not += bool(set(run.task.get("must_not", [])) & set(ids))
        worth = 1.0 if verdict == "answer" else WEAK_GAIN if verdict == "weak" else 0.0
        if relevant:
            ideal = dcg(sorted(relevant.values(), reverse=True))
            ndcgs.append(dcg([relevant.get(m, 0) for m in ids]) / ideal)
            gains.append(worth * ndcgs[-1])
            nothing.append(float(not ids))
            no_results.append(float(verdict != "answer"))
            weak_share.append(float(verdict == "weak"))
        else:
            empty.append(float(verdict != "answer"))
            quiet.append(1.0 - worth)
            silent.append(float(not ids))

    def avg(values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    return {"ndcg@5": avg(ndcgs), "empty": avg(empty), "nothing": avg(nothing), "no_results": avg(no_results),
            "weak": avg(weak_share), "must_not": float(must_not), "gain": avg(gains), "quiet": avg(quiet),
            "silent": avg(silent)}


def objective(scores: list[dict[str, float]]) -> float:
    """What the folds maximize, each set weighing the same: the gain of answerable tasks
    (nDCG@5 of what is shown, a weak answer worth ``WEAK_GAIN``), plus ``EMPTY_WEIGHT`` of
    how quiet recall stays on no-answer tasks (1 for nothing, 1 - ``WEAK_GAIN`` for weak),
    less ``NOTHING_WEIGHT`` of the share of answerable tasks shown nothing at all."""
    return sum(s["gain"] + EMPTY_WEIGHT * s["quiet"] - NOTHING_WEIGHT * s["nothing"] for s in scores) / len(scores)


@dataclass
class Choice:
    setting: dict[str, Any]
    model: dict[str, float]
    answer_at: float
    weak_at: float
    value: float


def _columns(runs: list[TaskRun]) -> dict[str, Any]:
    """Per task, what each verdict would give: the arrays ``choose`` sweeps the bars over."""
    import numpy as np

    def ndcg(run: TaskRun, ids: list[str]) -> float:
        relevant = run.task["relevant"]
        ideal = dcg(sorted(relevant.values(), reverse=True))
        return dcg([relevant.get(m, 0) for m in ids]) / ideal if ideal else 0.0

    return {
        "x": np.array([run.evidence.vector() for run in runs], dtype=float),
        "answerable": np.array([bool(run.task["relevant"]) for run in runs]),
        "candidates": np.array([bool(run.ranked) for run in runs]),
        "explicit": np.array([bool(run.evidence.explicit) for run in runs]),
        "named_hit": np.array([bool(run.evidence.named_hit) for run in runs]),
        "answer": np.array([ndcg(run, run.ranked[:K]) if run.task["relevant"] else 0.0 for run in runs]),
        "weak": np.array([ndcg(run, run.ranked[:WEAK_LIMIT]) if run.task["relevant"] else 0.0 for run in runs]),
    }


def _objective_by_bars(columns: list[dict[str, Any]], model: dict[str, float], named_answers: bool) -> Any:
    """``objective`` for every pair of bars at once: a BARS x BARS array (answer, weak)."""
    import numpy as np

    bars = np.array(BARS)
    coefficients = np.array([model.get(name, 0.0) for name in FEATURES])
    total = np.zeros((len(BARS), len(BARS)))
    quiet_sets = []
    for col in columns:
        p = 1.0 / (1.0 + np.exp(-np.clip(model.get("bias", 0.0) + col["x"] @ coefficients, -60, 60)))
        sure = col["explicit"] | (col["named_hit"] if named_answers else False)
        answer = ((p[None, :] >= bars[:, None]) | sure[None, :]) & col["candidates"][None, :]  # [a, task]
        weak = ((p[None, :] >= bars[:, None]) | col["named_hit"][None, :]) & col["candidates"][None, :]  # [w, task]
        A = answer[:, None, :]
        W = weak[None, :, :] & ~A                                                      # [a, w, task]
        ans, qa = col["answerable"], ~col["answerable"]
        gain = (A * col["answer"] + WEAK_GAIN * W * col["weak"])[..., ans].mean(-1) if ans.any() else 0.0
        nothing = (~A & ~W)[..., ans].mean(-1) if ans.any() else 0.0
        quiet = (1.0 - A - WEAK_GAIN * W)[..., qa].mean(-1) if qa.any() else 0.0
        total += gain + EMPTY_WEIGHT * quiet - NOTHING_WEIGHT * nothing
        if qa.any():
            quiet_sets.append(np.broadcast_to((~A)[..., qa].mean(-1), total.shape))
    total /= len(columns)
    total[np.array(BARS)[None, :] > np.array(BARS)[:, None]] = -np.inf  # the weak bar is never above the other
    if quiet_sets:
        # the aim stated for recall: no-answer tasks left with nothing in results, on every tuning set on average
        empty = np.mean(quiet_sets, axis=0)
        if (empty >= MIN_EMPTY).any():
            total[empty < MIN_EMPTY] = -np.inf
    return total


def choose(by_set: dict[str, list[TaskRun]]) -> tuple[dict[str, float], float, float, bool, float]:
    """The decision fitted on these sets: coefficients, the two bars, whether a named
    element answers, the objective."""
    import numpy as np

    rows = [run.evidence.vector() for runs in by_set.values() for run in runs]
    labels = [int(bool(run.task["relevant"])) for runs in by_set.values() for run in runs]
    model = fit(rows, labels)
    columns = [_columns(runs) for runs in by_set.values()]
    best: tuple[float, float, float, bool] | None = None
    for named_answers in (False, True):
        values = _objective_by_bars(columns, model, named_answers)
        a, w = np.unravel_index(int(np.argmax(values)), values.shape)  # ties: the lowest bars, the first found
        if best is None or values[a, w] > best[0] + 1e-12:
            best = (float(values[a, w]), BARS[a], BARS[w], named_answers)
    assert best is not None
    return model, best[1], best[2], best[3], best[0]


def choose_all(runs: dict[str, dict[str, list[TaskRun]]], sets: list[str]) -> Choice:
    """The best setting and decision for ``sets``; ``runs[setting key][set]``."""
    best: Choice | None = None
    for setting_key, by_set in runs.items():
        model, answer_at, weak_at, named_answers, value = choose({name: by_set[name] for name in sets})
        if best is None or value > best.value + 1e-12:
            setting = {**json.loads(setting_key), "named_answers": named_answers}
            best = Choice(setting, model, answer_at, weak_at, value)
    assert best is not None
    return best


def leave_one_out(runs: dict[str, dict[str, list[TaskRun]]], sets: list[str],
                  report: Callable[[str], None] = print) -> dict[str, Any]:
    """Every fold's choice and held-out score, then their mean and worst."""
    folds: dict[str, Any] = {}
    for held_out in sets:
        tuning = [name for name in sets if name != held_out]
        choice = choose_all(runs, tuning)
        scores = score_set(runs[key(ranking(choice.setting))][held_out], choice.model, choice.answer_at,
                           choice.weak_at, choice.setting["named_answers"])
        folds[held_out] = {"setting": choice.setting, "answer_at": choice.answer_at, "weak_at": choice.weak_at,
                           "model": choice.model, "held_out": scores}
        report(f"  {held_out:<13} nDCG@5 {scores['ndcg@5']:.3f}  no-answer empty {scores['empty']:.2f}  "
               f"answerable shown nothing {scores['nothing']:.2f} (no results {scores['no_results']:.2f}, "
               f"weak {scores['weak']:.2f})  chosen {choice.setting} bars {choice.answer_at}/{choice.weak_at}")
    categories: dict[str, list[float]] = {}
    for held_out in sets:
        fold = folds[held_out]
        for run in runs[key(ranking(fold["setting"]))][held_out]:
            if not run.task["relevant"]:
                continue
            p = confidence(run.evidence, fold["model"])
            verdict = decide(p, answer_at=fold["answer_at"], weak_at=fold["weak_at"], has_candidates=bool(run.ranked),
                             explicit=forced(run, fold["setting"]["named_answers"]), named=bool(run.evidence.named_hit))
            relevant = run.task["relevant"]
            ids = shown(run, verdict)
            categories.setdefault(run.task["category"], []).append(
                dcg([relevant.get(m, 0) for m in ids]) / dcg(sorted(relevant.values(), reverse=True)))
    report("  held-out nDCG@5 by category, pooled: " + ", ".join(
        f"{name} {sum(v) / len(v):.2f} ({len(v)})" for name, v in sorted(categories.items())))
    held = [f["held_out"] for f in folds.values()]
    summary = {
        "mean_ndcg@5": sum(s["ndcg@5"] for s in held) / len(held),
        "worst_ndcg@5": min(s["ndcg@5"] for s in held),
        "worst_set": min(folds, key=lambda n: folds[n]["held_out"]["ndcg@5"]),
        "mean_empty": sum(s["empty"] for s in held) / len(held),
        "mean_nothing": sum(s["nothing"] for s in held) / len(held),
        "mean_no_results": sum(s["no_results"] for s in held) / len(held),
        "mean_quiet_no_answer": sum(s["silent"] for s in held) / len(held),
        "must_not": sum(s["must_not"] for s in held),
    }
    return {"folds": folds, "summary": summary}


def task_run(task: dict[str, Any], result: dict[str, Any], memory_ids: set[str]) -> TaskRun:
    ranked = [r["id"] for r in result["results"] if r.get("via") is None and r["id"] in memory_ids]
    raw = result.get("evidence") or {}
    return TaskRun(task, ranked, Evidence(**{name: float(raw.get(name, 0.0)) for name in EVIDENCE}))


__all__ = ["GRAPH_GRID", "GRID", "TaskRun", "choose_all", "key", "leave_one_out", "settings", "task_run"]

"""Whether recall stands behind an answer: answer, offer it as weak, or say nothing.

Ranking orders the candidates; this decides what an agent is shown. A single bar on the
best relevance fitted the sets it was chosen on and did not carry over: a repository
whose developers write other words than its memories lost a fifth of its answers. So
the decision weighs several kinds of evidence that mean the same on any repository —
how well the best memory matches, whether the task points at code or names something
archmem knows, how much of the task's wording archmem has ever seen, how far the best
candidate stands above the next — in a logistic model whose coefficients were fitted
leaving each labelled repository out in turn (bench/recall_quality.py reports the
held-out figures). Between "answer" and "nothing" lies "weak": shown apart, one line
each, so an agent can skip it but is never left with what it was never shown.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from archmem.values import Value

Decision = Literal["answer", "weak", "nothing"]

FEATURES = ("strength", "relevance", "lexical", "pointed", "named", "known", "gap")
"""The decision's inputs, in the order of the model's coefficients (``bias`` apart)."""


@dataclass(frozen=True, repr=False, eq=False)
class Evidence(Value):
    """What the best candidates of one task amount to, each in [0, 1].

    ``strength``: the best relevance weighed by the known share, never below what the
    pointers alone give (``answer_strength``); ``relevance`` and ``lexical``: the best
    of each; ``pointed``: the best relevance hints, changed files, anchors, named
    elements and titles give alone; ``named``: 1 when the task names an element or a
    memory title outright; ``known``: the share of the task's words archmem knows;
    ``gap``: how far the best score stands above the second."""

    strength: float = 0.0
    relevance: float = 0.0
    lexical: float = 0.0
    pointed: float = 0.0
    named: float = 0.0
    known: float = 0.0
    gap: float = 0.0
    explicit: float = 0.0
    """1 when a candidate was asked for outright: on a ``--element`` hint, anchored to a
    changed file, or named by its title, file or symbol. Not a feature: it answers."""
    named_hit: float = 0.0
    """1 when a candidate sits on an element the task names (``named_answers``)."""

    def vector(self) -> list[float]:
        return [getattr(self, name) for name in FEATURES]

    def to_dict(self) -> dict[str, float]:
        return {name: round(value, 4) for name, value in asdict(self).items()}


def confidence(evidence: Evidence, coefficients: Mapping[str, float]) -> float:
    """The model's probability that the task has an answer among the candidates."""
    z = coefficients.get("bias", 0.0) + sum(coefficients.get(name, 0.0) * x for name, x in
                                            zip(FEATURES, evidence.vector(), strict=True))
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def decide(p: float, *, answer_at: float, weak_at: float, has_candidates: bool, explicit: bool = False,
           named: bool = False) -> Decision:
    """``answer`` from ``answer_at`` or when a candidate was asked for outright,
    ``weak`` from ``weak_at`` or when a candidate sits on an element the task names (a
    task that names what archmem knows is never met with silence), else ``nothing``."""
    if not has_candidates:
        return "nothing"
    if explicit or p >= answer_at:
        return "answer"
    return "weak" if p >= weak_at or named else "nothing"


def fit(rows: Sequence[Sequence[float]], labels: Sequence[int], *, l2: float = 1.0,
        iterations: int = 50) -> dict[str, float]:
    """Logistic regression by Newton's method with an L2 penalty (not on the bias): the
    coefficients ``confidence`` reads. Used by the benchmark to calibrate the defaults,
    never at recall time."""
    import numpy as np

    x = np.asarray(rows, dtype=float)
    y = np.asarray(labels, dtype=float)
    x = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -60, 60)))
        gradient = x.T @ (p - y) + penalty * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return {"bias": round(float(w[0]), 4), **{name: round(float(c), 4) for name, c in zip(FEATURES, w[1:], strict=True)}}

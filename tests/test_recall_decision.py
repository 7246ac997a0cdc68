"""The decision to answer: a fitted model over evidence, three verdicts, weak shown apart."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.config import RecallConfig
from archmem.recall.decision import FEATURES, Evidence, confidence, decide, fit
from archmem.workspace import Workspace

from .conftest import REPO_ROOT, FrozenClock, git, write

DEFAULTS = REPO_ROOT / "bench" / "recall_defaults.json"


def test_fit_learns_which_evidence_separates_answers_from_none() -> None:
    rng = random.Random(7)
    rows, labels = [], []
    for _ in range(400):
        answerable = rng.random() < 0.5
        strength = rng.uniform(0.4, 1.0) if answerable else rng.uniform(0.0, 0.5)
        rows.append([strength] + [rng.random() for _ in FEATURES[1:]])  # the rest is noise
        labels.append(int(answerable))
    model = fit(rows, labels)
    assert model["strength"] > 5 * max(abs(model[name]) for name in FEATURES[1:])
    assert confidence(Evidence(strength=0.9), model) > 0.9 > 0.1 > confidence(Evidence(strength=0.05), model)


def test_three_verdicts_from_two_bars() -> None:
    assert decide(0.9, answer_at=0.85, weak_at=0.5, has_candidates=True) == "answer"
    assert decide(0.6, answer_at=0.85, weak_at=0.5, has_candidates=True) == "weak"
    assert decide(0.4, answer_at=0.85, weak_at=0.5, has_candidates=True) == "nothing"
    assert decide(0.99, answer_at=0.85, weak_at=0.5, has_candidates=False) == "nothing"
    # asked for outright: an answer; on an element the task names: never silence
    assert decide(0.1, answer_at=0.85, weak_at=0.5, has_candidates=True, explicit=True) == "answer"
    assert decide(0.1, answer_at=0.85, weak_at=0.5, has_candidates=True, named=True) == "weak"


def test_the_shipped_defaults_are_the_ones_the_benchmark_chose() -> None:
    """bench/recall_quality.py leaves one repository out and then chooses the defaults on
    every set; the settings archmem ships must be exactly those (rerun the bench and copy
    them into archmem/config.py after any change to recall)."""
    chosen = json.loads(DEFAULTS.read_text(encoding="utf-8"))
    config = RecallConfig()
    assert config.answer_model == chosen["answer_model"]
    assert (config.answer_confidence, config.weak_confidence) == (chosen["answer_confidence"], chosen["weak_confidence"])
    for name, value in chosen["setting"].items():
        assert getattr(config, name) == value, name


def test_with_meaning_the_shipped_decision_is_the_one_fitted_on_minilm_evidence() -> None:
    """``bench/recall_quality.py --meaning minilm`` fits the hybrid decision the same way."""
    chosen = json.loads((REPO_ROOT / "bench" / "recall_defaults_hybrid.json").read_text(encoding="utf-8"))
    config = RecallConfig()
    assert config.answer_model_hybrid == chosen["answer_model_hybrid"]
    assert (config.answer_confidence_hybrid, config.weak_confidence_hybrid) == (
        chosen["answer_confidence_hybrid"], chosen["weak_confidence_hybrid"])


DSL = """workspace "Shop" {
    !identifiers hierarchical
    model {
        shop = softwareSystem "Shop" {
            cart = container "Cart Service" "Keeps the items of each basket." {
                properties {
                    "archmem.paths" "src/cart/**"
                }
            }
            currency = container "Currency Service" "Converts money between currencies." {
                properties {
                    "archmem.paths" "src/currency/**"
                }
            }
        }
    }
}
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"workspace.dsl": DSL, "src/cart/cart.cs": "x\n", "src/currency/server.js": "x\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        ws.remember("Redis keys of a cart expire after a day of inactivity.", kind="pitfall", elements=["shop.cart"])
        ws.remember("Exchange rates come from the European Central Bank feed once a day.", kind="note",
                    elements=["shop.currency"])
        ws.remember("Prices are held as units and nanos, never floats.", kind="convention",
                    elements=["shop.currency"])
    return root


def test_an_unsure_answer_is_weak_shown_apart_and_a_sure_one_is_a_result(root: Path) -> None:
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        sure = ws.recall("the exchange rates feed from the central bank")
        unrelated = ws.recall("add a dark mode toggle to the settings page")
        # forced unsure: every candidate falls between the bars
        ws.config.recall.answer_confidence, ws.config.recall.weak_confidence = 1.0, 0.0
        unsure = ws.recall("the exchange rates feed from the central bank", limit=1)
    assert sure.decision == "answer" and sure.results and not sure.weak
    assert unrelated.decision == "nothing" and not unrelated.results and not unrelated.weak
    assert unsure.decision == "weak" and not unsure.results and len(unsure.weak) == 1  # --limit caps weak too


def test_the_cli_prints_weak_candidates_one_line_each_and_says_so(root: Path) -> None:
    (root / "archmem.toml").write_text("[recall]\nanswer_confidence = 1.0\nweak_confidence = 0.0\n", encoding="utf-8")
    out = CliRunner().invoke(cli, ["recall", "the exchange rates feed", "--repo", str(root)])
    assert out.exit_code == 0, out.output
    assert "not sure any of these fit" in out.output
    lines = [line for line in out.output.splitlines() if line.startswith("  - ")]
    assert lines and all("(" in line and "shop." in line for line in lines)
    data = json.loads(CliRunner().invoke(cli, ["recall", "the exchange rates feed", "--json", "--repo",
                                               str(root)]).output)
    assert data["results"] == [] and data["weak"] and data["decision"] == "weak"
    assert set(FEATURES) <= set(data["evidence"])


def test_a_briefing_shows_weak_candidates_apart_when_recall_is_unsure(root: Path) -> None:
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        ws.config.recall.answer_confidence, ws.config.recall.weak_confidence = 1.0, 0.0
        briefing = ws.brief("the exchange rates feed from the central bank")
    assert "not sure any of these fit" in briefing.markdown
    assert "Exchange rates come from the European Central Bank" in briefing.markdown
    assert "Nothing archmem knows" not in briefing.markdown

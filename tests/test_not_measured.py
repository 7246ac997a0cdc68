"""Truthful summaries (issue 13, item 3): when elements own no code, drift, status, the
Action and the map say drift is *not measured* for them and point at ``archmem paths
suggest``; a score over zero measured elements is no score."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from archmem.cli import cli

from . import repos


def run(root: Path, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, [*args, "--repo", str(root)], env=env, catch_exceptions=False)


def test_a_model_without_paths_has_no_score_and_says_why(tmp_path: Path):
    root = repos.make_repo(tmp_path / "shop", repos.django_files())
    data = json.loads(run(root, "drift", "--json").output)
    assert data["score"] is None and data["measured"] == 0
    assert set(data["not_measured"]) == {"shop", "web", "orders", "catalog", "accounts", "emails", "digest", "db"}
    assert data["counts"]["external"] == 3  # customer, stripe, the SQS queue
    assert "archmem paths suggest" in data["note"]
    externals = {e["id"]: e["external"] for e in data["elements"] if e["external"]}
    assert externals["customer"] == "a person"

    text = run(root, "drift").output
    assert "Drift not measured" in text and "Drift score" not in text
    assert "none of the 8 elements that should own code has paths" in text and "archmem paths suggest" in text


def test_the_action_summary_and_outputs_say_not_measured(tmp_path: Path):
    root = repos.make_repo(tmp_path / "shop", repos.django_files())
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs"
    result = run(root, "drift", "--format", "github",
                 env={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs)})
    assert result.exit_code == 0
    assert "drift-score=\n" in outputs.read_text()
    text = summary.read_text()
    assert text.startswith("## archmem drift: not measured") and "archmem paths suggest" in text
    assert "archmem drift: not measured" in result.output and "100/100" not in result.output


def test_status_and_map_point_at_paths_suggest(tmp_path: Path):
    root = repos.make_repo(tmp_path / "shop", repos.django_files())
    run(root, "list")  # builds the index, so status reads drift
    data = json.loads(run(root, "status", "--json").output)
    assert data["drift"]["score"] is None and data["drift"]["not_measured"] == 8
    assert any("archmem paths suggest" in step for step in data["next"])
    assert "8 elements own no code, so their drift is not measured" in " ".join(data["next"])
    assert "not measured" in run(root, "status").output

    board = json.loads(run(root, "map", "--format", "json").output)
    assert "archmem paths suggest" in board["drift_note"]
    cells = {cell["id"]: cell["drift"] for cell in board["elements"]}
    assert cells["orders"] == "not_measured" and cells["customer"] == "no_paths"
    assert "drift not measured (no paths)" in run(root, "map").output


def test_partly_mapped_the_score_covers_the_measured_and_names_the_rest(tmp_path: Path):
    root = repos.make_repo(tmp_path / "boutique", repos.microservices_files())
    (root / "archmem.toml").write_text('[paths]\n"boutique.cart" = ["src/cartservice/**"]\n', encoding="utf-8")
    data = json.loads(run(root, "drift", "--json").output)
    assert data["score"] == 100 and data["measured"] == 2  # the cart and the system holding it
    assert "boutique.frontend" in data["not_measured"]
    assert data["note"].startswith("drift is not measured for 5 of 7 elements")

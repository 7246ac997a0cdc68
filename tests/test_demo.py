"""archmem demo end to end: a real repository, memories, drift, a briefing and the map."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from archmem.cli import cli


def test_demo_builds_the_example_with_history_and_writes_the_files(tmp_path: Path):
    target = tmp_path / "demo"
    result = CliRunner().invoke(cli, ["demo", "--dir", str(target)])
    assert result.exit_code == 0, result.output
    assert "archmem demo: a small web shop with history" in result.output and "Try next:" in result.output
    log = subprocess.run(["git", "log", "--format=%s"], cwd=target, capture_output=True, text=True).stdout
    assert log.splitlines() == ["Move migrations into the ORM", "Pricing: promotions engine rewrite",
                                "Team memory: what we learned about the shop, as reviewable files",
                                "Checkout: carts must carry a currency", "The shop, described in workspace.dsl"]
    # the memories are committed files, and the demo leaves a clean tree
    committed = subprocess.run(["git", "ls-files", ".archmem"], cwd=target, capture_output=True, text=True).stdout
    assert len(committed.splitlines()) == 41 and all(p.startswith(".archmem/memories/") for p in committed.splitlines())
    assert subprocess.run(["git", "status", "--porcelain"], cwd=target, capture_output=True, text=True).stdout == ""
    briefing = (target / "briefing.md").read_text()
    assert briefing.startswith("# Briefing: speed up checkout and change how tax is rounded")
    assert "[VERIFY — the element drifted since this was written]" in briefing
    assert "↳ verify: PricingEngine drifted since this was confirmed" in briefing
    # the memory "Tax rounding" links is on the task's elements: ranked itself, or shown under its link
    assert ('"Money is integer cents"' in briefing) or ("↳ via [[Tax rounding]] → **Money is integer cents**" in briefing)
    html = (target / "knowledge-map.html").read_text()
    assert "7 of 13 elements documented" in html and 'data-drift="missing"' in html

    drift = json.loads(CliRunner().invoke(cli, ["drift", "--json", "--repo", str(target)]).output)
    status = {e["id"]: e["status"] for e in drift["elements"]}
    assert status["shop.orders.pricing"] == "drifted" and status["shop.database"] == "missing"
    assert drift["counts"]["stale_memories"] > 0
    history = json.loads(CliRunner().invoke(cli, ["history", "Tax rounding", "--json", "--repo", str(target)]).output)
    assert [m["status"] for m in history] == ["superseded", "active"]

    # the review queue lists the memories drift marked VERIFY, with the reason in words
    review = json.loads(CliRunner().invoke(cli, ["review", "--json", "--repo", str(target)]).output)
    assert len(review["verify"]) == drift["counts"]["stale_memories"]
    tax = next(item for item in review["verify"] if item["title"] == "Tax rounding")
    assert tax["verify_reason"].startswith("PricingEngine drifted since this was confirmed")
    text = CliRunner().invoke(cli, ["review", "--repo", str(target)]).output
    assert f"VERIFY ({len(review['verify'])})" in text and "Tax rounding: PricingEngine drifted" in text


def test_demo_refuses_a_folder_that_is_not_empty(tmp_path: Path):
    (tmp_path / "keep.txt").write_text("mine")
    result = CliRunner().invoke(cli, ["demo", "--dir", str(tmp_path)])
    assert result.exit_code == 8 and "not empty" in result.output
    assert (tmp_path / "keep.txt").read_text() == "mine"

"""archmem drift end to end on real repositories with back-dated history."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from archmem.cli import cli
from archmem.workspace import Workspace

from .conftest import DRIFT_MODEL as MODEL
from .conftest import FrozenClock, commit, git, lines, write


def run(root: Path, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, [*args, "--repo", str(root)], env=env, catch_exceptions=False)


def test_in_sync_then_drifted_then_missing(repo: Path):
    data = json.loads(run(repo, "drift", "--json").output)
    status = {e["id"]: e["status"] for e in data["elements"]}
    assert status == {"shop": "in_sync", "shop.api": "in_sync", "shop.orders": "in_sync", "shop.legacy": "in_sync"}
    assert data["score"] == 100

    # three small commits on the API: 8 + 8 + 8 lines; the threshold is max(20, 0.25 x lines)
    for i, day in enumerate(["02-01", "02-02", "02-03"]):
        (repo / "services/api/router.go").write_text(lines(40) + lines(8 * (i + 1), "new"))
        commit(repo, f"api {i}", f"2026-{day}T00:00:00Z")
    (repo / "legacy/old.py").unlink()
    commit(repo, "drop legacy", "2026-02-10T00:00:00Z")

    data = json.loads(run(repo, "drift", "--json").output)
    by_id = {e["id"]: e for e in data["elements"]}
    api = by_id["shop.api"]
    assert api["status"] == "drifted"
    # independently: git log says which commit crossed 20 lines (8, 16, 24)
    third = git(repo, "log", "--format=%H", "-n", "1", "--grep", "api 2").strip()
    assert api["stamp"]["commit"] == third and api["stamp"]["lines"] == 24 and api["stamp"]["commits"] == 3
    assert by_id["shop.legacy"]["status"] == "missing"
    dropped = git(repo, "log", "--format=%H", "-n", "1", "--grep", "drop legacy").strip()
    assert by_id["shop.legacy"]["stamp"]["commit"] == dropped
    assert by_id["shop.orders"]["status"] == "in_sync"
    assert data["counts"]["drifted"] == 2 and data["counts"]["missing"] == 1  # shop inherits api's change
    assert data["score"] == 25


def test_whitespace_only_changes_do_not_drift(repo: Path):
    (repo / "services/api/router.go").write_text("".join(f"   line {i}  \n" for i in range(40)))
    commit(repo, "reindent", "2026-02-01T00:00:00Z")
    data = json.loads(run(repo, "drift", "--json").output)
    assert {e["id"]: e["status"] for e in data["elements"]}["shop.api"] == "in_sync"


def test_describing_the_element_again_resets_its_drift(repo: Path):
    (repo / "services/api/router.go").write_text(lines(100))
    commit(repo, "api rewrite", "2026-02-01T00:00:00Z")
    model = (repo / "workspace.dsl").read_text().replace('container "ApiGateway" {', 'container "ApiGateway" "Routes requests." {')
    (repo / "workspace.dsl").write_text(model)
    commit(repo, "describe the gateway again", "2026-03-01T00:00:00Z")
    data = json.loads(run(repo, "drift", "--json").output)
    api = next(e for e in data["elements"] if e["id"] == "shop.api")
    assert api["status"] == "in_sync" and api["since"].startswith("2026-03-01")


def test_memories_become_verify_and_confirm_clears_it(repo: Path):
    clock = FrozenClock()
    clock.now = clock.now.replace(year=2026, month=1, day=15)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        pitfall = ws.remember("Routes are matched by prefix, longest first.", kind="pitfall", title="Prefix order",
                              elements=["ApiGateway"])
        anchored = ws.remember("Orders app keeps totals in cents.", kind="convention",
                               anchors=["services/orders/app.py"])
    commit(repo, "team memory", "2026-01-15T10:00:00Z")  # before the rewrite, not with it
    (repo / "services/api/router.go").write_text(lines(100))
    (repo / "services/orders/app.py").write_text(lines(41))
    commit(repo, "rewrite", "2026-02-01T00:00:00Z")
    clock.now = clock.now.replace(month=2, day=4)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        result = ws.recall("prefix order routes", explain=True)
        first = result.results[0]
        assert first["id"] == pitfall.id and first["verify"] is True
        assert first["verify_reason"].startswith("ApiGateway drifted since this was")
        assert "in 1 commit" in first["verify_reason"] and "3 days ago" in first["verify_reason"]
        assert first["factors"]["drift"] == 0.6
        report = ws.drift_report().to_dict()
        assert {m["id"] for m in report["stale_memories"]} == {pitfall.id, anchored.id}
        ws.confirm(pitfall.id)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        assert ws.recall("prefix order routes").results[0]["verify"] is False
        assert [m["id"] for m in ws.drift_report().to_dict()["stale_memories"]] == [anchored.id]


def test_accept_since_and_fail_on(repo: Path):
    (repo / "services/api/router.go").write_text(lines(100))
    commit(repo, "api rewrite", "2026-02-01T00:00:00Z")
    assert run(repo, "drift", "--fail-on", "1").exit_code == 1
    assert run(repo, "drift", "--fail-on", "5").exit_code == 0
    assert json.loads(run(repo, "drift", "--json", "--since", "HEAD").output)["counts"]["drifted"] == 0
    accepted = run(repo, "drift", "accept", "ApiGateway", "--note", "reviewed", "--yes")
    assert accepted.exit_code == 0 and "accepted shop.api" in accepted.output
    data = json.loads(run(repo, "drift", "--json").output)
    assert {e["id"]: e["status"] for e in data["elements"]}["shop.api"] == "in_sync"
    unknown = run(repo, "drift", "accept", "ApiGatway", "--yes")
    assert unknown.exit_code == 5 and "ApiGateway" in unknown.output
    bad_ref = run(repo, "drift", "--since", "no-such-ref")
    assert bad_ref.exit_code == 6 and "unknown revision" in bad_ref.output


def test_github_format_writes_summary_outputs_and_annotations(repo: Path, tmp_path: Path):
    (repo / "services/api/router.go").write_text(lines(100))
    commit(repo, "api rewrite", "2026-02-01T00:00:00Z")
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    result = run(repo, "drift", "--format", "github",
                 env={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs)})
    assert result.exit_code == 0, result.output
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert values == {"drift-score": "50", "total-elements": "4", "drifted-elements": "2", "missing-elements": "0",
                      "stale-memories": "0", "documented-elements": "0"}
    assert "## archmem drift: 50/100" in summary.read_text() and "| ApiGateway (`shop.api`) | drifted |" in summary.read_text()
    line = next(i for i, text in enumerate(MODEL.splitlines(), 1) if 'container "ApiGateway"' in text)
    assert f"::warning file=workspace.dsl,line={line},title=archmem drift::ApiGateway drifted" in result.output


def test_not_a_git_repository_and_shallow_clones(tmp_path: Path, repo: Path):
    plain = tmp_path / "plain"
    write(plain, {"workspace.dsl": MODEL})
    result = run(plain, "drift")
    assert result.exit_code == 6 and "not a git repository" in result.output
    for i in range(3):
        (repo / "services/orders/app.py").write_text(lines(41 + i))
        commit(repo, f"c{i}", f"2026-02-0{i + 1}T00:00:00Z")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)], check=True)
    result = run(shallow, "drift")
    assert result.exit_code == 6 and "shallow" in result.output and "fetch-depth: 0" in result.output
    deepened = run(shallow, "drift", "--deepen", "--json")
    assert deepened.exit_code == 0, deepened.output
    assert json.loads(deepened.output)["commits"] == 4


def test_concurrent_scans_on_a_new_store_agree(repo: Path):
    for i in range(60):
        (repo / "services/orders/app.py").write_text(lines(41 + i))
        commit(repo, f"orders {i}", f"2026-03-{1 + i % 28:02d}T{i % 24:02d}:00:00Z")
    procs = [
        subprocess.Popen(["archmem", "drift", "--json", "--repo", str(repo)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    reports = [json.loads(out) for out, _ in outputs]
    assert all(r["commits"] == 61 for r in reports)
    assert reports[0]["elements"] == reports[1]["elements"] == reports[2]["elements"]
    again = json.loads(run(repo, "drift", "--json").output)
    assert again["commits"] == 61 and again["elements"] == reports[0]["elements"]


def test_a_repository_without_commits_says_drift_cannot_be_measured(tmp_path: Path):
    """Issue 17, item 11: not "0/100, every element missing", but no score and why."""
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": MODEL})  # its code is not written yet: every element would read as missing
    text = run(root, "drift")
    assert text.exit_code == 0, text.output
    assert "no commits yet" in text.output and "cannot be measured" in text.output
    assert "/100" not in text.output and "missing" not in text.output
    data = json.loads(run(root, "drift", "--json").stdout)
    assert data["score"] is None and data["no_commits"] is True and data["elements"] == []
    assert any("no commits yet" in w for w in data["warnings"])
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    github = run(root, "drift", "--format", "github",
                 env={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs)})
    assert github.exit_code == 0 and "no commits yet" in github.output and "::warning" not in github.output
    assert "drift-score=\n" in outputs.read_text() and "not measured" in summary.read_text()
    status = json.loads(run(root, "status", "--json").stdout)
    assert "no commits yet" in status["drift"]["error"]
    # the first commit makes it measurable
    write(root, {"services/api/a.go": lines(3), "services/orders/b.py": lines(3), "legacy/c.py": lines(3)})
    commit(root, "first", "2026-01-01T00:00:00Z")
    assert json.loads(run(root, "drift", "--json").stdout)["score"] == 100

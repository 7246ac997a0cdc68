"""Element drift is ordered by history, not by the clock: a commit after the one that
described the element counts whatever its date (same second, a clock a day behind), on
real repositories with back-dated commits. Memory staleness stays on the clock."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.drift.index import DriftIndex
from archmem.drift.types import Baseline, ElementSize, Thresholds
from archmem.git.types import Commit, FileChange
from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, git, lines

MODEL_TIME = "2026-01-01T00:00:00Z"


def drift(root: Path, *args: str) -> dict[str, dict]:
    result = CliRunner().invoke(cli, ["drift", "--json", *args, "--repo", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {e["id"]: e for e in json.loads(result.output)["elements"]}


def three_api_commits(root: Path, when: str) -> list[str]:
    """Three commits of 40 new lines each on the API's code, all dated ``when``."""
    for i in range(3):
        (root / "services/api/router.go").write_text(lines(40) + lines(40 * (i + 1), "new"))
        commit(root, f"api {i}", when)
    return git(root, "log", "--format=%H", "-n", "3", "--reverse").split()


@pytest.mark.parametrize("when", [MODEL_TIME, "2025-12-31T00:00:00Z"], ids=["same second", "clock a day behind"])
def test_commits_after_the_model_count_whatever_their_date(repo: Path, when: str):
    shas = three_api_commits(repo, when)
    api = drift(repo)["shop.api"]
    assert api["status"] == "drifted"
    assert api["stamp"]["commit"] == shas[0] and api["stamp"]["lines"] == 40  # 40 ≥ max(20, 0.25 × 160)
    assert drift(repo)["shop.orders"]["status"] == "in_sync"


def test_since_a_revision_counts_the_commits_after_it_whatever_their_date(repo: Path):
    base = git(repo, "rev-parse", "HEAD").strip()
    three_api_commits(repo, "2025-06-01T00:00:00Z")
    assert drift(repo, "--since", base)["shop.api"]["status"] == "drifted"
    assert drift(repo, "--since", "HEAD")["shop.api"]["status"] == "in_sync"


def test_a_model_change_merged_from_a_branch_describes_the_element_from_the_merge_on(repo: Path):
    # a pull request that rewrites the API and describes it again in the model, merged later
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "services/api/router.go").write_text(lines(120))
    model = (repo / "workspace.dsl").read_text()
    (repo / "workspace.dsl").write_text(model.replace('container "ApiGateway" {', 'container "ApiGateway" "Routes." {'))
    commit(repo, "rewrite and describe the API", "2026-01-10T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature",
        env={"GIT_AUTHOR_DATE": "2026-01-20T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-20T00:00:00Z"})
    api = drift(repo)["shop.api"]
    assert api["status"] == "in_sync" and api["since"].startswith("2026-01-20")  # the merge is the description
    three_api_commits(repo, "2026-01-05T00:00:00Z")  # after the merge, dated before it
    assert drift(repo)["shop.api"]["status"] == "drifted"


def test_memory_staleness_stays_on_the_clock(repo: Path):
    """A memory confirmed after the commits' (wall-clock) dates is not VERIFY."""
    three_api_commits(repo, "2025-12-31T00:00:00Z")
    clock = FrozenClock()
    clock.now = datetime(2026, 1, 2, tzinfo=UTC)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        written = ws.remember("Routes are matched by prefix.", kind="pitfall", elements=["ApiGateway"])
        assert ws.staleness(ws.get_memory(written.id)) is None


def test_the_index_counts_from_a_commit_not_from_its_time():
    t = datetime(2026, 1, 1, tzinfo=UTC)
    api = {"api": ["services/api/**"]}
    commits = [Commit(sha=f"{n:040x}", time=t, author="dev", changes=(FileChange("services/api/a.go", 30, 0),))
               for n in range(1, 4)]
    index = DriftIndex.build(commits, api)
    size, th = ElementSize(files=1, lines=90), Thresholds()
    assert index.drift("api", t, size, th) is None  # by the clock, nothing is after t
    stamp = index.drift("api", Baseline(commit=commits[0].sha, time=t), size, th)
    assert stamp is not None and stamp.commit == commits[1].sha and stamp.lines == 30 and stamp.since == t
    assert index.drift("api", Baseline(commit=commits[2].sha, time=t), size, th) is None
    unknown = Baseline(commit="f" * 40, time=datetime(2025, 1, 1, tzinfo=UTC))  # not on the line: its time
    assert index.drift("api", unknown, size, th) is not None

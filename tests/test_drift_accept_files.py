"""``archmem drift accept`` is a committed file, so every clone counts drift alike.

Real git repositories with back-dated history (``conftest.commit``), real ``git clone``
and ``git merge``, the CLI through click's ``CliRunner`` and a frozen clock where a
file's exact bytes are checked.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from archmem.cli import cli
from archmem.drift.accepts import Accept, parse_accept, render_accept
from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, git, git_status, lines

ACCEPTS = ".archmem/accepts"


def run(root: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--repo", str(root)], catch_exceptions=False)


def drift_json(root: Path) -> dict:
    result = run(root, "drift", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def statuses(data: dict) -> dict[str, str]:
    return {e["id"]: e["status"] for e in data["elements"]}


def rewrite(root: Path, when: str = "2026-02-01T00:00:00Z") -> str:
    """The gateway's and the orders' code rewritten (both drift); returns the commit."""
    (root / "services/api/router.go").write_text(lines(100))
    (root / "services/orders/app.py").write_text(lines(100, "order"))
    commit(root, "rewrite the gateway and the orders", when)
    return git(root, "rev-parse", "HEAD").strip()


def commit_accepts(root: Path, message: str, when: str) -> None:
    """Commit what an accept wrote (``--allow-empty``: where it wrote nothing, the
    assertions on drift say so, not a failing ``git commit``)."""
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message, env={"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})


def clone(source: Path, target: Path) -> Path:
    git(target.parent, "clone", "-q", str(source), str(target))
    return target


def accept_files(root: Path) -> list[Path]:
    return sorted((root / ACCEPTS).glob("*.yaml"))


def test_accept_writes_one_small_file_for_the_team_to_commit(repo: Path):
    git(repo, "config", "user.name", "Sarah Connor")
    head = rewrite(repo)
    assert statuses(drift_json(repo))["shop.api"] == "drifted"
    assert git_status(repo) == ""  # reading created nothing

    with Workspace.open(repo, clock=FrozenClock(), env={}) as ws:
        result = ws.accept_drift("ApiGateway", "the new lines are tests")

    path = f"{ACCEPTS}/shop.api.20261101T090000000000Z.yaml"
    assert result["file"] == path and result["commit"] == head and result["author"] == "cli/Sarah-Connor"
    assert (repo / path).read_text(encoding="utf-8") == (
        f"element: shop.api\ncommit: {head}\naccepted: 2026-11-01T09:00:00.000000Z\n"
        "author: cli/Sarah-Connor\nreason: the new lines are tests\n"
    )
    # the accept is the one thing to commit: the index stays ignored
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == f"?? {path}\n"
    assert statuses(drift_json(repo))["shop.api"] == "in_sync"


def test_the_cli_writes_the_file_and_says_to_commit_it(repo: Path):
    head = rewrite(repo)
    result = run(repo, "drift", "accept", "ApiGateway", "--yes", "--reason", "routes only moved", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["element"] == "shop.api" and data["commit"] == head and data["reason"] == "routes only moved"
    [written] = accept_files(repo)
    assert data["file"] == written.relative_to(repo).as_posix()
    assert "reason: routes only moved\n" in written.read_text(encoding="utf-8")

    text = run(repo, "drift", "accept", "Orders", "--yes", "--note", "the old flag still works")
    assert text.exit_code == 0, text.output
    assert f"accepted shop.orders as described at commit {head[:12]}" in text.stdout
    assert f"wrote {ACCEPTS}/shop.orders." in text.stdout and "commit it" in text.stdout
    assert any("reason: the old flag still works" in p.read_text(encoding="utf-8") for p in accept_files(repo))
    assert statuses(drift_json(repo)) | {"shop": "-"} == {
        "shop": "-", "shop.api": "in_sync", "shop.orders": "in_sync", "shop.legacy": "in_sync"}


def test_a_fresh_clone_computes_the_same_drift(repo: Path, tmp_path: Path):
    rewrite(repo)
    assert run(repo, "drift", "accept", "ApiGateway", "--yes").exit_code == 0
    commit_accepts(repo, "accept the gateway's description", "2026-02-02T00:00:00Z")
    (repo / "services/orders/app.py").write_text(lines(101, "order"))
    commit(repo, "one more order line", "2026-02-03T00:00:00Z")
    original = drift_json(repo)

    fresh = clone(repo, tmp_path / "fresh")
    assert not (fresh / ".archmem/archmem.db").exists()
    cloned = drift_json(fresh)

    assert cloned == original
    assert statuses(cloned)["shop.api"] == "in_sync" and statuses(cloned)["shop.orders"] == "drifted"
    assert cloned["warnings"] == [] and len(accept_files(fresh)) == 1


def test_deleting_the_index_keeps_the_accept(repo: Path):
    rewrite(repo)
    assert run(repo, "drift", "accept", "ApiGateway", "--yes").exit_code == 0
    before = drift_json(repo)
    for path in (repo / ".archmem").glob("archmem.db*"):
        path.unlink()
    after = drift_json(repo)
    assert statuses(after)["shop.api"] == "in_sync"
    assert after == before


def test_two_branches_accept_and_merge_without_conflict(repo: Path, tmp_path: Path):
    """Alice and Bob accept in their own clones, on their own branches; the repository
    that merges both never saw either accept in its index."""
    rewrite(repo)
    alice = clone(repo, tmp_path / "alice")
    git(alice, "checkout", "-q", "-b", "accept-api")
    assert run(alice, "drift", "accept", "ApiGateway", "--yes").exit_code == 0
    commit_accepts(alice, "accept the gateway", "2026-02-02T00:00:00Z")
    git(alice, "push", "-q", "origin", "accept-api")

    bob = clone(repo, tmp_path / "bob")
    git(bob, "checkout", "-q", "-b", "orders-work")
    (bob / "services/orders/app.py").write_text(lines(130, "order"))
    commit(bob, "orders: totals in cents", "2026-02-03T00:00:00Z")
    assert run(bob, "drift", "accept", "Orders", "--yes").exit_code == 0  # made on the branch, at its commit
    commit_accepts(bob, "accept the orders", "2026-02-04T00:00:00Z")
    git(bob, "push", "-q", "origin", "orders-work")

    assert statuses(drift_json(repo))["shop.api"] == "drifted"
    for branch, when in (("accept-api", "2026-02-05T00:00:00Z"), ("orders-work", "2026-02-06T00:00:00Z")):
        git(repo, "merge", "--no-ff", "-q", "-m", f"Merge {branch}", branch,
            env={"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})
    assert git(repo, "diff", "--name-only", "--diff-filter=U") == ""

    data = drift_json(repo)
    assert statuses(data)["shop.api"] == "in_sync"
    assert statuses(data)["shop.orders"] == "in_sync"  # Bob's commit is not on main's line: it holds from the merge
    assert data["warnings"] == [] and len(accept_files(repo)) == 2


def test_accepts_in_an_old_index_become_files_once(repo: Path):
    head = rewrite(repo)
    assert run(repo, "init").exit_code == 0
    with Workspace.open(repo, env={}) as ws:
        ws.store  # noqa: B018  (builds .archmem/archmem.db, as an older archmem left it)
    with sqlite3.connect(repo / ".archmem/archmem.db") as db:
        db.execute("INSERT INTO drift_accepts (element_id, at, note) VALUES "
                   "('shop.api', '2026-02-10T00:00:00.000000Z', 'reviewed by the team')")
    db.close()

    first = run(repo, "drift", "--json")
    assert first.exit_code == 0, first.output
    assert f"wrote the index's 1 drift accept as files in {ACCEPTS}/ (once)" in first.stderr
    [written] = accept_files(repo)
    assert written.read_text(encoding="utf-8") == (
        f"element: shop.api\ncommit: {head}\naccepted: 2026-02-10T00:00:00.000000Z\nreason: reviewed by the team\n"
    )
    assert statuses(json.loads(first.stdout))["shop.api"] == "in_sync"

    second = run(repo, "drift", "--json")
    assert "wrote the index" not in second.stderr and accept_files(repo) == [written]
    assert statuses(json.loads(second.stdout))["shop.api"] == "in_sync"
    with sqlite3.connect(repo / ".archmem/archmem.db") as db:
        assert db.execute("SELECT COUNT(*) FROM drift_accepts").fetchone() == (0,)
    db.close()


@pytest.mark.parametrize(("text", "line", "message"), [
    ("element: shop.orders\ncommit: not-a-sha!\naccepted: 2026-02-10T00:00:00Z\n", 2, "bad commit 'not-a-sha!'"),
    ("element: shop.orders\naccepted: 2026-02-10T00:00:00Z\nreason: [unclosed\n", 4, "the file is not valid YAML"),
    ("element: shop.orders\naccepted: yesterday\n", 2, "bad time in 'accepted'"),
])
def test_a_malformed_accept_file_is_reported_at_its_line_and_skipped(repo: Path, text: str, line: int, message: str):
    rewrite(repo)
    with Workspace.open(repo, clock=FrozenClock(), env={}) as ws:
        ws.accept_drift("ApiGateway")
    (repo / ACCEPTS).mkdir(parents=True, exist_ok=True)
    (repo / ACCEPTS / "orders.yaml").write_text(text, encoding="utf-8")

    data = drift_json(repo)
    [warning] = data["warnings"]
    assert warning.startswith(f"{ACCEPTS}/orders.yaml:{line}:") and message in warning and "skipped" in warning
    assert statuses(data)["shop.api"] == "in_sync" and statuses(data)["shop.orders"] == "drifted"
    shown = run(repo, "drift")
    assert shown.exit_code == 0 and f"warning: {ACCEPTS}/orders.yaml:{line}:" in shown.stdout

    checked = run(repo, "check", "--json")
    assert checked.exit_code == 2
    report = json.loads(checked.stdout)
    assert report["accept_files"] == 2
    [problem] = report["problems"]
    assert (problem["path"], problem["line"], problem["severity"]) == (f"{ACCEPTS}/orders.yaml", line, "error")


def test_an_accept_of_an_unknown_element_warns_with_the_closest_ids(repo: Path):
    rewrite(repo)
    (repo / ACCEPTS).mkdir(parents=True)
    (repo / ACCEPTS / "typo.yaml").write_text("element: shop.apii\naccepted: 2026-02-10T00:00:00Z\n", encoding="utf-8")

    data = drift_json(repo)
    [warning] = data["warnings"]
    assert warning.startswith(f"{ACCEPTS}/typo.yaml:1:1: accepts drift of 'shop.apii', which the model does not have")
    assert "did you mean 'shop.api'" in warning
    assert statuses(data)["shop.api"] == "drifted"

    checked = run(repo, "check")
    assert checked.exit_code == 1  # a warning: the accept is ignored, nothing is wrong
    assert f"{ACCEPTS}/typo.yaml:1:1: warning: accepts drift of 'shop.apii'" in checked.stdout
    assert "[unknown-element]" in checked.stdout and "1 accept file" in checked.stdout


def test_an_accept_whose_commit_this_clone_lacks_counts_from_its_time(repo: Path):
    rewrite(repo, "2026-02-01T00:00:00Z")
    missing = "1234abcd" * 5  # a shallow clone's cut, or a commit that never reached this clone
    (repo / ACCEPTS).mkdir(parents=True)
    (repo / ACCEPTS / "api.yaml").write_text(
        f"element: shop.api\ncommit: {missing}\naccepted: 2026-02-15T00:00:00Z\n", encoding="utf-8")
    (repo / ACCEPTS / "orders.yaml").write_text(  # its time is before the rewrite: it still drifted
        f"element: shop.orders\ncommit: {missing}\naccepted: 2026-01-15T00:00:00Z\n", encoding="utf-8")

    data = drift_json(repo)
    assert statuses(data)["shop.api"] == "in_sync" and statuses(data)["shop.orders"] == "drifted"
    api = next(e for e in data["elements"] if e["id"] == "shop.api")
    assert api["since"] == "2026-02-15T00:00:00.000000Z"
    assert sorted(data["warnings"]) == [
        f"{ACCEPTS}/api.yaml:2:1: the accept of shop.api names commit {missing[:12]}, but this clone does not have "
        "it (a shallow clone, or a commit rebased away): it counts from its time, 2026-02-15T00:00:00.000000Z",
        f"{ACCEPTS}/orders.yaml:2:1: the accept of shop.orders names commit {missing[:12]}, but this clone does not "
        "have it (a shallow clone, or a commit rebased away): it counts from its time, 2026-01-15T00:00:00.000000Z",
    ]


def test_an_accept_of_a_commit_rebased_away_counts_from_its_time(repo: Path):
    rewrite(repo, "2026-02-01T00:00:00Z")
    clock = FrozenClock()
    clock.now = datetime(2026, 2, 3, tzinfo=UTC)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        accepted = ws.accept_drift("ApiGateway")
    git(repo, "commit", "-q", "--amend", "-m", "rewritten, reworded",
        env={"GIT_COMMITTER_DATE": "2026-02-02T00:00:00Z"})  # the accepted commit leaves the history

    data = drift_json(repo)
    assert statuses(data)["shop.api"] == "in_sync"  # counted from 2026-02-03, after the amended commit
    [warning] = data["warnings"]
    assert f"names commit {accepted['commit'][:12]}, but it is not in the history of HEAD" in warning


def test_an_accept_survives_a_squash_merge(repo: Path, tmp_path: Path):
    """A squash merge leaves the accepted commit out of the history; the squashed commit
    brings the accept file with the code it was about, so drift counts after it."""
    rewrite(repo)
    bob = clone(repo, tmp_path / "bob")
    git(bob, "checkout", "-q", "-b", "orders-work")
    (bob / "services/orders/app.py").write_text(lines(200, "order"))
    commit(bob, "orders: totals in cents", "2026-02-03T00:00:00Z")
    clock = FrozenClock()
    clock.now = datetime(2026, 2, 3, 12, tzinfo=UTC)
    with Workspace.open(bob, clock=clock, env={}) as ws:
        ws.accept_drift("Orders", "cents everywhere")
    commit_accepts(bob, "accept the orders", "2026-02-04T00:00:00Z")
    git(bob, "push", "-q", "origin", "orders-work")

    git(repo, "merge", "--squash", "-q", "orders-work")
    commit(repo, "Orders in cents (#12)", "2026-02-06T00:00:00Z")
    data = drift_json(repo)
    assert statuses(data)["shop.orders"] == "in_sync" and data["warnings"] == []

    (repo / "services/orders/app.py").write_text(lines(300, "order"))
    commit(repo, "orders: refunds", "2026-02-07T00:00:00Z")
    assert statuses(drift_json(repo))["shop.orders"] == "drifted"  # what came after the squash still counts


def test_code_committed_with_its_accept_is_not_drift_after_it(repo: Path):
    (repo / "services/api/router.go").write_text(lines(100))  # changed, not committed yet
    with Workspace.open(repo, clock=FrozenClock(), env={}) as ws:
        accepted = ws.accept_drift("ApiGateway", "routes moved, the description holds")
    commit_accepts(repo, "route table rewrite, model still holds", "2026-02-01T00:00:00Z")
    assert accepted["commit"] != git(repo, "rev-parse", "HEAD").strip()
    assert statuses(drift_json(repo))["shop.api"] == "in_sync"


@settings(max_examples=150, deadline=None)
@given(reason=st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=40),
       author=st.sampled_from([None, "cli/sarah", "claude-code/Zoë Ng"]),
       commit=st.sampled_from([None, "ab" * 20, "0123456789" * 4, "1e10" + "0" * 36, "0b" + "10" * 19]))
def test_an_accept_file_reads_back_as_written(reason: str, author: str | None, commit: str | None):
    """Any one-line reason, and commit ids YAML alone would read as numbers."""
    accept = Accept("shop.api", datetime(2026, 3, 1, 10, tzinfo=UTC), commit=commit, author=author,
                    reason=reason.strip() or None)
    read, remarks = parse_accept(render_accept(accept))
    assert remarks == []
    assert (read.element, read.commit, read.accepted_at, read.author, read.reason) == (
        accept.element, accept.commit, accept.accepted_at, accept.author, accept.reason)

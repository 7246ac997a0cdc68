"""A memory is measured from where it reached the branch: committed with the code it
describes, it was written against that code; committed alone, it moves nothing."""

from __future__ import annotations

from pathlib import Path

from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, lines


def stale_ids(repo: Path) -> set[str]:
    """The memories to VERIFY, as the report lists them and as status counts them (the
    second from what drift kept of git in the index): the two must agree."""
    with Workspace.open(repo, env={}) as ws:
        listed = {memory.id for memory, _ in ws.drift_report().stale}
    with Workspace.open(repo, env={}) as ws:
        counted = set(ws.drift_report(reasons=False).verify_ids or [])
    assert counted == listed
    return listed


def remember(repo: Path, content: str, title: str) -> str:
    clock = FrozenClock()
    clock.now = clock.now.replace(year=2026, month=1, day=15)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        return ws.remember(content, kind="pitfall", title=title, elements=["ApiGateway"]).id


def test_a_memory_committed_with_its_code_is_not_verify_and_one_committed_alone_stays_verify(repo: Path):
    before = remember(repo, "Routes are matched by prefix, longest first.", "Prefix order")
    commit(repo, "team memory", "2026-01-15T10:00:00Z")
    with_code = remember(repo, "The router table is generated from routes.yaml.", "Generated routes")
    (repo / "services/api/router.go").write_text(lines(100, "route"))
    commit(repo, "generated router, and what to know about it", "2026-02-01T00:00:00Z")
    # the first scan reads git; the second reads the history cache: the same answer
    assert stale_ids(repo) == stale_ids(repo) == {before}

    late = remember(repo, "Route names are lower case.", "Route names")  # written in January…
    commit(repo, "a memory alone", "2026-03-01T00:00:00Z")  # …committed alone after the rewrite
    assert stale_ids(repo) == {before, late}


def test_confirming_in_the_commit_that_changes_the_code_clears_the_flag(repo: Path):
    memory = remember(repo, "Routes are matched by prefix, longest first.", "Prefix order")
    commit(repo, "team memory", "2026-01-15T10:00:00Z")
    (repo / "services/api/router.go").write_text(lines(100, "route"))
    commit(repo, "rewrite", "2026-02-01T00:00:00Z")
    assert stale_ids(repo) == {memory}
    clock = FrozenClock()
    clock.now = clock.now.replace(year=2026, month=2, day=2)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        ws.confirm(memory)
    (repo / "services/api/router.go").write_text(lines(100, "route2"))
    commit(repo, "rewrite again, confirmed with it", "2026-02-03T00:00:00Z")
    assert stale_ids(repo) == set()

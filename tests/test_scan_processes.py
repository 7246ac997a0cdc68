"""An incremental history scan starts only the git processes it needs: the one ``git log``
of the new commits. HEAD (its commit, its branch, a shallow clone?) and the repository's
top folder are read from the ``.git`` files (``archmem.git.checkout``), git being asked
only where their layout is unusual. Counted through a ``git`` first on PATH that logs
each call and runs the real one (counts, not timings).

The cheaper path must still notice every history it cannot extend: a cached head that
git no longer has, and a HEAD that its cache contains only through a merged branch."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from archmem.drift.scan import reader_for, scan_history
from archmem.git.repository import Repository
from archmem.store import open_store
from archmem.store.commits import CommitCache
from archmem.store.sqlite import SQLiteStore

from .conftest import git, write


@pytest.fixture
def store(tmp_path: Path):
    with open_store(tmp_path / "index.db") as opened:
        yield opened


def commit(root: Path, files: dict[str, str], message: str = "change") -> str:
    write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q")
    for n in range(3):
        commit(folder, {"src/a.py": "x\n" * (n + 1)})
    return folder


@pytest.fixture
def git_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A function returning the git subcommands run since it was last called."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "git-calls.log"
    log.write_text("", encoding="utf-8")
    wrapper = folder / "git"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("GIT_PYTHON_GIT_EXECUTABLE", raising=False)

    def calls() -> list[str]:
        lines = log.read_text(encoding="utf-8").splitlines()
        log.write_text("", encoding="utf-8")
        return [_subcommand(line.split()) for line in lines]

    return calls


def _subcommand(args: list[str]) -> str:
    words = iter(args)
    for word in words:
        if word == "-c":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return ""


def scan(root: Path, store: SQLiteStore):
    return scan_history(store, reader_for(Repository.at(root)))


def test_an_incremental_scan_runs_one_log(root: Path, store: SQLiteStore, git_calls):
    scan(root, store)
    newest = commit(root, {"src/b.py": "y\n"})
    git_calls()
    result = scan(root, store)
    assert (result.new, result.rescanned, result.head) == (1, False, newest)
    assert git_calls() == ["log"]


def test_a_scan_with_nothing_new_runs_no_git(root: Path, store: SQLiteStore, git_calls):
    scan(root, store)
    git_calls()
    result = scan(root, store)
    assert (result.new, result.rescanned) == (0, False)
    assert git_calls() == []


def test_a_cached_head_git_no_longer_has_is_rescanned(root: Path, store: SQLiteStore):
    old = scan(root, store).head
    write(root, {"src/a.py": "rewritten\n"})
    git(root, "commit", "-q", "-a", "--amend", "-m", "amended")
    git(root, "reflog", "expire", "--expire=now", "--all")
    git(root, "gc", "-q", "--prune=now")
    result = scan(root, store)
    assert result.rescanned and old not in {c.sha for c in result.commits}
    assert [c.sha for c in CommitCache(store).all()] == git(
        root, "rev-list", "--reverse", "--first-parent", "HEAD").split()


def test_a_head_reached_only_through_a_merged_branch_is_rescanned(root: Path, store: SQLiteStore):
    git(root, "checkout", "-q", "-b", "feature")
    side = commit(root, {"src/f.py": "f\n"})
    git(root, "checkout", "-q", "main")
    commit(root, {"src/a.py": "main\n"})
    git(root, "merge", "-q", "--no-ff", "feature", "-m", "merge")
    scan(root, store)  # cached on main: the merge, not the feature's commit
    git(root, "checkout", "-q", side)  # an ancestor of the cached head, but not on its line
    result = scan(root, store)
    assert result.rescanned and result.head == side
    assert [c.sha for c in result.commits] == git(root, "rev-list", "--reverse", "--first-parent", side).split()


def test_the_one_question_says_head_branch_and_shallowness(tmp_path: Path, root: Path):
    from archmem.git.history import HistoryReader
    from archmem.git.types import HeadState

    head = git(root, "rev-parse", "HEAD").strip()
    assert HistoryReader(root).state() == HeadState(head, "main", False)
    git(root, "checkout", "-q", "--detach")
    assert HistoryReader(root).state() == HeadState(head, None, False)
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    assert HistoryReader(empty).state() == HeadState(None, None, False)
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{root}", "shallow")
    assert HistoryReader(tmp_path / "shallow").state().shallow


def test_an_incremental_drift_report_never_asks_git_for_head(repo: Path, git_calls):
    """The scan reads HEAD from the ``.git`` files, and past it the report knows HEAD: the
    memory folder's last commits are asked of the scanned head, not after a ``rev-parse``."""
    from archmem.workspace import Workspace

    from .conftest import FrozenClock, lines
    from .conftest import commit as dated_commit

    clock = FrozenClock()
    clock.now = clock.now.replace(year=2026, month=1, day=15)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        ws.remember("Routes are matched by prefix, longest first.", kind="pitfall", title="Prefix order",
                    elements=["ApiGateway"])
    dated_commit(repo, "team memory", "2026-01-15T10:00:00Z")
    with Workspace.open(repo, clock=clock, env={}) as ws:
        ws.drift_report()
    (repo / "services/api/router.go").write_text(lines(100))
    dated_commit(repo, "rewrite", "2026-02-01T00:00:00Z")
    clock.now = clock.now.replace(month=2, day=4)
    git_calls()
    with Workspace.open(repo, clock=clock, env={}) as ws:
        report = ws.drift_report().to_dict()
    assert report["stale_memories"]
    calls = git_calls()
    assert "rev-parse" not in calls and "merge-base" not in calls and "symbolic-ref" not in calls, calls

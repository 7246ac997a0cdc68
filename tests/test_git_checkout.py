"""HEAD, branch, top folder and shallowness read from the ``.git`` files say what git says."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from archmem.git import checkout
from archmem.git.checkout import Checkout

from .conftest import git, write


def asked_of_git(start: Path) -> Checkout:
    """What git's own commands answer, run in ``start``."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=start, capture_output=True, text=True, check=False)

    head = run("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    branch = run("symbolic-ref", "--quiet", "--short", "HEAD")
    return Checkout(
        top=Path(run("rev-parse", "--show-toplevel").stdout.strip()).resolve(),
        head=head.stdout.strip() or None if head.returncode == 0 else None,
        branch=branch.stdout.strip() if branch.returncode == 0 else None,
        shallow=run("rev-parse", "--is-shallow-repository").stdout.strip() == "true",
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"src/a.py": "a = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    write(root, {"src/a.py": "a = 2\n"})
    git(root, "commit", "-q", "-am", "two")
    return root


def test_a_branch_with_commits_from_the_top_and_from_a_sub_folder(repo: Path):
    for start in (repo, repo / "src"):
        found = checkout.read(start)
        assert found == asked_of_git(start) and found is not None and found.branch == "main"


def test_a_branch_without_commits(tmp_path: Path):
    git(tmp_path, "init", "-q")
    assert checkout.read(tmp_path) == asked_of_git(tmp_path) == Checkout(tmp_path.resolve(), None, "main", False)


def test_a_detached_head_and_packed_refs(repo: Path):
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert checkout.read(repo) == asked_of_git(repo)
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    found = checkout.read(repo)
    assert found == asked_of_git(repo) and found is not None and found.branch is None


def test_a_linked_worktree_and_a_shallow_clone(repo: Path, tmp_path: Path):
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"), "HEAD~1")
    side = checkout.read(tmp_path / "side")
    assert side == asked_of_git(tmp_path / "side") and side is not None and side.branch == "side"
    git(tmp_path, "clone", "-q", "--depth", "1", repo.as_uri(), "shallow")
    shallow = checkout.read(tmp_path / "shallow")
    assert shallow == asked_of_git(tmp_path / "shallow") and shallow is not None and shallow.shallow


def test_git_is_asked_when_the_environment_moves_the_repository(repo: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    assert checkout.read(repo) is None


def test_outside_any_repository_git_is_asked(tmp_path: Path):
    folder = tmp_path / "plain"
    folder.mkdir()
    found = checkout.read(folder)
    assert found is None or found.top != folder.resolve()


def test_current_head_is_gits_answer_from_the_files_or_from_git_where_the_layout_is_unusual(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The MCP server keys its cache on it: None before the first commit and outside git,
    git's own sha otherwise, also where a ``GIT_*`` variable makes the files unreliable."""
    outside = tmp_path / "plain"
    outside.mkdir()
    assert checkout.current_head(outside) is None
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    assert checkout.current_head(root) is None
    write(root, {"a.txt": "a\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    expected = asked_of_git(root).head
    assert expected and checkout.current_head(root / "") == expected
    monkeypatch.setenv("GIT_DIR", str(root / ".git"))  # the files are not read: git answers
    assert checkout.read(root) is None and checkout.current_head(root) == expected

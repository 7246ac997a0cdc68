from __future__ import annotations

from archmem.git.blame import LineHistory
from archmem.git.repository import Repository


def test_blame_gives_each_lines_commit_and_time(git_repo):
    from .conftest import git as run_git

    root = git_repo({"workspace.dsl": "a\nb\nc\n"})
    (root / "workspace.dsl").write_text("a\nB\nc\nd\n")
    run_git(root, "commit", "-qam", "second", env={"GIT_COMMITTER_DATE": "2030-01-01T00:00:00Z"})
    second = run_git(root, "rev-parse", "HEAD").strip()
    (root / "workspace.dsl").write_text("a\nB\nc\nd\ne\n")
    blamed = LineHistory(root).blame(root / "workspace.dsl")
    assert len(blamed) == 5
    assert blamed[1] == blamed[3] and blamed[1].sha == second and blamed[1].time.year == 2030
    assert blamed[0] is not None and blamed[0].sha != second and blamed[0].time.year < 2030
    assert blamed[4] is None  # not committed yet
    assert Repository.at(root).revision("HEAD") == blamed[1]


def test_blame_names_the_merge_that_brought_a_line_to_the_branch(git_repo):
    from .conftest import git as run_git

    root = git_repo({"workspace.dsl": "a\n"})
    run_git(root, "checkout", "-q", "-b", "feature")
    (root / "workspace.dsl").write_text("a\nb\n")
    run_git(root, "commit", "-qam", "on the branch")
    run_git(root, "checkout", "-q", "main")
    run_git(root, "merge", "-q", "--no-ff", "-m", "merge", "feature")
    merge = run_git(root, "rev-parse", "HEAD").strip()
    assert LineHistory(root).blame(root / "workspace.dsl")[1].sha == merge


def test_blame_of_an_untracked_or_outside_file_is_none(git_repo, tmp_path):
    root = git_repo({"a.txt": "x\n"})
    (root / "new.dsl").write_text("x\n")
    assert LineHistory(root).blame(root / "new.dsl") is None
    outside = tmp_path / "outside.dsl"
    outside.write_text("x\n")
    assert LineHistory(root).blame(outside) is None

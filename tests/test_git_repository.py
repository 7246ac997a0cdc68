from __future__ import annotations

from pathlib import Path

import pytest

from archmem.errors import RepositoryError
from archmem.git.repository import Repository, count_lines, find_root

from .conftest import write


def test_find_root_walks_up_to_the_git_top_level(git_repo):
    root = git_repo({"src/a.py": "x = 1\n"})
    assert find_root(root / "src") == (root, True)


def test_a_plain_folder_is_its_own_root(tmp_path: Path):
    assert find_root(tmp_path) == (tmp_path.resolve(), False)


def test_missing_folder_is_a_clear_error(tmp_path: Path):
    with pytest.raises(RepositoryError, match="no such folder"):
        find_root(tmp_path / "nope")


def test_git_files_are_tracked_plus_untracked_not_ignored(git_repo):
    root = git_repo({"src/a.py": "a\n", ".gitignore": "build/\n", "gone.py": "x\n"})
    write(root, {"src/new.py": "b\n", "build/out.py": "c\n"})
    (root / "gone.py").unlink()
    files = Repository.at(root).files()
    assert files == [".gitignore", "src/a.py", "src/new.py"]


def test_exact_root_in_a_subfolder_lists_paths_relative_to_it(git_repo):
    root = git_repo({"examples/shop/web/a.ts": "a\n", "other.py": "b\n"})
    repo = Repository.at(root / "examples" / "shop", exact=True)
    assert repo.root == (root / "examples" / "shop").resolve() and repo.is_git
    assert repo.files() == ["web/a.ts"]


def test_plain_folder_walk_skips_tool_folders(tmp_path: Path):
    write(tmp_path, {"a.py": "1\n", "node_modules/x.js": "1\n", ".venv/lib.py": "1\n", "pkg/b.go": "1\n"})
    assert Repository.at(tmp_path).files() == ["a.py", "pkg/b.go"]


def test_count_lines(tmp_path: Path):
    (tmp_path / "a").write_bytes(b"one\ntwo\nthree")
    (tmp_path / "b").write_bytes(b"one\ntwo\n")
    (tmp_path / "c").write_bytes(b"")
    (tmp_path / "d").write_bytes(b"bin\0ary\n\n")
    assert [count_lines(tmp_path / n) for n in "abcd"] == [3, 2, 0, 0]
    assert count_lines(tmp_path / "missing") == 0


def test_listings_leave_archmem_s_own_folder_out(git_repo):
    """Thousands of memory files are no one's code: git leaves them out of the listings
    every command reads, committed or not (a listing grew with the memories)."""
    root = git_repo({"src/app.py": "x\n", ".archmem/memories/m-1.md": "---\nid: m-1\n---\nA fact.\n"})
    write(root, {".archmem/memories/m-2.md": "---\nid: m-2\n---\nAnother.\n"})
    repo = Repository.at(root)
    assert repo.files() == ["src/app.py"]
    assert list(repo.blob_ids()) == ["src/app.py"]

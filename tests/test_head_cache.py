"""The commits that last changed a folder's files, kept per HEAD as sorted fixed-width
records that number the commits: every path is found by bisection as a dict would find
it, none is kept as text, and a record holds no full sha."""

from __future__ import annotations

import pytest

from archmem.drift.head_cache import FileCommits, path_key


@pytest.mark.parametrize("shas", [1, 7, 300])
def test_every_file_is_found_as_a_dict_finds_it_and_no_path_is_kept(shas: int):
    head = "a" * 40
    found = {f".archmem/memories/note-{n}.md": f"{n % shas:040x}" for n in range(300)}
    commits = FileCommits(FileCommits.of(head, found).text)  # as read back from the index
    assert commits.head == head and len(commits) == 300
    assert all(commits[path_key(path)] == sha for path, sha in found.items())
    assert commits.get(path_key("gone.md")) is None
    assert dict(commits.items()) == {path_key(path): sha for path, sha in found.items()}
    assert "note-" not in commits.text and len(commits.text) < 300 * (16 + 4) + 41 * (shas + 1)


def test_nothing_kept_reads_as_no_files():
    assert len(FileCommits("")) == 0 and FileCommits("").head == ""
    empty = FileCommits.of("b" * 40, {})
    assert len(empty) == 0 and empty.get(path_key("x.md")) is None

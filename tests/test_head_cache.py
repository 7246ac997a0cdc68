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


def test_the_model_files_blame_is_asked_of_git_once_per_head_and_content(repo, monkeypatch):
    """``status`` and ``drift`` blame the model file to place each element's description:
    a git log and a git blame that change only with HEAD and the file's own content."""
    from archmem.drift.view import DriftView
    from archmem.workspace import Workspace

    from .conftest import DRIFT_MODEL, drift_again, write

    root = repo
    first, asked = drift_again(root, monkeypatch, DriftView, "_blame_now")
    assert asked == []
    write(root, {"workspace.dsl": DRIFT_MODEL.replace('"ApiGateway"', '"ApiGateway" "Routes requests"')})
    with Workspace.open(root) as ws:
        changed = ws.drift_report().to_dict()
    assert len(asked) == 1  # the file changed (not committed): blamed again
    before, now = (next(e for e in report["elements"] if e["id"] == "shop.api") for report in (first, changed))
    assert before["since"] != now["since"]  # an uncommitted description describes the code as it is now

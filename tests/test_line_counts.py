"""Line counts kept in the index: a settled file that did not change is not read again,
a changed or just-written one is, and what is answered is always the file's count."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from archmem.git.repository import Repository
from archmem.store.line_counts import SETTLED_SECONDS, LineCounts
from archmem.workspace import Workspace

from .conftest import drift_again, lines


class Meta(dict):  # type: ignore[type-arg]
    def meta(self, key: str) -> str | None:
        return self.get(key)

    def set_meta(self, key: str, value: str | None) -> None:
        self[key] = value


def settled(path: Path) -> None:
    old = time.time() - 10 * SETTLED_SECONDS
    os.utime(path, (old, old))


def test_a_settled_unchanged_file_is_counted_once_and_a_changed_one_again(tmp_path: Path):
    (tmp_path / "a.py").write_text(lines(7))
    (tmp_path / "b.py").write_text(lines(3))
    settled(tmp_path / "a.py")
    settled(tmp_path / "b.py")
    counted: list[str] = []

    def count(path: str) -> int:
        counted.append(path)
        return (tmp_path / path).read_text().count("\n")

    meta = Meta()
    first = LineCounts(tmp_path, lambda: meta, count)
    assert (first.lines("a.py"), first.lines("b.py")) == (7, 3)
    first.save(meta)
    again = LineCounts(tmp_path, lambda: meta, count)
    assert (again.lines("a.py"), again.lines("b.py")) == (7, 3)
    assert counted == ["a.py", "b.py"]  # the second asked the kept counts

    (tmp_path / "b.py").write_text(lines(5))
    settled(tmp_path / "b.py")
    (tmp_path / "a.py").write_text(lines(9))  # just written: counted, not kept
    later = LineCounts(tmp_path, lambda: meta, count)
    assert (later.lines("a.py"), later.lines("b.py")) == (9, 5)
    later.save(meta)
    assert LineCounts(tmp_path, lambda: meta, count).lines("a.py") == 9
    assert counted == ["a.py", "b.py", "a.py", "b.py", "a.py"]


def test_a_damaged_kept_value_is_counted_again(tmp_path: Path):
    (tmp_path / "a.py").write_text(lines(4))
    meta = Meta(line_counts="{not json")
    assert LineCounts(tmp_path, lambda: meta, lambda path: 4).lines("a.py") == 4


def test_the_next_command_reads_no_code_file_to_size_an_element(repo: Path, monkeypatch: pytest.MonkeyPatch):
    root = repo
    for path in ("services/api/router.go", "services/orders/app.py", "legacy/old.py"):
        settled(root / path)
    _, reads = drift_again(root, monkeypatch, Repository, "lines")
    assert reads == []
    with Workspace.open(root) as ws:
        assert ws.ownership.size("shop.orders").lines == 40


def test_over_the_limit_the_counts_just_made_are_the_ones_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from archmem.store import line_counts

    monkeypatch.setattr(line_counts, "_LIMIT", 2)
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(lines(3))
        settled(tmp_path / name)
    meta = Meta()
    first = LineCounts(tmp_path, lambda: meta, lambda path: 3)
    first.lines("a.py")
    first.lines("b.py")
    first.save(meta)
    (tmp_path / "a.py").write_text(lines(4))  # counted again: the newest count of all
    settled(tmp_path / "a.py")
    later = LineCounts(tmp_path, lambda: meta, lambda path: 4 if path == "a.py" else 3)
    later.lines("a.py")
    later.lines("c.py")
    later.save(meta)
    assert sorted(json.loads(meta["line_counts"])) == ["a.py", "c.py"]

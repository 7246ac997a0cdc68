"""``archmem import`` streams: checked in one pass, written in a second, files written a
chunk at a time, so what it holds does not grow with the number of lines (counted as live
``Memory`` objects, not as a timing; bench/memory_rss.py measures the peak)."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

from archmem.memory.types import Memory
from archmem.workspace import Workspace

from .conftest import git, write

COUNT = 1_200
MOST = 700
"""More than a chunk (500) and far less than every line."""


def live_memories() -> int:
    return sum(1 for item in gc.get_objects() if isinstance(item, Memory))


class Lines:
    """JSON Lines made on the fly (read twice), counting live memories as they go."""

    def __init__(self) -> None:
        self.most = 0

    def __iter__(self) -> Iterator[str]:
        for number in range(COUNT):
            if number % 150 == 0:
                self.most = max(self.most, live_memories())
            yield json.dumps({"id": f"m-{number:05d}", "kind": "note", "title": f"Fact {number}",
                              "content": f"Fact {number} about the orders service, see [[Fact {max(number - 1, 0)}]].",
                              "elements": ["orders"], "created_at": "2026-01-05T10:00:00Z"})


def test_import_holds_a_chunk_of_memories_not_every_line(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"archmem.yaml": "elements:\n  - {id: orders, kind: softwareSystem, name: Orders}\n"})
    lines = Lines()
    with Workspace.open(root, env={}) as ws:
        folder = ws.memory_folder  # the folder the memory files' writer writes through
        written = folder.write
        most_writing = 0

        def counting_write(rel: str, data: bytes):
            nonlocal most_writing
            if rel.endswith("00.md") or most_writing == 0:
                most_writing = max(most_writing, live_memories())
            return written(rel, data)

        folder.write = counting_write
        report = ws.import_memories(lines, source="generated")
        assert len(report.imported) == COUNT and not report.errors
        assert ws.store.get_memory("m-01199").content.startswith("Fact 1199")
    assert len(list((root / ".archmem" / "memories").glob("*.md"))) == COUNT
    assert 0 < lines.most < MOST, f"{lines.most} memories alive while the lines were read"
    assert 0 < most_writing < MOST, f"{most_writing} memories alive while the files were written"

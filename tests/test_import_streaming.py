"""``archmem import``, ``export``, ``check`` and ``map`` stream. Import: checked in one pass, written
in a second, files written a chunk at a time. Check: one file's bytes and memory at a time
(what the rules across files need of each is kept, not the memory). Map: the memories read
a chunk at a time, each counted into its elements. What they hold does not grow with the
number of memories (counted as live ``Memory`` objects, not as a timing;
bench/memory_rss.py measures the peak)."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from datetime import UTC, datetime
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


def _repo_with_memory_files(root: Path) -> None:
    """A committed repository with ``COUNT`` memory files, written as archmem writes them."""
    from archmem.memory.file_format import file_name, render_memory

    root.mkdir()
    git(root, "init", "-q")
    write(root, {"archmem.yaml": "elements:\n  - {id: orders, kind: softwareSystem, name: Orders, paths: [src/**]}\n",
                 "src/app.py": "print('orders')\n"})
    folder = root / ".archmem" / "memories"
    folder.mkdir(parents=True)
    for number in range(COUNT):
        memory = Memory(id=f"m-{number:05d}", kind="note", title=f"Fact {number}",
                        content=f"Fact {number} about orders, see [[Fact {max(number - 1, 0)}]].", elements=["orders"],
                        created_at=datetime(2026, 1, 5, 10, tzinfo=UTC))
        (folder / file_name(memory)).write_text(render_memory(memory), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memories")


def test_check_holds_a_file_at_a_time_not_every_memory(tmp_path: Path, monkeypatch):
    from archmem.memory import check

    root = tmp_path / "repo"
    _repo_with_memory_files(root)
    parsed = most = 0
    parse = check.read_memory_file

    def counting_parse(data: bytes):
        nonlocal parsed, most
        parsed += 1
        if parsed % 150 == 0:
            most = max(most, live_memories())
        return parse(data)

    monkeypatch.setattr(check, "read_memory_file", counting_parse)
    with Workspace.open(root, env={}) as ws:
        report = ws.check()
    assert report.files == parsed == COUNT and report.errors == 0, report.findings[:3]
    assert most < MOST, f"{most} memories alive while the files were checked"


def test_the_knowledge_map_holds_a_chunk_of_memories_not_every_one(tmp_path: Path, monkeypatch):
    from archmem.render import knowledge_map

    root = tmp_path / "repo"
    _repo_with_memory_files(root)
    with Workspace.open(root, env={}) as ws:
        ws.store  # noqa: B018  (the index, from the files)
    labelled = most = 0
    label = knowledge_map._label

    def counting_label(memory: Memory, width: int = 60) -> str:
        nonlocal labelled, most
        labelled += 1
        if labelled % 150 == 0:
            most = max(most, live_memories())
        return label(memory, width)

    monkeypatch.setattr(knowledge_map, "_label", counting_label)
    with Workspace.open(root, env={}) as ws:
        found = ws.knowledge_map()
    assert sum(len(labels) for cell in found.cells for labels in cell.memories.values()) == COUNT
    assert 0 < most < MOST, f"{most} memories alive while the map was made"


def test_export_holds_a_chunk_of_memories_not_every_one(tmp_path: Path):
    root = tmp_path / "repo"
    _repo_with_memory_files(root)
    most = 0
    with Workspace.open(root, env={}) as ws:
        lines = 0
        for line in ws.export_memories():
            lines += 1
            if lines % 150 == 0:
                most = max(most, live_memories())
            assert line.startswith('{"id": "m-')
    assert lines == COUNT
    assert 0 < most < MOST, f"{most} memories alive while they were exported"

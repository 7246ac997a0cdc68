"""The memory files' one writer (``archmem.memory.files``): it renders the ``Memory`` it is
given, never the index's row, records the file in the index in the same transaction, puts
the file back when that transaction fails, and never writes over an edit it has not read."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from archmem.errors import ConflictError
from archmem.memory.file_format import file_name, read_memory_file, render_memory
from archmem.memory.files import MemoryFiles, revised
from archmem.memory.types import Memory
from archmem.store import MemoryFolder, open_store
from archmem.store.base import Store
from archmem.store.files import content_sha

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / ".archmem" / "archmem.db") as opened:
        yield opened


@pytest.fixture
def files(store: Store, tmp_path: Path) -> MemoryFiles:
    folder = MemoryFolder(root=tmp_path, shared=Path(".archmem/memories"), private=Path(".archmem/private"),
                          render=render_memory, name=file_name)
    return MemoryFiles(store, folder)


def memory(**fields) -> Memory:
    return Memory(**{"id": "m-0000000001", "kind": "pitfall", "title": "Header limits",
                     "content": "The gateway strips headers over 8KB.", "created_at": T0, **fields})


def test_the_file_holds_the_memory_given_and_the_index_records_it(files: MemoryFiles, store: Store, tmp_path: Path):
    given = memory(elements=["api"], confirmations=2)
    path = files.write(given)  # the index holds no row for it: nothing is read back
    data = (tmp_path / path).read_bytes()
    assert read_memory_file(data).memory == given
    row = store.file_row(path)
    assert row is not None and (row.memory_id, row.sha256) == (given.id, content_sha(data))
    assert store.get_memory(given.id) is None  # the index's rows are the caller's to write

    changed = revised(given, content="The gateway strips headers over 16KB.")
    assert files.write(changed) == path  # the same file, rewritten from the new value
    assert read_memory_file((tmp_path / path).read_bytes()).memory.content.endswith("16KB.")


def test_a_superseded_memory_keeps_what_its_file_said(files: MemoryFiles, tmp_path: Path):
    path = files.write(memory(status="archived", status_reason="moved"))
    files.write(memory(status="superseded", superseded_by="m-0000000002", status_reason="moved"))
    assert read_memory_file((tmp_path / path).read_bytes()).memory.status == "archived"


def test_a_transaction_that_fails_puts_every_file_back(files: MemoryFiles, store: Store, tmp_path: Path):
    kept = files.write(memory())
    before = (tmp_path / kept).read_bytes()
    with pytest.raises(RuntimeError), store.transaction():
        files.write(memory(content="Changed, then rolled back."))
        new = files.write(memory(id="m-0000000002", title="Another"))
        raise RuntimeError("the index update failed")
    assert (tmp_path / kept).read_bytes() == before
    assert not (tmp_path / new).exists()
    assert store.file_row(new) is None


def test_a_file_edited_since_the_index_read_it_is_never_written_over(files: MemoryFiles, tmp_path: Path):
    path = files.write(memory())
    edited = (tmp_path / path).read_text(encoding="utf-8").replace("8KB", "8KB, 16KB behind the proxy")
    (tmp_path / path).write_text(edited, encoding="utf-8")
    with pytest.raises(ConflictError, match="changed on disk"):
        files.write(memory(confirmations=1))
    with pytest.raises(ConflictError, match="changed on disk"):
        files.verify("m-0000000001")
    assert (tmp_path / path).read_text(encoding="utf-8") == edited


def test_removing_deletes_the_file_and_its_record(files: MemoryFiles, store: Store, tmp_path: Path):
    path = files.write(memory())
    files.remove("m-0000000001")
    assert not (tmp_path / path).exists() and store.path_of("m-0000000001") is None
    files.remove("m-0000000001")  # nothing left to remove is no error

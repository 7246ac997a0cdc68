"""The one writer of memory files: the ``Memory`` it is given, rendered to its file.

The files are the truth and the index is derived from them. Every write runs inside the
index's transaction (its lock serializes writers across processes, and a sync lists the
folders under it too): the file is written first, atomically, then the index records
what the file now holds (size, mtime, hash) from the same ``Memory`` and commits. A
crash between the two loses nothing: the file holds the write, and the next open's sync
indexes it as it would a hand edit. An error before the COMMIT puts the file back
(``Store.on_rollback``). A file that changed on disk since the index read it (an edit or
a pull a long-running process has not synced), or that does not parse, is never
overwritten: the write is refused, and the next command indexes the edit.
"""

from __future__ import annotations

import inspect
from functools import partial
from typing import Any

from archmem.errors import ConflictError
from archmem.memory.file_format import MemoryFileError, read_memory_file
from archmem.memory.types import Memory
from archmem.store.base import FileRow, Store
from archmem.store.files import MemoryFolder, content_sha

_MEMORY_FIELDS = tuple(inspect.signature(Memory).parameters)


def revised(memory: Memory, **changes: Any) -> Memory:
    """A copy of ``memory`` with some fields changed (the value a write hands on)."""
    return Memory(**{**{name: getattr(memory, name) for name in _MEMORY_FIELDS}, **changes})


class MemoryFiles:
    """Writes memories to their files in ``folder`` and records each file in ``store``."""

    def __init__(self, store: Store, folder: MemoryFolder) -> None:
        self.store = store
        self.folder = folder

    def write(self, memory: Memory) -> str:
        """Write ``memory`` to the file that holds it (a new one named after it); returns
        the file's path, relative to the repository root."""
        folder = self.folder
        with self.store.transaction():
            path = self.store.path_of(memory.id)
            current: bytes | None = None
            if path is not None:
                current = self._read(path)
                _refuse_to_overwrite_an_edit(path, current, self.store.file_row(path))
            else:
                path = folder.path_for(memory, private=memory.private, taken=self._indexed)
            data = folder.render(_as_file(memory, current)).encode("utf-8")
            self.store.on_rollback(partial(self._put_back, path, current))
            if data != current:
                folder.write(path, data)
            self.store.record_file(path, memory.id, folder.stat(path), content_sha(data))
        return path

    def verify(self, memory_id: str) -> None:
        """Refuse (``ConflictError``) when the memory's file changed on disk since the index
        read it: a write decided on the index's version (a supersede) would bury the edit."""
        path = self.store.path_of(memory_id)
        if path is not None:
            _refuse_to_overwrite_an_edit(path, self._read(path), self.store.file_row(path))

    def remove(self, memory_id: str) -> None:
        """Delete the file holding a memory (a purge), and the index's record of it."""
        with self.store.transaction():
            path = self.store.path_of(memory_id)
            if path is None:
                return
            current = self._read(path)
            self.store.on_rollback(partial(self._put_back, path, current))
            self.folder.remove(path)
            self.store.forget_file(path)

    def _indexed(self, path: str) -> bool:
        return self.store.file_row(path) is not None

    def _read(self, path: str) -> bytes | None:
        try:
            return self.folder.read(path)
        except OSError:
            return None

    def _put_back(self, path: str, old: bytes | None) -> None:
        if old is None:
            self.folder.remove(path)
        else:
            self.folder.write(path, old)


def _as_file(memory: Memory, current: bytes | None) -> Memory:
    """What the file states: archived or active (superseded is derived from the files
    that supersede it, so a superseded memory keeps what its file said)."""
    status = memory.status
    if status == "superseded":
        status = "archived" if _file_says_archived(current) else "active"
    if status == memory.status and memory.superseded_by is None:
        return memory
    return revised(memory, status=status, superseded_by=None)


def _file_says_archived(data: bytes | None) -> bool:
    if data is None:
        return False
    try:
        return read_memory_file(data).memory.status == "archived"
    except MemoryFileError:
        return False


def _refuse_to_overwrite_an_edit(path: str, current: bytes | None, row: FileRow | None) -> None:
    """The index's version of a memory is written over its file only when the file is
    what the index last read or wrote: otherwise the write would undo an edit."""
    if row is None:
        return  # a file the index never recorded: nothing to compare with
    if row.error is not None:
        raise ConflictError(
            f"the memory file {path} does not parse (line {row.error_line or 1}: {row.error}); nothing was "
            "written, so the edit in it is kept",
            hint="fix the file (or `git checkout` it), then run the command again",
        )
    if current is None:
        raise ConflictError(
            f"the memory file {path} was deleted after archmem read it; nothing was written",
            hint="run the command again: it reads the memory files first",
        )
    if content_sha(current) != row.sha256:
        raise ConflictError(
            f"the memory file {path} changed on disk after archmem read it; nothing was written, so the change "
            "is kept",
            hint="run the command again: it reads the memory files first",
        )

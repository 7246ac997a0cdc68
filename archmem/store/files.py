"""The memory folders on disk: the committed one (shared through git) and the git-ignored
one for private memories. Listing them is cheap (a ``stat`` per file, no read), and every
write is atomic: a temporary file in the same folder, then a rename, so a reader or a
crash never sees half a memory.

The format of one file (``archmem.memory.file_format``) is passed in as two functions, so
this adapter knows folders and bytes, not what a memory means.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from archmem.atomic_write import write_atomic
from archmem.errors import StoreError
from archmem.memory.types import Memory
from archmem.values import Record

SUFFIX = ".md"


class FileStat(NamedTuple):
    """What tells an unchanged file without reading it (a tuple: a scan makes one a file)."""

    size: int
    mtime_ns: int
    private: bool


@dataclass(repr=False, eq=False)
class MemoryFolder(Record):
    """Where memory files live, relative paths (POSIX, from the repository root) in and out."""

    root: Path
    shared: Path
    private: Path
    render: Callable[[Memory], str]
    name: Callable[[Memory], str]

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        self.shared = self._absolute(self.shared)
        self.private = self._absolute(self.private)

    def _absolute(self, path: Path) -> Path:
        path = Path(path)
        return path if path.is_absolute() else self.root / path

    def relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def absolute(self, rel: str) -> Path:
        path = Path(rel)
        return path if path.is_absolute() else self.root / path

    def is_private(self, rel: str) -> bool:
        path = self.absolute(rel)
        return path == self.private or self.private in path.parents

    # ---- listing -------------------------------------------------------------------

    def scan(self) -> dict[str, FileStat]:
        """Every memory file in both folders, with its size and mtime (no file is read)."""
        return {
            rel: FileStat(size, mtime_ns, private)
            for private, stamps in ((False, self._stamps(self.shared)), (True, self._stamps(self.private)))
            for rel, (size, mtime_ns) in stamps.items()
        }

    def stamps(self) -> dict[str, tuple[int, int]]:
        """{path: (size, mtime_ns)} of every memory file: what an open compares with the
        index, as plain tuples (one dict comparison, no object a file)."""
        found = self._stamps(self.shared)
        found.update(self._stamps(self.private))
        return found

    def holds_files(self) -> bool:
        """Whether either folder holds a memory file (stops at the first; none is stat'ed)."""
        return _holds_file(self.shared) or _holds_file(self.private)

    def private_stamps(self) -> dict[str, tuple[int, int]]:
        """``stamps`` of the git-ignored private folder alone (git knows nothing of it)."""
        return self._stamps(self.private)

    def directory_stamps(self) -> dict[str, int]:
        """{folder: mtime_ns} of the committed folder and of every folder below it (hidden
        ones too): a file added, removed or renamed in a folder moves its mtime, so while
        none moved, no file came or went there (an edit in place moves none)."""
        found: dict[str, int] = {}
        _directories(self.shared, self.relative(self.shared), found)
        return found

    def scan_paths(self, paths: Iterable[str]) -> dict[str, FileStat]:
        """``scan`` of just these paths (the files a pull changed): those that are memory
        files there now, as the full scan would find them."""
        found: dict[str, FileStat] = {}
        for rel in paths:
            private = self.is_private(rel)
            folder = self.private if private else self.shared
            try:
                below = self.absolute(rel).relative_to(folder).parts
                info = os.lstat(self.absolute(rel))
            except (ValueError, OSError):
                continue  # outside both folders, or gone
            if (below and below[-1].endswith(SUFFIX) and not any(part.startswith(".") for part in below)
                    and stat.S_ISREG(info.st_mode)):
                found[rel] = FileStat(info.st_size, info.st_mtime_ns, private)
        return found

    def _stamps(self, folder: Path) -> dict[str, tuple[int, int]]:
        prefix = self.relative(folder)
        found: dict[str, tuple[int, int]] = {}
        _scan_folder(folder, "" if prefix == "." else prefix + "/", found)
        return found

    def read(self, rel: str) -> bytes:
        with open(os.path.join(self.root, rel), "rb") as handle:  # as ``absolute``, without a Path a file
            return handle.read()

    def stat(self, rel: str) -> FileStat:
        info = self.absolute(rel).stat()
        return FileStat(info.st_size, info.st_mtime_ns, self.is_private(rel))

    # ---- writing -------------------------------------------------------------------

    def path_for(self, memory: Memory, *, private: bool, taken: Callable[[str], bool]) -> str:
        """A new file's path: its readable name, with a counter in the rare case that the
        name is already used (two files for one id are what ``check`` reports)."""
        folder = self.private if private else self.shared
        base = self.name(memory)
        rel = self.relative(folder / base)
        counter = 2
        while taken(rel) or self.absolute(rel).exists():
            rel = self.relative(folder / base.replace(SUFFIX, f"-{counter}{SUFFIX}"))
            counter += 1
        return rel

    def write(self, rel: str, data: bytes) -> FileStat:
        """Replace a file atomically (``write_atomic``: a scan that runs meanwhile never
        takes the hidden temporary file for a memory)."""
        try:
            write_atomic(self.absolute(rel), data, durable=False)
            return self.stat(rel)
        except OSError as exc:
            raise StoreError(f"cannot write the memory file {rel}: {exc.strerror or exc}") from None

    def remove(self, rel: str) -> None:
        try:
            self.absolute(rel).unlink(missing_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot delete the memory file {rel}: {exc.strerror or exc}") from None


def content_sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _scan_folder(folder: Path | str, prefix: str, found: dict[str, tuple[int, int]]) -> None:
    """Add the memory files below a folder (``*.md``, not hidden, sub-folders included) to
    ``found`` under their relative paths (``prefix`` + their path in the folder). One
    tight loop and no ``pathlib`` a file: every open runs it, and at 10,000 files the
    ``stat`` calls alone cost 20-30 ms."""
    try:
        entries = os.scandir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:
        raise StoreError(f"cannot list the memory folder {folder}: {exc.strerror or exc}") from None
    with entries:
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if name.endswith(SUFFIX) and entry.is_file(follow_symlinks=False):
                try:
                    info = entry.stat()
                except OSError:
                    continue  # removed between the listing and the stat
                found[prefix + name] = (info.st_size, info.st_mtime_ns)
            elif entry.is_dir(follow_symlinks=False):
                _scan_folder(entry.path, f"{prefix}{name}/", found)


def _holds_file(folder: Path | str) -> bool:
    """Whether ``_scan_folder`` would find a file below ``folder``, stopping at the first."""
    try:
        entries = os.scandir(folder)
    except OSError:
        return False  # no folder (a listing that fails is reported by the scan that follows)
    with entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.name.endswith(SUFFIX) and entry.is_file(follow_symlinks=False):
                return True
            if entry.is_dir(follow_symlinks=False) and _holds_file(entry.path):
                return True
    return False


def _directories(folder: str | Path, rel: str, found: dict[str, int]) -> None:
    try:
        found[rel] = os.stat(folder).st_mtime_ns
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                _directories(entry.path, f"{rel}/{entry.name}", found)


def directories_unchanged(root: Path, stamps: dict[str, int]) -> bool:
    """Do the folders of ``directory_stamps`` (relative to ``root``) all still have those mtimes?"""
    try:
        return all(os.stat(root / rel).st_mtime_ns == mtime for rel, mtime in stamps.items())
    except OSError:
        return False

"""The committed folder of drift accept files, listed by every drift computation: apart
from reading and writing accepts (``archmem.drift.accepts``, loaded only when there is a
file to read or an accept to write)."""

from __future__ import annotations

import os
from pathlib import Path

from archmem.errors import StoreError

SUFFIX = ".yaml"
MAX_FILE_BYTES = 64 * 1024
"""An accept is five short lines; a file far over that is not one."""


class AcceptFolder:
    """The committed folder of accept files; paths in and out are POSIX, relative to the
    repository root. Listing it creates nothing."""

    def __init__(self, root: Path, folder: str) -> None:
        self.root = Path(root)
        self.folder = folder.strip("/") or "."
        self.path = self.root / self.folder

    def files(self) -> list[str]:
        """Every accept file (``*.yaml``, not hidden), in name order."""
        try:
            entries = list(os.scandir(self.path))
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            raise StoreError(f"cannot list the accept folder {self.folder}: {exc.strerror or exc}") from None
        return sorted(f"{self.folder}/{entry.name}" for entry in entries
                      if entry.name.endswith(SUFFIX) and not entry.name.startswith(".")
                      and entry.is_file(follow_symlinks=False))

    def read_file(self, rel: str) -> bytes:
        with (self.root / rel).open("rb") as handle:
            return handle.read(MAX_FILE_BYTES + 1)

"""Line counts of the code's files, kept in the index under each file's size and mtime.

Drift weighs change against an element's size in lines, and the VERIFY list is kept
under a digest that holds every element's size: so every recall counted the lines of
every owned file (946 files read on fx-private-relay). A file whose size and mtime are
the ones kept, and whose mtime is old enough that a write in the same clock tick could
not hide behind it (two seconds, as git and the memory folder's signature assume), has
the count kept; any other is counted and the answer kept at ``save``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

KEY = "line_counts"
SETTLED_SECONDS = 2.0
_LIMIT = 500_000
"""Files kept at most (a larger repository keeps the most recently counted)."""


class Meta(Protocol):
    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str | None) -> None: ...


class LineCounts:
    """``lines(path)`` as ``count(path)`` answers it, from the kept count when the file is
    the one counted; ``kept()`` is the index open now, if any (read once, at the first
    question: an index can be replaced while a workspace lives)."""

    def __init__(self, root: Path, kept: Callable[[], Meta | None], count: Callable[[str], int],
                 now: Callable[[], float] = time.time) -> None:
        self._root = str(root)
        self._index = kept
        self._count = count
        self._now = now
        self._kept: dict[str, list[int]] | None = None
        self._fresh: dict[str, list[int]] = {}

    def _load(self) -> dict[str, list[int]]:
        if self._kept is None:
            self._kept = {}
            index = self._index()
            text = index.meta(KEY) if index is not None else None
            try:
                found = json.loads(text) if text else {}
            except ValueError:
                found = {}
            if isinstance(found, dict):
                self._kept = {path: value for path, value in found.items()
                              if isinstance(value, list) and len(value) == 3}
        return self._kept

    def lines(self, path: str) -> int:
        try:
            info = os.stat(os.path.join(self._root, path))
        except OSError:
            return self._count(path)
        stamp = [info.st_size, info.st_mtime_ns]
        kept = self._fresh.get(path) or self._load().get(path)
        if kept is not None and kept[:2] == stamp:
            return kept[2]
        lines = self._count(path)
        if self._now() - info.st_mtime_ns / 1e9 >= SETTLED_SECONDS:  # a file still being written is counted again
            self._fresh[path] = [*stamp, lines]
        return lines

    def save(self, index: Meta) -> None:
        """Keep what was counted in ``index`` (one write, only when something was)."""
        if not self._fresh:
            return
        kept = {path: value for path, value in self._load().items() if path not in self._fresh}
        kept.update(self._fresh)  # counted now: last, so a trim below keeps them
        if len(kept) > _LIMIT:
            kept = dict(list(kept.items())[-_LIMIT:])
        index.set_meta(KEY, json.dumps(kept, separators=(",", ":")))
        self._kept, self._fresh = kept, {}

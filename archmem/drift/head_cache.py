"""What drift asks git that depends only on HEAD, kept in the index per HEAD sha.

(And the model files' blame, which depends on HEAD and the file's own content.)

A recall asked git for the commit that last changed each memory (and accept) file and
for each anchored file's diff since a memory's baseline: a ``git log`` and a ``git diff``
per anchor, every time, for answers that change only when HEAD does. They are kept in
``store_meta`` under the HEAD sha they were read at; a new HEAD asks git again. Paths are
kept as digests, never as text: a purged memory's file name (its title) must leave no byte
in the index.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, ValuesView
from datetime import datetime
from typing import Any, Protocol

from archmem.drift.symbols import Hunk, parse_unified_zero
from archmem.git.revisions import Revisions
from archmem.git.types import BlamedCommit

Blame = tuple[list[BlamedCommit | None] | None, set[int]]
"""Per line of a model file, the commit that last described it (None: not committed), and
the numbers of the lines that never count (``DriftView._blame``)."""

KEY = "drift_head_cache"
"""The one ``store_meta`` row that holds it all: one read per command, one write per batch."""
COMMITS_KEY = "drift_file_commits"
"""A row per folder (``:folder`` after it): the commit that last changed each file (``FileCommits``)."""
KEPT_CHARS = 8 << 20
"""At most this much is written back (the diffs are dropped first); beyond it git is asked each time."""


class Meta(Protocol):
    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str | None) -> None: ...


def path_key(path: str) -> str:
    """What a path is kept under: a digest, so no file name is written to the index."""
    return hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()


class ByPath(Mapping[str, int]):
    """Values kept under ``path_key`` digests, looked up by the path itself."""

    def __init__(self, by_key: dict[str, int]) -> None:
        self._by_key = by_key

    def __getitem__(self, path: str) -> int:
        return self._by_key[path_key(path)]

    def get(self, path: str, default: Any = None) -> Any:
        """One dict look-up (``Mapping.get`` goes through ``__getitem__`` and an exception
        for every missing path; the VERIFY count asks once per memory)."""
        return self._by_key.get(path_key(path), default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_key)  # the digests: the paths themselves are not kept

    def values(self) -> ValuesView[int]:
        return self._by_key.values()

    def __len__(self) -> int:
        return len(self._by_key)


class FileCommits(Mapping[str, str]):
    """``path_key`` → the commit that last changed the file, for every file of a folder,
    as the index keeps it: a line with the HEAD it was read at and the commits that
    appear, then fixed-width records (the key, the commit's number on that line) sorted by
    key, so a recall looks up its few files by bisection instead of loading a record per
    memory file (50,000 of them were a JSON parse and a dict every command)."""

    def __init__(self, text: str) -> None:
        header, _, self._records = text.partition("\n")
        self.head, *self.shas = header.split(" ")
        self._width = _KEY_CHARS + _digits(len(self.shas))
        self._count = len(self._records) // self._width if self.shas else 0

    @classmethod
    def of(cls, head: str, found: Mapping[str, str]) -> FileCommits:
        """The records of ``found`` (path → sha), read at ``head``."""
        records = sorted((path_key(path), sha) for path, sha in found.items() if len(sha) == len(head))
        shas = list(dict.fromkeys(sha for _, sha in records))
        digits = _digits(len(shas))
        number = {sha: f"{n:0{digits}x}" for n, sha in enumerate(shas)}
        return cls(" ".join([head, *shas]) + "\n" + "".join(key + number[sha] for key, sha in records))

    @property
    def text(self) -> str:
        return " ".join([self.head, *self.shas]) + "\n" + self._records

    def __getitem__(self, key: str) -> str:
        records, width, low, high = self._records, self._width, 0, self._count
        while low < high:
            middle = (low + high) // 2
            start = middle * width
            found = records[start:start + _KEY_CHARS]
            if found == key:
                return self.shas[int(records[start + _KEY_CHARS:start + width], 16)]
            if found < key:
                low = middle + 1
            else:
                high = middle
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        records, width = self._records, self._width
        return (records[start:start + _KEY_CHARS] for start in range(0, self._count * width, width))

    def items(self) -> Iterator[tuple[str, str]]:  # type: ignore[override]
        records, width, shas = self._records, self._width, self.shas
        return ((records[start:start + _KEY_CHARS], shas[int(records[start + _KEY_CHARS:start + width], 16)])
                for start in range(0, self._count * width, width))

    def __len__(self) -> int:
        return self._count


def _digits(count: int) -> int:
    """Hex digits that number ``count`` commits."""
    return len(f"{max(count - 1, 0):x}")


_KEY_CHARS = 16
"""``path_key``'s length in hex."""


class FilePlaces:
    """Path → the place in history of the commit that last changed the file (its
    ``FileCommits`` read through the history's ordinals): a path at a time for the few
    memories of a recall, ``every`` at once for counting them all."""

    def __init__(self, commits: FileCommits, ordinal: Callable[[str], int | None]) -> None:
        self._commits, self._ordinal = commits, ordinal

    def get(self, path: str) -> int | None:
        sha = self._commits.get(path_key(path))
        return self._ordinal(sha) if sha is not None else None

    def every(self) -> ByPath:
        places: dict[str, int | None] = {}
        found: dict[str, int] = {}
        for key, sha in self._commits.items():
            if sha not in places:
                places[sha] = self._ordinal(sha)
            place = places[sha]
            if place is not None:
                found[key] = place
        return ByPath(found)

    def __bool__(self) -> bool:
        return bool(self._commits)


class HeadCache:
    """Last commits per file of a folder, and anchored diffs, for one HEAD; ``save``
    writes what was learnt (``DriftView`` calls it after each batch of questions)."""

    def __init__(self, store: Meta, head: str | None) -> None:
        self.store, self.head = store, head
        self._state: dict[str, Any] | None = None
        self._changed = False
        self._folders: dict[str, FileCommits] = {}
        self._unsaved: set[str] = set()

    def last_commits(self, folder: str, revisions: Revisions) -> FileCommits:
        """``path_key(file)`` → the newest first-parent commit of HEAD that changed the
        file below ``folder`` (``Revisions.last_commits``), kept in a row of its own."""
        if self.head is None:
            return FileCommits("")
        found = self._folders.get(folder)
        if found is None:
            found = FileCommits(self.store.meta(f"{COMMITS_KEY}:{folder}") or "")
            if found.head != self.head:
                found = FileCommits.of(self.head, revisions.last_commits(folder, head=self.head))
                self._unsaved.add(folder)
            self._folders[folder] = found
        return found

    def anchor_hunks(self, path: str, base: str, revisions: Revisions) -> list[Hunk]:
        """The zero-context, whitespace-blind diff of ``path`` from ``base`` to HEAD; a file
        changed without text to judge (binary, mode, rename) is one hunk that is never cosmetic."""
        key = f"{base}:{path_key(path)}"
        diffs = self._kept()["diffs"]
        if key in diffs:
            return [Hunk(old_start, old_count, new_start, new_count, removed=removed, added=added)
                    for old_start, old_count, new_start, new_count, removed, added in diffs[key]]
        parsed = parse_unified_zero(revisions.unified_zero_diff(base, self.head or "HEAD", path))
        hunks = parsed.get(path, [])
        found = hunks if hunks or path not in parsed else [Hunk(0, 0, 0, 0)]
        if self.head is not None:
            diffs[key] = [[h.old_start, h.old_count, h.new_start, h.new_count, h.removed, h.added] for h in found]
            self._changed = True
        return found

    def blame(self, path: str, content: bytes, work: Callable[[], Blame]) -> Blame:
        """``work()``: the model file's blame, kept under the file's path and content (with
        HEAD, they are all it depends on: uncommitted lines are the content's)."""
        key = f"{path_key(path)}:{hashlib.blake2b(content, digest_size=16).hexdigest()}"
        blames = self._kept().setdefault("blames", {})
        kept = blames.get(key)
        if isinstance(kept, dict):
            commits = [BlamedCommit(sha, datetime.fromisoformat(moment)) for sha, moment in kept["commits"]]
            lines = None if kept["lines"] is None else [commits[i] if i >= 0 else None for i in kept["lines"]]
            return lines, set(kept["mapping"])
        found = work()
        if self.head is not None:
            lines, mapping = found
            distinct = list(dict.fromkeys(c for c in lines or [] if c is not None))
            place = {commit: i for i, commit in enumerate(distinct)}
            blames[key] = {"commits": [[c.sha, c.time.isoformat()] for c in distinct],
                           "lines": None if lines is None else [place[c] if c is not None else -1 for c in lines],
                           "mapping": sorted(mapping)}
            self._changed = True
        return found

    def save(self) -> None:
        """Write back what was learnt since the last save (nothing when nothing was)."""
        for folder in sorted(self._unsaved):
            text = self._folders[folder].text
            self.store.set_meta(f"{COMMITS_KEY}:{folder}", text if len(text) <= KEPT_CHARS else None)
        self._unsaved.clear()
        if not self._changed or self._state is None:
            return
        self._changed = False
        text = json.dumps(self._state, separators=(",", ":"))
        if len(text) > KEPT_CHARS:
            text = json.dumps({**self._state, "diffs": {}}, separators=(",", ":"))
        if len(text) <= KEPT_CHARS:
            self.store.set_meta(KEY, text)

    def _kept(self) -> dict[str, Any]:
        if self._state is None:
            try:
                kept = json.loads(self.store.meta(KEY) or "{}")
            except ValueError:
                kept = {}
            fresh = isinstance(kept, dict) and kept.get("head") == self.head and isinstance(kept.get("diffs"), dict)
            self._state = kept if fresh else {"head": self.head, "diffs": {}}
            if self._state.pop("folders", None):  # kept here by an older archmem
                self._changed = True
        return self._state

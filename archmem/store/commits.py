"""The per-commit history cache, in the same SQLite database as the memories.

The first drift scan reads the whole first-parent history once; every later scan reads
only the commits after the cached head (``archmem.drift.scan``). Tables come from
migration 3:

* ``history_commits``: one row per commit, ``seq`` ordering them oldest → newest, with
  its changes as a JSON array — every scan loads the whole history, also when nothing
  is new, and one query plus one ``json.loads`` over all rows is the fastest way back to
  ``Commit`` values (20k commits: 0.14–0.2 s, against 0.27 s from the normalised rows);
* ``history_changes``: the same changes as rows, indexed by path, for queries by path;
* ``history_meta``: what the cache belongs to — the reader's scope (sub-folder and
  format), so a different ``--repo`` sub-folder never reuses another root's commits —
  and the branch it was last updated on.

Writes come in chunks, one transaction each, both forms together: an interrupted scan
leaves a consistent prefix of the history whose last commit is the head, and the next
scan resumes there.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from archmem.errors import StoreError
from archmem.git.types import Commit, FileChange
from archmem.store.connection import SQLiteConnection

_UTC = UTC
_NO_CHANGES = "[]"


class CommitCache:
    """Cached commits of one repository (root) on the index's connection."""

    def __init__(self, store: SQLiteConnection) -> None:
        self.store = store
        self.db = store.db

    # ---- reading --------------------------------------------------------------------

    def head(self) -> str | None:
        """The sha of the newest cached commit (None when the cache is empty)."""
        row = self.db.execute("SELECT sha FROM history_commits ORDER BY seq DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM history_commits").fetchone()[0])

    def all(self) -> list[Commit]:
        """Every cached commit, oldest → newest, with its changes, in one query.

        Tuned, because it runs on every scan: the changes of all commits are decoded by
        one ``json.loads`` call, the cyclic GC is paused (tens of thousands of acyclic
        values would trigger it over and over), and the frozen values are built by
        setting their ``__dict__`` at once instead of through a field-by-field ``__init__``.
        """
        rows = self.db.execute(
            "SELECT sha, time, author, parents, changes FROM history_commits ORDER BY seq"
        ).fetchall()
        if not rows:
            return []
        at, make = datetime.fromtimestamp, _make_commit
        with _gc_paused():
            packed = json.loads("[" + ",".join([row[4] for row in rows]) + "]")
            return [
                make({
                    "sha": sha, "time": at(stamp, _UTC), "author": author,
                    "parents": tuple(parents.split()) if parents else (),
                    "changes": _changes(changes) if changes else (),
                })
                for (sha, stamp, author, parents, _), changes in zip(rows, packed, strict=True)
            ]

    def meta(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM history_meta").fetchall())

    def scope(self) -> str | None:
        """What the cached commits were read for (``HistoryReader.scope``), if anything."""
        return self.meta().get("scope")

    # ---- writing --------------------------------------------------------------------

    def set_meta(self, **values: str | None) -> None:
        with self.store.transaction():
            for key, value in values.items():
                if value is None:
                    self.db.execute("DELETE FROM history_meta WHERE key = ?", (key,))
                else:
                    self.db.execute(
                        "INSERT INTO history_meta (key, value) VALUES (?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        (key, value),
                    )

    def clear(self, *, scope: str | None = None) -> None:
        """Forget every cached commit (a rewritten history, another root); with ``scope``,
        the now empty cache is claimed for that scope in the same transaction."""
        with self.store.transaction():
            self.db.execute("DELETE FROM history_changes")
            self.db.execute("DELETE FROM history_commits")
            self.db.execute("DELETE FROM history_meta")
            if scope is not None:
                self.db.execute("INSERT INTO history_meta (key, value) VALUES ('scope', ?)", (scope,))

    def contains(self, sha: str) -> bool:
        return self.db.execute("SELECT 1 FROM history_commits WHERE sha = ?", (sha,)).fetchone() is not None

    def truncate(self, sha: str) -> int | None:
        """Drop the commits after ``sha`` (HEAD moved back along the cached line: a reset,
        an older checkout); returns how many went, or None when ``sha`` is not cached."""
        with self.store.transaction():
            row = self.db.execute("SELECT seq FROM history_commits WHERE sha = ?", (sha,)).fetchone()
            if row is None:
                return None
            self.db.execute("DELETE FROM history_changes WHERE commit_seq > ?", (row[0],))
            return self.db.execute("DELETE FROM history_commits WHERE seq > ?", (row[0],)).rowcount

    def append(self, commits: Iterable[Commit]) -> int:
        """Add commits newer than the head, in one transaction; returns how many were new.

        Commits already cached are skipped (another process scanning at the same time).
        A commit whose first parent is not the cached head would break the chain: the
        cache changed under this scan, and it is refused rather than mixed.
        """
        batch = list(commits)
        if not batch:
            return 0
        with self.store.transaction():
            known = {
                row[0]
                for row in self.db.execute(
                    "SELECT sha FROM history_commits WHERE sha IN (SELECT value FROM json_each(?))",
                    (json.dumps([c.sha for c in batch]),),
                )
            }
            batch = [c for c in batch if c.sha not in known]
            if not batch:
                return 0
            row = self.db.execute("SELECT seq, sha FROM history_commits ORDER BY seq DESC LIMIT 1").fetchone()
            last_seq, head = (row[0], row[1]) if row else (0, None)
            first = batch[0]
            if head is not None and first.parents and first.parents[0] != head:
                raise StoreError(
                    f"the history cache changed during the scan (commit {first.sha[:12]} does not follow "
                    f"{head[:12]}); nothing was added",
                    hint="run the scan again",
                )
            commit_rows: list[tuple[Any, ...]] = []
            change_rows: list[tuple[Any, ...]] = []
            dumps = json.JSONEncoder(separators=(",", ":")).encode  # ASCII: survives surrogate escapes
            for seq, commit in enumerate(batch, start=last_seq + 1):
                packed = []
                code = [c for c in commit.changes if not (_is_archmem(c.path) or _is_archmem(c.old_path))]
                for position, c in enumerate(code):
                    packed.append([c.path, c.added, c.deleted, c.status, c.old_path])
                    change_rows.append((seq, position, c.path, c.added, c.deleted, c.status, c.old_path))
                commit_rows.append(
                    (seq, commit.sha, _timestamp(commit.time), commit.author, " ".join(commit.parents),
                     dumps(packed) if packed else _NO_CHANGES)
                )
            self.db.executemany(
                "INSERT INTO history_commits (seq, sha, time, author, parents, changes) VALUES (?, ?, ?, ?, ?, ?)",
                commit_rows,
            )
            sql = (
                "INSERT INTO history_changes (commit_seq, position, path, added, deleted, status, old_path) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)"
            )
            try:
                self.db.executemany(sql, change_rows)
            except UnicodeEncodeError:
                # paths git gave as undecodable bytes (surrogate escapes) are kept as blobs here
                self.db.execute("DELETE FROM history_changes WHERE commit_seq > ?", (last_seq,))
                self.db.executemany(sql, [(*r[:2], _storable(r[2]), *r[3:6], _storable(r[6])) for r in change_rows])
        return len(batch)


def _is_archmem(path: str | None) -> bool:
    """archmem's own folder (memory files, the index): what the team knows about the
    code, never code; and a purged memory's file name must not outlive it here."""
    return path is not None and (path == ".archmem" or path.startswith(".archmem/"))


def _timestamp(moment: datetime) -> float:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_UTC)
    return moment.timestamp()


def _storable(path: str | None) -> str | bytes | None:
    if path is None:
        return None
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape")
    return path


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building many acyclic values (restored even on error)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _plain(cls: type) -> bool:
    """Can ``cls`` be built by setting ``__dict__``? Not once its instances have no
    ``__dict__`` (slots) or it has a ``__post_init__``: then the real constructors are used."""
    return cls.__dictoffset__ != 0 and not hasattr(cls, "__post_init__")


_new, _set = object.__new__, object.__setattr__
_FAST = _plain(FileChange) and _plain(Commit)


def _make_commit(fields: dict[str, Any]) -> Commit:
    if not _FAST:  # pragma: no cover - guards a future change of the types
        return Commit(**fields)
    commit = _new(Commit)
    _set(commit, "__dict__", fields)
    return commit


def _changes(packed: list[list[Any]]) -> tuple[FileChange, ...]:
    """``FileChange`` values from their JSON form, ``__dict__`` set in one step."""
    if not _FAST:  # pragma: no cover - guards a future change of the types
        return tuple(FileChange(*change) for change in packed)
    made = []
    for path, added, deleted, status, old_path in packed:
        change = _new(FileChange)
        _set(change, "__dict__",
             {"path": path, "added": added, "deleted": deleted, "status": status, "old_path": old_path})
        made.append(change)
    return tuple(made)

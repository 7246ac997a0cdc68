"""The per-commit history cache, in the same SQLite database as the memories.

The first drift scan reads the whole first-parent history once; every later scan reads
only the commits after the cached head (``archmem.drift.scan``). Tables come from
migration 3: ``history_commits`` (``seq`` orders them oldest → newest),
``history_changes`` (per commit, in git's order; indexed by path) and ``history_meta``
(what the cache belongs to: the reader's scope — sub-folder and format — and the branch,
so a different ``--repo`` sub-folder never reuses another root's commits).

Writes come in chunks, one transaction each: an interrupted scan leaves a consistent
prefix of the history whose last commit is the head, and the next scan resumes there.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from archmem.drift.types import ChangeStatus, Commit, FileChange
from archmem.errors import StoreError
from archmem.store.sqlite import SQLiteStore

_UTC = timezone.utc


class CommitCache:
    """Cached commits of one repository (root) on a ``SQLiteStore``."""

    def __init__(self, store: SQLiteStore) -> None:
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
        """Every cached commit, oldest → newest, with its changes: two sequential scans
        (commits by seq, changes by primary key), never a query per commit."""
        changes: dict[int, list[FileChange]] = {}
        status: ChangeStatus
        for seq, path, added, deleted, status, old_path in self.db.execute(
            "SELECT commit_seq, path, added, deleted, status, old_path FROM history_changes "
            "ORDER BY commit_seq, position"
        ):
            if type(path) is bytes:
                path = path.decode("utf-8", "surrogateescape")
            if type(old_path) is bytes:
                old_path = old_path.decode("utf-8", "surrogateescape")
            change = FileChange(path, added, deleted, status, old_path)
            bucket = changes.get(seq)
            if bucket is None:
                changes[seq] = [change]
            else:
                bucket.append(change)
        empty: tuple[FileChange, ...] = ()
        return [
            Commit(
                sha,
                datetime.fromtimestamp(stamp, _UTC),
                author,
                tuple(parents.split()) if parents else (),
                tuple(changes[seq]) if seq in changes else empty,
            )
            for seq, sha, stamp, author, parents in self.db.execute(
                "SELECT seq, sha, time, author, parents FROM history_commits ORDER BY seq"
            )
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
            for offset, commit in enumerate(batch, start=1):
                seq = last_seq + offset
                commit_rows.append((seq, commit.sha, _timestamp(commit.time), commit.author, " ".join(commit.parents)))
                for position, change in enumerate(commit.changes):
                    change_rows.append(
                        (seq, position, change.path, change.added, change.deleted, change.status, change.old_path)
                    )
            self.db.executemany(
                "INSERT INTO history_commits (seq, sha, time, author, parents) VALUES (?, ?, ?, ?, ?)", commit_rows
            )
            sql = (
                "INSERT INTO history_changes (commit_seq, position, path, added, deleted, status, old_path) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)"
            )
            try:
                self.db.executemany(sql, change_rows)
            except UnicodeEncodeError:
                # paths git gave as undecodable bytes (surrogate escapes) are kept as blobs
                self.db.execute("DELETE FROM history_changes WHERE commit_seq > ?", (last_seq,))
                self.db.executemany(sql, [(*r[:2], _storable(r[2]), *r[3:6], _storable(r[6])) for r in change_rows])
        return len(batch)


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

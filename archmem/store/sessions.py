"""The index's sessions and the usage they record: which memories each session was
shown (exposures) and which it relied on (citations).

Its own module because usage counting has its own rule, apart from the memories'
write path: each (session, memory) pair counts once, a citation counts at once, and an
exposure only when its session ends. Tables from migration 1; mixed into
``SQLiteStore``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from archmem.clock import format_time, parse_time
from archmem.memory.types import Session
from archmem.store.connection import SQLiteConnection

USAGE_TABLES = ("exposures", "citations")


class SessionLog(SQLiteConnection):
    """Sessions, exposures and citations, on the store's connection."""

    def insert_session(self, session: Session) -> None:
        with self.transaction():
            self._execute(
                "INSERT INTO sessions (id, task, agent, elements, started_at, ended_at, outcome_memory_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session.id, session.task, session.agent, json.dumps(session.elements),
                 format_time(session.started_at), format_time(session.ended_at) if session.ended_at else None,
                 session.outcome_memory_id),
            )

    def get_session(self, session_id: str) -> Session | None:
        row = self._execute(
            "SELECT id, task, agent, elements, started_at, ended_at, outcome_memory_id FROM sessions WHERE id = ?",
            (session_id,),
        ).fetchone()
        if not row:
            return None
        return Session(
            id=row[0], task=row[1], agent=row[2], elements=json.loads(row[3]), started_at=parse_time(row[4]),
            ended_at=parse_time(row[5]) if row[5] else None, outcome_memory_id=row[6],
        )

    def open_sessions(self) -> list[Session]:
        """Sessions not ended yet, oldest first."""
        ids = [r[0] for r in self._execute(
            "SELECT id FROM sessions WHERE ended_at IS NULL ORDER BY started_at, id").fetchall()]
        return [session for session in map(self.get_session, ids) if session is not None]

    def session_ids(self) -> list[str]:
        return [r[0] for r in self._execute("SELECT id FROM sessions ORDER BY started_at").fetchall()]

    def end_session(self, session_id: str, ended_at: str, outcome_memory_id: str | None) -> bool:
        """Mark ended; False when it had already ended (another process won)."""
        with self.transaction():
            cursor = self._execute(
                "UPDATE sessions SET ended_at = ?, outcome_memory_id = ? WHERE id = ? AND ended_at IS NULL",
                (ended_at, outcome_memory_id, session_id),
            )
        return cursor.rowcount == 1

    def record_usage(self, table: str, session_id: str, memory_ids: Iterable[str], at: str) -> list[str]:
        """Record exposures or citations once per (session, memory). A citation bumps the
        memory's counter at once; an exposure counts when its session ends
        (``count_exposures``): a session that never ends says nothing about a memory."""
        if table not in USAGE_TABLES:
            raise ValueError(table)
        new: list[str] = []
        with self.transaction():
            for memory_id in dict.fromkeys(memory_ids):
                cursor = self._execute(
                    f"INSERT OR IGNORE INTO {table} (session_id, memory_id, at) VALUES (?, ?, ?)",
                    (session_id, memory_id, at),
                )
                if cursor.rowcount:
                    if table == "citations":
                        self._execute("UPDATE memories SET citations = citations + 1 WHERE id = ?", (memory_id,))
                    new.append(memory_id)
        return new

    def count_exposures(self, session_id: str) -> int:
        """Add one exposure to every memory this (ending) session was shown."""
        with self.transaction():
            cursor = self._execute(
                "UPDATE memories SET exposures = exposures + 1 "
                "WHERE id IN (SELECT memory_id FROM exposures WHERE session_id = ?)",
                (session_id,),
            )
        return cursor.rowcount

    def usage(self, table: str, session_id: str) -> list[str]:
        if table not in USAGE_TABLES:
            raise ValueError(table)
        rows = self._execute(f"SELECT memory_id FROM {table} WHERE session_id = ? ORDER BY at", (session_id,))
        return [r[0] for r in rows.fetchall()]

"""The idempotency-key store behind PaymentService: key -> charge id, kept 24 hours
so a client retry after a timeout gets the first charge back instead of a second."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class _Entry:
    charge_id: str
    expires_at: float


class InMemoryKeys:
    def __init__(self, clock=time.time):
        self.clock = clock
        self._entries: dict[str, _Entry] = {}

    def get(self, key: str) -> str | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.expires_at <= self.clock():
            del self._entries[key]
            return None
        return entry.charge_id

    def put(self, key: str, charge_id: str, ttl_hours: int) -> None:
        self._entries[key] = _Entry(charge_id, self.clock() + ttl_hours * 3600)

    def purge(self) -> int:
        now = self.clock()
        expired = [key for key, entry in self._entries.items() if entry.expires_at <= now]
        for key in expired:
            del self._entries[key]
        return len(expired)


class SqlKeys:
    """Keys in the payments table's idempotency_key column (UNIQUE)."""

    def __init__(self, db):
        self.db = db

    def get(self, key: str) -> str | None:
        row = self.db.execute(
            "SELECT charge_id FROM payments WHERE idempotency_key = ? AND charge_id IS NOT NULL", (key,)
        ).fetchone()
        return row[0] if row else None

    def put(self, key: str, charge_id: str, ttl_hours: int) -> None:
        # Rows are kept for reconciliation; the TTL only matters for the cache.
        self.db.execute("UPDATE payments SET charge_id = ? WHERE idempotency_key = ?", (charge_id, key))

"""The index's links between memories: each row keeps the literal target text and a
nullable target, so a link to a title written later resolves when that title appears.

Its own module because links have a life apart from the memories' rows: they are
replaced whole per source, resolved later, and follow a superseded memory to its
successor. The grammar is ``archmem.memory.links`` and the resolving
``archmem.memory.linking``; this only stores the outcome. Table from migration 1;
mixed into ``SQLiteStore``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from archmem.memory.types import Link
from archmem.store.connection import SQLiteConnection

_SELECT_LINKS = "SELECT source_id, target_text, shown, target_kind, target_id FROM links"


class LinkTable(SQLiteConnection):
    """Links by source, by target and pending, on the store's connection."""

    def replace_links(self, source_id: str, links: Sequence[tuple[Link, str]]) -> None:
        """Set a memory's links; each comes with its normalized target key."""
        self.replace_many_links({source_id: links})

    def replace_many_links(self, by_source: Mapping[str, Sequence[tuple[Link, str]]]) -> None:
        """Set the links of many memories: one statement deletes the old, one inserts the new."""
        with self.transaction():
            self._execute("DELETE FROM links WHERE source_id IN (SELECT value FROM json_each(?))",
                          (json.dumps(list(by_source)),))
            self.db.executemany(
                "INSERT INTO links (source_id, position, target_text, target_key, shown, target_kind, target_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(source_id, position, link.target_text, key, link.shown, link.target_kind, link.target_id)
                 for source_id, links in by_source.items() for position, (link, key) in enumerate(links)],
            )

    def links(self, *, source_ids: Iterable[str] | None = None, pending: bool | None = None) -> list[Link]:
        where, params = [], []
        if source_ids is not None:
            ids = list(source_ids)
            if not ids:
                return []
            where.append(f"source_id IN ({', '.join('?' * len(ids))})")
            params += ids
        if pending is not None:
            where.append("target_id IS NULL" if pending else "target_id IS NOT NULL")
        rows = self._execute(
            _SELECT_LINKS + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY source_id, position",
            params,
        ).fetchall()
        return [_link(row) for row in rows]

    def links_to(self, target_id: str) -> list[Link]:
        rows = self._execute(
            _SELECT_LINKS + " WHERE target_id = ? ORDER BY source_id, position", (target_id,)
        ).fetchall()
        return [_link(row) for row in rows]

    def resolve_pending_links(self, target_key: str, target_kind: str, target_id: str) -> int:
        """Attach the pending links written to ``target_key`` (a title written later)."""
        with self.transaction():
            cursor = self._execute(
                "UPDATE links SET target_kind = ?, target_id = ? WHERE target_key = ? AND target_id IS NULL",
                (target_kind, target_id, target_key),
            )
        return cursor.rowcount

    def retarget_links(self, old_id: str, new_id: str) -> int:
        """Links to a superseded memory follow it to its successor."""
        with self.transaction():
            cursor = self._execute(
                "UPDATE links SET target_id = ? WHERE target_id = ? AND target_kind = 'memory'", (new_id, old_id)
            )
        return cursor.rowcount


    def active_title_ids(self, title_keys: Iterable[str]) -> dict[str, str]:
        """{title key: the newest active memory with that title}, in one query: what a
        sync resolving a chunk of files' links asks first, not a query a title."""
        found: dict[str, str] = {}
        rows = self._execute(  # by the index of titles (a partial one), not of statuses: "+status"
            "SELECT title_key, id FROM memories WHERE title_key IN (SELECT value FROM json_each(?)) "
            "AND title_key IS NOT NULL AND +status = 'active' ORDER BY seq",
            (json.dumps(list(dict.fromkeys(title_keys))),),
        )
        for key, memory_id in rows:
            found[key] = memory_id  # the newest last
        return found


def _link(row: Sequence[Any]) -> Link:
    return Link(source_id=row[0], target_text=row[1], shown=row[2], target_kind=row[3], target_id=row[4])

"""Sessions: a task's unit of work, what it was shown (exposures) and used (citations).

Usage feeds recall: citations lift a memory; exposed often and never cited sends it to
the review queue. Ending a session may write one ``session_outcome`` memory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from archmem.clock import format_time
from archmem.errors import ConflictError, InvalidInputError, UnknownNameError, closest
from archmem.memory.fields import clean_line, required_line
from archmem.memory.lifecycle import MemoryContext, RememberResult, new_id, remember, resolve_elements, resolve_memory
from archmem.memory.secrets import check_fields
from archmem.memory.types import Memory, Session
from archmem.values import Record


@dataclass(repr=False, eq=False)
class SessionEnd(Record):
    """What ending a session recorded: the memories cited and the outcome."""

    session_id: str
    cited: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    outcome: RememberResult | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "cited": self.cited,
            "unknown": self.unknown,
            "outcome_id": self.outcome.id if self.outcome else None,
            "outcome": self.outcome.to_dict() if self.outcome else None,
        }


def start_session(
    ctx: MemoryContext, task: str, *, elements: Sequence[str] = (), agent: str | None = None
) -> Session:
    if not task or not task.strip():
        raise InvalidInputError("a session needs a task: what is this session about?")
    check_fields({"task": task, "agent": agent})
    task, agent = required_line(task, "task"), clean_line(agent, "agent")
    session = Session(
        id=new_id("s"),
        task=task,
        agent=agent,
        elements=resolve_elements(ctx.model, elements),
        started_at=ctx.clock(),
    )
    ctx.store.insert_session(session)
    return session


def get_session(ctx: MemoryContext, session_id: str) -> Session:
    session = ctx.store.get_session(session_id.strip())
    if session is None:
        raise UnknownNameError("session", session_id, closest(session_id, ctx.store.session_ids()))
    return session


def record_exposures(ctx: MemoryContext, session_id: str, memory_ids: Sequence[str]) -> list[str]:
    """The memories a recall showed to this session (each counted once per session)."""
    get_session(ctx, session_id)
    return ctx.store.record_usage("exposures", session_id, memory_ids, format_time(ctx.clock()))


def end_session(
    ctx: MemoryContext,
    session_id: str,
    *,
    used: Sequence[str] = (),
    outcome: str | None = None,
    author: str | None = None,
) -> SessionEnd:
    """Record what the session used and, optionally, one outcome memory.

    Names that match no memory are reported back, not fatal: an agent's slip should
    not lose the citations it got right.
    """
    with ctx.store.transaction():
        session = get_session(ctx, session_id)
        if session.ended_at is not None:
            raise ConflictError(f"session {session.id} already ended at {format_time(session.ended_at)}")
        cited: list[str] = []
        unknown: list[str] = []
        for ref in used:
            if not ref or not ref.strip():
                continue
            try:
                memory = resolve_memory(ctx.store, ref)
            except UnknownNameError:
                unknown.append(ref)
                continue
            if memory.id not in cited:
                cited.append(memory.id)
        ctx.store.record_usage("citations", session.id, cited, format_time(ctx.clock()))
        ctx.store.count_exposures(session.id)  # shown in a session that ended: now it says something
        result: RememberResult | None = None
        if outcome and outcome.strip():
            result = remember(
                ctx,
                outcome,
                kind="session_outcome",
                elements=session.elements,
                author=author or session.agent,
                session_id=session.id,
            )
        if not ctx.store.end_session(session.id, format_time(ctx.clock()), result.id if result else None):
            raise ConflictError(f"session {session.id} was ended by another writer")
    return SessionEnd(session_id=session.id, cited=cited, unknown=unknown, outcome=result)


SESSION_ID = re.compile(r"\bs-[0-9a-f]{10}\b")
"""How a session id looks in any text (``new_id("s")``)."""


def named_in(memory: Memory, text: str) -> bool:
    """Whether ``text`` names the memory: its id, or its title (four characters or more,
    any case, as whole words). An agent that names a memory it was shown used it."""
    if memory.id in text:
        return True
    title = (memory.title or "").strip()
    if len(title) < 4:
        return False
    return re.search(r"(?<!\w)" + re.escape(title.casefold()) + r"(?!\w)", text.casefold()) is not None


def end_left_open(
    ctx: MemoryContext, *, ids: Sequence[str] = (), agents: Sequence[str] = (), words: str = "",
) -> list[SessionEnd]:
    """End the sessions an agent's client left open, from the client's session-end hook,
    so what they were shown counts even when the agent never called end_session.

    Which: the open sessions whose id is in ``ids`` (found in the client's transcript);
    without ids, the open sessions whose agent is one of ``agents`` (``claude-code``
    matches ``claude-code/sarah``). What they used: the memories each was shown that the
    agent named in ``words``, its own messages and tool calls (never the tool results,
    which name everything shown). No outcome is written: only the agent knows it.
    """
    wanted = set(ids)
    prefixes = tuple(a.casefold() for a in agents if a)
    chosen = [
        session for session in ctx.store.open_sessions()
        if session.id in wanted or (not wanted and prefixes and (session.agent or "").casefold().split("/")[0]
                                    .startswith(prefixes))
    ]
    ended: list[SessionEnd] = []
    for session in chosen:
        shown = [m for m in map(ctx.store.get_memory, ctx.store.usage("exposures", session.id)) if m is not None]
        used = [m.id for m in shown if words and named_in(m, words)]
        try:
            ended.append(end_session(ctx, session.id, used=used))
        except ConflictError:
            continue  # ended meanwhile by the agent itself, or another hook: nothing lost
    return ended

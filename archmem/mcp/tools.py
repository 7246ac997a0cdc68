"""The MCP tools of ``archmem mcp``: each a thin call into ``Workspace`` that answers
with data (the JSON the CLI's ``--json`` prints, its shape in ``archmem.mcp.schemas``)
and a short text for the model; a briefing's Markdown is its text, never repeated in
the data.

No ``mcp`` import here: ``archmem.mcp.server`` turns these functions into tools. Each
function's docstring is the tool's description and its ``Annotated`` parameters are the
input schema, so both are written for an agent: short, concrete, teaching the habits the
ranking depends on (sessions, citations, supersede, titles). ``TOOLS`` gives each its
title and its hints (read-only, destructive, idempotent).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from archmem.memory.types import MemoryKind
from archmem.recall.engine import neighbours_by_source, weak_line
from archmem.values import Record, Value
from archmem.words import plural
from archmem.workspace import Workspace

INSTRUCTIONS = """\
archmem is this repository's memory: pitfalls, conventions, notes and session outcomes,
attached to the elements of its architecture model, with VERIFY flags where the code
moved since a memory was confirmed. Its ranking learns from these habits:
1. start_session(task) first: you get a session_id and a briefing. Pass session_id to
   recall and remember.
2. recall before changing code. A VERIFY memory may be out of date: check it against the
   code, then confirm_memory it, or remember a successor with supersedes=its title.
3. remember what the next agent needs, with a title (it becomes linkable as [[Title]])
   and the elements it is about (find_elements names them). Supersede rather than
   contradict: a second memory that disagrees with an old one confuses everyone.
4. end_session(session_id, used_memories=[titles or ids you relied on], outcome=...).
   Cited memories rise in recall; memories shown but never cited sink.
"""

# The descriptions below are in every agent's context (tools/list, at most 16 KB): each
# says what its name does not, once; the habits are the server's instructions.
MemoryRef = Annotated[str, Field(description="Id (m-…) or title.")]
SessionId = str | None  # what start_session answers; the instructions say why to pass it
ElementList = Annotated[list[str] | None, Field(description="Element ids or names (find_elements).")]
Kind = Annotated[MemoryKind, Field(description="pitfall (a trap), convention (how we do it), note, session_outcome.")]
ChangedFiles = Annotated[list[str] | None, Field(description="Repo paths the task changes.")]
Changed = Annotated[bool, Field(description="Add the files git sees changed.")]
Author = Annotated[str | None, Field(description="client/name, e.g. claude-code/sarah.")]


@dataclass(repr=False, eq=False)
class Answer(Record):
    """A tool's result: ``data`` is the structured content, ``text`` what a model reads."""

    data: dict[str, Any]
    text: str


# ---- writing ----------------------------------------------------------------------


def remember(
    ws: Workspace,
    content: Annotated[str, Field(description="A few sentences. [[Title]] links a memory, an element or an ADR.")],
    kind: Kind,
    title: Annotated[str | None, Field(description="Short, unique: makes it a [[Title]].")] = None,
    elements: Annotated[list[str] | None, Field(description="Element ids or names (none: project-wide).")] = None,
    supersedes: Annotated[str | None, Field(description="Id or title of the memory it replaces.")] = None,
    anchors: Annotated[list[str] | None, Field(description="Repo paths, optionally path#Symbol.")] = None,
    session_id: SessionId = None,
    author: Author = None,
) -> Answer:
    """Store what the next agent should know. Give it a title (others link it
    as [[Title]]) and its elements. If it replaces a memory, pass supersedes: never
    contradict an active one. A restatement confirms the existing memory (deduplicated);
    similar_to lists near ones: supersede one on purpose?
    """
    result = ws.remember(
        content, kind=kind, title=title, elements=elements or [], anchors=anchors or [], supersedes=supersedes,
        author=author, session_id=session_id,
    )
    return _remembered(result)


def _remembered(result: Any) -> Answer:
    data = result.to_dict()
    label = f"{result.title!r} " if result.title else ""
    if result.deduplicated:
        lines = [f"confirmed {label}({result.id}): this restates it"]
    elif result.supersedes:
        lines = [f"remembered {label}({result.id}), superseding {result.supersedes}"]
    else:
        lines = [f"remembered {label}({result.id})"]
    for similar in result.similar_to:
        lines.append(f"similar to {similar['title'] or similar['id']!r} ({similar['id']}, {similar['score']:.2f}): "
                     "supersede it on purpose?")
    lines += [f"linked [[{link['target']}]] -> {link['kind']} {link['id']}" for link in result.links]
    lines += [f"pending link [[{p}]]: attaches when a memory with that title is written" for p in result.pending_links]
    lines += [f"warning: {w}" for w in result.warnings]
    return Answer(data, "\n".join(lines))


def supersede(
    ws: Workspace,
    memory: MemoryRef,
    content: Annotated[str, Field(description="What holds now.")],
    kind: MemoryKind | None = None,
    title: str | None = None,
    elements: list[str] | None = None,
    anchors: list[str] | None = None,
    session_id: SessionId = None,
    author: Author = None,
) -> Answer:
    """Replace a memory that no longer holds with what holds now; the old one
    leaves recall, kept in history. Kind, title, elements and anchors carry over unless
    given. A superseded memory is refused with the name of its successor.
    """
    result = ws.supersede(
        memory, content, kind=kind, title=title, elements=elements, anchors=anchors, author=author,
        session_id=session_id,
    )
    return _remembered(result)


def archive(
    ws: Workspace,
    memory: MemoryRef,
    reason: Annotated[str, Field(description="Why (kept with it).")],
) -> Answer:
    """Take a wrong or obsolete memory out of recall when nothing replaces it
    (else supersede it). It stays in history and its file; a person can unarchive it.
    """
    archived = ws.archive(memory, reason)
    return Answer(archived.to_json(), f"archived {archived.label!r} ({archived.id})")


def confirm_memory(
    ws: Workspace,
    memory: MemoryRef,
    reason: Annotated[str | None, Field(description="Why it still holds (written to its file).")] = None,
    signed_by: str | None = None,
) -> Answer:
    """Vouch that a memory still holds, checked against the code: clears VERIFY.
    No longer true: supersede it.
    """
    found, changes = ws.memory_changes(memory)
    confirmed = ws.confirm(found.id, reason=reason, seen=changes, by=signed_by)
    data = confirmed.to_json()
    data["changes_since_confirmed"] = changes.to_dict() if changes else None
    text = f"confirmed {confirmed.label!r} ({confirmed.id}), {plural(confirmed.confirmations, 'confirmation')}"
    return Answer(data, text + ("\n" + changes.text() if changes else ""))


# ---- sessions -----------------------------------------------------------------------


def start_session(
    ws: Workspace,
    task: Annotated[str, Field(description="What it is about to do, in a sentence.")],
    agent: Author = None,
    elements: ElementList = None,
) -> Answer:
    """Start here, once per task: a session_id (pass it to recall and
    remember; finish with end_session) and the task's Markdown briefing.
    """
    note = _not_set_up(ws)  # asked first: the session's own index makes the repository look set up
    session = ws.start_session(task, elements=elements or [], agent=agent)
    briefing = ws.brief(session.task, elements=session.elements, session_id=session.id, client="mcp")
    if not briefing.memory_ids:  # the first contact still gets what holds for every task
        briefing = ws.overview(session_id=session.id, for_task=session.task, client="mcp")
    data = {"session_id": session.id, "session": session.to_json(), "briefing": briefing_data(briefing)}
    text = (f"session_id: {session.id} (pass it to recall and remember; finish with end_session)\n\n"
            + note + briefing.markdown)
    return Answer(data, text)


def briefing_data(briefing: Any) -> dict[str, Any]:
    """A briefing as data, without its Markdown (the answer's text is the Markdown)."""
    data = briefing.to_dict()
    del data["markdown"]
    return data


def _not_set_up(ws: Workspace) -> str:
    """A line for an agent in a repository where archmem has nothing yet."""
    if ws.set_up:
        return ""
    return ("archmem has nothing here yet (no architecture model, no memories): remember what the next agent "
            "should know, and it starts this repository's memory.\n\n")


def end_session(
    ws: Workspace,
    session_id: str,
    used_memories: Annotated[list[str], Field(description="Titles or ids of those you relied on ([] if none).")],
    outcome: Annotated[str | None, Field(description="What changed; what the next agent should know.")] = None,
    author: Author = None,
) -> Answer:
    """Close a session. used_memories become citations: cited memories rise in
    recall, shown and never cited ones sink; names matching none come back in unknown.
    outcome is remembered as a session_outcome memory.
    """
    ended = ws.end_session(session_id, used=used_memories, outcome=outcome, author=author)
    lines = [f"ended {ended.session_id}: {plural(len(ended.cited), 'memory citation')}"]
    lines += [f"no memory matches {name!r} (not recorded)" for name in ended.unknown]
    if ended.outcome:
        lines.append(f"outcome remembered as {ended.outcome.id}")
    return Answer(ended.to_dict(), "\n".join(lines))


# ---- reading ------------------------------------------------------------------------


def recall(
    ws: Workspace,
    query: Annotated[str, Field(description="The task or question.")],
    elements: ElementList = None,
    changed_files: ChangedFiles = None,
    changed: Changed = False,
    session_id: SessionId = None,
    limit: Annotated[int, Field(ge=1, le=200, description="At most this many results.")] = 5,
    explain: Annotated[bool, Field(description="Add each score's factors.")] = False,
) -> Answer:
    """The memories that matter for a task, best first (none: archmem knows
    nothing relevant); linked: the memories and ADRs their [[links]] bring; the
    relevant elements. verify: true means the code under a memory moved since it was
    confirmed. Pass your session_id.
    """
    result = ws.recall(
        query, elements=elements or [], changed_files=changed_files or [], changed=changed,
        session_id=session_id, limit=limit, explain=explain,
    ).to_dict()
    return Answer(result, _not_set_up(ws) + recall_text(result))


def recall_text(result: dict[str, Any]) -> str:
    lines = [f"warning: {w}" for w in result["warnings"]]
    ranked = result["results"]
    if not ranked and not result.get("weak"):
        lines.append("Nothing archmem knows is relevant to this task.")
    elif not ranked:
        lines.append("archmem is not sure any of these fit (weak; skip what does not):")
        for item in result["weak"]:
            lines.append(f"- {weak_line(item)}")
    neighbours = neighbours_by_source(result)
    for position, item in enumerate(ranked, start=1):
        name = item["title"] or item["id"]
        where = ", ".join(item["elements"]) or "project-wide"
        verify = " [VERIFY]" if item["verify"] else ""
        shown = f"{item['title']} " if item["title"] else ""
        kind = item["kind"].upper()
        lines.append(f"{position}. [{kind}]{verify} {shown}({item['id']}; {where}; score {item['score']})")
        lines += [f"   {line}" for line in item["content"].splitlines()]
        if item["verify"]:
            lines.append(f"   verify: {item['verify_reason']}")
        for other in neighbours.get(item["id"], []):
            said = " ".join((other.get("content") or "").split())[:300]
            lines.append(f"   via [[{name}]] -> {other['kind']} {other['title'] or other['id']}"
                         + (f": {said}" if said else ""))
        if "factors" in item:
            lines.append("   " + " · ".join(f"{k} {v:.3f}" for k, v in item["factors"].items() if v is not None))
        if item.get("synonyms"):
            lines.append(f"   found through synonyms of: {', '.join(item['synonyms'])}")
    scored = [e for e in result["elements"] if e["score"] is not None]  # the others came along through a link
    if scored:
        lines.append("elements: " + ", ".join(f"{e['name']} ({e['id']}, {e['score']:.2f})" for e in scored[:5]))
    return "\n".join(lines)


def brief(
    ws: Workspace,
    task: Annotated[str | None, Field(description="Optional when elements or changed files say it.")] = None,
    elements: ElementList = None,
    changed_files: ChangedFiles = None,
    changed: Changed = False,
    budget: Annotated[int | None, Field(ge=200, description="Characters (default 8,000).")] = None,
    session_id: SessionId = None,
) -> Answer:
    """The Markdown briefing for a task, within a budget: relevant elements,
    ranked memories with VERIFY and [[links]], gaps. With no task, elements or changed
    files: the project overview.
    """
    briefing = ws.brief(
        task, elements=elements or [], changed_files=changed_files or [], changed=changed, session_id=session_id,
        budget=budget, overview=True, client="mcp",
    )
    return Answer(briefing_data(briefing), briefing.markdown)


def find_elements(
    ws: Workspace,
    task: str,
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
) -> Answer:
    """The architecture elements a task is about, best first, with their code
    paths and memory counts; their ids go in remember and recall.
    """
    found = ws.find_elements(task, limit=limit)
    lines = [
        f"{e['name']} ({e['id']}, {e['kind']}, {e['score']:.2f}): {', '.join(e['paths']) or 'no code paths'}; "
        f"{plural(e['memories'], 'memory', 'memories')}" for e in found
    ] or ["No element of the model matches this task."]
    return Answer({"elements": found}, "\n".join(lines))


def knowledge_map(ws: Workspace) -> Answer:
    """What is known per element (coverage, memory titles by kind, freshness,
    pitfalls, VERIFY, drift) and the code no element owns: where knowledge is missing.
    """
    knowledge = ws.knowledge_map()
    data = knowledge.to_dict()
    lines = [data["coverage"]]
    for cell in data["elements"]:
        count = sum(len(titles) for titles in cell["memories"].values())
        state = (f"{plural(count, 'memory', 'memories')} ({plural(cell['pitfalls'], 'pitfall')}, "
                 f"{cell['verify']} VERIFY), {cell['freshness']}"
                 if count else "nothing known")
        drift = f", drift: {cell['drift']}" if cell["drift"] else ""
        lines.append(f"{'  ' * cell['depth']}- {cell['name']} ({cell['id']}): {state}{drift}")
    if data["unowned"]:
        lines.append(f"code no element owns: {len(data['unowned'])} files")
    if data["drift_note"]:
        lines.append(data["drift_note"])
    return Answer(data, "\n".join(lines))


def review_queue(ws: Workspace) -> Answer:
    """What needs a person: memories shown often and never cited,
    near-duplicates, [[links]] nothing answers yet.
    """
    queue = ws.review().to_dict()
    lines = [] if queue["total"] else ["Nothing to review."]
    lines += [f"VERIFY: {i.get('title') or i['id']}: {i.get('verify_reason', '')}" for i in queue["verify"]]
    lines += [f"ignored: {i['title'] or i['id']} ({i['id']}, shown to {i['exposures']} sessions, never cited)"
              for i in queue["ignored"]]
    for pair in queue["near_duplicates"]:
        a, b = pair["a"], pair["b"]
        lines.append(f"near-duplicates: {a['title'] or a['id']} ~ {b['title'] or b['id']} ({pair['score']:.2f})")
    lines += [f"pending link: [[{p['target']}]] in {p['source']['title'] or p['source']['id']}"
              for p in queue["pending_links"]]
    return Answer(queue, "\n".join(lines))


def drift(
    ws: Workspace,
    element: Annotated[str | None, Field(description="One element's drift (id or name).")] = None,
    memory: Annotated[str | None, Field(description="Is this memory VERIFY, and why (id or title).")] = None,
) -> Answer:
    """Whether the code moved under the model: per element in_sync, drifted or
    missing (with the commit that tipped it), the score, the memories to verify.
    """
    report = ws.drift_report()
    data = report.to_dict()
    data["memory"] = None
    if element:
        target = ws.model.find(element)
        data["elements"] = [e for e in data["elements"] if e["id"] == target.id]
        data["stale_memories"] = [m for m in data["stale_memories"] if target.id in m["elements"]]
    if memory:
        found = ws.get_memory(memory)
        reason = ws.staleness(found) if found.status == "active" else None
        data["memory"] = {"id": found.id, "title": found.title, "status": found.status, "verify": reason is not None,
                          "verify_reason": reason}
        if not element:  # the elements it is attached to, and no other memory
            data["elements"] = [e for e in data["elements"] if e["id"] in found.elements]
        data["stale_memories"] = [m for m in data["stale_memories"] if m["id"] == found.id]
    return Answer(data, drift_text(data))


def drift_text(data: dict[str, Any]) -> str:
    lines = [f"warning: {w}" for w in data["warnings"]]
    if data["score"] is not None:
        counts = data["counts"]
        lines.append(f"drift score {data['score']}/100 ({counts['in_sync']} in sync, {counts['drifted']} drifted, "
                     f"{counts['missing']} missing; {data['commits']} commits read)")
    for element in data["elements"]:
        if element["status"] == "no_paths" and len(data["elements"]) > 1:
            continue
        stamp = element["stamp"]
        tipped = (f", at {stamp['commit'][:7]} ({plural(stamp['lines'], 'line')}, {plural(stamp['files'], 'file')})"
                  if stamp else "")
        lines.append(f"{element['name']} ({element['id']}): {element['status']}{tipped}")
    found = data["memory"]
    if found is not None:
        state = f"VERIFY: {found['verify_reason']}" if found["verify"] else "nothing moved under it since it was confirmed"
        lines.append(f"memory {found['title'] or found['id']} ({found['id']}, {found['status']}): {state}")
    elif data["stale_memories"]:
        lines.append(f"{plural(len(data['stale_memories']), 'memory', 'memories')} to verify:")
        lines += [f"- {m['title'] or m['id']} ({m['id']}): {m['verify_reason']}" for m in data["stale_memories"]]
    return "\n".join(lines)


def show_memory(ws: Workspace, memory: MemoryRef) -> Answer:
    """One memory in full, superseded and archived ones too: its file, VERIFY and why,
    its supersede chain."""
    data = ws.show(memory)
    verify = f"\nVERIFY: {data['verify_reason']}" if data["verify"] else ""
    where = ", ".join(data["elements"]) or "project-wide"
    return Answer(data, f"[{data['kind'].upper()}] {data['title'] or data['id']} ({data['id']}, {data['status']}; "
                        f"{where}){verify}\n{data['content']}")


def history(ws: Workspace, memory: MemoryRef) -> Answer:
    """A memory's supersede chain, oldest first, superseded and archived ones
    included.
    """
    chain = ws.history(memory)
    current = next((m.id for m in chain if m.status == "active"), None)
    lines = [f"{i}. {m.label} ({m.id}, {m.status}): " + " ".join(m.content.split())[:300]
             for i, m in enumerate(chain, start=1)]
    return Answer({"current": current, "history": [m.to_json() for m in chain]}, "\n".join(lines))


@dataclass(frozen=True, repr=False, eq=False)
class ToolSpec(Value):
    """A tool with what a client shows and may rely on: its title, and whether it
    changes nothing (``read_only``), may remove something from every agent's view
    (``destructive``), or can be repeated to no further effect (``idempotent``)."""

    function: Callable[..., Answer]
    title: str
    read_only: bool
    destructive: bool = False
    idempotent: bool = False

    @property
    def name(self) -> str:
        return self.function.__name__


TOOLS: list[ToolSpec] = [
    ToolSpec(start_session, "Start a session", read_only=False),
    # recall and brief with a session_id count what was shown in the local index (usage
    # bookkeeping); they change no memory and no file
    ToolSpec(recall, "Recall memories", read_only=True, idempotent=True),
    ToolSpec(remember, "Remember a fact", read_only=False),
    ToolSpec(supersede, "Supersede a memory", read_only=False),
    ToolSpec(confirm_memory, "Confirm a memory", read_only=False),
    ToolSpec(archive, "Archive a memory", read_only=False, destructive=True, idempotent=True),
    ToolSpec(end_session, "End a session", read_only=False),
    ToolSpec(brief, "Briefing for a task", read_only=True, idempotent=True),
    ToolSpec(find_elements, "Find elements", read_only=True, idempotent=True),
    ToolSpec(knowledge_map, "Knowledge map", read_only=True, idempotent=True),
    ToolSpec(review_queue, "Review queue", read_only=True, idempotent=True),
    ToolSpec(drift, "Drift", read_only=True, idempotent=True),
    ToolSpec(show_memory, "Show a memory", read_only=True, idempotent=True),
    ToolSpec(history, "History of a memory", read_only=True, idempotent=True),
]

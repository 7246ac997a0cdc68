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

MemoryRef = Annotated[str, Field(description="A memory's id (m-...) or its title.")]
SessionId = Annotated[
    str | None, Field(description="The session_id from start_session: records what you were shown.")
]
ElementList = Annotated[
    list[str] | None,
    Field(description="Element identifiers or names (find_elements lists them)."),
]
Kind = Annotated[MemoryKind, Field(description="pitfall (a trap), convention (how we do it), note, or session_outcome.")]
ChangedFiles = Annotated[list[str] | None, Field(description="Repo-relative paths the task changes.")]
Changed = Annotated[bool, Field(description="Also take the changed files from git diff (working tree, staged, new).")]


@dataclass
class Answer:
    """A tool's result: ``data`` is the structured content, ``text`` what a model reads."""

    data: dict[str, Any]
    text: str


# ---- writing ----------------------------------------------------------------------


def remember(
    ws: Workspace,
    content: Annotated[
        str, Field(description="The fact, in a few sentences. [[Title]] links another memory, an element or an ADR.")
    ],
    kind: Kind,
    title: Annotated[str | None, Field(description="A short unique title: makes it addressable as [[Title]].")] = None,
    elements: Annotated[
        list[str] | None, Field(description="The elements it is about, identifiers or names (none: project-wide).")
    ] = None,
    supersedes: Annotated[str | None, Field(description="Title or id of the memory this one replaces.")] = None,
    anchors: Annotated[list[str] | None, Field(description="Repo paths it is about, optionally path#Symbol.")] = None,
    session_id: SessionId = None,
    author: Annotated[str | None, Field(description="Who writes it, as client/name (e.g. claude-code/sarah).")] = None,
) -> Answer:
    """Store what the next agent should know about this code.

    Attach it to the elements it is about (none = project-wide) and give it a title so
    others can link it as [[Title]]. If it replaces an existing memory, pass
    supersedes=that title or id: never write a memory that contradicts an active one.
    Restating an existing memory confirms it instead (deduplicated: true). similar_to
    lists near memories: supersede one of them on purpose? Pass your session_id.
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
    memory: Annotated[str, Field(description="Id or title of the memory that no longer holds.")],
    content: Annotated[str, Field(description="What holds now, in a few sentences.")],
    kind: Annotated[MemoryKind | None, Field(description="Default: the old memory's kind.")] = None,
    title: Annotated[str | None, Field(description="Default: the old memory's title.")] = None,
    elements: Annotated[list[str] | None, Field(description="Default: the old memory's elements.")] = None,
    anchors: Annotated[list[str] | None, Field(description="Default: the old memory's anchors.")] = None,
    session_id: SessionId = None,
    author: Annotated[str | None, Field(description="Who writes it, as client/name (e.g. claude-code/sarah).")] = None,
) -> Answer:
    """Replace a memory that no longer holds with what holds now: the old one leaves
    recall and stays in its history. Kind, title, elements and anchors carry over unless
    given. A memory already superseded is refused with the name of the current one:
    supersede that one instead.
    """
    result = ws.supersede(
        memory, content, kind=kind, title=title, elements=elements, anchors=anchors, author=author,
        session_id=session_id,
    )
    return _remembered(result)


def archive(
    ws: Workspace,
    memory: MemoryRef,
    reason: Annotated[str, Field(description="Why it leaves recall (kept with it).")],
) -> Answer:
    """Take a memory out of recall when it is wrong or obsolete and nothing replaces it
    (when something does, supersede it instead). It stays in history and in its file;
    a person can bring it back (archmem unarchive).
    """
    archived = ws.archive(memory, reason)
    return Answer(archived.model_dump(mode="json"), f"archived {archived.label!r} ({archived.id})")


def confirm_memory(
    ws: Workspace,
    memory: MemoryRef,
    reason: Annotated[str | None, Field(description="Why it still holds, in a sentence (kept in the audit log).")] = None,
) -> Answer:
    """Vouch that a memory is still true now: clears its VERIFY flag and refreshes it.

    Use it after checking a VERIFY memory against the code. If it is no longer true,
    remember a successor with supersedes=its title instead. The answer carries what
    changed in its code since it was last confirmed (changes_since_confirmed: the diff
    stat and its anchors' diff): read it, and supersede if the memory no longer holds.
    """
    found, changes = ws.memory_changes(memory)
    confirmed = ws.confirm(found.id, reason=reason, seen=changes)
    data = confirmed.model_dump(mode="json")
    data["changes_since_confirmed"] = changes.to_dict() if changes else None
    text = f"confirmed {confirmed.label!r} ({confirmed.id}), {plural(confirmed.confirmations, 'confirmation')}"
    return Answer(data, text + ("\n" + changes.text() if changes else ""))


# ---- sessions -----------------------------------------------------------------------


def start_session(
    ws: Workspace,
    task: Annotated[str, Field(description="What this session is about to do, in a sentence.")],
    agent: Annotated[str | None, Field(description="Who runs it, as client/name.")] = None,
    elements: ElementList = None,
) -> Answer:
    """Start here, once per task: opens a session and returns its session_id and the
    Markdown briefing for the task (relevant elements, ranked memories with VERIFY
    warnings, gaps; when no memory is about the task, the conventions that hold for
    every task). Pass session_id to recall and remember; finish with end_session.
    """
    note = _not_set_up(ws)  # asked first: the session's own index makes the repository look set up
    session = ws.start_session(task, elements=elements or [], agent=agent)
    briefing = ws.brief(session.task, elements=session.elements, session_id=session.id, client="mcp")
    if not briefing.memory_ids:  # the first contact still gets what holds for every task
        briefing = ws.overview(session_id=session.id, for_task=session.task, client="mcp")
    data = {"session_id": session.id, "session": session.model_dump(mode="json"), "briefing": briefing_data(briefing)}
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
    session_id: Annotated[str, Field(description="The session_id from start_session.")],
    used_memories: Annotated[
        list[str], Field(description="Titles or ids of the memories you actually relied on ([] if none).")
    ],
    outcome: Annotated[
        str | None, Field(description="What changed and what the next agent should know (one session_outcome memory).")
    ] = None,
    author: Annotated[str | None, Field(description="Who writes the outcome, as client/name.")] = None,
) -> Answer:
    """Close a session. used_memories are recorded as citations: that is how useful
    memories rise in recall (shown but never cited ones sink). Names that match no
    memory come back in unknown, the rest still count. outcome, if given, is remembered
    as one session_outcome memory on the session's elements.
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
    query: Annotated[str, Field(description="The task or question, in words.")],
    elements: ElementList = None,
    changed_files: ChangedFiles = None,
    changed: Changed = False,
    session_id: SessionId = None,
    limit: Annotated[int, Field(ge=1, le=200, description="How many memories (link neighbours come on top).")] = 5,
    explain: Annotated[bool, Field(description="Add every factor of each score.")] = False,
) -> Answer:
    """The memories that matter for a task, best first, plus the relevant elements.

    An empty list means archmem knows nothing relevant. Pass your session_id: what you
    are shown is recorded, and what you cite at end_session lifts it for the next agent.
    verify: true means the code under a memory changed since it was confirmed: check
    it, then confirm_memory it or supersede it. A result with via came along through a
    [[link]] of a higher one.
    """
    result = ws.recall(
        query, elements=elements or [], changed_files=changed_files or [], changed=changed,
        session_id=session_id, limit=limit, explain=explain,
    ).to_dict()
    return Answer(result, _not_set_up(ws) + recall_text(result))


def recall_text(result: dict[str, Any]) -> str:
    lines = [f"warning: {w}" for w in result["warnings"]]
    ranked = [r for r in result["results"] if r["via"] is None]
    if not ranked:
        lines.append("Nothing archmem knows is relevant to this task.")
    neighbours: dict[str, list[dict[str, Any]]] = {}
    for item in result["results"]:
        if item["via"] is not None:
            neighbours.setdefault(item["via"]["id"], []).append(item)
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
            lines.append(f"   via [[{name}]] -> {other['kind']} {other['title'] or other['id']}: "
                         + " ".join((other.get("content") or "").split())[:300])
        if "factors" in item:
            lines.append("   " + " · ".join(f"{k} {v:.3f}" for k, v in item["factors"].items() if v is not None))
        if item.get("synonyms"):
            lines.append(f"   found through synonyms of: {', '.join(item['synonyms'])}")
    if result["elements"]:
        shown_elements = [f"{e['name']} ({e['id']}, {e['score']:.2f})" for e in result["elements"][:5]]
        lines.append("elements: " + ", ".join(shown_elements))
    return "\n".join(lines)


def brief(
    ws: Workspace,
    task: Annotated[
        str | None, Field(description="The task; may be left out when elements or changed files say it.")
    ] = None,
    elements: ElementList = None,
    changed_files: ChangedFiles = None,
    changed: Changed = False,
    budget: Annotated[int | None, Field(ge=200, description="Budget in characters (default 8,000).")] = None,
    session_id: SessionId = None,
) -> Answer:
    """The Markdown briefing for a task, within a character budget: relevant elements,
    ranked memories with VERIFY warnings and [[linked]] neighbours, and the gaps nobody
    has written about. start_session already returns one for its task. With no task,
    elements or changed files: the project overview (conventions, what to verify).
    """
    briefing = ws.brief(
        task, elements=elements or [], changed_files=changed_files or [], changed=changed, session_id=session_id,
        budget=budget, overview=True, client="mcp",
    )
    return Answer(briefing_data(briefing), briefing.markdown)


def find_elements(
    ws: Workspace,
    task: Annotated[str, Field(description="The task, in words.")],
    limit: Annotated[int, Field(ge=1, le=100, description="How many elements at most.")] = 10,
) -> Answer:
    """The architecture elements a task is about, best first: identifier, name, kind,
    score with reasons, code paths and how many memories each holds. Use the
    identifiers in remember and recall.
    """
    found = ws.find_elements(task, limit=limit)
    lines = [
        f"{e['name']} ({e['id']}, {e['kind']}, {e['score']:.2f}): {', '.join(e['paths']) or 'no code paths'}; "
        f"{plural(e['memories'], 'memory', 'memories')}" for e in found
    ] or ["No element of the model matches this task."]
    return Answer({"elements": found}, "\n".join(lines))


def knowledge_map(ws: Workspace) -> Answer:
    """What the project knows per element: coverage ("3 of 13 elements documented"),
    memory titles by kind, freshness, pitfalls, VERIFY count and drift, the code no
    element owns. Shows where knowledge is missing.
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
    """What needs a person: memories shown to many sessions and never cited, near-
    duplicates (supersede one?), and [[links]] no memory answers yet.
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
    element: Annotated[str | None, Field(description="An element (identifier or name): its drift alone.")] = None,
    memory: Annotated[str | None, Field(description="A memory (id or title): is it VERIFY, and why.")] = None,
) -> Answer:
    """Whether the code moved under the model: per element, in_sync, drifted (its code
    changed past the threshold since the model described it) or missing, with the commit
    that tipped it; the score; and the memories to verify. Ask about one element, or one
    memory (verify: true means check it against the code, then confirm_memory or
    supersede it).
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


def history(ws: Workspace, memory: MemoryRef) -> Answer:
    """A memory's supersede chain, oldest first: what was believed before, and what
    replaced it (superseded and archived memories included).
    """
    chain = ws.history(memory)
    current = next((m.id for m in chain if m.status == "active"), None)
    lines = [f"{i}. {m.label} ({m.id}, {m.status}): " + " ".join(m.content.split())[:300]
             for i, m in enumerate(chain, start=1)]
    return Answer({"current": current, "history": [m.model_dump(mode="json") for m in chain]}, "\n".join(lines))


@dataclass(frozen=True)
class ToolSpec:
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
    ToolSpec(start_session, "Start a session (briefing for the task)", read_only=False),
    # recall and brief with a session_id count what was shown in the local index (usage
    # bookkeeping); they change no memory and no file
    ToolSpec(recall, "Recall memories for a task", read_only=True, idempotent=True),
    ToolSpec(remember, "Remember a fact", read_only=False),
    ToolSpec(supersede, "Supersede a memory", read_only=False),
    ToolSpec(confirm_memory, "Confirm a memory still holds", read_only=False),
    ToolSpec(archive, "Archive a memory", read_only=False, destructive=True, idempotent=True),
    ToolSpec(end_session, "End a session (cite what you used)", read_only=False),
    ToolSpec(brief, "Briefing for a task", read_only=True, idempotent=True),
    ToolSpec(find_elements, "Find the elements a task is about", read_only=True, idempotent=True),
    ToolSpec(knowledge_map, "Knowledge map", read_only=True, idempotent=True),
    ToolSpec(review_queue, "Review queue", read_only=True, idempotent=True),
    ToolSpec(drift, "Drift (element or memory)", read_only=True, idempotent=True),
    ToolSpec(history, "History of a memory", read_only=True, idempotent=True),
]


# ---- resources and prompts ---------------------------------------------------------
# Resources a person can attach to a conversation (Claude Code: @archmem:…); the prompt
# becomes a slash command (/mcp__archmem__start_task) that briefs the agent on a task.


def overview_resource(ws: Workspace) -> str:
    """The project overview: conventions, project-wide pitfalls, what to verify, coverage."""
    return ws.overview(client="mcp").markdown


def map_resource(ws: Workspace) -> str:
    """The knowledge map in Markdown: what is known per element, and the gaps."""
    return ws.knowledge_map().render("md", overrides=ws.template_overrides)


def start_task_prompt(ws: Workspace, task: str) -> str:
    """The message that starts a task: its briefing, and the session habits to follow."""
    briefing = ws.brief(task, client="mcp")
    return (
        f"We are going to work on: {task}\n\n"
        "Below is what archmem, this repository's memory, knows that matters for it. Before you change code, "
        "call start_session with this task (pass its session_id to recall and remember); check any VERIFY "
        "memory against the code, then confirm_memory it or remember a successor with supersedes; at the "
        "end, end_session with the titles you relied on and a one-line outcome.\n\n"
        f"{briefing.markdown}"
    )


RESOURCES: list[tuple[str, str, str, Callable[[Workspace], str]]] = [
    ("archmem://overview", "overview", "Project overview (archmem)", overview_resource),
    ("archmem://map", "knowledge-map", "Knowledge map (archmem)", map_resource),
]

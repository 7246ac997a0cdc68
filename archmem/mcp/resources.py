"""What ``archmem mcp`` offers besides tools: resources a person attaches to a
conversation (Claude Code: ``@archmem:…``), the resource templates of one memory and one
element, the ``start_task`` prompt (a slash command, ``/mcp__archmem__start_task``), and
the completions of their arguments (memory ids, element ids).

Each is a function of the ``Workspace`` returning Markdown; ``archmem.mcp.server``
registers them. No ``mcp`` import here.
"""

from __future__ import annotations

from collections.abc import Callable

from archmem.escape import markdown_inline, one_line
from archmem.words import plural
from archmem.workspace import Workspace

MAX_COMPLETIONS = 100
"""What MCP lets one completion answer hold."""


def overview_resource(ws: Workspace) -> str:
    """The project overview: conventions, project-wide pitfalls, what to verify, coverage."""
    return ws.overview(client="mcp").markdown


def map_resource(ws: Workspace) -> str:
    """The knowledge map in Markdown: what is known per element, and the gaps."""
    return ws.knowledge_map().render("md", overrides=ws.template_overrides)


def memory_resource(ws: Workspace, id: str) -> str:  # noqa: A002 (the template's variable)
    """One memory (id or title; superseded and archived ones too): what it says, where,
    who wrote it, whether to verify it, its history."""
    data = ws.show(id)
    title = markdown_inline(data["title"] or data["id"])
    lines = [f"# {title}", "", f"{data['kind']} `{data['id']}`, {data['status']}"
             + (f" ({markdown_inline(one_line(data['status_reason']))})" if data.get("status_reason") else "")]
    if data["verify"]:
        lines.append(f"**VERIFY**: {markdown_inline(data['verify_reason'])}")
    facts = [("elements", ", ".join(data["elements"]) or "project-wide"), ("anchors", ", ".join(data["anchors"])),
             ("author", data["author"] or "unknown"), ("written", data["created_at"]),
             ("confirmed", " by ".join(filter(None, (data["confirmed_at"], data.get("confirmed_by")))) or "never"),
             ("because", data.get("confirm_reason") or ""), ("file", data["path"] or "")]
    lines += [f"- {label}: {markdown_inline(value)}" for label, value in facts if value]
    if len(data["history"]) > 1:
        chain = " → ".join(f"{h['title'] or h['id']} ({h['status']})" for h in data["history"])
        lines.append(f"- history: {markdown_inline(chain)}")
    return "\n".join([*lines, "", data["content"]]) + "\n"


def element_resource(ws: Workspace, id: str) -> str:  # noqa: A002 (the template's variable)
    """One element (id or name): what the model says of it, its code, and its memories
    (VERIFY first)."""
    model = ws.model
    element = model.find(id)
    memories = ws.list_memories(element=element.id)
    reasons = {m.id: ws.staleness(m) for m in memories}
    memories.sort(key=lambda m: reasons[m.id] is None)
    lines = [f"# {markdown_inline(element.name)}", "", f"{element.kind} `{element.id}`"
             + (f", {markdown_inline(element.technology)}" if element.technology else "")
             + (f", part of `{element.parent}`" if element.parent else "")]
    if element.description:
        lines += ["", markdown_inline(element.description)]
    paths = model.effective_paths(element.id)
    lines += ["", "Code: " + (", ".join(f"`{p}`" for p in paths) if paths else "no paths"), "",
              f"## {plural(len(memories), 'memory', 'memories').capitalize()}"]
    for memory in memories:
        verify = f" **VERIFY** ({markdown_inline(reasons[memory.id] or '')})" if reasons[memory.id] else ""
        lines.append(f"- [{memory.kind}] {markdown_inline(memory.label)} (`{memory.id}`){verify}: "
                     + markdown_inline(" ".join(memory.content.split())[:300]))
    return "\n".join(lines) + "\n"


def start_task_prompt(ws: Workspace, task: str, elements: str | None = None) -> str:
    """The message that starts a task: its briefing, and the session habits to follow."""
    named = [part.strip() for part in (elements or "").split(",") if part.strip()]
    briefing = ws.brief(task, elements=named, client="mcp")
    return (
        f"We are going to work on: {task}\n\n"
        "Below is what archmem, this repository's memory, knows that matters for it. Before you change code, "
        "call start_session with this task (pass its session_id to recall and remember); check any VERIFY "
        "memory against the code, then confirm_memory it or remember a successor with supersedes; at the "
        "end, end_session with the titles you relied on and a one-line outcome.\n\n"
        f"{briefing.markdown}"
    )


# ---- completions --------------------------------------------------------------------


def complete_memories(ws: Workspace, value: str) -> tuple[list[str], int]:
    """Memory ids whose id or title starts with ``value`` (any case), active ones first:
    (the first ``MAX_COMPLETIONS``, how many there are)."""
    typed = value.strip().lower()
    found = [m for m in ws.list_memories(status=None)
             if m.id.lower().startswith(typed) or (m.title or "").lower().startswith(typed)]
    found.sort(key=lambda m: (m.status != "active", m.id))
    return [m.id for m in found[:MAX_COMPLETIONS]], len(found)


def complete_elements(ws: Workspace, value: str) -> tuple[list[str], int]:
    """Element ids whose id, last id part or name starts with what follows the last
    comma of ``value`` (any case), the names before it kept: ``a, sh`` → ``a, shop``."""
    head, comma, typed = value.rpartition(",")
    typed = typed.strip().lower()
    found = [e.id for e in ws.model_or_empty.elements
             if e.id.lower().startswith(typed) or e.id.rsplit(".", 1)[-1].lower().startswith(typed)
             or e.name.lower().startswith(typed)]
    before = f"{head}{comma} " if comma else ""
    return [before + element_id for element_id in found[:MAX_COMPLETIONS]], len(found)


RESOURCES: list[tuple[str, str, str, Callable[..., str]]] = [
    ("archmem://overview", "overview", "Project overview (archmem)", overview_resource),
    ("archmem://map", "knowledge-map", "Knowledge map (archmem)", map_resource),
]
"""The resources: (URI, name, title, read)."""

TEMPLATES: list[tuple[str, str, str, Callable[..., str]]] = [
    ("archmem://memory/{id}", "memory", "A memory (archmem)", memory_resource),
    ("archmem://element/{id}", "element", "An element and its memories (archmem)", element_resource),
]
"""The resource templates: (URI template, name, title, read of its ``id``)."""

COMPLETIONS: dict[tuple[str, str], Callable[[Workspace, str], tuple[list[str], int]]] = {
    ("archmem://memory/{id}", "id"): complete_memories,
    ("archmem://element/{id}", "id"): complete_elements,
    ("start_task", "elements"): complete_elements,
}
"""Per (resource template or prompt, argument): what completes it."""

__all__ = ["COMPLETIONS", "MAX_COMPLETIONS", "RESOURCES", "TEMPLATES", "start_task_prompt"]

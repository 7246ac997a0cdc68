"""The review as Markdown: the pull request comment (``templates/pr.md.j2``), and the
short body that replaces an earlier comment once there is nothing left to check.

Titles and contents of memories, and the reasons and authors of drift accepts, are
written by whoever opened the pull request, so they are shown as one line each,
shortened, with HTML and ``@mentions`` disarmed: a memory or an accept cannot hide text
in a comment or ping a team.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

from archmem.clock import format_time
from archmem.drift.changes import ChangesSince
from archmem.git.revisions import EMPTY_TREE
from archmem.review.accept_changes import AcceptChange
from archmem.review.pull_request import PullRequestReview, TouchedElement, VerifyItem
from archmem.words import plural

MARKER = "<!-- archmem:pr-review -->"


def _trusted(html: str) -> object:
    """archmem's own HTML (the hidden marker): printed as it is, past the escaping every
    other value gets (``render/templates.py``)."""
    from markupsafe import Markup

    return Markup(html)
"""The hidden first line by which a later run finds its own comment."""
MAX_BODY_CHARS = 60_000
"""GitHub refuses comments over 65,536 characters."""
MEMORIES_PER_ELEMENT = 5
MAX_ELEMENTS = 15
MAX_VERIFY = 20
MAX_STAT_LINES = 8

_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")


def inline(text: str | None, width: int = 220) -> str:
    """Untrusted text as one safe line of Markdown."""
    flat = " ".join((text or "").split())
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    flat = flat.replace("[", "\\[").replace("]", "\\]").replace("|", "\\|")  # no link, no table cell
    flat = _MENTION.sub("@\u200b", flat)
    return textwrap.shorten(flat, width, placeholder=" …") if len(flat) > width else flat


def code(text: str) -> str:
    """Text for inside backticks or a code block: no backtick can close it early."""
    return text.replace("`", "'")


def label(title: str | None, content: str, width: int = 80) -> str:
    """What a memory is called in a comment: its title, else the start of its content."""
    return inline(title, 120) if title else inline(content, width)


def _named(review: PullRequestReview, label: str, path: str | None, *, show_path: bool = True) -> str:
    """``**label**`` linked to its memory file at head on GitHub; elsewhere followed by
    the file's path (``show_path``), so a reader can open it."""
    url = review.link(path) if path else None
    if url:
        return f"**[{label}]({url})**"
    return f"**{label}** (`{code(path)}`)" if path and show_path else f"**{label}**"


def _changed(element: TouchedElement) -> str:
    if element.parent_of:
        return "via " + ", ".join(inline(name, 60) for name in element.parent_of)
    return f"{plural(len(element.files), 'file')}, +{element.added:,} −{element.deleted:,}"


def _stat(changes: ChangesSince | None) -> tuple[list[str], str]:
    """A diff stat for a code block (cut to ``MAX_STAT_LINES`` files), and its total line."""
    if changes is None or changes.empty:
        return [], ""
    lines = changes.stat.lines
    files, total = lines[:-1], lines[-1:]
    stat = [code(line) for line in files[:MAX_STAT_LINES]]
    if len(files) > MAX_STAT_LINES or changes.stat.omitted:
        stat.append(f" … and {len(files) - MAX_STAT_LINES + changes.stat.omitted} more files")
    return stat + total, total[0].strip() if total else ""


def _verify(review: PullRequestReview, item: VerifyItem) -> dict[str, Any]:
    memory = item.memory
    changes = item.changes
    stat, total = _stat(changes)
    summary = ""
    if changes is not None and stat:
        since = "its writing" if memory.confirmed_at is None else "it was confirmed"
        summary = f"what changed since {since} ({changes.since.date()}): {total}"
    return {
        "name": _named(review, label(memory.title, memory.content), item.path), "kind": memory.kind.upper(), "id": memory.id,
        "reason": inline(item.reason, 400), "stat": stat, "stat_summary": summary,
    }


ACCEPT_WORDS = {"added": "accepted"}
"""How the comment names a change to an accept file, where it differs from the JSON's."""


def _accept(review: PullRequestReview, item: AcceptChange) -> dict[str, Any]:
    """One accept file of the change, every value from the file disarmed."""
    accept = item.accept
    if accept is None:
        element = f"`{code(item.path)}`"
    elif item.element_name is None:
        element = f"**{inline(accept.element, 80)}** (not in the model)"
    else:
        at_head = item.path if item.change != "deleted" else None
        element = f"{_named(review, inline(item.element_name, 80), at_head, show_path=False)} (`{code(accept.element)}`)"
    who = ""
    if accept is not None:
        at = f"`{accept.commit[:7]}`" if accept.commit else format_time(accept.accepted_at)[:10]
        who = f"by {inline(accept.author, 80) if accept.author else 'an unnamed author'} at {at}"
    stat, total = _stat(item.changes)
    summary = ""
    if item.changes is not None and stat:
        base = "the start of the history" if item.changes.base == EMPTY_TREE else item.changes.base[:7]
        summary = f"what it accepts: git diff {base} {item.changes.head[:7]} of its code, {total}"
    return {
        "word": ACCEPT_WORDS.get(item.change, item.change), "element": element, "who": who,
        "reason": inline(accept.reason, 300) if accept is not None and accept.reason else "",
        "detail": inline(item.detail, 300), "stat": stat, "stat_summary": summary,
    }


def _count_accepts(review: PullRequestReview) -> list[str]:
    """The lead's words for the accept files of the change."""
    words = [c.change for c in review.accept_changes]
    facts = []
    if words.count("added"):
        facts.append(f"{plural(words.count('added'), 'drift accept')} written")
    if words.count("deleted"):
        facts.append(f"{plural(words.count('deleted'), 'drift accept')} withdrawn")
    others = len(words) - words.count("added") - words.count("deleted")
    if others:
        facts.append(f"{plural(others, 'accept file')} changed")
    return facts


def context(review: PullRequestReview, version: str) -> dict[str, Any]:
    """What the template shows; every list already cut to what a comment can hold."""
    touched = review.touched
    names = [f"**{inline(e.name, 60)}**" for e in touched[:6]]
    if len(touched) > 6:
        names.append(f"{len(touched) - 6} more")
    facts = [f"**{plural(len(review.verify), 'memory', 'memories')} to verify**"] if review.verify else []
    added = sum(1 for c in review.memory_changes if c.change in ("added", "supersedes"))
    if added:
        facts.append(f"{plural(added, 'memory', 'memories')} written")
    others = len(review.memory_changes) - added
    if others:
        facts.append(f"{plural(others, 'memory file')} changed")
    facts += _count_accepts(review)
    if review.undocumented:
        facts.append(f"{plural(len(review.undocumented), 'element')} nobody has written about")
    if touched:
        files = len({path for e in touched for path in e.files})
        lead = f"This change touches {', '.join(names)} ({plural(files, 'file')})."
    else:
        lead = "This change touches no element's code."
    elements = [
        {"name": inline(e.name, 80), "id": code(e.id), "changed": _changed(e), "pitfalls": e.count("pitfall"),
         "conventions": e.count("convention"), "verify": e.verify, "parent": bool(e.parent_of)}
        for e in review.elements[:MAX_ELEMENTS] if e.direct or e.memory_count
    ]
    ranked = [
        {
            "name": inline(e.name, 80), "id": code(e.id),
            "memories": [
                {"kind": m["kind"].upper(),
                 "name": _named(review, label(m["title"], m["content"]), m["file"], show_path=False),
                 "content": inline(m["content"], 240), "verify": m["verify"]}
                for m in e.memories[:MEMORIES_PER_ELEMENT]
            ],
            "more": max(0, len(e.memories) - MEMORIES_PER_ELEMENT),
        }
        for e in review.elements if e.memories
    ]
    changes = [
        {"word": c.change, "kind": c.memory.kind.upper() if c.memory else "", "detail": inline(c.detail, 300),
         "name": _named(review, label(c.memory.title, c.memory.content) if c.memory else inline(c.path.rsplit("/", 1)[-1]),
                        None if c.change == "deleted" else c.path)}
        for c in review.memory_changes
    ]
    verify = [_verify(review, v) for v in review.verify[:MAX_VERIFY]]
    new = [v for v, item in zip(verify, review.verify, strict=False) if item.new]  # the first MAX_VERIFY
    ref = review.ref
    return {
        "marker": _trusted(MARKER),
        "headline": _headline(review),
        "lead": lead + (f" {', '.join(facts)}." if facts else ""),
        "elements": elements,
        "more_elements": max(0, len(review.elements) - MAX_ELEMENTS),
        "new_verify": new,
        "old_verify": verify[len(new):],
        "more_verify": max(0, len(review.verify) - MAX_VERIFY),
        "ranked": ranked,
        "memory_changes": changes,
        "accept_changes": [_accept(review, c) for c in review.accept_changes],
        "undocumented": [{"name": inline(e.name, 80), "id": code(e.id)} for e in review.undocumented[:MAX_ELEMENTS]],
        "unowned": len(review.unowned),
        "range": f"{ref.base_ref or ref.base[:7]}...{ref.head[:7]}",
        "version": version,
    }


def _headline(review: PullRequestReview) -> str:
    if review.new_verify:
        return f"this change makes {plural(len(review.new_verify), 'memory', 'memories')} VERIFY"
    if review.verify:
        return f"{plural(len(review.verify), 'memory', 'memories')} to verify on the code this change touches"
    if review.touched:
        return "what the team knows about the code this change touches"
    if review.memory_changes and review.accept_changes:
        return "memories and drift accepts in this change"
    if review.memory_changes:
        return "memories in this change"
    if review.accept_changes:
        return f"{plural(len(review.accept_changes), 'drift accept')} in this change"
    return "nothing to check"


def render_review(review: PullRequestReview, *, version: str, overrides: Path | None = None) -> str:
    """The comment: the marker first, then the review (shortened to what GitHub takes)."""
    from archmem.render.templates import render

    text = render("pr.md.j2", context(review, version), overrides=overrides)
    if len(text) > MAX_BODY_CHARS:
        text = text[:MAX_BODY_CHARS].rsplit("\n", 1)[0] + "\n\n… (cut: the comment was too long; `archmem pr` shows it all)\n"
    return text


def resolved_body(review: PullRequestReview, *, version: str) -> str:
    """What an earlier comment becomes when a later push leaves nothing to check."""
    return (
        f"{MARKER}\n## archmem: nothing to check any more\n\n"
        f"As of {review.ref.head[:7]}, this change touches no element of the model, leaves no memory to verify "
        f"and changes no memory file or drift accept.\n\n<sub>archmem {version}</sub>\n"
    )

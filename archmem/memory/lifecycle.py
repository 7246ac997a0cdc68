"""Writing memories: remember (restating confirms), confirm, supersede, archive, purge.

Every operation is one store transaction, so a concurrent writer can neither slip a
duplicate between the dedup check and the insert nor fork a supersede chain. Nothing
here is erased by a heuristic: only ``purge`` deletes, and it is logged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from archmem.clock import Clock, format_time
from archmem.errors import ConflictError, EmbeddingError, InvalidInputError, UnknownNameError, closest
from archmem.memory import links as linkrules
from archmem.memory import text as textrules
from archmem.memory.fields import clean_line
from archmem.memory.files import revised
from archmem.memory.kinds import parse_kind
from archmem.memory.linking import current_of, write_links
from archmem.memory.restatement import Embedding, find_restatement
from archmem.memory.types import MAX_COUNT, Memory, MemoryKind
from archmem.model.paths import normalize_glob
from archmem.model.types import ArchitectureModel
from archmem.store.base import Store
from archmem.values import Record

if TYPE_CHECKING:
    from archmem.memory.files import MemoryFiles

__all__ = [
    "Embedding", "MemoryContext", "RememberResult", "archive", "confirm", "content_hash", "current_of", "history",
    "new_id", "normalize_anchor", "purge", "remember", "resolve_elements", "resolve_memory", "search_fields",
    "unarchive",
]


def check_fields(fields: Mapping[str, object]) -> None:
    """Refuse a secret in any field (``archmem.memory.secrets``, imported when a memory
    is written: compiling its patterns cost every reading command)."""
    from archmem.memory.secrets import check_fields as refuse_secrets

    refuse_secrets(fields)


@dataclass(repr=False, eq=False)
class MemoryContext(Record):
    """What the memory rules need from the outside, passed in as values."""

    store: Store
    model: ArchitectureModel
    clock: Clock
    exists: Callable[[str], bool] = lambda path: False
    files: MemoryFiles | None = None
    """The memory files' writer (None: an index without files, written alone)."""


@dataclass(repr=False, eq=False)
class RememberResult(Record):
    """What ``remember`` did: the memory stored, or the one it confirmed instead."""

    id: str
    title: str | None
    deduplicated: bool = False
    similar_to: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    pending_links: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    elements: list[str] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    supersedes: str | None = None
    path: str | None = None
    """The memory's file, relative to the repository root."""
    private: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "private": self.private,
            "title": self.title,
            "deduplicated": self.deduplicated,
            "similar_to": self.similar_to,
            "links": self.links,
            "pending_links": self.pending_links,
            "warnings": self.warnings,
            "elements": self.elements,
            "anchors": self.anchors,
            "supersedes": self.supersedes,
        }


def search_fields(model: ArchitectureModel, title: str | None, content: str, elements: Sequence[str]) -> dict[str, str]:
    """What the store indexes for BM25: the title's words, the content's with the names
    of the attached elements, and the parts of their compounds, ranked lower (one place,
    for remember, restatement, import and sync)."""
    title_words, title_parts = textrules.search_columns(title or "")
    body_words, body_parts = textrules.search_columns(content, *model.names(elements))
    return {
        "search_title": title_words,
        "search_body": body_words,
        "search_parts": " ".join(filter(None, (title_parts, body_parts))),
    }


def new_id(prefix: str = "m") -> str:
    import secrets  # here, not at import: only a new memory needs it

    return f"{prefix}-{secrets.token_hex(5)}"


def content_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


# ---- resolving names -------------------------------------------------------------


def resolve_elements(model: ArchitectureModel, refs: Iterable[str]) -> list[str]:
    """Element ids for identifiers or names; an unknown one lists the closest."""
    ids: list[str] = []
    for ref in refs:
        if not ref or not ref.strip():
            continue
        element = model.find(ref.strip())
        if element.id not in ids:
            ids.append(element.id)
    return ids


def resolve_memory(store: Store, ref: str, *, active_only: bool = False) -> Memory:
    """A memory by id or title (the active one first, else the newest of that title)."""
    ref = ref.strip()
    found = store.get_memory(ref)
    if found is None:
        key = linkrules.normalize_title(ref)
        matches = store.find_by_title(key, active_only=True) or (
            [] if active_only else store.find_by_title(key, active_only=False)
        )
        found = matches[0] if matches else None
    if found is None:
        labels = [m.title for m in store.list_memories(status="active") if m.title]
        raise UnknownNameError("memory", ref, closest(ref, labels), hint="give a memory id or an exact title")
    return found


def normalize_anchor(anchor: str) -> str:
    path, sep, symbol = anchor.strip().partition("#")
    try:
        clean = normalize_glob(path)
    except ValueError as exc:
        raise InvalidInputError(f"anchor {anchor!r}: {exc}") from None
    return f"{clean}#{symbol.strip()}" if sep and symbol.strip() else clean


# ---- remember: validate → deduplicate → write ------------------------------------


@dataclass(repr=False, eq=False)
class Draft(Record):
    """A memory that passed every check, not yet written: what ``remember`` was given,
    cleaned and resolved."""

    content: str
    kind: MemoryKind
    title: str | None
    author: str | None
    session_id: str | None
    elements: list[str]
    anchors: list[str]
    private: bool
    seen: Memory | None
    """The version of the memory it supersedes that the writer saw (compare-and-swap)."""
    digest: str
    warnings: list[str] = field(default_factory=list)
    embedding: Embedding | None = None


def remember(
    ctx: MemoryContext,
    content: str,
    *,
    kind: str,
    title: str | None = None,
    elements: Sequence[str] = (),
    anchors: Sequence[str] = (),
    supersedes: str | None = None,
    author: str | None = None,
    session_id: str | None = None,
    embed: Callable[[str], Embedding] | None = None,
    private: bool = False,
) -> RememberResult:
    """Store a memory, or confirm the one it restates; see docs/architecture.md, "Remember".

    ``embed`` (from the configured provider) turns the memory's embedding text into an
    ``Embedding``; it is called only once every check has passed, so a secret never
    reaches a provider. With a vector, restatement is judged by cosine (0.94 /
    0.82) and the vector is stored with the memory; a provider failure leaves a warning
    and the lexical rule."""
    draft = validate(ctx, content, kind=kind, title=title, elements=elements, anchors=anchors,
                     supersedes=supersedes, author=author, session_id=session_id, private=private)
    now = ctx.clock()
    if embed is not None:
        draft.embedding = _embed(ctx, draft, embed)
    with ctx.store.transaction():
        old = _still_current(ctx, draft.seen)
        _check_title_is_free(ctx, draft.title, old)
        duplicate, similar = _deduplicate(ctx, draft, old)
        if duplicate is not None:
            return _confirm_restatement(ctx, duplicate, draft, now)
        return _write_new(ctx, draft, old, now, similar)


def validate(
    ctx: MemoryContext, content: str, *, kind: str, title: str | None, elements: Sequence[str],
    anchors: Sequence[str], supersedes: str | None, author: str | None, session_id: str | None, private: bool,
) -> Draft:
    """Every check before anything is stored or sent: the text's limits, no secret in any
    field, elements the model knows, anchors inside the repository (files the content
    names in backticks join them), a session that exists (its agent signs), and the
    memory to supersede."""
    content = linkrules.validate_content(content)
    memory_kind = parse_kind(kind)
    check_fields({"content": content, "title": title, "author": author, "anchor": list(anchors),
                  "elements": list(elements), "supersedes": supersedes, "session": session_id})
    title = linkrules.validate_title(title) if title is not None and title.strip() else None
    author = clean_line(author, "author")
    element_ids = resolve_elements(ctx.model, elements)
    anchor_list = _anchors(ctx, content, anchors)
    if session_id is not None:
        session = ctx.store.get_session(session_id)
        if session is None:
            raise UnknownNameError("session", session_id, closest(session_id, ctx.store.session_ids()))
        author = author or session.agent  # what the session's agent learned is signed by it
    return Draft(
        content=content, kind=memory_kind, title=title, author=author, session_id=session_id, elements=element_ids,
        anchors=anchor_list, private=private, seen=resolve_memory(ctx.store, supersedes) if supersedes else None,
        digest=content_hash(content),
    )


def _anchors(ctx: MemoryContext, content: str, anchors: Sequence[str]) -> list[str]:
    """The given anchors, then the files the content names in backticks that exist."""
    found = [normalize_anchor(a) for a in anchors if a.strip()]
    for path in textrules.backtick_paths(content):
        try:
            clean = normalize_anchor(path)
        except InvalidInputError:
            continue
        if ctx.exists(clean.partition("#")[0]) and clean not in found:
            found.append(clean)
    return found


def _embed(ctx: MemoryContext, draft: Draft, embed: Callable[[str], Embedding]) -> Embedding | None:
    """The draft's vector; a provider failure is a warning, and the memory is stored for
    words alone."""
    from archmem.embeddings import embedding_text

    try:
        return embed(embedding_text(draft.title, draft.content, ctx.model.names(draft.elements)))
    except EmbeddingError as exc:
        draft.warnings.append(
            f"not embedded ({exc.message}); stored for words only, `archmem embed` adds the vector later"
        )
        return None


def _still_current(ctx: MemoryContext, seen: Memory | None) -> Memory | None:
    """The memory to supersede, read again under the lock: superseding one that another
    writer superseded meanwhile (or archived) is a conflict, so a chain never forks."""
    if seen is None:
        return None
    old = resolve_memory(ctx.store, seen.id)
    if old.status == "superseded":
        head = current_of(ctx.store, old)
        raise ConflictError(
            f"{old.label!r} ({old.id}) is already superseded by {head.label!r} ({head.id}); "
            "supersede that one instead",
        )
    if old.status == "archived":
        raise ConflictError(f"{old.label!r} is archived; there is nothing current to supersede")
    return old


def _check_title_is_free(ctx: MemoryContext, title: str | None, old: Memory | None) -> None:
    """A title names one active memory (the one superseded may pass it on)."""
    if not title:
        return
    clash = ctx.store.find_by_title(linkrules.normalize_title(title), active_only=True)
    if clash and (old is None or clash[0].id != old.id):
        raise ConflictError(
            f"an active memory is already titled {clash[0].title!r} ({clash[0].id})",
            hint=(
                f"to replace it, supersede it: supersedes={clash[0].id!r} (--supersedes on the command "
                "line); to keep both, choose another title"
            ),
        )


def _deduplicate(
    ctx: MemoryContext, draft: Draft, old: Memory | None
) -> tuple[Memory | None, list[dict[str, Any]]]:
    """The active memory the draft restates (if any), and the similar ones. A supersede
    replaces a memory on purpose: it is never a restatement."""
    if old is not None:
        return None, []
    return find_restatement(ctx.store, draft.content, draft.digest, draft.embedding)


def _write_file(ctx: MemoryContext, memory: Memory) -> str | None:
    """The memory's file first (the truth), before the index learns of it."""
    return ctx.files.write(memory) if ctx.files is not None else None


def _write_new(
    ctx: MemoryContext, draft: Draft, old: Memory | None, now: datetime, similar: list[dict[str, Any]]
) -> RememberResult:
    """The new memory's file, then its index rows: the superseded one marked, links moved
    to the new one, its vector, its ``[[links]]``, and pending links to its title."""
    memory = Memory(
        id=_unused_id(ctx.store), title=draft.title, kind=draft.kind,
        content=draft.content, elements=draft.elements, anchors=draft.anchors, author=draft.author,
        session_id=draft.session_id, created_at=now, confirmed_at=now, confirmations=0,
        supersedes=old.id if old else None, private=draft.private,
    )
    if old is not None and ctx.files is not None:
        ctx.files.verify(old.id)
    path = _write_file(ctx, memory)
    if old is not None:
        ctx.store.update_memory(old.id, status="superseded", superseded_by=memory.id)
    ctx.store.insert_memory(
        memory,
        title_key=linkrules.normalize_title(memory.title) if memory.title else None,
        content_hash=draft.digest,
        **search_fields(ctx.model, memory.title, memory.content, memory.elements),
    )
    if old is not None:
        ctx.store.retarget_links(old.id, memory.id)
    if draft.embedding is not None:
        _store_vector(ctx, memory.id, draft.embedding, now)
    resolved, pending = write_links(ctx, memory.id, memory.content)
    if memory.title:
        ctx.store.resolve_pending_links(linkrules.normalize_title(memory.title), "memory", memory.id)
    return RememberResult(
        id=memory.id, title=memory.title, similar_to=similar, links=resolved, pending_links=pending,
        warnings=draft.warnings, elements=memory.elements, anchors=memory.anchors, supersedes=memory.supersedes,
        path=path,
    )


def _store_vector(ctx: MemoryContext, memory_id: str, embedding: Embedding, now: datetime) -> None:
    from archmem.embeddings import vector_to_blob

    ctx.store.put_vector(
        memory_id, embedding.index.identity, vector_to_blob(embedding.vector), int(embedding.vector.shape[0]),
        embedding.text_hash, format_time(now),
    )


def _unused_id(store: Store) -> str:
    while True:
        candidate = new_id("m")
        if store.get_memory(candidate) is None:
            return candidate


def _confirm_restatement(ctx: MemoryContext, existing: Memory, draft: Draft, now: datetime) -> RememberResult:
    """The restated memory confirmed by whoever restated it (no reason: they gave none),
    with the draft's new elements and anchors."""
    new_elements = [e for e in dict.fromkeys(draft.elements) if e not in existing.elements]
    new_anchors = [a for a in dict.fromkeys(draft.anchors) if a not in existing.anchors]
    confirmed = revised(
        existing, confirmed_at=now, confirmed_by=draft.author, confirm_reason=None,
        confirmations=min(existing.confirmations + 1, MAX_COUNT),
        elements=existing.elements + new_elements, anchors=existing.anchors + new_anchors,
    )
    _write_file(ctx, confirmed)
    ctx.store.update_memory(existing.id, confirmed_at=now, confirmed_by=draft.author, confirm_reason=None,
                            confirmations=confirmed.confirmations)
    ctx.store.add_elements(existing.id, new_elements)
    ctx.store.add_anchors(existing.id, new_anchors)
    if new_elements:
        ctx.store.update_memory(
            existing.id, **search_fields(ctx.model, existing.title, existing.content, confirmed.elements)
        )
    return RememberResult(
        id=existing.id,
        title=existing.title,
        deduplicated=True,
        warnings=[*draft.warnings, f"this restates {existing.label!r}: confirmed it instead of storing a copy"],
        elements=confirmed.elements,
        anchors=confirmed.anchors,
    )


# ---- confirm, archive, purge, history --------------------------------------------


def confirm(
    ctx: MemoryContext, ref: str, reason: str | None = None, detail: dict[str, Any] | None = None, *,
    by: str | None = None,
) -> Memory:
    """``by`` vouches for the memory now: clears VERIFY, lifts freshness. Who, when and
    why go into its file (a pull request shows them; a reason left out clears the last
    one's) and the reason into the audit log with ``detail`` (what was looked at)."""
    check_fields({"reason": reason, "author": by})
    reason = clean_line(reason, "reason")
    by = clean_line(by, "author")
    with ctx.store.transaction():
        memory = resolve_memory(ctx.store, ref)
        if memory.status == "superseded":
            head = current_of(ctx.store, memory)
            raise ConflictError(f"{memory.label!r} was superseded by {head.label!r} ({head.id}); confirm that one")
        if memory.status == "archived":
            raise ConflictError(f"{memory.label!r} is archived ({memory.status_reason or 'no reason given'})")
        now = ctx.clock()
        confirmed = revised(memory, confirmed_at=now, confirmed_by=by, confirm_reason=reason,
                            confirmations=min(memory.confirmations + 1, MAX_COUNT))
        _write_file(ctx, confirmed)
        ctx.store.update_memory(memory.id, confirmed_at=now, confirmed_by=by, confirm_reason=reason,
                                confirmations=confirmed.confirmations)
        if reason is not None:
            ctx.store.audit(format_time(now), "confirm", memory.id, reason, {"title": memory.title, **(detail or {})})
    return confirmed


def archive(ctx: MemoryContext, ref: str, reason: str) -> Memory:
    """Take a memory out of recall on purpose; it stays in history and export."""
    if not reason or not reason.strip():
        raise InvalidInputError("archiving needs a reason (--reason)")
    check_fields({"reason": reason})
    reason = clean_line(reason, "reason") or ""
    with ctx.store.transaction():
        memory = resolve_memory(ctx.store, ref)
        if memory.status != "active":
            raise ConflictError(f"{memory.label!r} is {memory.status}, not active")
        archived = revised(memory, status="archived", status_reason=reason.strip())
        _write_file(ctx, archived)
        ctx.store.update_memory(memory.id, status="archived", status_reason=archived.status_reason)
        ctx.store.audit(format_time(ctx.clock()), "archive", memory.id, reason.strip(), {"title": memory.title})
    return archived


def unarchive(ctx: MemoryContext, ref: str) -> Memory:
    """Bring an archived memory back into recall (archiving is a decision, not a loss);
    refused while another active memory holds its title."""
    with ctx.store.transaction():
        memory = resolve_memory(ctx.store, ref)
        if memory.status != "archived":
            raise ConflictError(f"{memory.label!r} is {memory.status}, not archived")
        if memory.title:
            clash = ctx.store.find_by_title(linkrules.normalize_title(memory.title), active_only=True)
            if clash:
                raise ConflictError(
                    f"an active memory is already titled {clash[0].title!r} ({clash[0].id})",
                    hint=f"supersede or archive that one first, or keep {memory.id} archived",
                )
        active = revised(memory, status="active", status_reason=None)
        _write_file(ctx, active)
        ctx.store.update_memory(memory.id, status="active", status_reason=None)
        ctx.store.audit(format_time(ctx.clock()), "unarchive", memory.id, None, {"title": memory.title})
    return active


def purge(ctx: MemoryContext, memory_id: str, reason: str) -> dict[str, Any]:
    """The one hard delete (a secret written by mistake, a privacy request), logged."""
    if not reason or not reason.strip():
        raise InvalidInputError("purging needs a reason (--reason); it is written to the audit log")
    check_fields({"reason": reason})  # the reason stays in the audit log
    with ctx.store.transaction():
        memory = ctx.store.get_memory(memory_id.strip())
        if memory is None:
            raise UnknownNameError(
                "memory id", memory_id, hint="purge takes an exact id (archmem list --status all shows them)"
            )
        # hashes only: what is purged is often a secret, in the title as well as the content
        detail = {
            "kind": memory.kind, "content_sha256": content_hash(memory.content),
            "title_sha256": content_hash(memory.title) if memory.title else None,
        }
        if ctx.files is not None:  # its file goes, and its successors' files no longer name it
            ctx.files.remove(memory.id)
            for successor in ctx.store.successors(memory.id):
                ctx.files.write(revised(successor, supersedes=None))
        ctx.store.delete_memory(memory.id)
        ctx.store.audit(format_time(ctx.clock()), "purge", memory.id, reason.strip(), detail)
    ctx.store.scrub()
    return {"id": memory.id, "title": memory.title, "purged": True, "reason": reason.strip()}


def history(ctx: MemoryContext, ref: str) -> list[Memory]:
    """The whole supersede chain through a memory, oldest first."""
    memory = resolve_memory(ctx.store, ref)
    chain = [memory]
    seen = {memory.id}
    while chain[0].supersedes and chain[0].supersedes not in seen:
        older = ctx.store.get_memory(chain[0].supersedes)
        if older is None:
            break
        seen.add(older.id)
        chain.insert(0, older)
    while chain[-1].superseded_by and chain[-1].superseded_by not in seen:
        newer = ctx.store.get_memory(chain[-1].superseded_by)
        if newer is None:
            break
        seen.add(newer.id)
        chain.append(newer)
    return chain

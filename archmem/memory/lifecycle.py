"""Writing memories: remember (restating confirms), confirm, supersede, archive, purge.

Every operation is one store transaction, so a concurrent writer can neither slip a
duplicate between the dedup check and the insert nor fork a supersede chain. Nothing
here is erased by a heuristic: only ``purge`` deletes, and it is logged.
"""

from __future__ import annotations

import hashlib
import secrets as _random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from archmem.clock import Clock, format_time
from archmem.errors import ConflictError, InvalidInputError, UnknownNameError, closest
from archmem.memory import links as linkrules
from archmem.memory import text as textrules
from archmem.memory.fields import clean_line
from archmem.memory.kinds import parse_kind
from archmem.memory.linking import write_links
from archmem.memory.types import MAX_COUNT, Memory
from archmem.model.paths import normalize_glob
from archmem.model.types import ArchitectureModel
from archmem.store.base import Store

if TYPE_CHECKING:
    import numpy as np

    from archmem.recall.semantic import VectorIndex

DEDUP_CANDIDATES = 10
"""How many lexical neighbours a new memory is compared with for restatement."""
DEDUP_QUERY_TERMS = 8
"""The rarest terms of the new content that find those neighbours: a restatement
shares nearly every term, so it holds some of the rarest, and ranking only the
memories that hold rare terms keeps the check cheap as the store grows."""


def check_fields(fields: Mapping[str, object]) -> None:
    """Refuse a secret in any field (``archmem.memory.secrets``, imported when a memory
    is written: compiling its patterns cost every reading command)."""
    from archmem.memory.secrets import check_fields as refuse_secrets

    refuse_secrets(fields)


@dataclass
class Embedding:
    """The vector of a memory about to be written, from the configured embedder."""

    index: VectorIndex
    vector: np.ndarray
    text_hash: str


@dataclass
class MemoryContext:
    """What the memory rules need from the outside, passed in as values."""

    store: Store
    model: ArchitectureModel
    clock: Clock
    exists: Callable[[str], bool] = lambda path: False


@dataclass
class RememberResult:
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
    return f"{prefix}-{_random.token_hex(5)}"


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


def current_of(store: Store, memory: Memory) -> Memory:
    """Follow ``superseded_by`` to the head of the chain."""
    seen = {memory.id}
    while memory.superseded_by:
        successor = store.get_memory(memory.superseded_by)
        if successor is None or successor.id in seen:
            break
        seen.add(successor.id)
        memory = successor
    return memory


def normalize_anchor(anchor: str) -> str:
    path, sep, symbol = anchor.strip().partition("#")
    try:
        clean = normalize_glob(path)
    except ValueError as exc:
        raise InvalidInputError(f"anchor {anchor!r}: {exc}") from None
    return f"{clean}#{symbol.strip()}" if sep and symbol.strip() else clean


# ---- remember --------------------------------------------------------------------


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
    content = linkrules.validate_content(content)
    kind = parse_kind(kind)
    check_fields({"content": content, "title": title, "author": author, "anchor": list(anchors),
                  "elements": list(elements), "supersedes": supersedes, "session": session_id})
    title = linkrules.validate_title(title) if title is not None and title.strip() else None
    author = clean_line(author, "author")
    element_ids = resolve_elements(ctx.model, elements)
    anchor_list = [normalize_anchor(a) for a in anchors if a.strip()]
    warnings: list[str] = []
    for path in textrules.backtick_paths(content):
        try:
            clean = normalize_anchor(path)
        except InvalidInputError:
            continue
        if ctx.exists(clean.partition("#")[0]) and clean not in anchor_list:
            anchor_list.append(clean)
    if session_id is not None:
        session = ctx.store.get_session(session_id)
        if session is None:
            raise UnknownNameError("session", session_id, closest(session_id, ctx.store.session_ids()))
        author = author or session.agent  # what the session's agent learned is signed by it
    # the version the writer saw; the write below is a compare-and-swap on it, so two
    # writers superseding one title cannot both win, each over the other's new fact
    seen = resolve_memory(ctx.store, supersedes) if supersedes else None
    now = ctx.clock()
    digest = content_hash(content)
    embedding: Embedding | None = None
    if embed is not None:
        from archmem.embeddings import EmbeddingError, embedding_text

        try:
            embedding = embed(embedding_text(title, content, ctx.model.names(element_ids)))
        except EmbeddingError as exc:
            warnings.append(
                f"not embedded ({exc.message}); stored for words only, `archmem embed` adds the vector later"
            )

    with ctx.store.transaction():
        old: Memory | None = None
        if seen is not None:
            old = resolve_memory(ctx.store, seen.id)
            if old.status == "superseded":
                head = current_of(ctx.store, old)
                raise ConflictError(
                    f"{old.label!r} ({old.id}) is already superseded by {head.label!r} ({head.id}); "
                    "supersede that one instead",
                )
            if old.status == "archived":
                raise ConflictError(f"{old.label!r} is archived; there is nothing current to supersede")
        if title:
            clash = ctx.store.find_by_title(linkrules.normalize_title(title), active_only=True)
            if clash and (old is None or clash[0].id != old.id):
                raise ConflictError(
                    f"an active memory is already titled {clash[0].title!r} ({clash[0].id})",
                    hint=(
                        f"to replace it, supersede it: supersedes={clash[0].id!r} (--supersedes on the command "
                        "line); to keep both, choose another title"
                    ),
                )
        similar: list[dict[str, Any]] = []
        if old is None:
            duplicate, similar = _find_restatement(ctx.store, content, digest, embedding)
            if duplicate is not None:
                return _confirm_restatement(ctx, duplicate, element_ids, anchor_list, now, warnings, author)

        memory = Memory(
            id=_unused_id(ctx.store),
            title=title,
            kind=kind,  # type: ignore[arg-type]
            content=content,
            elements=element_ids,
            anchors=anchor_list,
            author=author,
            session_id=session_id,
            created_at=now,
            confirmed_at=now,
            confirmations=0,
            supersedes=old.id if old else None,
            private=private,
        )
        if old is not None:
            ctx.store.update_memory(old.id, status="superseded", superseded_by=memory.id)
        ctx.store.insert_memory(
            memory,
            title_key=linkrules.normalize_title(title) if title else None,
            content_hash=digest,
            **search_fields(ctx.model, title, content, element_ids),
        )
        if old is not None:
            ctx.store.retarget_links(old.id, memory.id)
        if embedding is not None:
            from archmem.embeddings import vector_to_blob

            ctx.store.put_vector(
                memory.id, embedding.index.identity, vector_to_blob(embedding.vector),
                int(embedding.vector.shape[0]), embedding.text_hash, format_time(now),
            )
        resolved, pending = write_links(ctx, memory.id, content)
        if title:
            ctx.store.resolve_pending_links(linkrules.normalize_title(title), "memory", memory.id)
    return RememberResult(
        id=memory.id,
        title=title,
        similar_to=similar,
        links=resolved,
        pending_links=pending,
        warnings=warnings,
        elements=element_ids,
        anchors=anchor_list,
        supersedes=old.id if old else None,
    )


def _unused_id(store: Store) -> str:
    while True:
        candidate = new_id("m")
        if store.get_memory(candidate) is None:
            return candidate


def neighbour_ids(store: Store, content: str, limit: int) -> list[str]:
    """Active memories that may restate ``content``: ranked by BM25 over its rarest terms."""
    counts = store.term_document_counts(textrules.query_tokens(content))
    present = sorted((count, term) for term, count in counts.items() if count > 0)
    if not present:
        return []
    query = " OR ".join(f'"{term}"' for _, term in present[:DEDUP_QUERY_TERMS])
    return [memory_id for memory_id, _ in store.lexical_search(query, limit=limit)]


def _find_restatement(
    store: Store, content: str, digest: str, embedding: Embedding | None = None
) -> tuple[Memory | None, list[dict[str, Any]]]:
    """The active memory this content restates (if any), and the near ones."""
    exact = store.find_by_content_hash(digest)
    if exact:
        return exact[0], []
    if embedding is not None:
        scores = embedding.index.scores_for_vector(embedding.vector)
        if scores.top(1):
            return _judge(store, scores.top(DEDUP_CANDIDATES), lexical=False, content=content)
    ids = neighbour_ids(store, content, DEDUP_CANDIDATES)
    if not ids:
        return None, []
    candidates = store.get_memories(ids)
    pairs = [
        (memory_id, textrules.token_set_similarity(content, candidates[memory_id].content))
        for memory_id in ids
        if memory_id in candidates
    ]
    return _judge(store, pairs, lexical=True, content=content, known=candidates)


def _judge(
    store: Store,
    pairs: list[tuple[str, float]],
    *,
    lexical: bool,
    content: str,
    known: dict[str, Memory] | None = None,
) -> tuple[Memory | None, list[dict[str, Any]]]:
    """The best duplicate among scored neighbours, and the similar ones. A changed
    number or negation is never a restatement, whatever the cosine says."""
    candidates = known if known is not None else store.get_memories(memory_id for memory_id, _ in pairs)
    best: tuple[float, Memory] | None = None
    similar: list[dict[str, Any]] = []
    for memory_id, score in pairs:
        candidate = candidates.get(memory_id)
        if candidate is None or candidate.status != "active":
            continue
        verdict = textrules.classify_similarity(score, lexical=lexical)
        if verdict == "duplicate" and not lexical and not textrules.same_facts(content, candidate.content):
            verdict = "similar"
        if verdict == "duplicate" and (best is None or score > best[0]):
            best = (score, candidate)
        elif verdict == "similar":
            similar.append({"id": candidate.id, "title": candidate.title, "score": round(score, 3)})
    similar.sort(key=lambda item: -item["score"])
    return (best[1] if best else None), similar


def _confirm_restatement(
    ctx: MemoryContext,
    existing: Memory,
    element_ids: list[str],
    anchors: list[str],
    now: Any,
    warnings: list[str],
    author: str | None,
) -> RememberResult:
    """The restated memory confirmed by whoever restated it (no reason: they gave none)."""
    ctx.store.update_memory(existing.id, confirmed_at=now, confirmed_by=author, confirm_reason=None,
                            confirmations=min(existing.confirmations + 1, MAX_COUNT))
    added = ctx.store.add_elements(existing.id, element_ids)
    ctx.store.add_anchors(existing.id, anchors)
    if added:
        ctx.store.update_memory(
            existing.id, **search_fields(ctx.model, existing.title, existing.content, existing.elements + added)
        )
    fresh = ctx.store.get_memory(existing.id)
    assert fresh is not None
    return RememberResult(
        id=existing.id,
        title=existing.title,
        deduplicated=True,
        warnings=warnings + [f"this restates {existing.label!r}: confirmed it instead of storing a copy"],
        elements=fresh.elements,
        anchors=fresh.anchors,
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
        ctx.store.update_memory(memory.id, confirmed_at=now, confirmed_by=by, confirm_reason=reason,
                                confirmations=min(memory.confirmations + 1, MAX_COUNT))
        if reason is not None:
            ctx.store.audit(format_time(now), "confirm", memory.id, reason, {"title": memory.title, **(detail or {})})
        fresh = ctx.store.get_memory(memory.id)
    assert fresh is not None
    return fresh


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
        ctx.store.update_memory(memory.id, status="archived", status_reason=reason.strip())
        ctx.store.audit(format_time(ctx.clock()), "archive", memory.id, reason.strip(), {"title": memory.title})
        fresh = ctx.store.get_memory(memory.id)
    assert fresh is not None
    return fresh


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
        ctx.store.update_memory(memory.id, status="active", status_reason=None)
        ctx.store.audit(format_time(ctx.clock()), "unarchive", memory.id, None, {"title": memory.title})
        fresh = ctx.store.get_memory(memory.id)
    assert fresh is not None
    return fresh


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

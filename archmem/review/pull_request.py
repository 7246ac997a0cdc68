"""What a change touches and what to check before merging it: ``archmem pr``.

From the diff ``base...head`` (the files the pull request changes, as GitHub's "Files
changed" shows them) and the repository at head:

    elements     the elements owning a changed code file, then their parents, each with
                 its pitfalls and conventions as recall ranks them for the change
    verify       memories on that code flagged VERIFY at head, each with its reason and
                 what changed since it was confirmed; ``new`` when this change made it so
    memories     memory files the change adds, supersedes, confirms, edits or deletes
    accepts      drift accept files the change adds, edits or withdraws (deletes)
    undocumented touched elements nobody has written a memory about

Pure: the git questions, recall and drift come in as values and functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from archmem.drift.changes import ChangesSince
from archmem.drift.staleness import Staleness
from archmem.errors import InvalidInputError
from archmem.git.revisions import ChangedFile, Revisions
from archmem.memory.types import MEMORY_KINDS, Memory
from archmem.model.ownership import Ownership, is_code
from archmem.model.types import ArchitectureModel
from archmem.recall.elements import owners_of
from archmem.recall.engine import RecallResult
from archmem.review.accept_changes import AcceptChange
from archmem.review.memory_changes import MemoryChange
from archmem.values import Record, Value

RANKED_KINDS = ("pitfall", "convention")
"""What a reviewer is shown per element: what goes wrong, and the rules."""
KIND_ORDER = {kind: position for position, kind in enumerate(MEMORY_KINDS)}


@dataclass(frozen=True, repr=False, eq=False)
class PullRequestRef(Value):
    """The change under review: two commits, and the pull request when there is one."""

    base: str
    head: str
    number: int | None = None
    title: str | None = None
    url: str | None = None
    base_ref: str | None = None
    head_ref: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"base": self.base, "head": self.head, "number": self.number, "title": self.title, "url": self.url,
                "base_ref": self.base_ref, "head_ref": self.head_ref}


@dataclass(repr=False, eq=False)
class TouchedElement(Record):
    """An element whose code the change touches (``files``), or the parent of one
    (``parent_of`` names its touched children)."""

    id: str
    name: str
    kind: str
    files: list[str] = field(default_factory=list)
    added: int = 0
    deleted: int = 0
    parent_of: list[str] = field(default_factory=list)
    memories: list[dict[str, Any]] = field(default_factory=list)
    """Its pitfalls and conventions, best first, as recall returns them."""
    memory_count: int = 0
    """Active memories attached to it (any kind)."""
    verify: int = 0

    @property
    def direct(self) -> bool:
        return not self.parent_of

    def count(self, kind: str) -> int:
        return sum(1 for m in self.memories if m["kind"] == kind)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "kind": self.kind, "files": self.files, "added": self.added,
            "deleted": self.deleted, "parent_of": self.parent_of, "memory_count": self.memory_count,
            "pitfalls": self.count("pitfall"), "conventions": self.count("convention"), "verify": self.verify,
            "memories": [{k: m[k] for k in ("id", "title", "kind", "content", "file", "verify", "verify_reason", "score")}
                         for m in self.memories],
        }


@dataclass(repr=False, eq=False)
class VerifyItem(Record):
    """A memory on the touched code that is VERIFY at head, and why."""

    memory: Memory
    path: str | None
    reason: str
    stamp: str
    new: bool
    """This change made it VERIFY (the commit that crossed the threshold is one of its own)."""
    changes: ChangesSince | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id, "title": self.memory.title, "kind": self.memory.kind,
            "elements": self.memory.elements, "file": self.path, "verify_reason": self.reason,
            "stamp": self.stamp, "new": self.new, "changes": self.changes.to_dict() if self.changes else None,
        }


@dataclass(repr=False, eq=False)
class PullRequestReview(Record):
    """What a pull request touches: its files and elements, what to verify, and its memory and accept changes."""

    ref: PullRequestRef
    merge_base: str
    files: list[ChangedFile] = field(default_factory=list)
    """The changed files that are code (memory files, accept files and ignored paths left out)."""
    elements: list[TouchedElement] = field(default_factory=list)
    verify: list[VerifyItem] = field(default_factory=list)
    memory_changes: list[MemoryChange] = field(default_factory=list)
    accept_changes: list[AcceptChange] = field(default_factory=list)
    unowned: list[str] = field(default_factory=list)
    """Changed code files no element owns."""
    warnings: list[str] = field(default_factory=list)
    link_base: str | None = None
    """``{server}/{owner}/{repo}/blob/{head}/`` when the repository is on GitHub."""
    changed_lines: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    """Code file → the line ranges at head its hunks cover (where annotations point)."""

    @property
    def touched(self) -> list[TouchedElement]:
        return [e for e in self.elements if e.direct]

    @property
    def undocumented(self) -> list[TouchedElement]:
        return [e for e in self.touched if e.memory_count == 0]

    @property
    def new_verify(self) -> list[VerifyItem]:
        return [v for v in self.verify if v.new]

    @property
    def nothing_to_say(self) -> bool:
        """No element touched, no memory to verify, no memory or accept file changed."""
        return not (self.elements or self.verify or self.memory_changes or self.accept_changes)

    def link(self, path: str) -> str | None:
        if self.link_base is None:
            return None
        from urllib.parse import quote

        return self.link_base + quote(path)

    def counts(self) -> dict[str, int]:
        return {
            "touched_elements": len(self.touched),
            "memories_to_verify": len(self.verify),
            "made_verify": len(self.new_verify),
            "memory_changes": len(self.memory_changes),
            "accept_changes": len(self.accept_changes),
            "undocumented_elements": len(self.undocumented),
            "pitfalls": sum(e.count("pitfall") for e in self.elements),
            "changed_files": len(self.files),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "pull_request": self.ref.to_dict(),
            "merge_base": self.merge_base,
            "counts": self.counts(),
            "nothing_to_say": self.nothing_to_say,
            "elements": [e.to_dict() for e in self.elements],
            "verify": [v.to_dict() for v in self.verify],
            "memory_changes": [c.to_dict() for c in self.memory_changes],
            "accept_changes": [c.to_dict() for c in self.accept_changes],
            "undocumented": [e.id for e in self.undocumented],
            "unowned": self.unowned,
            "files": [{"status": f.status, "path": f.path, "old_path": f.old_path, "added": f.added,
                       "deleted": f.deleted} for f in self.files],
            "warnings": self.warnings,
        }


def resolve_change(
    revisions: Revisions, *, base: str | None, head: str | None, checkout: str | None,
    event: PullRequestRef | None = None,
) -> PullRequestRef:
    """The commits to compare: the flags first, then the pull request event, then the
    default branch and HEAD. The checkout (where the model, the memories and drift are
    read) must hold head: the merge commit GitHub checks out for a pull request does."""
    base_rev = base or (event.base if event else None) or revisions.default_branch()
    if base_rev is None:
        raise InvalidInputError("no --base given, and no default branch (main, master, origin/HEAD) to compare with",
                                hint="archmem pr --base BRANCH")
    found = PullRequestRef(
        base=revisions.resolve(base_rev), head=revisions.resolve(head or (event.head if event else "HEAD")),
        base_ref=base or (event.base_ref if event else base_rev),
    )
    if event is not None:
        found = replace(found, number=event.number, title=event.title, url=event.url, head_ref=event.head_ref)
    if checkout is None or not revisions.is_ancestor(found.head, checkout):
        raise InvalidInputError(
            f"archmem pr reads the model, the memories and drift at the checkout ({(checkout or 'no commit')[:12]}), "
            f"which does not hold head {found.head[:12]}",
            hint=f"check out the head of the change first (git switch --detach {found.head[:12]})",
        )
    return found


def change_task(ref: PullRequestRef, files: Sequence[ChangedFile]) -> str:
    """What recall ranks for: the pull request's title, else the files it changes."""
    if ref.title and ref.title.strip():
        return ref.title.strip()
    names = [f.path for f in files]
    more = f" and {len(names) - 5} more files" if len(names) > 5 else ""
    return "Work on " + ", ".join(names[:5]) + more if names else "Review this change"


def review_pull_request(
    ref: PullRequestRef,
    *,
    merge_base: str,
    code: Sequence[ChangedFile],
    model: ArchitectureModel,
    ownership: Ownership,
    recall: Callable[[str, list[str]], RecallResult],
    memories: Sequence[Memory],
    stale: Callable[[list[Memory]], Mapping[str, Staleness]],
    new_commits: set[str],
    memory_path: Callable[[str], str | None],
    memory_changes: Sequence[MemoryChange] = (),
    accept_changes: Sequence[AcceptChange] = (),
    changes_for: Callable[[Memory], ChangesSince | None] | None = None,
    link_base: str | None = None,
    changed_lines: Mapping[str, list[tuple[int, int]]] | None = None,
) -> PullRequestReview:
    """The review of one change; see the module doc. ``code`` are the changed code files,
    ``memories`` the active memories at head, ``new_commits`` the commits of
    ``merge_base..head`` (a VERIFY stamped by one of them is new)."""
    review = PullRequestReview(ref=ref, merge_base=merge_base, files=list(code), link_base=link_base,
                               memory_changes=list(memory_changes), accept_changes=list(accept_changes),
                               changed_lines=dict(changed_lines or {}))
    touched: dict[str, TouchedElement] = {}
    for change in code:
        owners = list(dict.fromkeys(o for path in change.paths for o in owners_of(model, ownership, path)))
        if not owners and is_code(change.path):
            review.unowned.append(change.path)
        for owner in owners:
            element = model.get(owner)
            if element is None:
                continue
            item = touched.setdefault(owner, TouchedElement(element.id, element.name, element.kind))
            item.files.append(change.path)
            item.added += change.added
            item.deleted += change.deleted
    order = {element.id: position for position, (_, element) in enumerate(model.walk())}
    touched = dict(sorted(touched.items(), key=lambda pair: order.get(pair[0], len(order))))
    parents: dict[str, TouchedElement] = {}
    for item in touched.values():
        element = model.get(item.id)
        parent = model.get(element.parent) if element is not None and element.parent else None
        if parent is None or parent.id in touched:
            continue
        holder = parents.setdefault(parent.id, TouchedElement(parent.id, parent.name, parent.kind))
        holder.parent_of.append(item.name)
    review.elements = [*touched.values(), *parents.values()]
    by_id = {e.id: e for e in review.elements}

    on_touched = [m for m in memories if any(e in by_id for e in m.elements)]
    for memory in on_touched:
        for element_id in memory.elements:
            if element_id in by_id:
                by_id[element_id].memory_count += 1
    if review.elements:
        result = recall(change_task(ref, code), [path for f in code for path in f.paths])
        review.warnings.extend(result.warnings)
        shown: set[str] = set()
        for entry in result.results:
            if entry["kind"] not in RANKED_KINDS or entry["id"] in shown:
                continue
            shown_on = next((by_id[e] for e in entry["elements"] if e in by_id and by_id[e].direct), None) or next(
                (by_id[e] for e in entry["elements"] if e in by_id), None)
            if shown_on is not None:
                shown_on.memories.append({**entry, "file": memory_path(entry["id"])})
                shown.add(entry["id"])

        for touched_element in review.elements:  # pitfalls first, each kind in rank order (as briefings show them)
            touched_element.memories.sort(key=lambda entry: KIND_ORDER.get(entry["kind"], 9))

    changed_paths = {path for f in code for path in f.paths}
    candidates = on_touched + [m for m in memories if m not in on_touched
                               and any(a.partition("#")[0] in changed_paths for a in m.anchors)]
    found = stale(candidates)
    for memory in candidates:
        staleness = found.get(memory.id)
        if staleness is None:
            continue
        for element_id in memory.elements:
            if element_id in by_id:
                by_id[element_id].verify += 1
        review.verify.append(VerifyItem(
            memory=memory, path=memory_path(memory.id), reason=staleness.reason, stamp=staleness.stamp.commit,
            new=staleness.stamp.commit in new_commits,
            changes=changes_for(memory) if changes_for is not None else None,
        ))
    review.verify.sort(key=lambda v: (not v.new, KIND_ORDER.get(v.memory.kind, 9), v.memory.label.lower()))
    return review

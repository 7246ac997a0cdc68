"""Bring the local index up to date with the memory files (the truth, shared through git).

Runs on every open. A large folder in git is known unchanged by its signature
(``memory/folder_signature.py``): its tree in HEAD, and the files git says differ from it
(git compares the others with its index's stat cache), only those stat-ed; the signature
the last sync saw is kept in the index, so a commit that does not touch the folder costs
nothing. When only commits moved the folder (a pull, a checkout: git listed nothing else
there before or now), git names the files that differ between its trees, and only those
are stat-ed, read and compared with their rows. Otherwise, unchanged files are recognized
by size and mtime without being read; a changed one is hashed, and parsed only when its
bytes changed (a checkout that touched it without changing it costs a read). A file that cannot be read as a memory is reported
with its path and line and skipped: the rest of the memories work, and what the index
already held for that file stays until the file is fixed. Nothing here writes a memory
file, with one exception: an index from before the files, whose memories exist nowhere
else, has them written out once (``archmem.memory.files``, the one writer).
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from archmem.clock import system_clock
from archmem.errors import ArchmemError
from archmem.memory import links as linkrules
from archmem.memory.file_format import (
    MAX_FILE_BYTES,
    MemoryFileError,
    holder_rank,
    read_memory_file,
)
from archmem.memory.files import MemoryFiles, revised
from archmem.memory.folder_signature import (
    PRIVATE,
    TREE,
    CheckoutStamp,
    FolderSignature,
    FolderSignatureLater,
    Signature,
    TreeChanges,
    answered_by,
    pulled_paths,
    quiet_tree,
    shared_state,
)
from archmem.memory.lifecycle import MemoryContext, content_hash, search_fields
from archmem.memory.linking import (
    LinkTargets,
    link_targets,
    memory_titles,
    resolve_link_target,
    resolved_links_of,
)
from archmem.memory.types import Memory
from archmem.model.types import ArchitectureModel
from archmem.store.base import FiledMemory, FileRow, Store
from archmem.store.files import FileStat, MemoryFolder, content_sha
from archmem.values import Record, Value


@dataclass(frozen=True, repr=False, eq=False)
class FileProblem(Value):
    """Something wrong in one memory file, where it is."""

    path: str
    line: int
    column: int
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column, "message": self.message,
                "severity": self.severity}


@dataclass(repr=False, eq=False)
class SyncReport(Record):
    """What one sync changed in the index, and the files it could not read."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    exported: int = 0
    problems: list[FileProblem] = field(default_factory=list)
    uncommitted: list[str] | None = None
    """The committed folder's files not committed yet, when git's signature listed them
    (``status`` shows them without asking git again)."""
    signature: str | None = None
    """Both folders' signature as this sync left the index (None when not asked of git):
    it moves with every memory file, so it vouches for the memories' rows."""

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)

    def warnings(self) -> list[str]:
        """One line per unreadable file, for every command to print."""
        return [f"{problem} (skipped; `archmem check` lists every problem)" for problem in self.problems
                if problem.severity == "error"]


SIGNATURE_FROM = 1000
"""Indexed files from which an open asks git whether the committed folder changed rather
than stat every file (below it, the stats cost less than starting git)."""
_SIGNATURE = "files_signature"
_CHUNK = 500
"""Memories read back at once to store their links."""

def sync_from_files(
    store: Store, folder: MemoryFolder, model: Callable[[], ArchitectureModel],
    *, signature: FolderSignature | None = None, tree_changes: TreeChanges | None = None,
    checkout_stamp: CheckoutStamp | None = None,
) -> SyncReport:
    """Index what changed in the memory folders since the last open; see the module doc."""
    report = SyncReport()
    seen = _files_signature(store, folder, signature, report, checkout_stamp)
    kept = store.meta(_SIGNATURE)
    if seen is None or kept != seen.digest:
        paths = pulled_paths(store, folder, seen, tree_changes) if seen is not None else None
        with _collector_paused():
            _index_changed_files(store, folder, model, report, paths)
        if seen is None:
            if kept is not None:
                store.set_meta(_SIGNATURE, None)
        else:
            store.set_meta(_SIGNATURE, seen.digest)
            store.set_meta(TREE, seen.tree)
            store.set_meta(PRIVATE, seen.private)
    report.signature = seen.digest if seen is not None else None
    if store.meta("files_export") == "pending":
        # after indexing: files an export killed before its COMMIT left are taken as they are,
        # not written again under a second name
        report.exported = write_unfiled_memories(store, folder)
    if store.meta("search_text") == "stale":
        reindex_search_text(store, model())
    report.problems = _recorded_problems(store)
    return report


@dataclass(repr=False, eq=False)
class PendingSync(Record):
    """An open that took the index as the last sync left it while git compares the
    committed folder's tracked files in the background (``start_sync``); ``finish``
    waits for git and indexes what it found changed (the report says whether anything
    did: what was read from the index meanwhile is then read again)."""

    report: SyncReport
    finish: Callable[[], SyncReport]
    abandon: Callable[[], object]
    """Waits for git without indexing anything (the command ended first)."""


def start_sync(
    store: Store, folder: MemoryFolder, model: Callable[[], ArchitectureModel], *,
    signature: FolderSignature, later: FolderSignatureLater, tree_changes: TreeChanges | None = None,
    checkout_stamp: CheckoutStamp,
) -> PendingSync | None:
    """The quiet open (``folder_signature.QUIET``) with git's look at the tracked files
    started, not waited for: while HEAD, git's index, the folders' directories and the
    private files are as the last sync left them, only an edit in place of a committed
    file can have changed the index's truth, and git's answer on that comes while the
    caller reads. None when the open must sync first (``sync_from_files``)."""
    if store.file_count(up_to=SIGNATURE_FROM) < SIGNATURE_FROM or store.meta("files_export") == "pending" \
            or store.meta("search_text") == "stale":
        return None
    kept = store.meta(_SIGNATURE)
    stamp = checkout_stamp()
    tree = quiet_tree(store, folder, stamp) if kept is not None else None
    if tree is None or store.meta(PRIVATE) != _private_digest(folder):
        return None
    taken = later(folder.relative(folder.shared), untracked=False, tree=tree)
    report = SyncReport(problems=_recorded_problems(store), signature=kept)

    def finish() -> SyncReport:
        return sync_from_files(store, folder, model, signature=answered_by(taken, tree, signature),
                               tree_changes=tree_changes, checkout_stamp=checkout_stamp)

    return PendingSync(report, finish, taken)


def _private_digest(folder: MemoryFolder) -> str:
    """The private folder's files with their sizes and mtimes, in one value (git ignores it)."""
    return hashlib.sha256(repr(sorted(folder.private_stamps().items())).encode("utf-8", "surrogateescape")).hexdigest()


def _files_signature(
    store: Store, folder: MemoryFolder, signature: FolderSignature | None, report: SyncReport,
    checkout_stamp: CheckoutStamp | None = None,
) -> Signature | None:
    """Both folders' signature: git's for the committed one, the stamps of the private
    one (git ignores it); None when the folder is small or git cannot say. The files
    git lists as not committed go into ``report``."""
    if signature is None or store.file_count(up_to=SIGNATURE_FROM) < SIGNATURE_FROM:
        return None
    shared = shared_state(store, folder, signature, checkout_stamp() if checkout_stamp is not None else None)
    if shared is None:
        return None
    report.uncommitted = shared.uncommitted
    private = _private_digest(folder)
    digest = hashlib.sha256(f"{shared.digest}\0{private}".encode())
    return Signature(digest.hexdigest(), shared.tree if shared.clean else None, private)


def _index_changed_files(
    store: Store, folder: MemoryFolder, model: Callable[[], ArchitectureModel], report: SyncReport,
    paths: set[str] | None = None,
) -> None:
    """Index the files that changed: of every file, or of ``paths`` when git named them."""
    if paths is None:
        indexed = store.file_stamps()
        if (indexed or not folder.holds_files()) and folder.stamps() == indexed:
            return  # nothing added, removed, or with another size or mtime than indexed
        # an empty index with files to read (a rebuild): the scan below is the one stat a file
    if paths is not None and not paths:
        return
    with store.transaction():
        # again, under the write lock
        stats = folder.scan() if paths is None else folder.scan_paths(paths)
        rows = store.file_rows(paths)
        on_disk = _OnDisk(folder, stats, rows, store, every=paths is None)
        writes = _Writes.start(store, rows, every=paths is None)
        changed: list[_ReadFile] = []
        for path in sorted(stats):
            stat, row = stats[path], rows.get(path)
            if row is not None and row.unchanged(stat) and row.error is None:
                continue  # a file that failed is looked at again: its duplicate may be gone
            read = _read_file(writes, folder, path, stat, row)
            if read is not None:
                changed.append(read)
        # oldest first: the index numbers memories (its order of `list`, of ties) as the
        # clone that wrote them did, so a rebuilt index lists them the same way; files that
        # failed before come last, once the files they clashed with are indexed anew
        changed.sort(key=lambda read: (read.row is not None and read.row.error is not None,
                                       read.memory.created_at, read.memory.id, read.path))
        ctx = MemoryContext(store=store, model=model(), clock=system_clock) if changed else None
        known = store.indexed_ids() if changed else set()
        touched: dict[str, str] = {}
        """The id of each memory indexed anew → its content (the last file's, for an id two hold)."""
        with store.bulk_load() as rebuilt:  # an empty index: its secondary indexes are sorted once, after
            for read in changed:
                assert ctx is not None
                memory_id = _index_file(ctx, read, on_disk, known, report, writes)
                if memory_id is not None:
                    touched[memory_id] = read.memory.content
            writes.flush()
        forgotten = False
        for path in sorted(set(rows) - set(stats)):
            store.forget_file(path)
            memory_id = rows[path].memory_id
            if memory_id and store.path_of(memory_id) is None:
                store.forget_memory(memory_id)
                known.discard(memory_id)
                report.removed.append(memory_id)
                forgotten = True
        if report.changed:
            if ctx is None:
                ctx = MemoryContext(store=store, model=model(), clock=system_clock)
            if forgotten or not rebuilt:  # a load into an empty index derived them as it ended
                store.derive_chains()
            targets = link_targets(ctx.model)  # once for every link of every file
            titles = memory_titles(store)  # each title asked once: no memory changes below
            ids = [memory_id for memory_id in touched if memory_id in known]  # not one forgotten since
            for start in range(0, len(ids), _CHUNK):  # the files' links a chunk at a time
                chunk = {memory_id: touched[memory_id] for memory_id in ids[start:start + _CHUNK]}
                store.replace_many_links(resolved_links_of(ctx, chunk, targets, titles))
            _resolve_pending(ctx, targets, titles)
            store.retarget_links_to_heads()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while files are indexed: every parsed file adds
    objects that live until the end, and the collector walked them over and over (at
    10,000 files it ran 260 times, a gen-2 pass over every object twice, ~10% of a
    rebuild). Nothing indexed here makes a cycle; whatever garbage there is waits for
    the next collection once it is back on."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@dataclass(repr=False, eq=False)
class _OnDisk(Record):
    """The files a sync looked at (all, or the few git named), and any other file it
    needs (the one that holds the same id), looked up when asked."""

    folder: MemoryFolder
    stats: dict[str, FileStat]
    rows: dict[str, FileRow]
    store: Store
    every: bool

    def stat(self, path: str) -> FileStat | None:
        if path not in self.stats and not self.every:
            self.stats.update(self.folder.scan_paths([path]))
        return self.stats.get(path)

    def row(self, path: str) -> FileRow | None:
        if path not in self.rows and not self.every:
            found = self.store.file_row(path)
            if found is not None:
                self.rows[path] = found
        return self.rows.get(path)


EXPORT_CHUNK = 500
"""Memories read from an index from before the files at a time, to be written out."""


def write_unfiled_memories(store: Store, folder: MemoryFolder) -> int:
    """Write every memory the index holds and no file does (an index from before the
    files: there is no other copy of them), in one transaction; returns how many."""
    files = MemoryFiles(store, folder)
    with store.transaction():
        ids = store.unfiled_memory_ids()
        for start in range(0, len(ids), EXPORT_CHUNK):
            chunk = ids[start:start + EXPORT_CHUNK]
            found = store.get_memories(chunk)
            for memory_id in chunk:
                if memory_id in found:
                    files.write(found[memory_id])
        store.set_meta("files_export", None)
    return len(ids)


def reindex_search_text(store: Store, model: ArchitectureModel) -> int:
    """Re-derive every memory's search text after a migration changed the rules for it
    (``store_meta.search_text = stale``); returns how many memories were re-indexed."""
    with store.transaction():
        memories = store.list_memories(status=None)
        for memory in memories:
            store.update_memory(memory.id, **search_fields(model, memory.title, memory.content, memory.elements))
        store.set_meta("search_text", None)
    return len(memories)


@dataclass(repr=False, eq=False)
class _ReadFile(Record):
    """A new or changed file that holds a memory, read and parsed, not yet indexed."""

    path: str
    stat: FileStat
    row: FileRow | None
    sha: str
    memory: Memory


def _read_file(
    writes: _Writes, folder: MemoryFolder, path: str, stat: FileStat, row: FileRow | None
) -> _ReadFile | None:
    """Read a new or changed file: None when there is nothing to index (its bytes did not
    change, or it does not parse: then the error is recorded with its line)."""
    if stat.size > MAX_FILE_BYTES:
        writes.record_file(path, row.memory_id if row else None, stat, f"size:{stat.size}",
                           f"the file is {stat.size:,} bytes; a memory file is at most {MAX_FILE_BYTES:,}", 1)
        return None
    try:
        data = folder.read(path)
    except OSError:
        return None  # gone since the scan: the next open forgets it
    sha = content_sha(data)
    if row is not None and row.sha256 == sha and row.error is None:
        writes.record_file(path, row.memory_id, stat, sha)  # touched, not changed
        return None
    try:
        parsed = read_memory_file(data)
    except MemoryFileError as exc:
        writes.record_file(path, row.memory_id if row else None, stat, sha, exc.message, exc.line)
        return None
    return _ReadFile(path, stat, row, sha, parsed.memory)


class _Writes:
    """What a sync writes to the index, held and written a chunk at a time (a statement
    per table a chunk, not a few per file); written out before the index is read back.
    When the sync compares every file, which file holds an id is answered from the rows
    read at its start and kept up to date here, not asked of the index per file. (A
    plain class: a dataclass compiles its methods when recall imports this module.)"""

    def __init__(self, store: Store, holders: dict[str, set[str]] | None, owners: dict[str, str | None]) -> None:
        self.store = store
        self.holders = holders
        """Memory id → the files that hold it, when every file's row is known."""
        self.owners = owners
        """File → the memory id it holds, the same rows the other way round."""
        self.memories: list[FiledMemory] = []
        self.files: list[FileRow] = []

    @classmethod
    def start(cls, store: Store, rows: dict[str, FileRow], *, every: bool) -> _Writes:
        if not every:
            return cls(store, None, {})
        holders: dict[str, set[str]] = {}
        for row in rows.values():
            if row.memory_id:
                holders.setdefault(row.memory_id, set()).add(row.path)
        return cls(store, holders, {path: row.memory_id for path, row in rows.items()})

    def record_file(self, path: str, memory_id: str | None, stat: FileStat, sha256: str,
                    error: str | None = None, error_line: int | None = None) -> None:
        if self.holders is not None and self.owners.get(path) != memory_id:
            before = self.owners.get(path)
            if before:
                self.holders[before].discard(path)
            if memory_id:
                self.holders.setdefault(memory_id, set()).add(path)
            self.owners[path] = memory_id
        self.files.append(FileRow(path, memory_id, stat.size, stat.mtime_ns, sha256, error, error_line))
        if len(self.files) >= _CHUNK:
            self.store.record_files(self.files)
            self.files = []

    def path_of(self, memory_id: str) -> str | None:
        """The file that holds ``memory_id`` (the first by path), as ``Store.path_of``."""
        if self.holders is None:
            self.flush()
            return self.store.path_of(memory_id)
        held = self.holders.get(memory_id)
        return min(held) if held else None

    def upsert(self, filed: FiledMemory) -> None:
        self.memories.append(filed)
        if len(self.memories) >= _CHUNK:
            self.store.upsert_from_files(self.memories)
            self.memories = []

    def flush(self) -> None:
        if self.memories:
            self.store.upsert_from_files(self.memories)
            self.memories = []
        if self.files:
            self.store.record_files(self.files)
            self.files = []


def _index_file(
    ctx: MemoryContext, read: _ReadFile, on_disk: _OnDisk, known: set[str], report: SyncReport,
    writes: _Writes,
) -> str | None:
    """Index one new or changed file; returns the memory id it now holds, if it changed."""
    store = ctx.store
    path, stat, row, sha, memory = read.path, read.stat, read.row, read.sha, read.memory
    holder = writes.path_of(memory.id)
    holder_stat = on_disk.stat(holder) if holder is not None and holder != path else None
    if holder is not None and holder_stat is not None:
        writes.flush()  # what is read back below is written first
        held = store.get_memory(memory.id)
        kept = row.memory_id if row and row.memory_id != memory.id else None
        if held is None or holder_rank(holder, held) < holder_rank(path, memory):
            writes.record_file(path, kept, stat, sha, _duplicate(memory.id, holder), 2)
            return None
        # this file comes first (``holder_rank``), as on a clone that reads both at once
        earlier = on_disk.row(holder)
        writes.record_file(holder, None, holder_stat, earlier.sha256 if earlier else "",
                           _duplicate(memory.id, path), 2)
    if row is not None and row.memory_id and row.memory_id != memory.id:
        writes.flush()
        store.forget_memory(row.memory_id)  # the file's id was edited
        known.discard(row.memory_id)
        report.removed.append(row.memory_id)
    elements = _element_ids(ctx.model, memory.elements)
    if stat.private != memory.private or elements != memory.elements:
        memory = revised(memory, private=stat.private, elements=elements)
    (report.updated if memory.id in known else report.added).append(memory.id)
    known.add(memory.id)
    writes.upsert(_filed(ctx.model, memory))
    writes.record_file(path, memory.id, stat, sha)
    return memory.id


def _duplicate(memory_id: str, other: str) -> str:
    return f"duplicate id {memory_id!r}: {other} holds it too (give one of them a new id)"


def _filed(model: ArchitectureModel, memory: Memory) -> FiledMemory:
    return FiledMemory(
        memory,
        title_key=linkrules.normalize_title(memory.title) if memory.title else None,
        content_hash=content_hash(memory.content),
        **search_fields(model, memory.title, memory.content, memory.elements),
    )


def _element_ids(model: ArchitectureModel, refs: list[str]) -> list[str]:
    """Element ids for what a file names (an id, or a name someone typed); a name the
    model does not know is kept as written, for ``archmem check`` to report."""
    ids: list[str] = []
    for ref in refs:
        try:
            ref = model.find(ref).id
        except ArchmemError:
            pass
        if ref not in ids:
            ids.append(ref)
    return ids


def _resolve_pending(ctx: MemoryContext, targets: LinkTargets, titles: Mapping[str, str]) -> None:
    """Attach pending links whose target a changed file now provides."""
    store = ctx.store
    for target in sorted({link.target_text for link in store.links(pending=True)}):
        found = resolve_link_target(ctx, target, targets, titles)
        if found is not None:
            store.resolve_pending_links(linkrules.normalize_title(target), found[0], found[1])


def _recorded_problems(store: Store) -> list[FileProblem]:
    return [FileProblem(row.path, row.error_line or 1, 1, row.error or "") for row in store.file_problems()]

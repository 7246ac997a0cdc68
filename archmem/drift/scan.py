"""Bring the history cache up to date with HEAD, reading as little git history as possible.

    shallow clone                  → RepositoryError (fetch full history), or deepen first
    no commits                     → empty result
    cache empty / other scope      → full read
    cached head == HEAD            → nothing read
    HEAD among the cached commits  → the newer ones dropped, nothing read (a reset,
                                     an older checkout: HEAD moved back along the line)
    cached head on HEAD's
      first-parent line            → read only cached_head..HEAD
    anything else (amend, rebase,
      force-push, other branch)    → clear and rescan (``rescanned=True``)

"On the first-parent line" is stricter than "an ancestor": a cache written on a
feature branch that was later merged holds commits the first-parent history of HEAD
does not list, so appending to it would mix histories. It is checked for free: the
oldest commit of ``cached_head..HEAD`` must have the cached head as its first parent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from archmem.errors import RepositoryError
from archmem.git.history import SHALLOW_HINT, HistoryReader
from archmem.git.repository import Repository
from archmem.git.types import Commit, HeadState
from archmem.model.paths import compile_globs, has_wildcard, is_negated, normalize_glob
from archmem.store.base import HistoryCache, Store
from archmem.values import Value

CHUNK = 2000
"""Commits per cache transaction: big enough to be fast, small enough not to hold the
write lock for long while memories are being written."""


class CachedCommits(Sequence[Commit]):
    """The cache's commits, read from it only when one is asked for: how many there are
    is known without reading them, and a kept drift index needs no commit at all."""

    def __init__(self, cache: HistoryCache) -> None:
        self._cache = cache
        self._count: int | None = None
        self._commits: list[Commit] | None = None

    def _read(self) -> list[Commit]:
        if self._commits is None:
            self._commits = self._cache.all()
        return self._commits

    def __len__(self) -> int:
        if self._commits is not None:
            return len(self._commits)
        if self._count is None:
            self._count = self._cache.count()
        return self._count

    @overload
    def __getitem__(self, index: int) -> Commit: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Commit]: ...

    def __getitem__(self, index: int | slice) -> Commit | Sequence[Commit]:
        return self._read()[index]

    def __iter__(self) -> Iterator[Commit]:
        return iter(self._read())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a sequence that compares by its items


@dataclass(frozen=True, repr=False, eq=False)
class ScanResult(Value):
    """The whole first-parent history, oldest → newest, and what this scan had to do."""

    commits: Sequence[Commit]
    new: int
    rescanned: bool
    head: str | None = None


PATHSPECS = "history_pathspecs"
"""``store_meta`` row: the last pathspecs worked out and the digest of what they came from."""


def history_pathspecs(
    store: Store, ignore: Sequence[str], element_globs: Sequence[str], anchors: Callable[[], Sequence[str]]
) -> tuple[list[str], list[str]]:
    """(``history_exclusions``, ``history_inclusions``) of these globs and the anchored
    paths, kept in the index under a digest of them: thousands of anchored files went
    through every ignore glob on every command, for an answer that changes when a memory
    anchors a new file or the model or the configuration moves. While no anchor row
    changed (``Store.anchors_generation``) the anchors are not read at all."""
    generation = store.anchors_generation()
    settings = hashlib.sha256(json.dumps([list(ignore), list(element_globs)]).encode(
        "utf-8", "surrogateescape")).hexdigest()
    try:
        kept = json.loads(store.meta(PATHSPECS) or "null")
    except ValueError:
        kept = None
    if isinstance(kept, dict) and generation is not None and kept.get("settings") == settings \
            and kept.get("generation") == generation:
        return list(kept["exclude"]), list(kept["include"])
    paths = anchors()
    made_of = hashlib.sha256(json.dumps([settings, list(paths)]).encode("utf-8", "surrogateescape")).hexdigest()
    if isinstance(kept, dict) and kept.get("of") == made_of:
        exclude, include = list(kept["exclude"]), list(kept["include"])
    else:
        exclude, include = history_exclusions(ignore, paths), history_inclusions(element_globs, paths)
    if not isinstance(kept, dict) or kept.get("of") != made_of or kept.get("generation") != generation:
        store.set_meta(PATHSPECS, json.dumps({"of": made_of, "settings": settings, "generation": generation,
                                              "exclude": exclude, "include": include}))
    return exclude, include


def history_exclusions(ignore: Sequence[str], anchors: Iterable[str]) -> list[str]:
    """The ignore globs git can leave out of the scan: those no anchored file matches (an
    anchor names its file on purpose, ignored or not) and that git reads as archmem does
    (no backslash escapes, nothing that leaves the repository)."""
    files = [anchor.partition("#")[0] for anchor in anchors]
    kept = []
    for glob in dict.fromkeys(ignore):
        try:
            normal = normalize_glob(glob)
        except ValueError:
            continue
        if normal != glob or "\\" in glob:
            continue
        matches = compile_globs([glob])
        if not any(matches(path) for path in files):
            kept.append(glob)
    return kept


def history_inclusions(element_globs: Iterable[str], anchors: Iterable[str]) -> list[str]:
    """What git needs to diff: the elements' globs and the anchored files, as git
    pathspecs; ``[]`` (every file) when a glob would read differently in git (a
    character class, a backslash), matches every file, or none is given. Negated globs
    are not needed: reading more than an element owns is never wrong."""
    specs: set[str] = set()
    for glob in element_globs:
        if is_negated(glob):
            continue
        try:
            normal = normalize_glob(glob)
        except ValueError:
            continue  # the model loader reports it; it owns nothing
        if normal != glob or "\\" in glob or "[" in glob or normal == "**":
            return []
        specs.add(f":(glob){normal}" if has_wildcard(normal) else f":(literal){normal}")
    for anchor in anchors:
        path = anchor.partition("#")[0]
        try:
            specs.add(f":(literal){normalize_glob(path)}")
        except ValueError:
            continue
    return sorted(specs)


def reader_for(repository: Repository, *, exclude: Sequence[str] = (), include: Sequence[str] = ()) -> HistoryReader:
    """The history reader for a repository (git diffs only the ``include`` pathspecs, all
    files when empty, and leaves the ``exclude`` globs out); a plain folder has no history
    to read."""
    if not repository.is_git:
        raise RepositoryError(
            f"{repository.root} is not a git repository: drift needs its history",
            hint="run archmem in a git checkout (or git init and commit)",
        )
    return HistoryReader(repository.root, exclude=exclude, include=include)


Progress = Callable[[int, int], None]
"""(commits read so far, commits this scan reads): for a progress bar with a true total."""


class HistoryNotScanned(RepositoryError):
    """More history is uncached than an agent-facing answer may read inline."""

    def __init__(self, pending: int, budget: int) -> None:
        self.pending, self.budget = pending, budget
        super().__init__(
            f"drift is not computed yet: {pending:,} commits of history are not read (an answer reads at most "
            f"{budget:,} on the way)",
            hint="run `archmem drift` once in the repository (it shows its progress; later scans read only new "
                 "commits)",
        )


def pending_commits(store: Store, reader: HistoryReader, head: str | None = None) -> int:
    """How many commits a scan would read now (cheap: ``git rev-list --count``, no diffs);
    ``head``: HEAD's commit when the caller knows it already."""
    cache = store.history_cache()
    head = head or reader.head()
    if head is None:
        return 0
    cached = cache.head() if reader.served_by(cache.scope()) else None
    if cached == head or (cached is not None and cache.contains(head)):
        return 0
    if cached is not None and reader.is_ancestor(cached, head):
        return reader.count(cached, head)
    return reader.count(None, head)


def scan_history(
    store: Store,
    reader: HistoryReader,
    *,
    deepen: bool = False,
    progress: Progress | None = None,
    budget: int | None = None,
) -> ScanResult:
    """Update the cache on ``store`` from ``reader`` and return the full history.
    ``budget``: refuse (``HistoryNotScanned``) rather than read more commits than that."""
    state = reader.state()
    if budget is not None:
        pending = pending_commits(store, reader, state.head)
        if pending > budget:
            raise HistoryNotScanned(pending, budget)
    if state.shallow:
        if not deepen:
            raise RepositoryError(
                f"{reader.top} is a shallow clone: drift needs the full git history", hint=SHALLOW_HINT
            )
        reader.deepen()
    cache = store.history_cache()
    head = state.head
    discarded = False
    scope = cache.scope()
    if scope != reader.scope and not reader.served_by(scope):
        discarded = cache.count() > 0
        cache.clear(scope=reader.scope)
    elif scope != reader.scope:
        cache.set_meta(scope=reader.scope)  # what every commit holds from now on
    cached = cache.head()
    if head is None:
        if cached is not None:
            cache.clear(scope=reader.scope)
        return ScanResult([], 0, discarded or cached is not None, None)
    if cached == head:
        _remember_branch(cache, state)
        return ScanResult(CachedCommits(cache), 0, discarded, head)
    if cached is not None and cache.truncate(head) is not None:
        _remember_branch(cache, state)
        return ScanResult(CachedCommits(cache), 0, discarded, head)
    if cached is not None:
        new, earlier = _read_after(cache, reader, cached, head, progress)
        if new is not None:
            _remember_branch(cache, state)
            return ScanResult(earlier + new, len(new), discarded, head)
        discarded = True
        cache.clear(scope=reader.scope)
    new = _read_into(cache, reader.read(None, until=head, progress=_with_total(progress, reader, None, head)),
                     follows=None)
    assert new is not None
    _remember_branch(cache, state)
    return ScanResult(new, len(new), discarded, head)


def _read_after(
    cache: HistoryCache, reader: HistoryReader, cached: str, head: str, progress: Progress | None
) -> tuple[list[Commit] | None, list[Commit]]:
    """(the commits after the cached head, now cached; the cached ones) when the cached
    head is on HEAD's first-parent line; (None, []) when it is not, or git no longer has
    it (a rewritten history). The log itself is the test: its first commit must follow
    the cached head, which no separate ``merge-base`` question needs to say."""
    try:
        stream = reader.read(cached, until=head, progress=_with_total(progress, reader, cached, head))
        earlier = cache.all()  # while git computes the new commits' diffs
        return _read_into(cache, stream, follows=cached), earlier
    except RepositoryError:
        return None, []


def _with_total(
    progress: Progress | None, reader: HistoryReader, since: str | None, head: str
) -> Callable[[int], None] | None:
    """The reader's count-only callback, told the total once (``rev-list --count``)."""
    if progress is None:
        return None
    total = reader.count(since, head)
    progress(0, total)
    return lambda done: progress(done, max(total, done))


def _read_into(cache: HistoryCache, commits: Iterator[Commit], *, follows: str | None) -> list[Commit] | None:
    """Stream commits into the cache chunk by chunk; None (nothing written) when the
    first one does not have ``follows`` as its first parent, or there is none after it."""
    read: list[Commit] = []
    chunk: list[Commit] = []
    try:
        for commit in commits:
            if follows is not None and not read and commit.parents[:1] != (follows,):
                return None
            read.append(commit)
            chunk.append(commit)
            if len(chunk) >= CHUNK:
                cache.append(chunk)
                chunk = []
        if follows is not None and not read:
            return None
        cache.append(chunk)
    finally:
        close = getattr(commits, "close", None)
        if close:
            close()
    return read


def _remember_branch(cache: HistoryCache, state: HeadState) -> None:
    """Record the branch the cache was last brought up to date on (for reports)."""
    branch = state.branch or "(detached HEAD)"
    if cache.meta().get("branch") != branch:
        cache.set_meta(branch=branch)

"""One repository's drift, computed lazily: history scan, index, sizes, and when the
model last described each element. ``Workspace.drift`` hands this out; recall asks
it for VERIFY reasons and ``archmem drift`` for the report.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from archmem.clock import format_time
from archmem.drift.baselines import is_mapping_only, mapping_only_commits
from archmem.drift.changes import (
    MAX_DIFF_LINES,
    MAX_STAT_LINES,
    ChangesSince,
    changes_since,
)
from archmem.drift.context import DriftContext, HistoryReading
from archmem.drift.head_cache import FilePlaces, HeadCache
from archmem.drift.index import DriftIndex
from archmem.drift.scan import (
    ScanResult,
    history_pathspecs,
    reader_for,
    scan_history,
)
from archmem.drift.staleness import Staleness, StalenessChecker
from archmem.drift.symbols import Hunk
from archmem.drift.types import Baseline, ElementSize, ElementSizes
from archmem.errors import RepositoryError
from archmem.git.revisions import Revisions
from archmem.git.types import BlamedCommit
from archmem.memory.types import Memory
from archmem.model.description_lines import described_text, mapping_lines

if TYPE_CHECKING:  # a report, blame and the accepts' reader are imported where they are used: a recall
    # needs none of them (the accepts' reader only when the accept folder holds a file)
    from archmem.drift.accepts import Accept, AcceptFiles, AcceptProblem
    from archmem.drift.report import DriftReport
    from archmem.git.blame import LineHistory


class DriftView:
    """One repository's drift, each part computed when first asked and kept."""

    def __init__(self, context: DriftContext, reading: HistoryReading | None = None) -> None:
        self.context = context
        self.reading = reading or HistoryReading()
        self.thresholds = context.thresholds
        self._hunks: dict[tuple[str, str], list[Hunk]] = {}
        self._memory_paths: dict[str, str | None] = {}
        self._history_scope: str | None = None

    @cached_property
    def _anchor_paths(self) -> list[str]:
        return self.context.store.anchor_paths()

    @cached_property
    def scan(self) -> ScanResult:
        model = self.context.model
        exclude, include = history_pathspecs(self.context.store, self.thresholds.ignore,
                                             [g for e in model.elements for g in model.effective_paths(e.id)],
                                             lambda: self._anchor_paths)
        reading = self.reading
        reader = reader_for(self.context.repository, exclude=exclude, include=include)
        self._history_scope = reader.scope  # what the cache holds after the scan: part of the kept index's key
        return scan_history(self.context.store, reader, deepen=reading.deepen, progress=reading.progress,
                            budget=reading.budget)

    @cached_property
    def index(self) -> DriftIndex:
        """The drift index of this history: kept beside the store under a digest of what
        it is built from (``index_cache``), built from the commits when it is not."""
        from archmem.drift import index_cache

        paths = {e.id: self.context.model.effective_paths(e.id) for e in self.context.model.elements}
        ignore, generated = self.thresholds.ignore, self.context.ownership.generated.keys()
        kept_at, scan = self.context.index_file, self.scan
        key = None
        if kept_at is not None and scan.head is not None:
            key = index_cache.index_key(
                head=scan.head, commits=len(scan.commits), scope=self._history_scope,
                element_paths=paths, ignore=ignore, ignore_files=generated,
            )
            kept = DriftIndex.from_data(index_cache.load(kept_at, key), paths, ignore=ignore, ignore_files=generated)
            if kept is not None:
                return kept
        built = DriftIndex.build(scan.commits, paths, ignore=ignore, ignore_files=generated)
        if key is not None and kept_at is not None:
            index_cache.save(kept_at, key, built.to_data())
        return built

    @cached_property
    def sizes(self) -> ElementSizes:
        """Each element's files and lines, counted when first asked for."""
        return ElementSizes([e.id for e in self.context.model.elements], self._size_of)

    def _size_of(self, element_id: str) -> ElementSize:
        size = self.context.ownership.size(element_id)
        return ElementSize(size.files, size.lines)

    @cached_property
    def missing(self) -> set[str]:
        return {
            e.id for e in self.context.model.elements
            if self.context.model.effective_paths(e.id) and not self.context.ownership.files.get(e.id)
        }

    @cached_property
    def described(self) -> dict[str, Baseline | None]:
        """Where the model last described each element: the newest first-parent commit
        among the lines of its block (one ``git blame --first-parent`` per model file, so a
        description merged from a branch holds from its merge), or a recorded accept when
        that is later. Newest by place in history, not by date; an uncommitted block
        describes the code as it is now (HEAD). An accept is placed by its commit
        (``archmem.drift.accepts``). Mapping the element to code is not describing it
        (``archmem.drift.baselines``)."""
        index = self.index
        since = dict(self._model_described)
        for element, accept in self.accepted().items():
            baseline = since.get(element)
            if element in since and (baseline is None or index.position(accept) >= index.position(baseline)):
                since[element] = accept
        return since

    @cached_property
    def _model_described(self) -> dict[str, Baseline | None]:
        """Where the model file alone last described each element (``described`` before
        the accepts)."""
        now = self.context.clock()
        index = self.index
        head = Baseline(self.scan.head, now)
        blames: dict[str, tuple[list[BlamedCommit | None] | None, set[int]]] = {}
        since: dict[str, Baseline | None] = {}
        for element in self.context.model.elements:
            baseline: Baseline | None = None
            location = element.location
            if location is not None:
                if location.file not in blames:
                    blames[location.file] = self._blame(Path(location.file))
                commits, mapping = blames[location.file]
                if commits is None:
                    baseline = head  # an uncommitted model describes the code as it is now
                else:
                    numbers = range(location.line, (location.end_line or location.line) + 1)
                    block = [commits[n - 1] for n in numbers if n <= len(commits) and n not in mapping]
                    if not block:  # nothing but mapping lines: the block as a whole
                        block = [commits[n - 1] for n in numbers if n <= len(commits)]
                    lines = [Baseline(c.sha, c.time) if c else head for c in block]
                    baseline = max(lines, key=index.position, default=None)
            since[element.id] = baseline
        return since

    def _blame(self, path: Path) -> tuple[list[BlamedCommit | None] | None, set[int]]:
        """Per line of a model file, the commit that last *described* it, and the numbers
        of the lines that never count (``archmem.*`` properties and what holds only them,
        and lines only a mapping-only commit wrote); kept per HEAD and file content."""
        if not self.context.repository.is_git:
            return None, set()
        try:
            content = path.read_bytes()
        except OSError:
            return self._blame_now(path)
        found = self.head_cache.blame(str(path), content, lambda: self._blame_now(path))
        self.head_cache.save()
        return found

    def _blame_now(self, path: Path) -> tuple[list[BlamedCommit | None] | None, set[int]]:
        skip = mapping_only_commits(self.lines.patches(path))
        commits = self.lines.blame(path, ignore=skip)
        if commits is None:
            return None, set()
        try:
            text = path.read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            text = []
        ignored = set(skip)
        mapping = mapping_lines(text)
        mapping.update(n for n, commit in enumerate(commits, 1) if commit is not None and commit.sha in ignored)
        if None in commits:
            commits = self._uncommitted_mapping(path, text, commits, skip, mapping)
        return commits, mapping

    def _uncommitted_mapping(
        self, path: Path, text: list[str], commits: list[BlamedCommit | None], skip: list[str], mapping: set[int]
    ) -> list[BlamedCommit | None]:
        """Lines not committed yet describe the code as it is now, unless the working
        tree only maps elements (archmem.* lines added, a ``{`` opened): then each such
        line keeps the commit of the line it was in HEAD, and added lines do not count."""
        committed = self.lines.committed_text(path)
        if committed is None:
            return commits
        before = committed.split("\n")
        if not is_mapping_only(before, text):
            return commits
        blamed = self.lines.blame(path, ignore=skip, revision="HEAD") or []
        places: dict[str, list[int]] = {}
        for number, line in enumerate(before):
            places.setdefault(described_text(line), []).append(number)
        found = list(commits)
        for number, commit in enumerate(commits):
            if commit is not None:
                continue
            key = described_text(text[number]) if number < len(text) else ""
            if not key:
                mapping.add(number + 1)  # a brace, a blank or an archmem line it added
            elif places.get(key):
                was = places[key].pop(0)
                found[number] = blamed[was] if was < len(blamed) else None
        return found

    @cached_property
    def has_accept_files(self) -> bool:
        """Whether the accept folder holds a file: without one, the accepts' reader is not loaded."""
        return self.context.accept_folder is not None and bool(self.context.accept_folder.files())

    @cached_property
    def accept_files(self) -> AcceptFiles:
        """The accept files, read once; their elements resolved against the model."""
        from archmem.drift.accepts import AcceptFiles, read_accepts

        if self.context.accept_folder is None:
            return AcceptFiles()
        return read_accepts(self.context.accept_folder, self.context.model)

    @cached_property
    def accept_problems(self) -> list[AcceptProblem]:
        """Accept files that could not count, and accepts placed by their time because
        their commit is not in this clone's history (filled as accepts are placed)."""
        return list(self.accept_files.problems)

    def accepted(self) -> dict[str, Baseline]:
        """Each accepted element's baseline: of its accepts, the newest by place in
        history (then by time)."""
        return self._accepted

    @cached_property
    def _placed(self) -> list[tuple[Accept, Baseline]]:
        """Each accept that counts and where it counts from, placed once (placing one
        may add a problem)."""
        if not self.has_accept_files:
            return []
        return [(accept, self._place(accept)) for accept in self.accept_files.accepts]

    @cached_property
    def _accepted(self) -> dict[str, Baseline]:
        newest: dict[str, Baseline] = {}
        for accept, baseline in self._placed:
            held = newest.get(accept.element)
            if held is None or (self.index.position(baseline), baseline.time) >= (
                    self.index.position(held), held.time):
                newest[accept.element] = baseline
        return newest

    def _place(self, accept: Accept) -> Baseline:
        """Where an accept counts from (``archmem.drift.accepts``): its commit when it is
        on HEAD's first-parent line, the commit of the line that brought it (a merge)
        when it was made on a branch, else its time, with a warning; and after the
        commit that brought the accept file, when that commit also changed the element's
        code (a squash merge, or code committed together with the accept)."""
        baseline, missing = self._place_by_commit(accept)
        index = self.index
        places = self._accept_file_commits
        brought = places.get(accept.path or "") if places is not None else None
        if brought is not None and brought >= index.position(baseline) and index.commit_touches(
                brought, [accept.element], []):
            return Baseline(index.shas[brought], accept.accepted_at)
        if missing is not None:
            assert accept.commit is not None
            from archmem.drift.accepts import AcceptProblem

            self.accept_problems.append(AcceptProblem(
                accept.path or "accept", accept.line_of("commit"), 1,
                f"the accept of {accept.element} names commit {accept.commit[:12]}, but {missing} (a shallow clone, "
                f"or a commit rebased away): it counts from its time, {format_time(accept.accepted_at)}",
                "warning", "commit-not-found",
            ))
        return baseline

    def _place_by_commit(self, accept: Accept) -> tuple[Baseline, str | None]:
        """The baseline an accept's commit gives, and why it could not give one (then the
        baseline is the accept's time)."""
        by_time = Baseline(None, accept.accepted_at)
        if accept.commit is None or self.scan.head is None:
            return by_time, None
        index, commit = self.index, accept.commit
        if index.ordinal(commit) is None and len(commit) < 40:  # abbreviated by hand
            try:
                commit = self.revisions.resolve(commit)
            except RepositoryError:
                pass
        if index.ordinal(commit) is not None:
            return Baseline(commit, accept.accepted_at), None
        descendants = self.revisions.descendants(commit, self.scan.head)
        if descendants:
            from archmem.drift.accepts import first_on_line

            found = first_on_line(index.shas, descendants)
            if found is not None:
                return Baseline(index.shas[found], accept.accepted_at), None
        return by_time, "this clone does not have it" if descendants is None else "it is not in the history of HEAD"

    @cached_property
    def _accept_file_commits(self) -> FilePlaces | None:
        """Committed accept file → the place in history of the commit that last changed it."""
        if self.context.accept_folder is None or self.scan.head is None or not self.accept_files.accepts:
            return None
        found = FilePlaces(self.head_cache.last_commits(self.context.accept_folder.folder, self.revisions),
                           self.index.ordinal)
        self.head_cache.save()
        return found

    def report(self, *, since: Mapping[str, Baseline | None] | None = None, reasons: bool = True) -> DriftReport:
        """Each element's drift and the memories to VERIFY with their reasons; without
        ``reasons``, only which ones (``verify_ids``), from what their staleness depends on
        (``stale_ids``): what ``status`` and the map need, at any size."""
        from archmem.drift.report import DriftReport, element_drift

        if self.scan.head is None:  # no commits: every element would read as missing or in sync
            return DriftReport.without_history()
        from archmem.model.external import external_elements

        elements = element_drift(
            self.context.model, self.index, sizes=self.sizes, since=since or self.described,
            missing=self.missing, thresholds=self.thresholds, external=external_elements(self.context.model),
        )
        warnings = [] if since else self.accept_warnings()
        if not reasons:
            documented = self.context.store.documented_elements(e.id for e in self.context.model.elements)
            return DriftReport(
                elements=elements, verify_ids=self.stale_ids(), documented=len(documented),
                commits=len(self.scan.commits), warnings=warnings,
            )
        # by when they were written, not by the index's own order: a fresh clone indexes
        # the files in name order, and its report must read as the working clone's does
        memories = sorted(self.context.store.list_memories(status="active"), key=lambda m: (m.created_at, m.id))
        stale = self.stale(memories)
        documented = {e for m in memories for e in m.elements}
        return DriftReport(
            elements=elements,
            stale=[(m, stale[m.id]) for m in memories if m.id in stale],
            documented=sum(1 for e in self.context.model.elements if e.id in documented),
            commits=len(self.scan.commits),
            warnings=warnings,
        )

    def stale_ids(self) -> list[str]:
        """The active memories to VERIFY, without their reasons (``StalenessChecker.stale_ids``),
        kept in the index while nothing they depend on moved (``drift/verify_cache.py``)."""
        from archmem.drift import verify_cache

        digest = self._verdict_digest()
        found = verify_cache.kept_ids(self.context.store, digest) if digest is not None else None
        if found is None:
            places = self._memory_file_commits
            found = self.checker.stale_ids(self.context.store.memory_scopes(), places.every() if places else {})
            if digest is not None:
                verify_cache.keep_ids(self.context.store, digest, found)
        self.head_cache.save()
        return found

    def _verdict_digest(self) -> str | None:
        """What the VERIFY verdicts depend on, in one digest (None: the memories' rows have
        no signature to vouch for them)."""
        from dataclasses import asdict

        from archmem.drift.verify_cache import verdict_digest

        context = self.context
        if context.files_signature is None or self.scan.head is None:
            return None
        model, index = context.model, self.index
        return verdict_digest(
            files_signature=context.files_signature, head=self.scan.head, commits=len(self.scan.commits),
            settings=repr(asdict(self.thresholds)),
            element_paths={e.id: model.effective_paths(e.id) for e in model.elements},
            sizes={element: self.sizes[element] for element in self.sizes}, missing=self.missing,
            generated=context.ownership.generated, root=context.repository.root,
            anchored=[path for path in self._anchor_paths if index.activity(path, 0).commits],
        )

    def accept_warnings(self) -> list[str]:
        """The accept problems, one line each (after ``described`` placed the accepts)."""
        if not self.has_accept_files:
            return []
        from archmem.drift.accepts import AcceptFiles

        return AcceptFiles(problems=self.accept_problems).warnings()

    @cached_property
    def checker(self) -> StalenessChecker:
        return StalenessChecker(
            index=self.index, model=self.context.model, sizes=self.sizes, thresholds=self.thresholds,
            now=self.context.clock(),
            anchor_hunks=self._anchor_hunks, file_text=self._file_text, missing=self.missing,
            memory_commit=self._memory_commit,
        )

    @cached_property
    def _memory_file_commits(self) -> FilePlaces | None:
        """Committed memory file → the index in history of the commit that last changed
        it (asked of git: the history cache keeps no change to archmem's own files)."""
        if self.context.memory_folder is None or self.scan.head is None:
            return None
        return FilePlaces(self.head_cache.last_commits(self.context.memory_folder, self.revisions),
                          self.index.ordinal)

    def _memory_commit(self, memory: Memory) -> int | None:
        if not self._memory_file_commits:
            return None
        if memory.id not in self._memory_paths:
            self._memory_paths[memory.id] = self.context.store.path_of(memory.id)
        path = self._memory_paths[memory.id]
        return self._memory_file_commits.get(path) if path and self._memory_file_commits else None

    def _read_memory_paths(self, memories: Sequence[Memory]) -> None:
        """The files of many memories in one query, before their staleness is asked one
        by one (a query per memory was most of a recall's and a status's statements)."""
        if not self._memory_file_commits:
            return
        wanted = [m.id for m in memories if m.id not in self._memory_paths]
        if wanted:
            found = self.context.store.paths_of(wanted)
            self._memory_paths.update({memory_id: found.get(memory_id) for memory_id in wanted})

    def stale(self, memories: list[Memory]) -> dict[str, Staleness]:
        self._read_memory_paths(memories)
        found = self.checker.stale(memories)
        self.head_cache.save()
        return found

    def verify_reason(self, memory: Memory) -> str | None:
        found = self.checker.reason(memory)
        self.head_cache.save()
        return found

    def verify_reasons(self, memories: Sequence[Memory]) -> dict[str, str | None]:
        """{memory id: its VERIFY reason, or None} for many memories, their files read at once."""
        self._read_memory_paths(memories)
        found = {memory.id: self.checker.reason(memory) for memory in memories}
        self.head_cache.save()
        return found

    def _anchor_hunks(self, path: str, base: str) -> list[Hunk]:
        key = (path, base)
        if key not in self._hunks:
            self._hunks[key] = self.head_cache.anchor_hunks(path, base, self.revisions)
        return self._hunks[key]

    @cached_property
    def head_cache(self) -> HeadCache:
        return HeadCache(self.context.store, self.scan.head)

    def _file_text(self, path: str) -> str | None:
        try:
            return (self.context.repository.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    @cached_property
    def revisions(self) -> Revisions:
        return Revisions(self.context.repository.root)

    @cached_property
    def lines(self) -> LineHistory:
        """The model files' line histories (blame), in a git checkout."""
        from archmem.git.blame import LineHistory

        return LineHistory(self.context.repository.root)

    def _base(self, since: Baseline | datetime | None) -> str | None:
        """The last first-parent commit at or before ``since`` (None: before the history)."""
        position = self.index.position(since)
        return self.index.shas[position - 1] if position else None

    def memory_changes(
        self, memory: Memory, max_stat: int = MAX_STAT_LINES, max_diff: int = MAX_DIFF_LINES
    ) -> ChangesSince | None:
        """What changed under a memory's elements and anchors since it was last confirmed
        (None without commits)."""
        head = self.scan.head
        if head is None:
            return None
        position = self.checker.position(memory)
        return changes_since(
            self.revisions, since=memory.last_confirmed, base=self.index.shas[position - 1] if position else None,
            head=head, owners=self.index.owners,
            elements=memory.elements, anchors=memory.anchors, max_stat=max_stat, max_diff=max_diff,
        )

    def element_changes(
        self, element_id: str, max_stat: int = MAX_STAT_LINES, max_diff: int = MAX_DIFF_LINES
    ) -> ChangesSince | None:
        """What changed in an element's code since the model last described it (or it
        was last accepted); None without commits."""
        head = self.scan.head
        if head is None:
            return None
        baseline = self.described.get(element_id)
        since = baseline.time if baseline is not None else self.scan.commits[0].time
        return changes_since(
            self.revisions, since=since, base=self._base(baseline) if baseline is not None else None, head=head,
            owners=self.index.owners, elements=[element_id], max_stat=max_stat, max_diff=max_diff,
        )

    def accept_changes(
        self, path: str, *, without: Collection[str] = (), max_stat: int = MAX_STAT_LINES,
        max_diff: int = MAX_DIFF_LINES,
    ) -> ChangesSince | None:
        """What the accept in file ``path`` vouches for: its element's code from the
        baseline the element has without the accept files ``without`` (those a pull
        request brings: its previous baseline) to where the accept counts from. None
        when that file holds no accept that counts, there is no history, or the accept
        moves the baseline nowhere."""
        found = next(((accept, placed) for accept, placed in self._placed if accept.path == path), None)
        if found is None or self.scan.head is None:
            return None
        accept, placed = found
        index = self.index
        previous = self._model_described.get(accept.element)
        for other, baseline in self._placed:
            if (other.element == accept.element and other.path not in without and other.path != path
                    and (previous is None or index.position(baseline) >= index.position(previous))):
                previous = baseline
        end = self._base(placed)
        if end is None or (previous is not None and index.position(previous) >= index.position(placed)):
            return None
        return changes_since(
            self.revisions, since=previous.time if previous is not None else self.scan.commits[0].time,
            base=self._base(previous), head=end, owners=self.index.owners, elements=[accept.element],
            max_stat=max_stat, max_diff=max_diff,
        )

    def accept(self, element_id: str, *, reason: str | None, author: str | None) -> Accept:
        """Record, as a file, that the model's description of an element holds for the
        code at HEAD (a repository without commits: as of now)."""
        if self.context.accept_folder is None:
            raise RepositoryError("there is no folder for accept files here")
        from archmem.drift.accepts import Accept, write_accept

        commit = self.revisions.head() if self.context.repository.is_git else None
        accept = Accept(element_id, self.context.clock(), commit=commit, author=author, reason=reason)
        return replace(accept, path=write_accept(self.context.accept_folder, accept))

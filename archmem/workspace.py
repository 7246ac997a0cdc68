"""``Workspace``: the one façade every interface (CLI, MCP, Action) calls.

It owns the repository, the configuration, the clock and the store, reads the model
and drift lazily and keeps them until ``refresh()``, and returns plain values; it
prints nothing. Each method is a thin call into the domain.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from archmem.clock import Clock, format_time, system_clock
from archmem.config import Config, DriftConfig, load_config
from archmem.errors import (
    ConfigError,
    InvalidInputError,
    ModelNotFoundError,
    RepositoryError,
)
from archmem.model.loader import discover_model, load_model
from archmem.model.ownership import Ownership, compute_ownership
from archmem.model.types import ArchitectureModel
from archmem.repo import Repository

if TYPE_CHECKING:
    from archmem.conformance.types import ConformanceReport
    from archmem.drift.changes import ChangesSince
    from archmem.drift.report import DriftReport
    from archmem.drift.types import Baseline
    from archmem.drift.view import DriftView
    from archmem.embeddings import BackfillReport, Embedder
    from archmem.initialize import InitResult
    from archmem.memory.check import CheckReport
    from archmem.memory.lifecycle import Embedding, MemoryContext, RememberResult
    from archmem.memory.review import ReviewQueue
    from archmem.memory.sessions import SessionEnd
    from archmem.memory.transfer import ImportReport
    from archmem.memory.types import Memory, Session
    from archmem.recall.elements import ElementIndex
    from archmem.recall.engine import RecallResult
    from archmem.recall.semantic import VectorIndex
    from archmem.render.briefing import Briefing
    from archmem.render.knowledge_map import KnowledgeMap
    from archmem.review.publish import Published
    from archmem.review.pull_request import PullRequestReview
    from archmem.memory.sync import SyncReport
    from archmem.onboarding.suggest import PathSuggestions
    from archmem.store.files import MemoryFolder
    from archmem.store.sqlite import SQLiteStore

class Workspace:
    """A repository with its architecture model, its memory store and its history."""

    def __init__(
        self,
        repository: Repository,
        *,
        config: Config | None = None,
        model_path: Path | None = None,
        clock: Clock = system_clock,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.repository = repository
        self.env = dict(os.environ if env is None else env)
        self.config = config if config is not None else load_config(repository.root, self.env)
        self._model_path = model_path
        self.clock = clock

    @classmethod
    def open(
        cls,
        repo: Path | str | None = None,
        *,
        model: Path | str | None = None,
        clock: Clock = system_clock,
        env: Mapping[str, str] | None = None,
    ) -> Workspace:
        """The workspace for ``repo`` (default: the git top level of the current folder)."""
        repository = (
            Repository.at(Path(repo), exact=True) if repo is not None else Repository.at(Path.cwd())
        )
        model_path = Path(model).resolve() if model is not None else None
        return cls(repository, model_path=model_path, clock=clock, env=env)

    @property
    def root(self) -> Path:
        return self.repository.root

    # ---- the model ---------------------------------------------------------------

    @cached_property
    def model_path(self) -> Path:
        if self._model_path is not None:
            if not self._model_path.is_file():
                raise ModelNotFoundError(f"model file not found: {self._model_path}")
            return self._model_path
        return discover_model(self.root, self.config.model)

    @cached_property
    def model(self) -> ArchitectureModel:
        """The model file's elements, each owning its own globs and those the config's
        ``[paths]`` table gives it (the union)."""
        from archmem.model.paths import add_configured_paths

        model = load_model(self.model_path, self.root, exists=self.repository.exists, env=self.env)
        return add_configured_paths(model, self.config.paths, source=self.config.source)

    @cached_property
    def ownership(self) -> Ownership:
        """Which files each element owns now; generated and vendored code is nobody's."""
        return compute_ownership(
            self.model, self.repository.files(), self.repository.lines, ignore=self.config.code.ignore,
            generated=self.generated,
        )

    @cached_property
    def generated(self) -> dict[str, str]:
        """Generated and vendored files now (path → why): named so, marked in
        .gitattributes, or carrying a generator's header. Headers are remembered per blob
        in the store when it is open."""
        from archmem.model.generated import HEAD_BYTES, HeaderCache, generated_files

        files = self.repository.files()
        cache = HeaderCache(self.__dict__.get("store"))
        blobs = self.repository.blob_ids()
        found = generated_files(
            files, attributes=self.repository.linguist(files), blob_of=blobs,
            read_head=lambda path: self.repository.read_head(path, HEAD_BYTES), cache=cache.known,
        )
        cache.save(keep=set(blobs.values()))
        return found

    def ownership_warnings(self) -> list[str]:
        """Sibling elements whose code overlaps and globs that match nothing, each at
        the element's line in the model file."""
        from archmem.model.ownership import ownership_warnings

        lines = []
        for warning in ownership_warnings(self.model, self.ownership):
            element = self.model.get(warning.element)
            where = element.location if element is not None else None
            prefix = f"{self._display(Path(where.file))}:{where.line}: " if where is not None else ""
            lines.append(prefix + warning.message)
        return lines

    def model_summary(self) -> dict[str, Any]:
        """The model as data: elements (with the size of their code now), relationships,
        decisions, and the code that no element owns."""
        from archmem.model.summary import model_summary

        summary = model_summary(
            self.model, self.ownership, model_file=self._display(self.model_path), git=self.repository.is_git
        )
        summary["ownership_warnings"] = self.ownership_warnings()
        summary["warnings"] = [*summary["warnings"], *summary["ownership_warnings"]]
        summary["generated"] = len(self.ownership.generated)
        return summary

    @property
    def model_warnings(self) -> list[str]:
        """What reading the model warned about (a decision record skipped, a construct
        ignored), once the model has been read; nothing before."""
        model = self.__dict__.get("model")
        return list(model.warnings) if model is not None else []

    @property
    def loaded_model_path(self) -> Path | None:
        """The model file read so far (None before the model is read, or without one)."""
        return self.__dict__.get("model_path")

    def refresh(self) -> None:
        """Forget what was read from the repository (model, ownership, files, drift) so
        the next call reads it again; the store stays open. For long-running processes
        (``archmem mcp``) after the model file or git HEAD changed."""
        from archmem.repo import find_root

        for name in ("model_path", "model", "ownership", "generated", "model_or_empty", "element_index", "drift",
                     "_conformance"):
            self.__dict__.pop(name, None)
        self._recall_warnings = ()
        self.history_unread = 0
        self.repository = Repository(root=self.root, is_git=find_root(self.root)[1])

    def _display(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)

    def suggest_paths(self, elements: Sequence[str] = (), *, write: bool = False) -> PathSuggestions:
        """Where the code of each element that owns none probably is (``archmem paths
        suggest``); with ``write``, the suggested globs go to the ``[paths]`` table of
        archmem.toml (the model file is never edited) and the model is read again."""
        from archmem.config import CONFIG_FILE
        from archmem.model.paths import compile_globs
        from archmem.onboarding.suggest import suggest_paths
        from archmem.onboarding.table import write_paths

        ignored = compile_globs([*self.config.code.ignore, *self._drift_config.ignore])
        generated = self.generated
        result = suggest_paths(
            self.model, self.repository.files(), read=self.repository.read_small, elements=elements,
            skip=lambda path: path in generated or ignored(path), change_sets=self.repository.recent_changes(),
        )
        if write and result.suggestions:
            target = self.root / CONFIG_FILE
            write_paths(target, {s.element: s.paths for s in result.suggestions})
            result.written = self._display(target)
            self.config = load_config(self.root, self.env)
            self.refresh()
        return result

    # ---- the memory store --------------------------------------------------------

    @property
    def store_path(self) -> Path:
        path = Path(self.config.store.path)
        return path if path.is_absolute() else self.root / path

    @cached_property
    def memory_folder(self) -> MemoryFolder:
        """The committed folder of memory files and the git-ignored private one."""
        from archmem.memory.file_format import file_name, render_memory
        from archmem.store.files import MemoryFolder

        return MemoryFolder(
            root=self.root, shared=Path(self.config.store.memories), private=Path(self.config.store.private_memories),
            render=render_memory, name=file_name,
        )

    @cached_property
    def store(self) -> SQLiteStore:
        """The local index, brought up to date with the memory files on open.

        Reading never leaves anything ``git status`` would show, and never creates
        ``.archmem/`` (a repository that never asked for archmem stays untouched, also
        when an agent's start-up hook or ``archmem mcp`` runs in it). So the index is:

        - the file at ``[store] path`` when it exists, or when a write is coming
          (``remember``, ``confirm``, ``session start``, ``import``, … create it);
        - built there by a read too when its folder already exists and is archmem's own
          ``.archmem/`` (the team committed memories, or someone ran ``init``): the index
          is derived and git-ignored (``.archmem/.gitignore`` ignores it, and itself), so
          ``git status`` stays clean, and keeping it spares every later command the parse
          of every memory file and the history scan; a store path outside the
          repository whose folder exists is kept for the same reason;
        - otherwise an index in memory, built from whatever memory files there are and
          gone at ``close``: drift then reads the history into memory each time.
        """
        from archmem.store import open_store
        from archmem.store.connection import IN_MEMORY

        persistent = self._writing or self.reads_keep_index()
        if persistent:
            from archmem.initialize import ignore_local_state

            state = self.root / ".archmem"
            if self._writing and self.store_path.parent == state:
                state.mkdir(exist_ok=True)
            ignore_local_state(state)  # before the index exists: git never sees it untracked
        store = open_store(
            self.store_path if persistent else Path(IN_MEMORY), busy_timeout_ms=self.config.store.busy_timeout_ms,
            now=format_time(self.clock()), folder=self.memory_folder,
        )
        try:
            self.last_sync = self._sync(store)
        except BaseException:
            store.close()
            raise
        return store

    _writing = False

    def reads_keep_index(self) -> bool:
        """Whether a read opens (or builds) the index file rather than one in memory:
        see ``store``."""
        path = self.store_path
        if path.exists():
            return True
        if not path.parent.is_dir():
            return False
        if path.parent == self.root / ".archmem":
            return True
        try:
            path.resolve().relative_to(self.root.resolve())
        except ValueError:
            return True  # outside the repository: git never sees it
        return False

    @property
    def index_in_memory(self) -> bool:
        """Whether the open index lives in memory only (see ``store``)."""
        store = self.__dict__.get("store")
        return store is not None and store.in_memory

    def _for_writing(self) -> None:
        """A write is coming: it needs the index file (created with ``.archmem/`` if
        need be), so an index held in memory is closed, with what was built on it."""
        self._writing = True
        if self.index_in_memory:
            self._drop_store()

    @property
    def set_up(self) -> bool:
        """Whether archmem has anything to go on here: a config, a model, a memory file
        or an index. A reading command where there is none says what to do instead of
        answering from nothing (and creates nothing)."""
        from archmem.config import CONFIG_FILE

        if self._model_path is not None or self.config.model or (self.root / CONFIG_FILE).exists():
            return True
        if self.store_path.exists() or self.memory_folder.scan():
            return True
        self.model_or_empty  # noqa: B018  (read once, kept: a long-running server asks often)
        return "model_path" in self.__dict__

    def sync_files(self) -> SyncReport:
        """Index what changed in the memory files (a pull, a hand edit) since the last look;
        an index held in memory gives way to the index file once another process made one."""
        if self.index_in_memory and self.reads_keep_index():
            self._drop_store()
        self.last_sync = self._sync(self.store)
        return self.last_sync

    def _drop_store(self) -> None:
        self.close()
        for name in ("drift", "vector_index"):
            self.__dict__.pop(name, None)

    def _sync(self, store: SQLiteStore) -> SyncReport:
        from archmem.memory.sync import sync_from_files

        return sync_from_files(store, self.memory_folder, lambda: self.model_or_empty)

    last_sync: SyncReport | None = None

    @property
    def file_warnings(self) -> list[str]:
        """Memory files that could not be read, one line each (every command prints them)."""
        return self.last_sync.warnings() if self.last_sync is not None else []

    def check(self) -> CheckReport:
        """Every problem in the memory files (``archmem check``), read from the files
        themselves: no index is opened or written, so it runs on a fresh clone in CI."""
        from archmem.memory.check import MemoryFileText, check_memory_files

        folder = self.memory_folder
        files = []
        for rel, stat in folder.scan().items():
            try:
                files.append(MemoryFileText(rel, folder.read(rel), stat.private))
            except OSError as exc:
                files.append(MemoryFileText(rel, None, stat.private, exc.strerror or str(exc)))
        try:
            model, found = self.model, True
        except ModelNotFoundError:
            model, found = ArchitectureModel(), False
        return check_memory_files(files, model, model_found=found)

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()
            del self.__dict__["store"]

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @cached_property
    def model_or_empty(self) -> ArchitectureModel:
        """The model, or an empty one when the repository has none yet (memories can
        still be project-wide); a model that fails to parse is still an error."""
        try:
            return self.model
        except ModelNotFoundError:
            return ArchitectureModel()

    @property
    def memory_context(self) -> MemoryContext:
        from archmem.memory.lifecycle import MemoryContext

        return MemoryContext(
            store=self.store, model=self.model_or_empty, clock=self.clock, exists=self.repository.exists
        )

    def remember(
        self,
        content: str,
        *,
        kind: str,
        title: str | None = None,
        elements: Sequence[str] = (),
        anchors: Sequence[str] = (),
        supersedes: str | None = None,
        author: str | None = None,
        session_id: str | None = None,
        private: bool | None = None,
    ) -> RememberResult:
        """Remember a memory; ``private`` (default: ``[store] private_by_default``) keeps
        it in the git-ignored folder. Without an author or a session, this clone's git
        user signs it (``cli/<name>``)."""
        from archmem.memory.lifecycle import remember

        self._for_writing()
        if not author and session_id is None:
            author = self.author_for("cli")
        result = remember(
            self.memory_context, content, kind=kind, title=title, elements=elements, anchors=anchors,
            supersedes=supersedes, author=author, session_id=session_id, embed=self._embedder_for_writes(),
            private=self.config.store.private_by_default if private is None else private,
        )
        result.path = self.store.path_of(result.id)
        result.private = result.path is not None and self.memory_folder.is_private(result.path)
        return result

    def supersede(
        self,
        ref: str,
        content: str,
        *,
        kind: str | None = None,
        title: str | None = None,
        elements: Sequence[str] | None = None,
        anchors: Sequence[str] | None = None,
        author: str | None = None,
        session_id: str | None = None,
    ) -> RememberResult:
        """Remember ``content`` as the successor of the memory ``ref`` (id or title): its
        kind, title, elements, anchors and folder carry over unless given. The old one
        leaves recall and stays in its history."""
        old = self.get_memory(ref)
        return self.remember(
            content, kind=kind or old.kind, title=old.title if title is None else title,
            elements=old.elements if elements is None else elements,
            anchors=old.anchors if anchors is None else anchors, supersedes=old.id, author=author,
            session_id=session_id, private=old.private,
        )

    def author_for(self, client: str | None) -> str | None:
        """``client/name`` with this clone's git user as the name (``claude-code`` →
        ``claude-code/sarah``); a signature that already names someone stays as it is."""
        if client and "/" in client:
            return client
        user = self.repository.user_name()  # asked each time: a long-running server sees a change
        if user is None:
            return client
        return f"{client or 'cli'}/{'-'.join(str(user).split())}"

    def _embedder_for_writes(self) -> Callable[[str], Embedding] | None:
        """Text → ``Embedding`` with the configured provider, or None without one."""
        index = self.vector_index
        if index is None:
            return None
        from archmem.embeddings import text_hash
        from archmem.memory.lifecycle import Embedding

        return lambda text: Embedding(index=index, vector=index.embed(text), text_hash=text_hash(text))

    def get_memory(self, ref: str) -> Memory:
        from archmem.memory.lifecycle import resolve_memory

        return resolve_memory(self.store, ref)

    def confirm(self, ref: str, *, reason: str | None = None, seen: ChangesSince | None = None) -> Memory:
        """Vouch for a memory now. ``reason`` (why it still holds) goes to the audit log
        of this clone's index, with the range of ``seen`` (the changes shown first)."""
        from archmem.memory.lifecycle import confirm

        detail = {"base": seen.to_dict()["base"], "head": seen.head, "files": len(seen.files)} if seen else None
        self._for_writing()
        return confirm(self.memory_context, ref, reason, detail)

    def memory_changes(self, ref: str) -> tuple[Memory, ChangesSince | None]:
        """A memory, and what changed in its elements' code and its anchors since it was
        last confirmed (None without history or model: nothing to show)."""
        memory = self.get_memory(ref)
        view = self.drift
        return memory, view.memory_changes(memory) if view is not None else None

    def history(self, ref: str) -> list[Memory]:
        from archmem.memory.lifecycle import history

        return history(self.memory_context, ref)

    def archive(self, ref: str, reason: str) -> Memory:
        from archmem.memory.lifecycle import archive

        self._for_writing()
        return archive(self.memory_context, ref, reason)

    def unarchive(self, ref: str) -> Memory:
        """Bring an archived memory back into recall."""
        from archmem.memory.lifecycle import unarchive

        self._for_writing()
        return unarchive(self.memory_context, ref)

    def show(self, ref: str) -> dict[str, Any]:
        """One memory (id or title, archived and superseded ones too) with everything
        known about it: its file, whether to verify it and why, its supersede chain."""
        memory = self.get_memory(ref)
        reason = self.staleness(memory) if memory.status == "active" else None
        chain = self.history(memory.id)
        return {
            **memory.model_dump(mode="json"), "path": self.store.path_of(memory.id),
            "verify": reason is not None, "verify_reason": reason,
            "history": [{"id": m.id, "title": m.title, "status": m.status} for m in chain],
        }

    def purge(self, memory_id: str, reason: str) -> dict[str, Any]:
        """Delete a memory for good: its file and every trace in the index. A file that
        was committed stays in git history, and the answer says in which commits."""
        from archmem.memory.lifecycle import purge

        self._for_writing()
        path = self.store.path_of(memory_id.strip())
        result = purge(self.memory_context, memory_id, reason)
        result["file"] = path
        result["committed_in"] = self.repository.commits_touching(path) if path else []
        return result

    def list_memories(
        self, *, element: str | None = None, kind: str | None = None, status: str | None = "active",
        limit: int | None = None,
    ) -> list[Memory]:
        from archmem.memory.kinds import parse_kind
        from archmem.memory.types import MEMORY_STATUSES

        element_id = self.model_or_empty.find(element).id if element else None
        if status is not None and status not in MEMORY_STATUSES:
            raise InvalidInputError(f"unknown status {status!r}; one of {', '.join(MEMORY_STATUSES)}, or all")
        if limit is not None and limit < 1:
            raise InvalidInputError(f"--limit must be at least 1, not {limit}")
        found = self.store.list_memories(element=element_id, kind=parse_kind(kind) if kind else None, status=status)
        return found if limit is None else found[:limit]

    def start_session(self, task: str, *, elements: Sequence[str] = (), agent: str | None = None) -> Session:
        from archmem.memory.sessions import start_session

        self._for_writing()
        return start_session(self.memory_context, task, elements=elements, agent=self.author_for(agent or "cli"))

    def end_session(
        self, session_id: str, *, used: Sequence[str] = (), outcome: str | None = None, author: str | None = None
    ) -> SessionEnd:
        from archmem.memory.sessions import end_session

        self._for_writing()
        return end_session(self.memory_context, session_id, used=used, outcome=outcome, author=author)

    def end_left_open(
        self, *, client: str | None = None, transcript: Path | str | None = None
    ) -> list[SessionEnd]:
        """End the sessions an agent's client left open (its session-end hook): those its
        transcript names, or without a transcript those ``client`` started, citing the
        memories each was shown that the agent named (``memory.sessions.end_left_open``).
        Where no index exists there is no session to end, and none is created."""
        from archmem.agents.transcripts import read_transcript
        from archmem.memory.sessions import SESSION_ID, end_left_open

        if not self.store_path.exists():
            return []
        text, words = read_transcript(transcript)
        ids = sorted(set(SESSION_ID.findall(text)))
        if not text and not client:
            return []
        self._for_writing()
        return end_left_open(self.memory_context, ids=ids, agents=[] if text else [client or ""], words=words)

    def review(self) -> ReviewQueue:
        from archmem.memory.review import review_queue

        drift = self.drift
        return review_queue(
            self.memory_context, ignored_after=self.config.recall.ignored_after,
            staleness=drift.verify_reason if drift is not None else None,
        )

    def export_memories(self) -> Iterator[str]:
        from archmem.memory.transfer import export_lines

        return export_lines(self.memory_context)

    def import_memories(self, lines: Iterable[str], *, partial: bool = False, source: str = "-") -> ImportReport:
        from archmem.memory.transfer import import_lines

        self._for_writing()
        return import_lines(self.memory_context, lines, partial=partial, source=source)

    # ---- recall -------------------------------------------------------------------

    @cached_property
    def element_index(self) -> ElementIndex:
        from archmem.recall.elements import ElementIndex

        return ElementIndex(self.model_or_empty)

    def find_elements(self, task: str, *, limit: int = 10) -> list[dict[str, Any]]:
        """The elements a task is about, as recall scores them (words of the task against
        each element's name, description, tags, technology), with their code and how
        many active memories each holds."""
        from archmem.recall.elements import describe_matches, relevant_elements

        if not task or not task.strip():
            raise InvalidInputError("finding elements needs a task: what are you about to work on?")
        if limit < 1:
            raise InvalidInputError(f"limit must be at least 1, not {limit}")
        model = self.model_or_empty
        matches = relevant_elements(
            model, self.element_index, None, query=task, related_score=self.config.recall.related_element_score
        )
        return describe_matches(model, matches, self.store.element_memory_counts(), limit=limit)

    scan_budget: int | None = None
    """Commits of uncached history an answer may read on the way; more, and drift is
    not computed there (it says how to compute it). Set by the start-up hook (``brief``),
    ``recall`` and the MCP server, so an agent never waits for a first scan; None: no limit."""
    history_progress: Callable[[int, int], None] | None = None
    """Told (commits read, commits to read) while history is scanned (a terminal's bar)."""
    history_unread: int = 0
    """Commits the last drift question left unread because of ``scan_budget`` (0: none)."""

    def sibling(self) -> Workspace:
        """Another Workspace on the same repository, settings and model file, with its
        own store connection: for a thread of its own (a background history scan)."""
        return Workspace(self.repository, config=self.config, model_path=self._model_path, clock=self.clock,
                         env=self.env)

    def elements(self, query: str | None = None, *, limit: int | None = None) -> list[dict[str, Any]]:
        """The model's elements: with a query, those it is about, best first (the
        search ``find_elements`` does); without, every element in model order. Each with
        its code and how many active memories it holds."""
        if query is not None and query.strip():
            return self.find_elements(query, limit=limit or 10)
        if limit is not None and limit < 1:
            raise InvalidInputError(f"--limit must be at least 1, not {limit}")
        model = self.model
        counts = self.store.element_memory_counts()
        found = [{
            "id": e.id, "name": e.name, "kind": e.kind, "score": None, "reasons": [], "description": e.description,
            "technology": e.technology, "parent": e.parent, "paths": model.effective_paths(e.id),
            "memories": counts.get(e.id, 0),
        } for e in model.elements]
        return found if limit is None else found[:limit]

    def drift_view(
        self, *, deepen: bool = False, progress: Callable[[int, int], None] | None = None,
        budget: int | None = None,
    ) -> DriftView:
        """Drift for this repository (history scan, index, sizes), computed lazily."""
        from archmem.drift.view import DriftView

        return DriftView(
            store=self.store, repository=self.repository, model=self.model, ownership=self.ownership,
            config=self._drift_config, clock=self.clock, deepen=deepen,
            progress=progress or self.history_progress, budget=budget, memory_folder=self.config.store.memories,
        )

    @property
    def _drift_config(self) -> DriftConfig:
        """The drift settings, with archmem's own folders ignored (memory files are what
        the team knows about the code, never a change to it) and generated code too."""
        from archmem.config import GENERATED_GLOBS

        own = [".archmem/**", self.config.store.memories.rstrip("/") + "/**",
               self.config.store.private_memories.rstrip("/") + "/**", *GENERATED_GLOBS]
        extra = [glob for glob in own if glob not in self.config.drift.ignore]
        return self.config.drift.model_copy(update={"ignore": [*self.config.drift.ignore, *dict.fromkeys(extra)]})

    @cached_property
    def drift(self) -> DriftView | None:
        """The drift recall uses, or None where there is no history or no model (then
        nothing is stale, and recall says why once)."""
        if not self.repository.is_git:
            return None
        from archmem.drift.scan import HistoryNotScanned

        try:
            view = self.drift_view(budget=self.scan_budget)
            view.scan  # noqa: B018  (reads history now so a failure is reported here)
        except HistoryNotScanned as exc:
            self.history_unread = exc.pending
            self._recall_warnings = (*self._recall_warnings, f"{exc.message}: run `archmem drift` once to compute it")
            return None
        except (RepositoryError, ModelNotFoundError) as exc:
            self._recall_warnings = (*self._recall_warnings, f"drift not checked: {exc.message}")
            return None
        return view

    def staleness(self, memory: Memory) -> str | None:
        """The VERIFY reason for a memory, from drift (None when nothing moved)."""
        view = self.drift
        return view.verify_reason(memory) if view is not None else None

    def drift_report(
        self, *, since_ref: str | None = None, deepen: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> DriftReport:
        """Every element's drift against when the model described it (or ``since_ref``),
        and the memories that became VERIFY."""
        view = self.drift_view(deepen=deepen, progress=progress)
        since = None
        if since_ref is not None:
            base = self._since(since_ref)
            since = {element.id: base for element in self.model.elements}
        self.__dict__["drift"] = view
        return view.report(since=since)

    def element_changes(self, element: str) -> tuple[str, ChangesSince | None]:
        """An element's id, and what changed in its code since the model described it
        (``drift accept`` shows it before resetting that baseline)."""
        target = self.model.find(element)
        return target.id, self.drift_view().element_changes(target.id)

    def _since(self, ref: str) -> Baseline:
        """``--since``: a commit, tag or branch (counted from that commit), or a date
        (``2025-01-01``, an ISO time: counted from that moment)."""
        from archmem.clock import parse_date
        from archmem.drift.types import Baseline

        try:
            return Baseline(*self.repository.revision(ref))
        except RepositoryError:
            moment = parse_date(ref)
            if moment is None:
                raise RepositoryError(
                    f"unknown revision or date {ref!r}",
                    hint="give a commit, tag or branch (git rev-parse REF), or a date such as 2025-01-01",
                ) from None
        return Baseline(None, moment)

    def accept_drift(self, element: str, note: str | None = None) -> dict[str, Any]:
        """Record that the model's description of ELEMENT still holds as of now."""
        from archmem.memory.fields import clean_line
        from archmem.memory.secrets import check_fields

        check_fields({"note": note})
        note = clean_line(note, "note")
        target = self.model.find(element)
        self._for_writing()
        at = self.drift_view().accept(target.id, note)
        return {"element": target.id, "accepted_at": format_time(at), "note": note}

    def recall(
        self,
        query: str,
        *,
        elements: Sequence[str] = (),
        changed_files: Sequence[str] = (),
        changed: bool = False,
        session_id: str | None = None,
        limit: int = 5,
        explain: bool = False,
    ) -> RecallResult:
        """The memories that matter for a task, ranked, with why (DESIGN.md "Recall")."""
        from archmem.model.ownership import Ownership
        from archmem.recall.engine import RecallContext, nothing_is_stale, recall

        if limit < 1:
            raise InvalidInputError(f"--limit must be at least 1, not {limit}")
        files = list(changed_files) + (self.repository.changed_files() if changed else [])
        if session_id is not None:
            from archmem.memory.sessions import get_session

            get_session(self.memory_context, session_id)
        model = self.model_or_empty
        drift = self.drift  # computed first: its warning belongs to this answer
        ctx = RecallContext(
            store=self.store,
            model=model,
            config=self.config.recall,
            now=self.clock(),
            ownership=(self.ownership if model.elements else Ownership()) if files else None,
            element_index=self.element_index,
            staleness=drift.verify_reason if drift is not None else nothing_is_stale,
            semantic=self.semantic_search,
            warnings=list(self._recall_warnings),
        )
        result = recall(ctx, query, elements=elements, changed_files=files, limit=limit, explain=explain)
        result.warnings.extend(self._fork_warnings(result.memory_ids))
        result.warnings.extend(self.file_warnings)  # an agent hears of a broken memory file too
        if session_id is not None and result.memory_ids:
            from archmem.memory.sessions import record_exposures

            record_exposures(self.memory_context, session_id, result.memory_ids)
        return result

    def _fork_warnings(self, shown: Sequence[str]) -> list[str]:
        """A shown memory that is one of two successors of one memory is half of two
        truths (two branches each superseded it): say so, never pick one silently."""
        warnings = []
        for old_id, successors in self.store.forks().items():
            if set(successors) & set(shown):
                warnings.append(
                    f"forked: {', '.join(successors)} all supersede {old_id}; only one can hold "
                    "(supersede one by the other; `archmem check` lists every fork)"
                )
        return warnings

    @cached_property
    def embedder(self) -> Embedder | None:
        """The configured embedding provider, or None (``provider = "none"``)."""
        if self.config.embeddings.provider == "none":
            return None
        from archmem.embeddings import make_embedder

        return make_embedder(self.config.embeddings, self.env)

    @cached_property
    def vector_index(self) -> VectorIndex | None:
        if self.embedder is None:
            return None
        from archmem.recall.semantic import VectorIndex

        return VectorIndex(self.store, self.embedder)

    @property
    def semantic_search(self) -> VectorIndex | None:
        return self.vector_index

    _recall_warnings: tuple[str, ...] = ()

    def memory_embedding_text(self, memory: Memory) -> str:
        from archmem.embeddings import embedding_text

        return embedding_text(memory.title, memory.content, self.model_or_empty.names(memory.elements))

    def embed_missing(
        self, *, batch_size: int = 32, progress: Callable[[int, int], None] | None = None
    ) -> BackfillReport:
        """Embed every active memory whose vector for the configured model is missing
        or stale (``archmem embed``)."""
        from archmem.embeddings import backfill

        if self.embedder is None:
            raise ConfigError(
                "no embedding provider is configured",
                hint='set [embeddings] provider = "openai" or "ollama" (and model) in archmem.toml',
            )
        self._for_writing()
        return backfill(
            self.store, self.embedder, self.memory_embedding_text, now=format_time(self.clock()),
            batch_size=batch_size, progress=progress,
        )

    # ---- conformance --------------------------------------------------------------

    def conformance(self) -> ConformanceReport:
        """The code's imports against the model's relationships and the ``[conformance]``
        rules: undeclared dependencies with their import sites, relationships without code,
        cycles, rule violations (DESIGN.md "Conformance"). Imports are cached per file
        content in the store, so a second run reads only changed files; the report is
        kept until ``refresh()``."""
        report = self.__dict__.get("_conformance")
        if report is None:
            from archmem.conformance.engine import check_conformance
            from archmem.store.imports import ImportCache

            report = check_conformance(
                files=self.repository.files(), hashes=self.repository.content_hashes, read=self.repository.read_bytes,
                model=self.model, ownership=self.ownership, config=self.config.conformance,
                cache=ImportCache(self.store), config_source=self.config.source,
            )
            self.__dict__["_conformance"] = report
        return report

    # ---- pull requests --------------------------------------------------------------

    def pull_request_review(
        self, *, base: str | None = None, head: str | None = None, deepen: bool = False
    ) -> PullRequestReview:
        """What the change ``base...head`` touches and what to check before merging it
        (``archmem pr``). Without flags, base and head come from the pull request event
        of a GitHub Actions run (``GITHUB_EVENT_PATH``), else the default branch and HEAD.
        The model, the memories and drift are read at the checkout, which must hold head."""
        from archmem.model.paths import compile_globs
        from archmem.review.github import link_base, pull_request_from_event, read_event
        from archmem.review.memory_changes import memory_changes
        from archmem.review.pull_request import resolve_change, review_pull_request

        view = self.drift_view(deepen=deepen)
        checkout = view.scan.head  # a shallow clone is refused (or deepened) before any diff
        self.__dict__["drift"] = view
        revisions = view.revisions
        ref = resolve_change(revisions, base=base, head=head, checkout=checkout,
                             event=pull_request_from_event(read_event(self.env)))
        merge_base = revisions.merge_base(ref.base, ref.head)
        changed = revisions.changed_files(merge_base, ref.head)
        folder = self.config.store.memories.strip("/") + "/"
        memory_files = [f for f in changed if f.path.startswith(folder) and f.path.endswith(".md")]
        ignored = compile_globs(self._drift_config.ignore)
        code = [f for f in changed if f not in memory_files and not all(ignored(p) for p in f.paths)]
        return review_pull_request(
            ref, merge_base=merge_base, code=code, model=self.model, ownership=self.ownership,
            recall=lambda task, files: self.recall(task, changed_files=files, limit=60),
            memories=self.store.list_memories(status="active"), stale=view.stale,
            new_commits=revisions.commits_between(ref.base, checkout or ref.head), memory_path=self.store.path_of,
            memory_changes=memory_changes(memory_files, show=revisions.show, base=merge_base, head=ref.head,
                                          lookup=self.store.get_memory),
            changes_for=lambda memory: view.memory_changes(memory, max_diff=0),
            link_base=link_base(self.env, ref.head),
        )

    def review_markdown(self, review: PullRequestReview) -> str:
        """The review as the pull request comment (``templates/pr.md.j2``)."""
        from archmem import __version__
        from archmem.review.markdown import render_review

        return render_review(review, version=__version__, overrides=self.root / ".archmem" / "templates")

    def comment_on_pull_request(self, review: PullRequestReview, markdown: str) -> Published:
        """Post the review as the pull request's one archmem comment, or update that
        comment (GitHub REST API, ``GITHUB_TOKEN``); with nothing to say, only an earlier
        comment is rewritten, to say so."""
        from archmem import __version__
        from archmem.github_api import GitHubClient
        from archmem.review.markdown import resolved_body
        from archmem.review.publish import publish

        if review.ref.number is None:
            raise InvalidInputError("no pull request to comment on: run on a pull_request event (GITHUB_EVENT_PATH)")
        return publish(GitHubClient.from_env(self.env), review.ref.number, markdown,
                       nothing_to_say=review.nothing_to_say, resolved=resolved_body(review, version=__version__))

    # ---- briefing -----------------------------------------------------------------

    def brief(
        self,
        task: str | None = None,
        *,
        elements: Sequence[str] = (),
        changed_files: Sequence[str] = (),
        changed: bool = False,
        session_id: str | None = None,
        budget: int | None = None,
        budget_tokens: int | None = None,
        limit: int = 20,
        overview: bool = False,
    ) -> Briefing:
        """The pre-session briefing for a task (or for the changed files), to a budget.
        With ``overview`` and nothing to go on (no task, element or changed file, or changed
        files no memory is about), the project overview instead: standing rules, what to
        verify, coverage."""
        from archmem.escape import one_line
        from archmem.memory.fields import required_line
        from archmem.render.briefing import (
            DEFAULT_BUDGET_CHARS,
            build_briefing,
            estimate_tokens,
        )

        files = list(changed_files) + (self.repository.changed_files() if changed else [])
        derived = not task or not task.strip()
        if derived:  # names from git or the caller, shown escaped: a file name may hold a newline
            if files:
                task = "Work on " + ", ".join(map(one_line, files[:5])) + (
                    f" and {len(files) - 5} more files" if len(files) > 5 else ""
                )
            elif elements:
                task = "Work on " + ", ".join(map(one_line, elements))
            elif overview:
                return self.overview(budget=budget, budget_tokens=budget_tokens, session_id=session_id)
            else:
                raise InvalidInputError(
                    "a briefing needs a TASK, --element or changed files (--changed); --overview briefs the project"
                )
        else:
            task = required_line(task, "task")
        result = self.recall(task, elements=elements, changed_files=files, limit=limit)
        undeclared = self._undeclared_by_element(result.warnings) if result.elements else None
        briefing = build_briefing(
            task.strip(), result, self.model_or_empty, now=self.clock(),
            documented=set(self.store.element_memory_counts()),
            budget=budget_tokens if budget_tokens is not None else (budget or DEFAULT_BUDGET_CHARS),
            measure=estimate_tokens if budget_tokens is not None else len,
            overrides=self.root / ".archmem" / "templates", undeclared=undeclared,
            notes=self._drift_notes(result.warnings),
        )
        if overview and derived and not elements and not briefing.memory_ids:
            return self.overview(budget=budget, budget_tokens=budget_tokens, session_id=session_id)
        if session_id is not None and briefing.memory_ids:
            from archmem.memory.sessions import record_exposures

            record_exposures(self.memory_context, session_id, briefing.memory_ids)
        return briefing

    def _undeclared_by_element(self, warnings: list[str]) -> dict[str, list[Any]] | None:
        """Per element, its undeclared dependencies, for a briefing; None when conformance
        is off (``[conformance] briefings = false``) or cannot run (said in ``warnings``)."""
        from archmem.errors import ArchmemError

        if not self.config.conformance.briefings or not self.model_or_empty.elements:
            return None
        try:
            report = self.conformance()
        except ArchmemError as exc:
            warnings.append(f"conformance not checked: {exc.message}")
            return None
        by_element: dict[str, list[Any]] = {}
        model = self.model_or_empty
        for dep in report.undeclared:  # an element answers for its parts' imports across its boundary
            around_target = {dep.target, *(a.id for a in model.ancestors(dep.target))}
            for owner in (dep.source, *(a.id for a in model.ancestors(dep.source))):
                if owner not in around_target:
                    by_element.setdefault(owner, []).append(dep)
        return by_element

    def overview(
        self, *, budget: int | None = None, budget_tokens: int | None = None, session_id: str | None = None,
        for_task: str | None = None,
    ) -> Briefing:
        """The briefing for a session with no task yet (or a task no memory is about:
        ``for_task``): conventions and project-wide pitfalls, the memories to verify, and
        how much of the model is documented."""
        from archmem.render.briefing import DEFAULT_BUDGET_CHARS, estimate_tokens
        from archmem.render.overview import build_overview

        drift = self.drift
        briefing = build_overview(
            self.store.list_memories(status="active"), self.model_or_empty, now=self.clock(),
            config=self.config.recall, staleness=drift.verify_reason if drift is not None else (lambda _m: None),
            budget=budget_tokens if budget_tokens is not None else (budget or DEFAULT_BUDGET_CHARS),
            measure=estimate_tokens if budget_tokens is not None else len,
            overrides=self.root / ".archmem" / "templates", for_task=for_task,
            notes=self._drift_notes(self._recall_warnings),
        )
        briefing.warnings = list(self._recall_warnings)
        if session_id is not None and briefing.memory_ids:
            from archmem.memory.sessions import record_exposures

            record_exposures(self.memory_context, session_id, briefing.memory_ids)
        return briefing

    @staticmethod
    def _drift_notes(warnings: Sequence[str]) -> list[str]:
        """What a briefing must say about drift it could not compute (and how to)."""
        return [w[:1].upper() + w[1:].rstrip(".") for w in warnings if "drift" in w.lower()]

    def knowledge_map(self) -> KnowledgeMap:
        """What the project knows per element, how fresh, what to verify, and the gaps."""
        from archmem.render.knowledge_map import build_map

        memories = self.store.list_memories(status="active")
        verify: set[str] = set()
        drift: dict[str, str] | None = None
        note = None
        view = self.drift
        if view is not None:
            report = view.report()
            verify = {memory.id for memory, _ in report.stale}
            drift = {element.id: "not_measured" if element.not_measured else element.status
                     for element in report.elements}
            found = report.not_measured_note()
            note = f"{found[:1].upper()}{found[1:]}." if found else None
        else:
            reasons = [w.removeprefix("drift not checked: ") for w in self._recall_warnings]
            note = "Drift not checked: " + ("not a git repository." if not self.repository.is_git else "; ".join(reasons))
        from archmem.errors import ArchmemError

        undeclared = None
        conformance_note = None
        try:
            undeclared = self.conformance().undeclared
        except ArchmemError as exc:
            conformance_note = f"Conformance not checked: {exc.message}"
        return build_map(
            self.model, memories, ownership=self.ownership, now=self.clock(), verify=verify, drift=drift,
            drift_note=note, undeclared=undeclared, conformance_note=conformance_note, name=self.root.name,
        )

    # ---- set-up ------------------------------------------------------------------

    def init(self) -> InitResult:
        """Write a commented archmem.toml (never over an existing one), create
        ``.archmem/`` and keep the database out of git. Safe to run twice."""
        from archmem.initialize import init_repository

        try:
            found: str | None = self._display(discover_model(self.root, None))
        except ModelNotFoundError:
            found = None
        return init_repository(self.root, model=found, memories_folder=self.config.store.memories.rstrip("/"))

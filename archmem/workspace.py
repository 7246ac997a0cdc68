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
    from archmem.drift.report import DriftReport
    from archmem.drift.view import DriftView
    from archmem.embeddings import BackfillReport, Embedder
    from archmem.initialize import InitResult
    from archmem.memory.lifecycle import Embedding, MemoryContext, RememberResult
    from archmem.memory.review import ReviewQueue
    from archmem.memory.sessions import SessionEnd
    from archmem.memory.transfer import ImportReport
    from archmem.memory.types import Memory, Session
    from archmem.recall.elements import ElementIndex
    from archmem.recall.engine import RecallResult
    from archmem.recall.semantic import VectorIndex
    from archmem.render.briefing import Briefing, Client
    from archmem.render.knowledge_map import KnowledgeMap
    from archmem.memory.sync import SyncReport
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
        return load_model(self.model_path, self.root, exists=self.repository.exists, env=self.env)

    @cached_property
    def ownership(self) -> Ownership:
        return compute_ownership(
            self.model, self.repository.files(), self.repository.lines, ignore=self.config.code.ignore
        )

    def model_summary(self) -> dict[str, Any]:
        """The model as data: elements (with the size of their code now), relationships,
        decisions, and the code that no element owns."""
        from archmem.model.summary import model_summary

        return model_summary(
            self.model, self.ownership, model_file=self._display(self.model_path), git=self.repository.is_git
        )

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

        for name in ("model_path", "model", "ownership", "model_or_empty", "element_index", "drift"):
            self.__dict__.pop(name, None)
        self._recall_warnings = ()
        self.repository = Repository(root=self.root, is_git=find_root(self.root)[1])

    def _display(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)

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
        """The local index, brought up to date with the memory files on open."""
        from archmem.store import open_store

        store = open_store(
            self.store_path, busy_timeout_ms=self.config.store.busy_timeout_ms, now=format_time(self.clock()),
            folder=self.memory_folder,
        )
        try:
            self.last_sync = self._sync(store)
        except BaseException:
            store.close()
            raise
        from archmem.initialize import ignore_local_state

        ignore_local_state(self.root / ".archmem")
        return store

    def sync_files(self) -> SyncReport:
        """Index what changed in the memory files (a pull, a hand edit) since the last look."""
        self.last_sync = self._sync(self.store)
        return self.last_sync

    def _sync(self, store: SQLiteStore) -> SyncReport:
        from archmem.memory.sync import sync_from_files

        return sync_from_files(store, self.memory_folder, lambda: self.model_or_empty)

    last_sync: SyncReport | None = None

    @property
    def file_warnings(self) -> list[str]:
        """Memory files that could not be read, one line each (every command prints them)."""
        return self.last_sync.warnings() if self.last_sync is not None else []

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

    def confirm(self, ref: str) -> Memory:
        from archmem.memory.lifecycle import confirm

        return confirm(self.memory_context, ref)

    def history(self, ref: str) -> list[Memory]:
        from archmem.memory.lifecycle import history

        return history(self.memory_context, ref)

    def archive(self, ref: str, reason: str) -> Memory:
        from archmem.memory.lifecycle import archive

        return archive(self.memory_context, ref, reason)

    def purge(self, memory_id: str, reason: str) -> dict[str, Any]:
        """Delete a memory for good: its file and every trace in the index. A file that
        was committed stays in git history, and the answer says in which commits."""
        from archmem.memory.lifecycle import purge

        path = self.store.path_of(memory_id.strip())
        result = purge(self.memory_context, memory_id, reason)
        result["file"] = path
        result["committed_in"] = self.repository.commits_touching(path) if path else []
        return result

    def list_memories(
        self, *, element: str | None = None, kind: str | None = None, status: str | None = "active"
    ) -> list[Memory]:
        from archmem.memory.kinds import parse_kind
        from archmem.memory.types import MEMORY_STATUSES

        element_id = self.model_or_empty.find(element).id if element else None
        if status is not None and status not in MEMORY_STATUSES:
            raise InvalidInputError(f"unknown status {status!r}; one of {', '.join(MEMORY_STATUSES)}, or all")
        return self.store.list_memories(
            element=element_id, kind=parse_kind(kind) if kind else None, status=status
        )

    def start_session(self, task: str, *, elements: Sequence[str] = (), agent: str | None = None) -> Session:
        from archmem.memory.sessions import start_session

        return start_session(self.memory_context, task, elements=elements, agent=self.author_for(agent or "cli"))

    def end_session(
        self, session_id: str, *, used: Sequence[str] = (), outcome: str | None = None, author: str | None = None
    ) -> SessionEnd:
        from archmem.memory.sessions import end_session

        return end_session(self.memory_context, session_id, used=used, outcome=outcome, author=author)

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

        return import_lines(self.memory_context, lines, partial=partial, source=source)

    # ---- recall -------------------------------------------------------------------

    @cached_property
    def element_index(self) -> ElementIndex:
        from archmem.recall.elements import ElementIndex

        return ElementIndex(self.model_or_empty, self.store.index_forms, broad_weight=self.config.recall.broad_word_weight)

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
            model, self.element_index, None, query=task, config=self.config.recall
        )
        return describe_matches(model, matches, self.store.element_memory_counts(), limit=limit)

    def drift_view(self, *, deepen: bool = False, progress: Callable[[int], None] | None = None) -> DriftView:
        """Drift for this repository (history scan, index, sizes), computed lazily."""
        from archmem.drift.view import DriftView

        return DriftView(
            store=self.store, repository=self.repository, model=self.model, ownership=self.ownership,
            config=self._drift_config, clock=self.clock, deepen=deepen, progress=progress,
        )

    @property
    def _drift_config(self) -> DriftConfig:
        """The drift settings, with archmem's own folders ignored: memory files are what
        the team knows about the code, never a change to it."""
        own = [".archmem/**", self.config.store.memories.rstrip("/") + "/**",
               self.config.store.private_memories.rstrip("/") + "/**"]
        extra = [glob for glob in own if glob not in self.config.drift.ignore]
        return self.config.drift.model_copy(update={"ignore": [*self.config.drift.ignore, *dict.fromkeys(extra)]})

    @cached_property
    def drift(self) -> DriftView | None:
        """The drift recall uses, or None where there is no history or no model (then
        nothing is stale, and recall says why once)."""
        if not self.repository.is_git:
            return None
        try:
            view = self.drift_view()
            view.scan  # noqa: B018  (reads history now so a failure is reported here)
        except (RepositoryError, ModelNotFoundError) as exc:
            self._recall_warnings = (*self._recall_warnings, f"drift not checked: {exc.message}")
            return None
        return view

    def staleness(self, memory: Memory) -> str | None:
        """The VERIFY reason for a memory, from drift (None when nothing moved)."""
        view = self.drift
        return view.verify_reason(memory) if view is not None else None

    def drift_report(
        self, *, since_ref: str | None = None, deepen: bool = False, progress: Callable[[int], None] | None = None
    ) -> DriftReport:
        """Every element's drift against when the model described it (or ``since_ref``),
        and the memories that became VERIFY."""
        view = self.drift_view(deepen=deepen, progress=progress)
        since = None
        if since_ref is not None:
            from archmem.drift.types import Baseline

            base = Baseline(*self.repository.revision(since_ref))
            since = {element.id: base for element in self.model.elements}
        self.__dict__["drift"] = view
        return view.report(since=since)

    def accept_drift(self, element: str, note: str | None = None) -> dict[str, Any]:
        """Record that the model's description of ELEMENT still holds as of now."""
        target = self.model.find(element)
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
            ownership=(self.ownership if model.elements else Ownership()) if files or elements else None,
            element_index=self.element_index,
            staleness=drift.verify_reason if drift is not None else nothing_is_stale,
            semantic=self.semantic_search,
            warnings=list(self._recall_warnings),
        )
        result = recall(ctx, query, elements=elements, changed_files=files, limit=limit, explain=explain)
        result.warnings.extend(self._fork_warnings(result.memory_ids))
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
        return backfill(
            self.store, self.embedder, self.memory_embedding_text, now=format_time(self.clock()),
            batch_size=batch_size, progress=progress,
        )

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
        client: Client = "cli",
    ) -> Briefing:
        """The pre-session briefing for a task (or for the changed files), to a budget.
        With ``overview`` and nothing to go on (no task, element or changed file, or changed
        files no memory is about), the project overview instead: standing rules, what to
        verify, coverage. ``client`` (cli or mcp) says which commands the text names."""
        from archmem.render.briefing import (
            DEFAULT_BUDGET_CHARS,
            build_briefing,
            estimate_tokens,
        )

        files = list(changed_files) + (self.repository.changed_files() if changed else [])
        derived = not task or not task.strip()
        if derived:
            if files:
                task = "Work on " + ", ".join(files[:5]) + (f" and {len(files) - 5} more files" if len(files) > 5 else "")
            elif elements:
                task = "Work on " + ", ".join(elements)
            elif overview:
                return self.overview(budget=budget, budget_tokens=budget_tokens, session_id=session_id,
                                     client=client)
            else:
                raise InvalidInputError(
                    "a briefing needs a TASK, --element or changed files (--changed); --overview briefs the project"
                )
        result = self.recall(task, elements=elements, changed_files=files, limit=limit)
        briefing = build_briefing(
            task.strip(), result, self.model_or_empty, now=self.clock(),
            documented=set(self.store.element_memory_counts()),
            budget=budget_tokens if budget_tokens is not None else (budget or DEFAULT_BUDGET_CHARS),
            measure=estimate_tokens if budget_tokens is not None else len,
            overrides=self.root / ".archmem" / "templates", client=client,
        )
        if overview and derived and not elements and not briefing.memory_ids:
            return self.overview(budget=budget, budget_tokens=budget_tokens, session_id=session_id, client=client)
        if session_id is not None and briefing.memory_ids:
            from archmem.memory.sessions import record_exposures

            record_exposures(self.memory_context, session_id, briefing.memory_ids)
        return briefing

    def overview(
        self, *, budget: int | None = None, budget_tokens: int | None = None, session_id: str | None = None,
        for_task: str | None = None, client: Client = "cli",
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
            overrides=self.root / ".archmem" / "templates", for_task=for_task, client=client,
        )
        briefing.warnings = list(self._recall_warnings)
        if session_id is not None and briefing.memory_ids:
            from archmem.memory.sessions import record_exposures

            record_exposures(self.memory_context, session_id, briefing.memory_ids)
        return briefing

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
            drift = {element.id: element.status for element in report.elements}
        else:
            note = "Drift not checked: " + (
                "not a git repository." if not self.repository.is_git else "; ".join(self._recall_warnings)
            )
        return build_map(
            self.model, memories, ownership=self.ownership, now=self.clock(), verify=verify, drift=drift,
            drift_note=note,
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

"""``WorkspaceCore``: what every part of the ``Workspace`` façade builds on.

The façade owns the repository, the configuration, the clock and the store, reads the
model and drift lazily and keeps them until ``refresh()``, and returns plain values; it
prints nothing. Each method is a thin call into the domain. Its operations are grouped
by what they serve, one module each (drift, recall, reviews, briefing, memories), each
part a subclass of the parts it calls (docs/architecture.md, "Types and lint"); this
module holds what they all share: the repository, the model, the folders and the store.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from archmem.clock import Clock, format_time, system_clock
from archmem.config import Config, load_config
from archmem.errors import ArchmemError, ModelNotFoundError
from archmem.git.repository import Repository
from archmem.model.loader import discover_model, load_model
from archmem.model.ownership import Ownership, compute_ownership
from archmem.model.types import ArchitectureModel

if TYPE_CHECKING:
    from archmem.drift.accept_folder import AcceptFolder
    from archmem.initialize import InitResult
    from archmem.memory.folder_signature import FolderSignature, FolderSignatureLater
    from archmem.memory.lifecycle import MemoryContext
    from archmem.memory.sync import PendingSync, SyncReport
    from archmem.store.base import Store
    from archmem.store.files import MemoryFolder
    from archmem.store.line_counts import LineCounts


class WorkspaceCore:
    """A repository with its configuration, clock, model and memory store: the state
    every part of the ``Workspace`` reads, and the helpers they share."""

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
    ) -> Self:
        """The workspace for ``repo`` (default: the git top level of the current folder)."""
        repository = (
            Repository.at(Path(repo), exact=True) if repo is not None else Repository.at(Path.cwd())
        )
        model_path = Path(model).resolve() if model is not None else None
        return cls(repository, model_path=model_path, clock=clock, env=env)

    @property
    def root(self) -> Path:
        return self.repository.root

    @cached_property
    def model_path(self) -> Path:
        if self._model_path is not None:
            if not self._model_path.exists():
                raise ModelNotFoundError(f"model file not found: {self._model_path}")
            return self._model_path
        configured = str(self._configured_path("model")) if self.config.model else None
        return discover_model(self.root, configured)

    @cached_property
    def model(self) -> ArchitectureModel:
        """The model file's elements, each owning its own globs and those the config's
        ``[paths]`` table gives it (the union)."""
        from archmem.model.paths import add_configured_paths

        model = load_model(self.model_path, self.root, exists=self.repository.exists, env=self.env,
                           kinds=self.config.likec4.kinds, kept=self._index_if_open())
        return add_configured_paths(model, self.config.paths, source=self.config.source)

    def _index_if_open(self) -> Store | None:
        """The index when it is open (or being opened), never opening it: the model is
        read by ``store``'s own sync, and by commands that need no index."""
        opened = self.__dict__.get("store")
        return opened if opened is not None else self._opening

    @cached_property
    def ownership(self) -> Ownership:
        """Which files each element owns now; generated and vendored code is nobody's."""
        return compute_ownership(
            self.model, self.repository.files(), self._line_counts.lines, ignore=self.config.code.ignore,
            generated=self.generated,
        )

    @cached_property
    def _line_counts(self) -> LineCounts:
        """Line counts, kept in the index when it is open (``store/line_counts.py``)."""
        from archmem.store.line_counts import LineCounts

        return LineCounts(self.root, self._index_if_open, self.repository.lines)

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

    @property
    def loaded_model_files(self) -> list[Path]:
        """Every file the model was read from (a LikeC4 workspace is a folder of them;
        a DSL its includes), else the model path alone; none before it is read."""
        path = self.loaded_model_path
        if path is None:
            return []
        model = self.__dict__.get("model")
        files = [Path(name) for name in model.files] if model is not None else []
        return files or [path]

    _recall_warnings: tuple[str, ...] = ()
    """Why drift could not be computed for this answer (read by recall and briefings)."""

    history_unread: int = 0
    """Commits the last drift question left unread because of ``scan_budget`` (0: none)."""

    def refresh(self) -> None:
        """Forget what was read from the repository (model, ownership, files, drift) so
        the next call reads it again; the store stays open. For long-running processes
        (``archmem mcp``) after the model file or git HEAD changed."""
        from archmem.git.repository import find_root

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

    def _configured_path(self, setting: str) -> Path:
        """The path a setting names, refused when it leads out of the repository
        (``archmem.confinement``: symlinks followed; an absolute path from the
        environment is the user's own)."""
        from archmem.confinement import configured_path

        return configured_path(self.config, setting, self.root)

    @property
    def template_overrides(self) -> Path:
        """``.archmem/templates``, the project's own templates (a committed folder: one
        that leads out of the repository is refused, and so is a template file in it that
        does)."""
        from archmem.confinement import repository_path

        return repository_path(self.root, ".archmem/templates")

    @property
    def store_path(self) -> Path:
        return self._configured_path("store.path")

    @cached_property
    def memory_folder(self) -> MemoryFolder:
        """The committed folder of memory files and the git-ignored private one."""
        from archmem.memory.file_format import file_name, render_memory
        from archmem.store.files import MemoryFolder

        return MemoryFolder(
            root=self.root, shared=self._configured_path("store.memories"),
            private=self._configured_path("store.private_memories"), render=render_memory, name=file_name,
        )

    @cached_property
    def accept_folder(self) -> AcceptFolder:
        """The committed folder of drift accept files (``[store] accepts``)."""
        from archmem.drift.accept_folder import AcceptFolder

        self._configured_path("store.accepts")  # refused when it leads out of the repository
        return AcceptFolder(self.root, self.config.store.accepts)

    @cached_property
    def store(self) -> Store:
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

        self._configured_path("store.accepts")  # a bad setting fails every command, as a bad folder would
        persistent = self._writing or self.reads_keep_index()
        if persistent:
            from archmem.confinement import state_folder
            from archmem.initialize import ignore_local_state

            state = state_folder(self.root)
            if self._writing and self.store_path.parent == state:
                state.mkdir(exist_ok=True)
            ignore_local_state(state)  # before the index exists: git never sees it untracked
        store = open_store(
            self.store_path if persistent else Path(IN_MEMORY), busy_timeout_ms=self.config.store.busy_timeout_ms,
            now=format_time(self.clock()),
        )
        self._opening = store  # what sync reads of the model is kept in it too
        try:
            self.last_sync = self._sync(store, read_while_syncing=self.read_while_syncing)
        except BaseException:
            store.close()
            raise
        finally:
            self._opening = None
        return store

    _writing = False
    _opening: Store | None = None
    """The index while ``store`` brings it up to date (its sync may read the model)."""

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
        self.settle_sync()
        if self.index_in_memory and self.reads_keep_index():
            self._drop_store()
        self.last_sync = self._sync(self.store)
        return self.last_sync

    def _drop_store(self) -> None:
        self.close()
        for name in ("drift", "vector_index"):
            self.__dict__.pop(name, None)

    def _sync(self, store: Store, *, read_while_syncing: bool = False) -> SyncReport:
        from archmem.memory.sync import start_sync, sync_from_files

        pending = None
        signature, later = self._folder_looks(store)
        if read_while_syncing:
            pending = start_sync(store, self.memory_folder, lambda: self.model_or_empty,
                                 signature=signature, later=later, tree_changes=self.repository.tree_changes,
                                 checkout_stamp=self.repository.checkout_stamp)
        self._pending_sync = pending
        report = pending.report if pending is not None else sync_from_files(
            store, self.memory_folder, lambda: self.model_or_empty, signature=signature,
            tree_changes=self.repository.tree_changes, checkout_stamp=self.repository.checkout_stamp)
        self._export_index_accepts(store)
        return report

    def _folder_looks(self, store: Store) -> tuple[FolderSignature, FolderSignatureLater]:
        """git's looks at the committed memory folder (now, and started now to be waited
        for later); in a command the warm server runs, a look asked before is answered from
        the index while the server's watch of the folder vouches for it
        (``memory.folder_signature.vouched``)."""
        from archmem.memory.folder_signature import vouched

        repository = self.repository
        watch = sys.modules.get("archmem.folder_watch")  # the server imports it; a process of its own has no watch
        token = watch.token(self.memory_folder.shared) if watch is not None and repository.is_git else None
        if token is None:
            return repository.folder_state, repository.folder_state_later
        later = vouched(store, repository.folder_state_later, token, repository.checkout_stamp)
        threaded = vouched(store, partial(repository.folder_state_later, threads=True), token,
                           repository.checkout_stamp)
        return (lambda folder, **options: threaded(folder, **options)()), later

    read_while_syncing = False
    """Whether an open of the index takes it as the last sync left it while git compares
    the memory files in the background (``memory.sync.start_sync``); see
    ``store_read_while_syncing``."""

    def store_read_while_syncing(self) -> Store:
        """``store``; opened here, the index is read while git compares the memory files
        in the background: for a reading command that calls ``settle_sync`` once it has
        read, and reads again when that says the index changed (recall)."""
        if "store" in self.__dict__:
            return self.store
        self.read_while_syncing = True
        try:
            return self.store
        finally:
            self.read_while_syncing = False

    _pending_sync: PendingSync | None = None

    def settle_sync(self) -> bool:
        """Wait for the open's background look at the memory files and index what it
        found changed; True when the index changed (what was read from it is stale)."""
        pending, self._pending_sync = self._pending_sync, None
        if pending is None:
            return False
        self.last_sync = pending.finish()
        return self.last_sync.changed

    accepts_exported: int = 0
    """Drift accepts an older archmem kept in the index, written as files by this open."""

    accepts_export_error: str | None = None
    """Why they could not be written yet (they stay in the index for the next open)."""

    def _export_index_accepts(self, store: Store) -> None:
        """Accepts an older archmem recorded in the index become files, once (as its
        memories did); a failure to write them is said, and never stops the command."""
        if not store.legacy_accepts():  # the every-day case: nothing to export, nothing more to load
            return
        from archmem.drift.accepts import export_index_accepts

        try:
            self.accepts_exported += export_index_accepts(store, self.accept_folder, git=self.repository.is_git)
        except ArchmemError as exc:
            self.accepts_export_error = exc.message

    last_sync: SyncReport | None = None

    @property
    def file_warnings(self) -> list[str]:
        """Memory files that could not be read, one line each (every command prints them)."""
        return self.last_sync.warnings() if self.last_sync is not None else []

    def close(self) -> None:
        if self._pending_sync is not None:
            self._pending_sync.abandon()  # git's look is waited for, not indexed: the command ended first
            self._pending_sync = None
        if "store" in self.__dict__:
            if "_line_counts" in self.__dict__:
                try:
                    self._line_counts.save(self.store)
                except ArchmemError:  # an index that cannot be written keeps no count: they are a cache
                    pass
            self.store.close()
            del self.__dict__["store"]

    def __enter__(self) -> Self:
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
        from archmem.memory.files import MemoryFiles
        from archmem.memory.lifecycle import MemoryContext

        return MemoryContext(
            store=self.store, model=self.model_or_empty, clock=self.clock, exists=self.repository.exists,
            files=MemoryFiles(self.store, self.memory_folder),
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

    def sibling(self) -> Self:
        """Another Workspace on the same repository, settings and model file, with its
        own store connection: for a thread of its own (a background history scan)."""
        return type(self)(self.repository, config=self.config, model_path=self._model_path, clock=self.clock,
                         env=self.env)

    def init(self, *, starter_model: bool = False) -> InitResult:
        """Write a commented archmem.toml (never over an existing one), create
        ``.archmem/`` and keep the database out of git. Safe to run twice. With
        ``starter_model``, a repository without a model gets a draft ``workspace.dsl``
        from its manifests (``archmem.onboarding.starter``); one with a model keeps it."""
        from archmem.initialize import init_repository

        try:
            found: str | None = self._display(discover_model(self.root, None))
        except ModelNotFoundError:
            found = None
        self._configured_path("store.memories")
        drafted = False
        if starter_model and found is None:
            from archmem.atomic_write import write_atomic
            from archmem.onboarding.starter import draft_model

            target = self.root / "workspace.dsl"
            text = draft_model(self.root.resolve().name, self.repository.files(), self.repository.read_small)
            write_atomic(target, text)  # a symlink in its place is replaced, never written through
            found, drafted = "workspace.dsl", True
        result = init_repository(self.root, model=found, memories_folder=self.config.store.memories.rstrip("/"))
        if drafted:
            result.created.insert(0, "workspace.dsl")
            result.starter_model = True
        return result


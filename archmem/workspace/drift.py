"""The drift side of the ``Workspace``: history, the drift view and report, baselines,
accepts, and where each element's code is (``archmem paths suggest``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from archmem.config import DriftConfig, load_config
from archmem.errors import ModelNotFoundError, RepositoryError
from archmem.workspace.core import WorkspaceCore

if TYPE_CHECKING:
    from pathlib import Path

    from archmem.drift.changes import ChangesSince
    from archmem.drift.report import DriftReport
    from archmem.drift.types import Baseline
    from archmem.drift.view import DriftView
    from archmem.memory.types import Memory
    from archmem.onboarding.suggest import PathSuggestions


class DriftOps(WorkspaceCore):
    """Drift for this repository (``archmem/drift/``), read lazily and kept until ``refresh()``."""

    def suggest_paths(
        self, elements: Sequence[str] = (), *, write: bool = False, read: Callable[[str], str | None] | None = None,
    ) -> PathSuggestions:
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
            self.model, self.repository.files(), read=read or self.repository.read_small, elements=elements,
            skip=lambda path: path in generated or ignored(path), change_sets=self.repository.recent_changes(),
        )
        if write and result.suggestions:
            target = self.root / CONFIG_FILE
            write_paths(target, {s.element: s.paths for s in result.suggestions})
            result.written = self._display(target)
            self.config = load_config(self.root, self.env)
            self.refresh()
        return result

    def suggestible_elements(self) -> list[str]:
        """The elements owning no code that ``paths suggest`` has a place for (what
        ``status`` names). Kept in the index under all a suggestion reads (the model and
        its ``[paths]``, the files, the generated ones, the ignores, HEAD for the recent
        commits, and the size and mtime of each manifest it opened), so a status does not
        search again while none of them moved (60-100 ms on fx-private-relay)."""
        import json
        import time

        from archmem.memory.folder_signature import SETTLED_NS

        store = self._index_if_open()
        made_of = self._suggestion_inputs()
        try:
            kept = json.loads(store.meta(SUGGESTIBLE) or "null") if store is not None else None
        except ValueError:
            kept = None
        if isinstance(kept, dict) and kept.get("of") == made_of and isinstance(kept.get("read"), dict) \
                and isinstance(kept.get("elements"), list) \
                and all(_stamp(self.root / path) == stamp for path, stamp in kept["read"].items()):
            return [str(element) for element in kept["elements"]]
        opened: dict[str, list[int] | None] = {}

        def read(path: str) -> str | None:
            opened[path] = _stamp(self.root / path)  # before reading: a write meanwhile moves it
            return self.repository.read_small(path)

        elements = [s.element for s in self.suggest_paths(read=read).suggestions]
        settled = time.time_ns() - SETTLED_NS  # a file changed this recently may change again within its mtime's tick
        if store is not None and all(stamp is None or stamp[1] < settled for stamp in opened.values()):
            store.set_meta(SUGGESTIBLE, json.dumps({"of": made_of, "read": opened, "elements": elements}))
        return elements

    def _suggestion_inputs(self) -> str:
        """A digest of what a suggestion reads besides the manifests' text."""
        import hashlib
        import json

        from archmem.git.checkout import current_head

        model = self.model
        return hashlib.sha256(json.dumps([
            [dataclasses.asdict(e) | {"effective": model.effective_paths(e.id)} for e in model.elements],
            self.repository.files(), sorted(self.generated), self.config.code.ignore, self._drift_config.ignore,
            current_head(self.root) if self.repository.is_git else None,
        ], default=str, sort_keys=True).encode("utf-8", "surrogateescape")).hexdigest()

    scan_budget: int | None = None

    """Commits of uncached history an answer may read on the way; more, and drift is
    not computed there (it says how to compute it). Set by the start-up hook (``brief``),
    ``recall`` and the MCP server, so an agent never waits for a first scan; None: no limit."""

    history_progress: Callable[[int, int], None] | None = None

    """Told (commits read, commits to read) while history is scanned (a terminal's bar)."""

    def drift_view(
        self, *, deepen: bool = False, progress: Callable[[int, int], None] | None = None,
        budget: int | None = None,
    ) -> DriftView:
        """Drift for this repository (history scan, index, sizes), computed lazily."""
        from archmem.drift.context import DriftContext, HistoryReading
        from archmem.drift.view import DriftView

        context = DriftContext(
            store=self.store, repository=self.repository, model=self.model, ownership=self.ownership,
            config=self._drift_config, clock=self.clock, memory_folder=self.config.store.memories,
            accept_folder=self.accept_folder,
            files_signature=self.last_sync.signature if self.last_sync is not None and not self._writing else None,
            index_file=self._drift_index_file,
        )
        return DriftView(context, HistoryReading(deepen, progress or self.history_progress, budget))

    @property
    def _drift_index_file(self) -> Path | None:
        """Where the built drift index is kept: beside the index file (none for an index
        in memory, which keeps nothing between commands)."""
        from archmem.drift.index_cache import cache_path

        store = self.store
        return None if getattr(store, "in_memory", True) else cache_path(self.store_path)

    @property
    def _drift_config(self) -> DriftConfig:
        """The drift settings, with archmem's own folders ignored (memory files are what
        the team knows about the code, never a change to it) and generated code too."""
        from archmem.config import GENERATED_GLOBS

        store = self.config.store
        own = [".archmem/**", *(folder.rstrip("/") + "/**" for folder in (store.memories, store.private_memories,
                                                                          store.accepts)), *GENERATED_GLOBS]
        extra = [glob for glob in own if glob not in self.config.drift.ignore]
        return dataclasses.replace(self.config.drift, ignore=[*self.config.drift.ignore, *dict.fromkeys(extra)])

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
        progress: Callable[[int, int], None] | None = None, reasons: bool = True,
    ) -> DriftReport:
        """Every element's drift against when the model described it (or ``since_ref``),
        and the memories that became VERIFY (without ``reasons``: only how many)."""
        view = self.drift_view(deepen=deepen, progress=progress)
        since = None
        if since_ref is not None:
            base = self._since(since_ref)
            since = {element.id: base for element in self.model.elements}
        self.__dict__["drift"] = view
        return view.report(since=since, reasons=reasons)

    def drift_changed_files(self, report: DriftReport) -> dict[str, list[str]]:
        """Element id (drifted or missing) or memory id (VERIFY) → the files whose change
        since the model described it (or it was confirmed) counts: where a CI report
        points besides the model and the memory file."""
        if report.no_commits:
            return {}
        view = self.__dict__.get("drift") or self.drift_view()
        found: dict[str, list[str]] = {}
        for element in report.elements:
            if element.status in ("drifted", "missing"):
                changes = view.element_changes(element.id, max_stat=0, max_diff=0)
                found[element.id] = changes.files if changes is not None else []
        for memory, _ in report.stale:
            changes = view.memory_changes(memory, max_stat=0, max_diff=0)
            found[memory.id] = changes.files if changes is not None else []
        return found

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

    def accept_drift(self, element: str, reason: str | None = None) -> dict[str, Any]:
        """Record that the model's description of ELEMENT still holds for the code at HEAD:
        a file in the accept folder, signed by this clone's git user (``cli/<name>``), for
        the team to commit (``archmem.drift.accepts``)."""
        from archmem.memory.fields import clean_line
        from archmem.memory.secrets import check_fields

        check_fields({"reason": reason})
        reason = clean_line(reason, "reason")
        target = self.model.find(element)
        self._for_writing()
        accept = self.drift_view().accept(target.id, reason=reason, author=self.author_for(None))
        return {**accept.to_dict(), "note": accept.reason}


SUGGESTIBLE = "suggestible_elements"
"""``store_meta`` row: the elements ``paths suggest`` has a place for, and what that was worked out from."""


def _stamp(path: Path) -> list[int] | None:
    """A file's size and mtime (None: not there), as JSON keeps them."""
    try:
        info = path.stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]

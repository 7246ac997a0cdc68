"""What the ``Workspace`` renders for people and agents: briefings, the overview, the
knowledge map."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from archmem.errors import InvalidInputError
from archmem.workspace.reviews import ReviewOps

if TYPE_CHECKING:
    from archmem.memory.types import Memory
    from archmem.render.briefing import Briefing, Client
    from archmem.render.knowledge_map import KnowledgeMap
    from archmem.render.rules import RulesPlan


class BriefingOps(ReviewOps):
    """Briefings and the map (``archmem/render/``) from recall, drift and conformance."""

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
                return self.overview(budget=budget, budget_tokens=budget_tokens, session_id=session_id, client=client)
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
            overrides=self.template_overrides, undeclared=undeclared, client=client,
            notes=self._drift_notes(result.warnings),
        )
        if overview and derived and not elements and not briefing.memory_ids:
            return self.overview(budget=budget, budget_tokens=budget_tokens, session_id=session_id, client=client)
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
            config=self.config.recall, staleness=drift.verify_reasons if drift is not None else (lambda _memories: {}),
            budget=budget_tokens if budget_tokens is not None else (budget or DEFAULT_BUDGET_CHARS),
            measure=estimate_tokens if budget_tokens is not None else len,
            overrides=self.template_overrides, for_task=for_task, client=client,
            notes=self._drift_notes(self._recall_warnings),
        )
        briefing.warnings = list(self._recall_warnings)
        if session_id is not None and briefing.memory_ids:
            from archmem.memory.sessions import record_exposures

            record_exposures(self.memory_context, session_id, briefing.memory_ids)
        return briefing

    def file_notes_index(self) -> tuple[dict[str, Any], list[Path]]:
        """The index the edit hook answers from (``archmem.render.file_notes``): elements,
        their memories with VERIFY from drift, anchors; and the files and folders it was
        built from, so the hook knows when to build it again."""
        from archmem.render.file_notes import build_index

        model = self.model_or_empty
        index = build_index(model, self.store.list_memories(status="active"), self.staleness)
        folder = self.memory_folder
        sources = [self.root / "archmem.toml", self.root / "pyproject.toml", folder.shared, folder.private,
                   self.store_path, self.store_path.with_name(self.store_path.name + "-wal")]
        sources[:0] = self.loaded_model_files
        if self.config.source:
            sources.append(Path(self.config.source))
        return index, sources

    def _rule_texts(self, client: str) -> dict[str, str]:
        """The rule files in ``client``'s rule folder (repo-relative path → text)."""
        from archmem.render.rules import CLIENT_FOLDERS, SUFFIX

        folder = self.root / CLIENT_FOLDERS[client]
        found: dict[str, str] = {}
        for path in sorted(folder.glob(f"*{SUFFIX[client]}")) if folder.is_dir() else []:
            try:
                found[path.relative_to(self.root).as_posix()] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
        return found

    def rule_clients(self) -> list[str]:
        """The clients whose rule folder holds archmem's rule files (``install --rules`` ran)."""
        from archmem.render.rules import CLIENT_FOLDERS, is_generated

        return [client for client in CLIENT_FOLDERS if any(map(is_generated, self._rule_texts(client).values()))]

    def rules_plan(self, clients: Sequence[str], memories: Sequence[Memory] | None = None) -> RulesPlan:
        """What refreshing ``clients``' path-scoped rule files would write and remove
        (``archmem.render.rules``), from ``memories`` (default: the active ones)."""
        from archmem.render.rules import plan_rules, rule_files

        if memories is None:
            memories = self.store.list_memories(status="active")
        wanted = rule_files(self.model_or_empty, memories, clients)
        existing = {path: text for client in clients for path, text in self._rule_texts(client).items()}
        return plan_rules(existing, wanted)

    def write_rules(self, clients: Sequence[str]) -> RulesPlan:
        """Write ``clients``' rule files from the memories now; remove archmem's rule files
        for elements that have none any more; never touch a file without archmem's mark."""
        from archmem.atomic_write import write_atomic

        plan = self.rules_plan(clients)
        for path, text in plan.write.items():
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, text)
        for path in plan.remove:
            (self.root / path).unlink(missing_ok=True)
        return plan

    @staticmethod
    def _drift_notes(warnings: Sequence[str]) -> list[str]:
        """What a briefing must say about drift it could not compute (and how to)."""
        return [w[:1].upper() + w[1:].rstrip(".") for w in warnings if "drift" in w.lower()]

    def knowledge_map(self) -> KnowledgeMap:
        """What the project knows per element, how fresh, what to verify, and the gaps."""
        from archmem.render.knowledge_map import build_map

        verify: set[str] = set()
        drift: dict[str, str] | None = None
        note = None
        view = self.drift
        if view is not None:
            report = view.report(reasons=False)  # the map counts them; it does not say why
            verify = set(report.verify_ids or ())
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
            self.model, self.store.iter_memories(status="active"), ownership=self.ownership, now=self.clock(),
            verify=verify, drift=drift, drift_note=note, undeclared=undeclared, conformance_note=conformance_note,
            name=self.root.name,
        )


"""``Workspace``: the one façade every interface (CLI, MCP, Action) calls.

It owns the repository root, the configuration, the clock and (later) the store,
and returns plain values; it prints nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from archmem.config import CONFIG_FILE, CONFIG_TEMPLATE, Config, load_config
from archmem.errors import ModelNotFoundError
from archmem.model.loader import discover_model, load_model
from archmem.model.ownership import Ownership, compute_ownership
from archmem.model.types import ArchitectureModel
from archmem.repo import Repository

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(timezone.utc)


GITIGNORE_LINES = (".archmem/archmem.db", ".archmem/archmem.db-*")


@dataclass
class InitResult:
    root: Path
    config_path: Path
    config_written: bool
    gitignore_updated: bool
    model: str | None
    created: list[str] = field(default_factory=list)


class Workspace:
    """A repository with its architecture model (and, later, its memory store)."""

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
        model, ownership = self.model, self.ownership
        elements = []
        for depth, element in model.walk():
            size = ownership.size(element.id)
            elements.append(
                {
                    "id": element.id,
                    "name": element.name,
                    "kind": element.kind,
                    "parent": element.parent,
                    "depth": depth,
                    "paths": element.paths,
                    "paths_from_children": not element.paths and bool(model.effective_paths(element.id)),
                    "anchors": element.anchors,
                    "tags": element.tags,
                    "description": element.description,
                    "technology": element.technology,
                    "properties": element.properties,
                    "size": {"files": size.files, "lines": size.lines},
                }
            )
        return {
            "model": self._display(self.model_path),
            "format": model.format,
            "name": model.name,
            "git": self.repository.is_git,
            "elements": elements,
            "relationships": [
                {
                    "source": r.source,
                    "destination": r.destination,
                    "description": r.description,
                    "technology": r.technology,
                }
                for r in model.relationships
            ],
            "decisions": [
                {"id": d.id, "title": d.title, "status": d.status, "path": d.path, "element": d.element}
                for d in model.decisions
            ],
            "deployment_nodes": len(model.deployment),
            "unowned": ownership.unowned,
            "unowned_lines": ownership.unowned_lines,
            "warnings": list(model.warnings),
        }

    def _display(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)

    # ---- set-up ------------------------------------------------------------------

    def init(self) -> InitResult:
        """Write a commented archmem.toml (never over an existing one), create
        ``.archmem/`` and keep the database out of git. Safe to run twice."""
        created: list[str] = []
        config_path = self.root / CONFIG_FILE
        try:
            found: str | None = self._display(discover_model(self.root, None))
        except ModelNotFoundError:
            found = None
        written = False
        if not config_path.exists():
            text = CONFIG_TEMPLATE
            if found:
                text = text.replace('# model = "workspace.dsl"', f'model = "{found}"')
            config_path.write_text(text, encoding="utf-8")
            written = True
            created.append(CONFIG_FILE)
        state = self.root / ".archmem"
        if not state.exists():
            state.mkdir()
            created.append(".archmem/")
        gitignore = self.root / ".gitignore"
        text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
        existing = {line.strip() for line in text.splitlines()}
        missing = [line for line in GITIGNORE_LINES if line not in existing]
        if missing:
            prefix = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
            with gitignore.open("a", encoding="utf-8") as handle:
                handle.write(prefix + "# archmem's local memory store\n" + "\n".join(missing) + "\n")
        return InitResult(self.root, config_path, written, bool(missing), found, created)

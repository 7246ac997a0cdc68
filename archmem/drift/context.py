"""What drift needs from the outside, passed in as values (as ``MemoryContext`` and
``RecallContext`` are for memories and recall): the index holding the history cache and
the memories, the checkout, the model and who owns which file, the settings, the clock
and the two committed folders drift reads; and how far one view may go to read history.
``Workspace`` builds them; tests build them from a real repository and a frozen clock."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from archmem.config import DriftConfig
from archmem.drift.types import Thresholds
from archmem.values import Value

if TYPE_CHECKING:
    from pathlib import Path

    from archmem.clock import Clock
    from archmem.drift.accept_folder import AcceptFolder
    from archmem.drift.scan import Progress
    from archmem.git.repository import Repository
    from archmem.model.ownership import Ownership
    from archmem.model.types import ArchitectureModel
    from archmem.store.base import Store


@dataclass(frozen=True, repr=False, eq=False)
class DriftContext(Value):
    """One repository's drift inputs."""

    store: Store
    repository: Repository
    model: ArchitectureModel
    ownership: Ownership
    config: DriftConfig
    clock: Clock
    memory_folder: str | None = None
    """The committed memory folder (repo-relative): a memory committed with the code it
    describes was written against that code (``archmem.drift.staleness``)."""
    accept_folder: AcceptFolder | None = None
    """The committed accept files (``archmem.drift.accepts``); None: no accepts."""
    files_signature: str | None = None
    """The memory folders' signature after this open's sync, while nothing was written
    since (``SyncReport.signature``): what the memories to VERIFY are kept under
    (``archmem.drift.verify_cache``); None: work them out."""
    index_file: Path | None = None
    """Where the built drift index is kept between commands (``archmem.drift.index_cache``);
    None: build it every time."""

    @cached_property
    def thresholds(self) -> Thresholds:
        """When an element counts as drifted, from ``[drift]``."""
        config = self.config
        return Thresholds(min_lines=config.min_lines, churn_ratio=config.churn_ratio,
                          min_file_events=config.min_file_events, file_event_ratio=config.file_event_ratio,
                          ignore=list(config.ignore))


@dataclass(frozen=True, repr=False, eq=False)
class HistoryReading(Value):
    """How far one view may go to bring the history cache up to date: fetch a shallow
    clone's full history (``deepen``), report its progress, and refuse (``HistoryNotScanned``)
    rather than read more than ``budget`` commits on the way to an answer."""

    deepen: bool = False
    progress: Progress | None = None
    budget: int | None = None

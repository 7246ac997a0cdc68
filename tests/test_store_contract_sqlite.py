"""The ``Store`` contract (``tests/store_contract.py``) bound to SQLite: an index in a file,
and one held in memory (what a read in a repository without ``.archmem/`` uses)."""

from __future__ import annotations

from itertools import count
from pathlib import Path

import pytest

from archmem.store import open_store
from archmem.store.base import Store
from archmem.store.connection import IN_MEMORY

from .store_contract import *
from .store_contract import NewStore


@pytest.fixture(params=["file", "memory"])
def new_store(request: pytest.FixtureRequest, tmp_path: Path) -> NewStore:
    numbers = count()

    def opened() -> Store:
        if request.param == "memory":
            return open_store(Path(IN_MEMORY))
        return open_store(tmp_path / f"index-{next(numbers)}" / "archmem.db")

    return opened

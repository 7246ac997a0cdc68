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


def test_outside_the_store_package_the_index_is_a_store_never_the_sqlite_class():
    """``open_store`` is the one place that names the implementation: a second index
    then needs no change above ``archmem/store/``."""
    from .conftest import REPO_ROOT

    package = REPO_ROOT / "archmem"
    naming = sorted(
        str(path.relative_to(REPO_ROOT)) for path in package.rglob("*.py")
        if "SQLiteStore" in path.read_text(encoding="utf-8") and (package / "store") not in path.parents
    )
    assert naming == []

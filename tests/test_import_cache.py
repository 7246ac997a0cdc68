"""The per-content import cache (migration 10): rows by (blob, extractor), reused across
paths and runs, dropped once no run has needed them for a while."""

from __future__ import annotations

from pathlib import Path

from archmem.store import open_store
from archmem.store.imports import KEEP_RUNS, ImportCache


def test_migration_10_creates_the_cache_table(tmp_path: Path):
    with open_store(tmp_path / "a.db") as store:
        columns = [row[1] for row in store.db.execute("PRAGMA table_info(code_imports)")]
        assert columns == ["blob", "extractor", "imports", "seen"]
        keys = [row[1] for row in store.db.execute("PRAGMA index_list(code_imports)") if row[3] == "pk"]
        assert keys, "(blob, extractor) is the primary key"


def test_rows_come_back_by_key_and_an_extractor_version_never_reads_another(tmp_path: Path):
    with open_store(tmp_path / "a.db") as store:
        cache = ImportCache(store)
        cache.put_many([("b1", "python:1", {"l": "python", "i": []}), ("b2", "go:1", {"l": "go", "i": [["fmt", 3, [], 0]]})])
        found = cache.get_many([("b1", "python:1"), ("b2", "go:1"), ("b1", "python:2"), ("nope", "go:1")])
        assert found == {("b1", "python:1"): {"l": "python", "i": []}, ("b2", "go:1"): {"l": "go", "i": [["fmt", 3, [], 0]]}}


def test_rows_no_run_needed_for_a_while_are_dropped(tmp_path: Path):
    with open_store(tmp_path / "a.db") as store:
        cache = ImportCache(store)
        cache.put_many([("old", "python:1", {}), ("kept", "python:1", {})])
        for _ in range(KEEP_RUNS + 1):
            cache.put_many([], needed=[("kept", "python:1")])
        assert cache.get_many([("old", "python:1"), ("kept", "python:1")]) == {("kept", "python:1"): {}}
        assert cache.count() == 1

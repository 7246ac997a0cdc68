"""A recall and a status run a small, fixed number of SQL statements, however many
memories there are: staleness, memory files and linked memories are read in batches,
not one query per memory. Counted with sqlite3's trace callback on a real store with
committed memory files and back-dated history; statements SQLite runs inside FTS5
(``-- ``) are its own and not counted."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from archmem.status import workspace_status
from archmem.workspace import Workspace

from .conftest import DRIFT_MODEL, FrozenClock, commit, git, lines, spy, write

RECALL_LIMIT = 29
"""Two of them read the parsed model and the thesaurus's word forms the index keeps
(model/dsl_cache.py, store/words.py) instead of parsing and analysing; the first recall
of an index writes the forms (three statements, once). One reads the commits that last
changed the memory files, a row apart from the rest of drift/head_cache.py's, looked up
there for the few memories a recall shows rather than parsed for every file; one the
history scan's pathspecs, kept rather than worked out from every anchored file (drift/scan.py);
one the line counts of the code's files (store/line_counts.py) rather than reading every owned file."""
STATUS_LIMIT = 25
"""One of them reads what drift keeps per HEAD (drift/head_cache.py) instead of starting a git log,
one the parsed model (model/dsl_cache.py) instead of parsing it, one the history scan's pathspecs
(drift/scan.py) instead of matching every anchored file against every ignore glob, one the kept
line counts (store/line_counts.py) instead of reading every owned file, one the model file's
blame kept per HEAD (drift/head_cache.py) instead of a git log and a git blame."""


def clock(day: int) -> FrozenClock:
    frozen = FrozenClock()
    frozen.now = datetime(2026, 1, day, 12, tzinfo=UTC)
    return frozen


def build(root: Path, memories: int) -> Path:
    """A repository with ``memories`` committed memory files on two elements, a third
    anchored to a file, each linking the one before; then the code changes under them."""
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": DRIFT_MODEL, "services/api/router.go": lines(40), "services/orders/app.py": lines(40),
                 "legacy/old.py": lines(10)})
    commit(root, "initial", "2026-01-01T00:00:00Z")
    with Workspace.open(root, clock=clock(1), env={}) as ws:
        for i in range(memories):
            ws.remember(
                f"Gateway token retries, rule {i}: see [[Rule {max(i - 1, 0)}]]", kind="pitfall", title=f"Rule {i}",
                elements=["ApiGateway" if i % 2 else "Orders"], anchors=["services/api/router.go"] if i % 3 == 0 else [],
            )
    commit(root, "memories", "2026-01-02T00:00:00Z")
    write(root, {"services/api/router.go": lines(200), "services/orders/app.py": lines(120)})
    commit(root, "rewrite", "2026-01-03T00:00:00Z")
    return root


def statements(root: Path, action: Callable[[Workspace], object]) -> list[str]:
    """The statements archmem runs for ``action`` on a freshly opened workspace (the
    history scan done before, as after any earlier command)."""
    with Workspace.open(root, clock=clock(5), env={}) as ws:
        ws.drift_report()
    with Workspace.open(root, clock=clock(5), env={}) as ws:
        seen: list[str] = []
        ws.store.db.set_trace_callback(seen.append)
        try:
            action(ws)
        finally:
            ws.store.db.set_trace_callback(None)
    return [sql for sql in seen if not sql.startswith("-- ")]


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    return {n: build(tmp_path_factory.mktemp(f"n{n}") / "repo", n) for n in (8, 48)}


def recall(ws: Workspace) -> None:
    result = ws.recall("gateway token retries rule", limit=3)
    assert any(r["verify"] for r in result.results)
    assert result.linked  # linked neighbours were read too


def status(ws: Workspace) -> None:
    assert workspace_status(ws)["drift"]["stale_memories"] > 0


@pytest.mark.parametrize("action, limit", [(recall, RECALL_LIMIT), (status, STATUS_LIMIT)], ids=["recall", "status"])
def test_statements_do_not_grow_with_the_memories(stores: dict[int, Path], action, limit: int):
    small, large = (statements(stores[n], action) for n in sorted(stores))
    assert len(large) <= limit, "\n".join(large)
    assert len(large) == len(small), "\n".join(sorted(set(large) - set(small)))


def memories_made(root: Path, action: Callable[[Workspace], object], monkeypatch: pytest.MonkeyPatch) -> int:
    """How many ``Memory`` values the store makes from its rows for ``action`` (the real
    reader runs; it is only counted)."""
    from archmem.store import sqlite as sqlite_store

    made = 0
    reader = sqlite_store._memory

    def counted(row):
        nonlocal made
        made += 1
        return reader(row)

    with Workspace.open(root, clock=clock(5), env={}) as ws:
        ws.drift_report()
    monkeypatch.setattr(sqlite_store, "_memory", counted)
    with Workspace.open(root, clock=clock(5), env={}) as ws:
        action(ws)
    monkeypatch.undo()
    return made


def test_status_counts_the_memories_to_verify_without_reading_them(stores: dict[int, Path], monkeypatch):
    """``status`` shows how many memories to VERIFY, not why: it reads what staleness
    depends on (times, elements, anchors, files), never the memories themselves."""
    small, large = (memories_made(stores[n], status, monkeypatch) for n in sorted(stores))
    assert small == large


def test_the_count_of_memories_to_verify_is_the_length_of_the_listed_ones(tmp_path: Path):
    """Every cause of VERIFY, counted the way status counts, against the report's list:
    drift, an anchor changed in substance or only in whitespace, a symbol anchor, code that
    is gone, a confirmation after the change, and memories committed with the code they
    describe (which does not count against them)."""
    root = build(tmp_path / "repo", 12)
    with Workspace.open(root, clock=clock(3), env={}) as ws:
        ws.remember("The router's handler is fragile", kind="pitfall", anchors=["services/api/router.go#Router"])
        ws.remember("Legacy code goes away soon", kind="note", elements=["Legacy"])
        ws.remember("The orders app reads its config once", kind="convention", anchors=["services/orders/app.py"])
        written_with_code = ws.remember("Orders batch writes", kind="pitfall", elements=["Orders"]).id
    write(root, {"services/orders/app.py": lines(300)})
    commit(root, "orders and a memory about them", "2026-01-03T12:00:00Z")
    write(root, {"services/orders/app.py": lines(300).replace("\n", "  \n")})  # whitespace only
    (root / "legacy" / "old.py").unlink()
    commit(root, "legacy gone", "2026-01-04T00:00:00Z")
    with Workspace.open(root, clock=clock(5), env={}) as ws:
        ws.confirm(ws.recall("gateway token retries rule 4", limit=1).results[0]["id"])
    with Workspace.open(root, clock=clock(6), env={}) as ws:
        listed = ws.drift_report()
        counted = ws.drift_report(reasons=False)
        assert counted.verify_ids is not None and not counted.stale
        assert sorted(counted.verify_ids) == sorted(m.id for m, _ in listed.stale)
        assert len(listed.stale) == workspace_status(ws)["drift"]["stale_memories"]
        assert counted.counts() == listed.counts() and counted.score == listed.score
        stale = {memory.id for memory, _ in listed.stale}
        assert written_with_code not in stale and 0 < len(stale) < ws.store.count_memories()


def steps(root: Path, action: Callable[[Workspace], object]) -> int:
    """How many SQLite virtual-machine steps ``action`` takes on an opened workspace
    (the progress handler called at every instruction: a count, not a time)."""
    with Workspace.open(root, clock=clock(5), env={}) as ws:
        ws.store  # noqa: B018  (opened and synced before counting)
        taken = 0

        def step() -> int:
            nonlocal taken
            taken += 1
            return 0

        ws.store.db.set_progress_handler(step, 1)
        try:
            action(ws)
        finally:
            ws.store.db.set_progress_handler(None, 1)
    return taken


def test_listing_the_unreadable_files_does_not_walk_every_file(stores: dict[int, Path]):
    """Every open lists the files that failed: from an index of those alone, not a walk
    over every file's row."""
    small, large = (steps(stores[n], lambda ws: ws.store.file_problems()) for n in sorted(stores))
    assert small == large


def test_a_recall_places_the_files_of_the_memories_it_weighs_not_of_every_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Where in history each memory file was last committed is looked up for the memories
    a recall weighs; memories the task does not match cost nothing (once, every file's
    commit was read and placed in history on every recall)."""
    from archmem.drift.index import DriftIndex

    def placed(unrelated: int) -> int:
        root = build(tmp_path / f"unrelated{unrelated}", 8)
        with Workspace.open(root, clock=clock(4), env={}) as ws:
            for i in range(unrelated):
                ws.remember(f"Invoices are rounded per line, case {i}.", kind="note", title=f"Invoice {i}")
        write(root, {"legacy/old.py": lines(12)})
        commit(root, "more memories", "2026-01-04T00:00:00Z")
        with Workspace.open(root, clock=clock(5), env={}) as ws:
            ws.drift_report()
        asked = spy(monkeypatch, DriftIndex, "ordinal")
        with Workspace.open(root, clock=clock(5), env={}) as ws:
            recall(ws)
        monkeypatch.undo()
        return len(asked)

    assert placed(0) == placed(40)


def test_status_asks_which_elements_are_documented_without_counting_their_memories(stores: dict[int, Path]):
    """Whether an element has a memory is one found memory, not a count over them all."""
    small, large = (steps(stores[n], lambda ws: ws.store.documented_elements(["ApiGateway", "Orders", "Legacy"]))
                    for n in sorted(stores))
    assert small == large

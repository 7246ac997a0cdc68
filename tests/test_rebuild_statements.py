"""A rebuild of the index from the memory files does the work a chunk of files at a
time, not a file at a time: the word index is written in a few segments, and the
statements archmem runs grow with the chunks. Counted on real files, a real git
repository and a real SQLite index (sqlite3's trace callback and a counting connection);
what a rebuilt index answers is compared with the index the writes built."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from archmem.memory.file_format import file_name, render_memory
from archmem.memory.types import Memory
from archmem.recall.types import WordQuery
from archmem.workspace import Workspace

from .conftest import DRIFT_MODEL, commit, git, write

START = datetime(2026, 1, 1, tzinfo=UTC)


def memory(i: int) -> Memory:
    created = START + timedelta(minutes=i)
    return Memory(
        id=f"m-{i:010x}", kind="pitfall" if i % 2 else "convention", title=f"Rule {i}" if i % 3 else None,
        content=f"Gateway retry rule {i} keeps `services/api/router.go` calm; see [[Rule {max(i - 1, 1)}]].",
        elements=["api" if i % 2 else "orders"], anchors=["services/api/router.go"] if i % 5 == 0 else [],
        author="claude-code/dev", created_at=created, confirmed_at=created, confirmations=i % 3,
        supersedes=f"m-{i - 1:010x}" if i % 7 == 0 else None, status="archived" if i % 11 == 0 else "active",
    )


def build(root: Path, count: int) -> Path:
    root.mkdir()
    git(root, "init", "-q")
    folder = root / ".archmem" / "memories"
    folder.mkdir(parents=True)
    for i in range(count):
        item = memory(i)
        (folder / file_name(item)).write_text(render_memory(item), encoding="utf-8")
    write(root, {"workspace.dsl": DRIFT_MODEL, ".gitignore": ".archmem/archmem.db*\n"})
    commit(root, "memories", "2026-01-02T00:00:00Z")
    return root


class Watch:
    """What every connection opened while watching ran: the statements SQLite traced
    (FTS5's own start with ``-- ``) and archmem's calls of execute and executemany."""

    def __init__(self) -> None:
        self.traced: list[str] = []
        self.calls: list[str] = []

    def fts_pages_written(self) -> int:
        return sum(1 for sql in self.traced if sql.startswith("-- ") and "_fts_data'(id, block)" in sql)


@pytest.fixture
def watch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Watch]:
    seen = Watch()

    class Counting(sqlite3.Connection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
            seen.calls.append(sql)
            return super().execute(sql, *args)  # type: ignore[arg-type]

        def executemany(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
            seen.calls.append(sql)
            return super().executemany(sql, *args)  # type: ignore[arg-type]

    real = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        db = real(*args, factory=Counting, **kwargs)  # type: ignore[misc, call-overload]
        db.set_trace_callback(seen.traced.append)
        return db

    monkeypatch.setattr(sqlite3, "connect", connect)
    yield seen


def rebuild(root: Path) -> None:
    for path in (root / ".archmem").glob("archmem.db*"):
        path.unlink()
    with Workspace.open(root, env={}) as ws:
        assert ws.store.count_memories(status=None) == len(list((root / ".archmem/memories").glob("*.md")))
        assert not ws.file_warnings


def test_a_rebuild_writes_the_word_index_in_a_few_segments(tmp_path: Path, watch: Watch):
    """FTS5 writes out the words it holds whenever a statement opens a savepoint (a
    trigger's does) or a rowid goes down: written a row at a time, 300 memories took
    852 page writes, merging segments over and over; in one ordered statement a chunk, 17."""
    root = build(tmp_path / "repo", 300)
    watch.traced.clear()
    rebuild(root)
    assert watch.fts_pages_written() < 60


def answers(root: Path) -> tuple[object, ...]:
    with Workspace.open(root, env={}) as ws:
        store = ws.store
        found = [[memory_id for memory_id, _ in store.lexical_search(WordQuery((word,)))]
                 for word in ("gateway", "router", "rule", "calm", "3")]
        listed = [(m.id, m.status, m.superseded_by, m.elements, m.anchors, m.title) for m in store.list_memories(status=None)]
        return found, listed, store.term_document_counts(["gateway", "rule", "services"]), store.links()


def test_a_rebuilt_index_answers_as_the_index_the_sync_kept(tmp_path: Path):
    """The rows written a chunk at a time are the rows written one at a time: searches,
    chains, elements, anchors and links agree after the index is deleted and rebuilt,
    and after one file changes and is indexed again."""
    root = build(tmp_path / "repo", 40)
    with Workspace.open(root, env={}) as ws:
        ws.remember("Orders retry budget is three calls.", kind="convention", title="Retry budget", elements=["Orders"])
    kept = answers(root)
    rebuild(root)
    assert answers(root) == kept
    edited = next((root / ".archmem/memories").glob("rule-4.*.md"))
    edited.write_text(edited.read_text(encoding="utf-8").replace("keeps", "keeps gateway"), encoding="utf-8")
    again = answers(root)
    rebuild(root)
    assert answers(root) == again


def test_a_rebuild_runs_statements_by_the_chunk_not_by_the_file(tmp_path: Path, watch: Watch):
    """Which file holds an id, the file records, the memories and their links are written
    a chunk of files at a time: 200 more files ran 1,640 more statements (a holder
    lookup, a file record and a links delete per file); now a handful. The links'
    targets are still looked up one by one (reads of memory rows by title), not counted."""
    counts = []
    for files in (100, 300):
        root = build(tmp_path / f"repo{files}", files)
        watch.calls.clear()
        rebuild(root)
        counts.append(sum(1 for sql in watch.calls if not sql.lstrip().startswith("SELECT m.id, m.title")))
    assert counts[1] - counts[0] < 20, counts


def test_a_rebuild_asks_for_each_link_title_once(tmp_path: Path, watch: Watch):
    """Every link looked its title up twice (``in``, then the id), and again when it was
    still pending: 300 files ran 884 lookups by title for 300 targets; then 400, a title
    once a sync and once more among superseded memories when no active one had it. Now
    the titles of a chunk of files' links are asked in one query, and only a title no
    active memory has is asked on its own (twice: active, then any)."""
    root = build(tmp_path / "repo", 300)
    watch.calls.clear()
    rebuild(root)
    by_title = sum(1 for sql in watch.calls if "WHERE m.title_key = ?" in sql)
    targets = {f"rule {max(i - 1, 1)}" for i in range(300)}
    with Workspace.open(root, env={}) as ws:
        active = {m.title.lower() for m in ws.store.list_memories() if m.title}
    assert by_title <= 2 * len(targets - active), (by_title, len(targets - active))
    assert sum(1 for sql in watch.calls if "WHERE title_key IN" in sql) == 1


def index_definitions(root: Path) -> list[tuple[str, str, str]]:
    db = sqlite3.connect(root / ".archmem" / "archmem.db")
    try:
        return db.execute("SELECT tbl_name, name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").fetchall()
    finally:
        db.close()


def test_a_rebuild_sorts_each_secondary_index_once_after_the_rows(tmp_path: Path, watch: Watch):
    """Into an empty index the rows go in with no secondary index to keep in order row by
    row (9 on the four tables the files fill): each is dropped before the first row and
    made again, from its own definition, after the last, in the same transaction; the
    rebuilt index has the indexes a migrated one has. An index that holds memories keeps
    its indexes while a changed file is indexed again."""
    root = build(tmp_path / "repo", 120)
    with Workspace.open(root, env={}) as ws:
        assert ws.store.count_memories(status=None) == 120
    kept = index_definitions(root)
    watch.traced.clear()
    rebuild(root)
    traced = [sql.strip() for sql in watch.traced if not sql.startswith("-- ")]
    inserts = [i for i, sql in enumerate(traced) if sql.startswith("INSERT INTO memories (")]
    migrated = max(i for i, sql in enumerate(traced) if "archmem_migrations" in sql)
    dropped = [i for i, sql in enumerate(traced) if sql.startswith("DROP INDEX") and i > migrated]
    made = [i for i, sql in enumerate(traced) if sql.startswith("CREATE INDEX") and i > inserts[0]]
    secondary = [name for table, name, sql in kept if sql and table in
                 ("memories", "memory_elements", "memory_anchors", "memory_files")]
    assert len(secondary) >= 8 and len(dropped) == len(made) == len(secondary), (secondary, dropped, made)
    assert max(dropped) < inserts[0] and min(made) > inserts[-1]
    assert index_definitions(root) == kept
    edited = next((root / ".archmem/memories").glob("rule-4.*.md"))
    edited.write_text(edited.read_text(encoding="utf-8").replace("keeps", "keeps gateway"), encoding="utf-8")
    watch.traced.clear()
    with Workspace.open(root, env={}) as ws:
        assert ws.store.count_memories(status=None) == 120
    assert not [sql for sql in watch.traced if "INDEX" in sql and not sql.startswith("-- ")]
    assert index_definitions(root) == kept


def test_a_rebuild_lists_and_stats_the_files_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An open compares the files' stamps with the index's before it takes the write lock,
    and scans again under it; into an empty index every file is read anyway, so the
    first pass (a stat a file: 0.09 s of a 1.8 s rebuild at 10,000 files) is skipped.
    An open with nothing changed still compares, once."""
    from archmem.store.files import MemoryFolder

    root = build(tmp_path / "repo", 30)
    scans: list[str] = []
    real = MemoryFolder._stamps

    def counted(self: MemoryFolder, folder: Path) -> dict[str, tuple[int, int]]:
        found = real(self, folder)
        if found:
            scans.append(str(folder))
        return found

    monkeypatch.setattr(MemoryFolder, "_stamps", counted)
    rebuild(root)
    assert len(scans) == 1, scans
    scans.clear()
    with Workspace.open(root, env={}) as ws:
        assert ws.store.count_memories(status=None) == 30
    assert len(scans) == 1, scans


def test_a_rebuild_writes_the_word_index_in_one_statement(tmp_path: Path, watch: Watch):
    """Into an empty index the words of every memory go in at the end, in one statement
    (one segment for FTS5 to merge, not one a chunk of 500 files: 600 files ran two), once
    the chains are derived: the words of a memory superseded or archived are not written
    to be deleted again (600 files: 22 word-index pages written, now 18)."""
    root = build(tmp_path / "repo", 600)
    watch.calls.clear()
    watch.traced.clear()
    rebuild(root)
    assert sum(1 for sql in watch.calls if sql.startswith("INSERT INTO memory_fts")) == 1
    traced = [sql.strip() for sql in watch.traced]
    words = next(i for i, sql in enumerate(traced) if sql.startswith("INSERT INTO memory_fts (rowid"))
    chains = [i for i, sql in enumerate(traced) if sql.startswith("UPDATE memories SET status")]
    assert chains and chains[0] < words


def test_a_rebuild_with_two_files_for_one_id_indexes_its_words_once(tmp_path: Path, watch: Watch):
    """A second file with an id already read updates that memory while the words wait for
    the end of the rebuild: the word index holds each active memory once, and FTS5's own
    check passes."""
    root = build(tmp_path / "repo", 30)
    folder = root / ".archmem/memories"
    first = sorted(folder.glob("*.md"))[3]
    (folder / ("a-copy-" + first.name)).write_text(
        first.read_text(encoding="utf-8").replace("Gateway", "Copied gateway"), encoding="utf-8")
    for path in (root / ".archmem").glob("archmem.db*"):
        path.unlink()
    with Workspace.open(root, env={}) as ws:
        assert ws.store.count_memories(status=None) == 30
        assert len(ws.file_warnings) == 1
    assert any(sql.startswith("UPDATE memories SET title") for sql in watch.traced)
    db = sqlite3.connect(root / ".archmem" / "archmem.db")
    try:
        db.execute("INSERT INTO memory_fts(memory_fts) VALUES ('integrity-check')")
        words = db.execute("SELECT COUNT(*), COUNT(DISTINCT rowid) FROM memory_fts").fetchone()
        active = db.execute("SELECT COUNT(*) FROM memories WHERE status = 'active'").fetchone()[0]
    finally:
        db.close()
    assert words == (active, active)


def test_reading_a_valid_file_looks_for_no_key_line():
    """Where each front-matter key stands is for messages (an error, a warning, ``check``):
    a file read without one does not look for it (a regular expression a front-matter
    line); asked, it is there."""
    from archmem.memory.file_format import parse_memory

    parsed = parse_memory(render_memory(memory(3)))
    assert parsed.source is not None and "keys" not in vars(parsed.source)
    assert parsed.lines["id"] == 2 and parsed.lines["kind"] > 2
    warned = parse_memory(render_memory(memory(3)).replace("kind:", "colour: red\nkind:", 1))
    assert [message for _, message in warned.warnings] == ["unknown key 'colour' is ignored"]
    assert warned.warnings[0][0] == warned.lines["colour"]


def test_a_rebuild_runs_no_more_cycle_collections_for_more_files(tmp_path: Path):
    """Every file read leaves objects alive until the rebuild's end, and Python's cycle
    collector walked them again and again as they grew (at 10,000 files, 260 passes,
    two over every object; here 3 for 100 files, 12 for 400): the collector is off while
    files are indexed, so 300 more files run at most one more collection (once it is on
    again) than 100."""
    import gc

    runs: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(info["generation"])

    counts = []
    for files in (100, 400):
        root = build(tmp_path / f"repo{files}", files)
        gc.collect()
        gc.callbacks.append(count)
        try:
            runs.clear()
            rebuild(root)
        finally:
            gc.callbacks.remove(count)
        counts.append(len(runs))
    assert counts[1] <= counts[0] + 1, counts


def test_a_rebuild_derives_the_chains_once(tmp_path: Path, watch: Watch):
    """A load into an empty index derives the chains before it writes the words; the sync
    derived them again after it (two updates of every memory row's chain, to change
    nothing). A changed file still has them derived."""
    root = build(tmp_path / "repo", 60)
    watch.calls.clear()
    rebuild(root)
    assert sum(1 for sql in watch.calls if sql.startswith("UPDATE memories SET superseded_by")) == 1
    edited = next((root / ".archmem/memories").glob("*.m-0000000007.md"))
    text = edited.read_text(encoding="utf-8")
    assert "supersedes: m-0000000006" in text
    edited.write_text(text.replace("supersedes: m-0000000006", "supersedes: m-0000000003"), encoding="utf-8")
    watch.calls.clear()
    with Workspace.open(root, env={}) as ws:
        assert ws.store.get_memory("m-0000000003").superseded_by == "m-0000000007"  # type: ignore[union-attr]
        assert ws.store.get_memory("m-0000000006").status == "active"  # type: ignore[union-attr]
    assert sum(1 for sql in watch.calls if sql.startswith("UPDATE memories SET superseded_by")) == 1


def test_a_rebuild_leaves_no_cycles_for_the_collector(tmp_path: Path):
    """With the cycle collector paused, what a rebuild leaves in reference cycles waits in
    memory until the end: splitting a compound word made one (a recursive closure) a word,
    7 MB of 60 at 10,000 files. 300 more files leave no more cyclic garbage than 100."""
    import gc

    from archmem.memory.text import _chunk_tokens

    left = []
    for files in (100, 400):
        root = build(tmp_path / f"repo{files}", files)
        _chunk_tokens.cache_clear()
        gc.collect()
        gc.disable()
        try:
            rebuild(root)
        finally:
            gc.enable()
        left.append(gc.collect())
    assert left[1] <= left[0] + 50, left

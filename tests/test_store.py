"""The SQLite store: migrations, FTS triggers, constraints, and refusing foreign files."""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from archmem.errors import StoreError
from archmem.memory.types import Link, Memory, Session
from archmem.recall.types import WordQuery
from archmem.store import open_store
from archmem.store.base import Store
from archmem.store.migrations import MIGRATIONS, MIGRATIONS_TABLE
from archmem.store.sqlite import SQLiteStore

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def memory(id: str, content: str = "the gateway strips long headers", **fields) -> Memory:
    return Memory(id=id, kind=fields.pop("kind", "pitfall"), content=content, created_at=NOW, **fields)


def insert(store: SQLiteStore, m: Memory, title_key: str | None = None) -> None:
    store.insert_memory(m, title_key=title_key, content_hash=m.id + "-hash", search_title=m.title or "", search_body=m.content)


@pytest.fixture
def store(tmp_path: Path):
    with open_store(tmp_path / ".archmem" / "archmem.db") as opened:
        yield opened


def test_blank_database_is_migrated_with_tables_indexes_and_triggers(store: SQLiteStore):
    db = store.db
    applied = [row[0] for row in db.execute(f"SELECT id FROM {MIGRATIONS_TABLE} ORDER BY id")]
    assert applied == [number for number, _, _ in MIGRATIONS]
    columns = {row[1] for row in db.execute("PRAGMA table_info(memories)")}
    assert {"id", "title", "kind", "content", "created_at", "confirmed_at", "supersedes", "superseded_by",
            "status", "exposures", "citations"} <= columns
    fks = {(row[2], row[3]) for row in db.execute("PRAGMA foreign_key_list(memory_elements)")}
    assert ("memories", "memory_id") in fks
    triggers = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert triggers == {"memories_fts_update", "memories_fts_delete",
                        "embeddings_version_insert", "embeddings_version_update", "embeddings_version_delete",
                        "memories_active_insert", "memories_active_delete", "memories_active_update",
                        "memory_anchors_insert", "memory_anchors_delete", "memory_anchors_update"}
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_store_satisfies_the_store_interface(store: SQLiteStore):
    members = [name for name in dir(Store) if not name.startswith("_")]
    missing = [name for name in members if not callable(getattr(store, name, None))]
    assert not missing


def test_fts_follows_inserts_updates_and_deletes(store: SQLiteStore):
    insert(store, memory("m1", "headers over 8KB are dropped"))
    assert [i for i, _ in store.lexical_search(WordQuery(("headers",)))] == ["m1"]
    store.update_memory("m1", search_body="payload bodies")
    assert store.lexical_search(WordQuery(("headers",))) == []
    assert [i for i, _ in store.lexical_search(WordQuery(("payload",)))] == ["m1"]
    store.delete_memory("m1")
    assert store.lexical_search(WordQuery(("payload",))) == []
    assert store.db.execute("SELECT COUNT(*) FROM memory_fts").fetchone()[0] == 0


def test_the_word_index_holds_active_memories_only(store: SQLiteStore):
    insert(store, memory("m1", "retry storms"))
    insert(store, memory("m2", "retry budgets"))
    assert store.term_document_counts(["retry"]) == {"retry": 2}
    assert store.memory_total() == 2
    store.update_memory("m1", status="archived")
    assert [i for i, _ in store.lexical_search(WordQuery(("retry",)))] == ["m2"]
    assert store.term_document_counts(["retry", "storms"]) == {"retry": 1, "storms": 0}
    assert store.memory_total() == 1
    store.update_memory("m1", status="active")
    assert [i for i, _ in store.lexical_search(WordQuery(("storms",)))] == ["m1"]
    assert store.memory_total() == 2


def test_term_statistics_see_another_connections_writes(store: SQLiteStore, tmp_path: Path):
    insert(store, memory("m1", "retry storms"))
    assert store.term_document_counts(["retry"]) == {"retry": 1}
    with SQLiteStore(store.path) as other:
        other.insert_memory(memory("m2", "retry budgets"), title_key=None, content_hash="h2",
                            search_title="", search_body="retry budgets")
    assert store.term_document_counts(["retry"]) == {"retry": 2}
    assert store.memory_total() == 2


def test_the_index_takes_a_title_clash_and_a_fork_that_merged_files_bring(store: SQLiteStore):
    """Two branches may each take one title or supersede one memory; merged, the files say
    both, and the index must hold what the files say for ``archmem check`` to report it
    (a writer on this clone is refused both under the write lock: tests/test_memory.py)."""
    insert(store, memory("m1", title="Header limits"), title_key="header limits")
    insert(store, memory("m2", title="HEADER LIMITS"), title_key="header limits")
    insert(store, memory("m3", "b", supersedes="m1"))
    insert(store, memory("m4", "c", supersedes="m1"))
    assert store.derive_chains() >= 1
    assert store.forks() == {"m1": ["m3", "m4"]}
    assert store.get_memory("m1").status == "superseded"
    assert store.get_memory("m1").superseded_by == "m3"


def test_transaction_rolls_back_everything(store: SQLiteStore):
    with pytest.raises(RuntimeError), store.transaction():
        insert(store, memory("m1"))
        store.add_elements("m1", ["api"])
        raise RuntimeError("boom")
    assert store.get_memory("m1") is None
    assert store.db.execute("SELECT COUNT(*) FROM memory_elements").fetchone()[0] == 0


def test_elements_and_anchors_keep_order_and_ignore_repeats(store: SQLiteStore):
    insert(store, memory("m1", elements=["b", "a"], anchors=["x.py"]))
    assert store.add_elements("m1", ["a", "c"]) == ["c"]
    assert store.get_memory("m1").elements == ["b", "a", "c"]


def test_usage_counts_once_per_session_and_exposures_when_the_session_ends(store: SQLiteStore):
    insert(store, memory("m1"))
    assert store.record_usage("exposures", "s1", ["m1", "m1"], "t") == ["m1"]
    assert store.record_usage("exposures", "s1", ["m1"], "t") == []
    store.record_usage("exposures", "s2", ["m1"], "t")
    assert store.get_memory("m1").exposures == 0  # sessions still open say nothing yet
    assert store.count_exposures("s1") == 1
    assert store.get_memory("m1").exposures == 1
    store.count_exposures("s2")
    assert store.get_memory("m1").exposures == 2
    assert store.record_usage("citations", "s1", ["m1", "m1"], "t") == ["m1"]
    assert store.get_memory("m1").citations == 1  # a citation counts at once


def test_links_pending_then_resolved(store: SQLiteStore):
    insert(store, memory("m1", "see [[Later]]"))
    store.replace_links("m1", [(Link(source_id="m1", target_text="Later"), "later")])
    assert [link.target_text for link in store.links(pending=True)] == ["Later"]
    insert(store, memory("m2", "later one", title="Later"), title_key="later")
    assert store.resolve_pending_links("later", "memory", "m2") == 1
    assert store.links(pending=True) == []
    assert store.links_to("m2")[0].source_id == "m1"


def test_sessions_end_once(store: SQLiteStore):
    store.insert_session(Session(id="s1", task="t", started_at=NOW))
    assert store.end_session("s1", "2026-11-01T13:00:00.000000Z", None) is True
    assert store.end_session("s1", "2026-11-01T14:00:00.000000Z", None) is False


def test_a_file_that_is_not_sqlite_is_refused_and_kept(tmp_path: Path):
    path = tmp_path / "archmem.db"
    path.write_bytes(b"not a database at all, just some bytes" * 10)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not an archmem store"):
        open_store(path)
    assert path.read_bytes() == before


def test_a_corrupt_sqlite_file_is_refused(tmp_path: Path):
    path = tmp_path / "archmem.db"
    open_store(path).close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError):
        open_store(path)


def test_a_foreign_sqlite_database_is_refused_untouched(tmp_path: Path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE customers (id INTEGER)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=r"not an archmem store.*customers"):
        open_store(path)
    names = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert names == {"customers"}


def test_a_store_from_a_newer_archmem_is_refused(tmp_path: Path):
    path = tmp_path / "archmem.db"
    open_store(path).close()
    db = sqlite3.connect(path)
    db.execute(f"INSERT INTO {MIGRATIONS_TABLE} (id, name, applied_at) VALUES (999, 'future', 'x')")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer archmem"):
        open_store(path)


def test_a_read_only_store_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "archmem.db"
    open_store(path).close()
    before = path.read_bytes()
    if os.geteuid() == 0:
        # root ignores permission bits; the immutable attribute stops even root
        if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)]).returncode != 0:
            pytest.skip("running as root without chattr: cannot make a file read-only here")
    else:
        path.chmod(0o444)
    try:
        with pytest.raises(StoreError, match="read-only"):
            open_store(path)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)])
    assert path.read_bytes() == before


def test_a_store_folder_that_cannot_be_created_is_a_clear_error(tmp_path: Path):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create the store folder"):
        open_store(blocker / "archmem.db")


def test_upgrade_from_the_first_schema_keeps_memories(tmp_path: Path):
    from archmem.store.migrations import run_script  # noqa: F401  (the same machinery)

    path = tmp_path / "archmem.db"
    db = sqlite3.connect(path, isolation_level=None)
    number, name, first = MIGRATIONS[0]
    db.execute("BEGIN")
    db.execute(f"CREATE TABLE {MIGRATIONS_TABLE} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    first(db)
    db.execute(f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?, 'then')", (number, name))
    db.execute(
        "INSERT INTO memories (id, kind, content, content_hash, created_at, search_body) "
        "VALUES ('m-old', 'note', 'kept across upgrades', 'h', '2026-01-01T00:00:00.000000Z', 'kept across upgrades')"
    )
    db.execute(
        "INSERT INTO memories (id, kind, content, content_hash, created_at, search_body, status) VALUES "
        "('m-gone', 'note', 'archived upgrades', 'h2', '2026-01-01T00:00:00.000000Z', 'archived upgrades', 'archived')"
    )
    db.execute("COMMIT")
    db.close()
    with open_store(path) as store:
        versions = [r[0] for r in store.db.execute(f"SELECT id FROM {MIGRATIONS_TABLE} ORDER BY id")]
        assert versions == [n for n, _, _ in MIGRATIONS]
        assert store.get_memory("m-old").content == "kept across upgrades"
        assert store.term_document_counts(["upgrades", "absent"]) == {"upgrades": 1, "absent": 0}
        assert [i for i, _ in store.lexical_search(WordQuery(("upgrades",)))] == ["m-old"]  # migration 5


def test_two_processes_opening_a_new_store_migrate_once(tmp_path: Path):
    import concurrent.futures

    # four processes race on each new file: switching it to WAL, telling it from a
    # foreign database, migrating; each race was lost at least once before it was fixed
    paths = [tmp_path / f"new-{i}.db" for i in range(12)]
    with concurrent.futures.ProcessPoolExecutor(4) as pool:
        list(pool.map(_open_and_close, [path for path in paths for _ in range(4)]))
    for path in paths:
        rows = sqlite3.connect(path).execute(f"SELECT id FROM {MIGRATIONS_TABLE} ORDER BY id").fetchall()
        assert [r[0] for r in rows] == [n for n, _, _ in MIGRATIONS]


def _open_and_close(path: Path) -> None:
    open_store(path).close()


def test_vector_version_moves_on_every_change_of_that_models_vectors(store: SQLiteStore):
    insert(store, memory("m1"))
    insert(store, memory("m2", "another"))
    assert store.vector_version("a:m:2") == 0
    store.put_vector("m1", "a:m:2", b"\0" * 8, 2, "h1", "2026-01-01T00:00:00.000000Z")
    first = store.vector_version("a:m:2")
    assert first > 0
    store.put_vector("m2", "b:m:2", b"\0" * 8, 2, "h2", "2026-01-01T00:00:00.000000Z")
    assert store.vector_version("a:m:2") == first  # another model's vectors never meet these
    store.put_vector("m1", "a:m:2", b"\1" * 8, 2, "h1b", "2026-01-02T00:00:00.000000Z")
    replaced = store.vector_version("a:m:2")
    assert replaced > first
    store.delete_memory("m1")  # the vector goes by cascade
    assert store.vector_version("a:m:2") > replaced
    assert store.vectors("a:m:2", status=None) == []


def test_the_word_index_stems_and_statistics_ask_by_stem(store: SQLiteStore):
    from archmem.store.words import WORD_TOKENIZER

    sql = store.db.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_fts'").fetchone()[0]
    assert WORD_TOKENIZER in sql  # the stemmer for statistics is the index's own tokenizer
    insert(store, memory("m1", "the client retries twice"))
    insert(store, memory("m2", "one retry only"))
    assert {i for i, _ in store.lexical_search(WordQuery(("retrying",)))} == {"m1", "m2"}
    assert store.index_forms(["retries", "retry", "Naïve"]) == {"retries": "retri", "retry": "retri", "Naïve": "naiv"}
    assert store.term_document_counts(["retries", "retrying", "absent"]) == {"retries": 2, "retrying": 2, "absent": 0}


def test_migration_8_takes_exposures_of_unended_sessions_out_of_the_counters(tmp_path: Path):
    path = tmp_path / "archmem.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    db.execute(f"CREATE TABLE {MIGRATIONS_TABLE} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    for number, name, function in MIGRATIONS[:7]:
        function(db)
        db.execute(f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?, 'then')", (number, name))
    db.execute(
        "INSERT INTO memories (id, kind, content, content_hash, created_at, search_body, exposures) "
        "VALUES ('m1', 'note', 'shown often', 'h', '2026-01-01T00:00:00.000000Z', 'shown often', 3)"
    )
    for session, ended in (("s-open", None), ("s-done", "2026-01-02T00:00:00.000000Z")):
        db.execute("INSERT INTO sessions (id, task, elements, started_at, ended_at) VALUES (?, 'x', '[]', "
                   "'2026-01-01T00:00:00.000000Z', ?)", (session, ended))
        db.execute("INSERT INTO exposures (session_id, memory_id, at) VALUES (?, 'm1', 't')", (session,))
    db.execute("COMMIT")
    db.close()
    with open_store(path) as store:
        # 3 = 1 imported + the ended session + the open one; the open one no longer counts
        assert store.get_memory("m1").exposures == 2
        assert store.usage("exposures", "s-open") == ["m1"]  # the row stays: it counts when the session ends
        store.count_exposures("s-open")
        assert store.get_memory("m1").exposures == 3


def test_migration_13_looks_titles_of_every_status_up_in_an_index(tmp_path: Path):
    """An index made by the previous version: after the migration, a title lookup among
    all memories (a link to a superseded title) and the count of memories to VERIFY read
    indexes, not every row of the table."""
    path = tmp_path / "archmem.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    db.execute(f"CREATE TABLE {MIGRATIONS_TABLE} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    for number, name, function in MIGRATIONS[:12]:
        function(db)
        db.execute(f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?, 'then')", (number, name))
    for memory_id, status in (("m-old", "superseded"), ("m-new", "active")):
        db.execute(
            "INSERT INTO memories (id, title, title_key, kind, content, content_hash, created_at, status) "
            "VALUES (?, 'Retry rule', 'retry rule', 'note', 'c', 'h', '2026-01-01T00:00:00.000000Z', ?)",
            (memory_id, status),
        )
    db.execute("COMMIT")
    db.close()
    with open_store(path) as store:
        seen: list[str] = []
        store.db.set_trace_callback(seen.append)
        assert [m.id for m in store.find_by_title("retry rule", active_only=False)] == ["m-new", "m-old"]
        assert [m.id for m in store.find_by_title("retry rule")] == ["m-new"]
        assert [scope[:2] for scope in store.memory_scopes()] == [("m-new", "2026-01-01T00:00:00.000000Z")]
        store.db.set_trace_callback(None)
        plans = {sql: " ".join(row[3] for row in store.db.execute(f"EXPLAIN QUERY PLAN {sql}"))
                 for sql in seen if (sql.lstrip().startswith("SELECT") and "FROM memories m" in sql) or
                 sql.startswith("SELECT id, COALESCE")}
        assert len(plans) == 3
        for sql, plan in plans.items():
            assert "INDEX" in plan and "SCAN m" not in plan and "SCAN memories" not in plan, (sql, plan)


def test_the_titles_of_many_links_are_read_by_the_index_of_titles(store: SQLiteStore):
    """A sync asks the titles of a chunk of files' links at once: by the index of titles,
    not by the statuses' (a walk of every active memory for each chunk: at 10,000 files
    that made resolving links three times slower than a query a title)."""
    for i in range(30):
        insert(store, memory(f"m{i}", title=f"Rule {i}"), title_key=f"rule {i}")
    seen: list[str] = []
    store.db.set_trace_callback(seen.append)
    assert store.active_title_ids(["rule 3", "rule 7", "none"]) == {"rule 3": "m3", "rule 7": "m7"}
    store.db.set_trace_callback(None)
    (sql,) = seen
    plan = " ".join(row[3] for row in store.db.execute(f"EXPLAIN QUERY PLAN {sql}"))
    assert "memories_title" in plan and "memories_status" not in plan, plan


def test_a_word_query_becomes_quoted_fts5_phrases_so_no_word_is_an_operator():
    from archmem.store.sqlite import fts5_match

    assert fts5_match(WordQuery(("retry", "rate limit"))) == '"retry" OR "rate limit"'
    assert fts5_match(WordQuery(("back off",), excluded=("retry",))) == '("back off") NOT "retry"'
    assert fts5_match(WordQuery(("a",), excluded=("b", "c"))) == '("a") NOT ("b" OR "c")'
    assert fts5_match(WordQuery(('say "NOT" twice',))) == '"say ""NOT"" twice"'
    assert fts5_match(WordQuery(("", "  "))) == ""


def test_a_word_query_with_an_operator_word_or_a_quote_finds_plain_text(store: SQLiteStore):
    insert(store, memory("m1", "Say NOT twice when the query is near."))
    assert [i for i, _ in store.lexical_search(WordQuery(("NOT", 'near"')))] == ["m1"]
    assert store.lexical_search(WordQuery(("twice",), excluded=("query",))) == []


def test_the_kept_counters_follow_every_write(store: SQLiteStore):
    """The active count (N for IDF) and the anchors' generation are kept by triggers:
    equal to a count after inserts, status changes both ways, deletes and a cascade."""

    def counted() -> int:
        return store.db.execute("SELECT COUNT(*) FROM memories WHERE status = 'active'").fetchone()[0]

    generations = [store.anchors_generation()]
    for number in range(6):
        insert(store, memory(f"m{number}", anchors=[f"src/f{number}.py", "src/shared.py"]))
    generations.append(store.anchors_generation())
    store.update_memory("m1", status="archived")
    store.update_memory("m2", status="superseded")
    store.update_memory("m2", status="superseded")  # no change: no count
    store.update_memory("m1", status="active")
    store.update_memory("m3", status="archived")
    store.add_anchors("m0", ["docs/new.md"])
    generations.append(store.anchors_generation())
    store.delete_memory("m4")  # its anchors go by cascade
    generations.append(store.anchors_generation())
    store.forget_memory("m3")
    assert store.memory_total() == counted() == 3
    assert store._counter("active_memories") == 3
    assert all(a is not None and b is not None and b > a for a, b in itertools.pairwise(generations))
    store.db.execute("DELETE FROM store_meta WHERE key = 'active_memories'")  # lost: counted instead
    store.db.execute("DELETE FROM store_meta WHERE key = 'anchors_generation'")
    fresh = SQLiteStore(store.path)
    try:
        assert fresh.memory_total() == 3 and fresh.anchors_generation() is None
    finally:
        fresh.close()


def test_a_word_search_started_answers_as_one_asked_at_once(store: SQLiteStore, monkeypatch: pytest.MonkeyPatch):
    """Started in a thread on a connection of its own, asked here inside a transaction
    (another connection would not see its writes), and asked again here when the thread
    could not search: the same answer each time."""
    from archmem.recall.types import WordQuery

    for number in range(30):
        insert(store, memory(f"m{number:02d}", f"the gateway strips headers {'long ' * (number % 5)}case {number}"))
    query = WordQuery(("gateway", "long"), limit=10)
    expected = store.lexical_search(query)
    assert len(expected) == 10
    assert store.lexical_search_started(query)() == expected
    with store.transaction():
        insert(store, memory("fresh", "the gateway long long long long long long long"))
        inside = store.lexical_search_started(query)()
        assert inside[0][0] == "fresh"  # seen: asked on this connection
    real_connect = sqlite3.connect

    def failing(*args, **kwargs):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(sqlite3, "connect", failing)
    assert store.lexical_search_started(query)() == inside
    monkeypatch.setattr(sqlite3, "connect", real_connect)


def test_the_kept_counters_hold_with_two_writers_at_once(tmp_path: Path):
    """Two connections (two processes' worth) inserting and archiving at once: the
    triggers keep the count equal to one counted at the end."""
    import threading

    path = tmp_path / ".archmem" / "archmem.db"
    open_store(path).close()
    errors: list[BaseException] = []

    def write(prefix: str) -> None:
        try:
            with open_store(path) as mine:
                for number in range(40):
                    insert(mine, memory(f"{prefix}{number:02d}", anchors=[f"src/{prefix}{number}.py"]))
                    if number % 3 == 0:
                        mine.update_memory(f"{prefix}{number:02d}", status="archived")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(prefix,)) for prefix in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    with open_store(path) as store:
        counted = store.db.execute("SELECT COUNT(*) FROM memories WHERE status = 'active'").fetchone()[0]
        assert store.memory_total() == counted == 2 * (40 - 14)
        assert store.anchors_generation() is not None and store.anchors_generation() >= 80

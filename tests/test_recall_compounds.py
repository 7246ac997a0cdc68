"""Identifiers keep their compounds (issue 15, rule 3).

``add_on``, ``AddOn`` and ``addon`` match each other at full weight; their parts still
match, lower; a part that is a stop-word or a common verb does not carry a match alone.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from archmem.memory import text as textrules
from archmem.memory.types import Memory
from archmem.recall.types import WordQuery
from archmem.store import open_store
from archmem.store.migrations import MIGRATIONS, MIGRATIONS_TABLE
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, FrozenClock, git, write
from .conftest import ranked_ids as ids

NOW = datetime(2026, 11, 1, tzinfo=UTC)


# ---- the analysis (pure) ----------------------------------------------------------


@pytest.mark.parametrize("spelling", ["add_on", "AddOn", "addon", "ADD_ON", "addOn"])
def test_every_spelling_of_a_compound_is_one_whole_word(spelling: str) -> None:
    wholes, _ = textrules.split_tokens(spelling)
    assert wholes[0] == "addon"
    assert textrules.query_tokens(spelling)[0] == "addon"


def test_parts_of_identifiers_are_parts_and_names_stay_whole() -> None:
    assert textrules.split_tokens("getRandomLetterCode") == (["getrandomlettercode"], ["random", "letter", "code"])
    assert textrules.split_tokens("ENABLE_SINGLE_SHARED_SESSION") == (
        ["enablesinglesharedsession"], ["enable", "single", "shared", "session"])
    # path components, dotted names, kebab-case and quantities are names of their own
    assert textrules.split_tokens("src/frontend/rpc.go")[1] == []
    assert "rpc" in textrules.split_tokens("src/frontend/rpc.go")[0]
    assert textrules.split_tokens("8KB") == (["8kb", "8", "kb"], [])
    assert textrules.split_tokens("money.Sum") == (["moneysum", "money", "sum"], [])


def test_a_weak_part_is_neither_indexed_nor_asked_for() -> None:
    assert textrules.split_tokens("add_on") == (["addon"], [])  # "add" and "on" carry nothing alone
    assert textrules.query_tokens("setCurrency") == ["setcurrency", "currency"]
    # the same word written as a word of its own is asked for
    assert textrules.query_tokens("add a currency") == ["add", "currency"]


def test_search_columns_split_whole_words_from_parts() -> None:
    body, parts = textrules.search_columns("Flip the `add_on` flag in `getCartItems`", "Cart Service")
    assert "addon" in body.split() and "getcartitems" in body.split() and "cart" in body.split()
    assert parts.split() == ["cart", "items"]
    assert "add" not in (body + " " + parts).split()


# ---- in recall --------------------------------------------------------------------


@pytest.fixture
def ws(tmp_path: Path):
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR, "services/orders/app.py": "x = 1\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    with Workspace.open(root, clock=FrozenClock(), env={}) as workspace:
        yield workspace


def test_a_common_verb_inside_an_identifier_does_not_match_a_task(ws: Workspace) -> None:
    addon = ws.remember("The `add_on` flag switches gift wrapping on; it defaults to false.", kind="note").id
    retries = ws.remember("Retries use exponential backoff with jitter, at most three.", kind="note").id
    for text in ("Tax is rounded half up on the whole order total.", "Orders are numbered per day.",
                 "Session tokens expire after fifteen minutes.", "Headers over 8KB are stripped.",
                 "Stock is reserved before the card is charged."):
        ws.remember(text, kind="note")
    # before, the part "add" of add_on carried a match alone (relevance 0.37 here)
    assert ids(ws.recall("add")) == []
    assert addon not in ids(ws.recall("add retries with backoff"))
    assert retries in ids(ws.recall("add retries with backoff"))
    for spelling in ("add_on", "AddOn", "addon"):
        assert ids(ws.recall(f"where is the {spelling} flag read")) == [addon], spelling


def test_a_whole_word_outranks_the_same_word_as_a_part(tmp_path: Path) -> None:
    with open_store(tmp_path / "archmem.db") as store:
        for memory_id, body, parts in (("m-part", "getcurrencyrates cached daily", "currency rates"),
                                       ("m-word", "currency rates cached daily", "")):
            store.insert_memory(Memory(id=memory_id, kind="note", content=body, created_at=NOW), title_key=None,
                                content_hash=memory_id, search_title="", search_body=body, search_parts=parts)
        store.insert_memory(Memory(id="m-other", kind="note", content="tax", created_at=NOW), title_key=None,
                            content_hash="other", search_title="", search_body="tax rounded half up")
        ranked = store.lexical_search(WordQuery(("currency",), parts_weight=0.75))
        assert [memory_id for memory_id, _ in ranked] == ["m-word", "m-part"]  # the part still matches, lower
        weights = {memory_id: bm25 for memory_id, bm25 in ranked}
        assert weights["m-part"] < weights["m-word"]
        even = dict(store.lexical_search(WordQuery(("currency",), parts_weight=1.0)))
        assert even["m-part"] == pytest.approx(even["m-word"], rel=0.2)


# ---- the index ----------------------------------------------------------------------


def test_migration_10_marks_the_search_text_stale_and_the_workspace_re_derives_it(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    path = root / ".archmem" / "archmem.db"
    path.parent.mkdir(parents=True)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    db.execute(f"CREATE TABLE {MIGRATIONS_TABLE} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    for number, name, function in MIGRATIONS[:9]:
        function(db)
        db.execute(f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?, 'then')", (number, name))
    # what the rules before migration 11 indexed: the parts beside the whole, at full weight
    db.execute(
        "INSERT INTO memories (id, kind, content, content_hash, created_at, search_body) VALUES "
        "('m-old', 'note', 'The `add_on` flag wraps gifts.', 'h', '2026-01-01T00:00:00.000000Z', "
        "'the addon add on flag wraps gifts')"
    )
    db.execute("COMMIT")
    db.close()
    with open_store(path) as store:
        assert store.meta("search_text") == "stale"
        assert store.db.execute("SELECT search_parts FROM memories").fetchone()[0] == ""
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        assert ws.store.meta("search_text") is None
        body, _parts = ws.store.db.execute("SELECT search_body, search_parts FROM memories").fetchone()
        assert "add" not in body.split() and "addon" in body.split()
        assert ids(ws.recall("add a new option")) == []
        assert ids(ws.recall("addon")) == ["m-old"]


def test_a_new_store_needs_no_re_derivation(tmp_path: Path) -> None:
    with open_store(tmp_path / "archmem.db") as store:
        assert store.meta("search_text") is None
        store.insert_memory(Memory(id="m1", kind="note", content="x", created_at=NOW), title_key=None,
                            content_hash="h", search_title="", search_body="x", search_parts="")
        sql = store.db.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_fts'").fetchone()[0]
        assert "search_parts" in sql

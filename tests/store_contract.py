"""The contract every ``Store`` (``archmem.store.base``) passes: what the domain relies on,
asked through the protocol alone (no SQL, no attribute of one implementation).

A module binds it to an implementation by importing these tests and defining a
``new_store`` fixture: a function that opens a fresh, empty, migrated index
(``tests/test_store_contract_sqlite.py`` for SQLite). A PostgreSQL index would be one
module of ``archmem/store/`` plus one such binding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest

from archmem.git.types import Commit, FileChange
from archmem.memory.types import Link, Memory, Session
from archmem.recall.types import WordQuery
from archmem.store.base import FiledMemory, FileRow, Store
from archmem.store.files import FileStat

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
AT = "2026-11-01T12:00:00.000000Z"

NewStore = Callable[[], Store]


@pytest.fixture
def store(new_store: NewStore) -> Iterator[Store]:
    opened = new_store()
    try:
        yield opened
    finally:
        opened.close()


def memory(id: str, content: str = "the gateway strips long headers", *, minutes: int = 0, **fields) -> Memory:
    return Memory(id=id, kind=fields.pop("kind", "pitfall"), content=content,
                  created_at=T0 + timedelta(minutes=minutes), **fields)


def put(store: Store, m: Memory, *, title_key: str | None = None, content_hash: str | None = None,
        title: str | None = None, body: str | None = None, parts: str = "") -> Memory:
    store.insert_memory(
        m, title_key=title_key if title_key is not None else (m.title.lower() if m.title else None),
        content_hash=content_hash or f"hash-{m.id}", search_title=title if title is not None else (m.title or ""),
        search_body=body if body is not None else m.content, search_parts=parts,
    )
    return m


def ids(found: list[tuple[str, float]]) -> list[str]:
    return [memory_id for memory_id, _ in found]


# ---- memories ---------------------------------------------------------------------


def test_a_memory_comes_back_as_it_went_in(store: Store):
    written = put(store, memory(
        "m1", "Retries double the load.", title="Retry storms", elements=["api", "db"], anchors=["a.py#f", "lib/"],
        author="cli/ana", session_id=None, confirmed_at=T0 + timedelta(hours=1), confirmations=3,
        confirmed_by="cli/bo", confirm_reason="still true", private=True,
    ))
    assert store.get_memory("m1") == written
    assert store.get_memories(["m1", "absent", "m1"]) == {"m1": written}
    assert store.get_memory("absent") is None


def test_titles_and_content_hashes_find_memories(store: Store):
    put(store, memory("m1", title="Header limits", minutes=0))
    store.update_memory("m1", status="superseded", superseded_by="m2")
    put(store, memory("m2", "other", title="Header limits", minutes=1), content_hash="same")
    assert [m.id for m in store.find_by_title("header limits")] == ["m2"]
    assert [m.id for m in store.find_by_title("header limits", active_only=False)] == ["m2", "m1"]  # newest first
    assert [m.id for m in store.find_by_content_hash("same")] == ["m2"]
    put(store, memory("m3", "newer", title="Header limits", minutes=2))
    put(store, memory("m4", "one more", title="Retry budget", minutes=3))
    assert store.find_by_title("header limits")[0].id == "m3"  # the newest active one
    assert store.active_title_ids(["header limits", "retry budget", "absent", "header limits"]) == {
        "header limits": "m3", "retry budget": "m4"}
    store.update_memory("m2", status="archived")
    assert store.find_by_content_hash("same") == []  # active ones only


def test_lists_filter_by_element_kind_and_status_in_the_order_written(store: Store):
    put(store, memory("m3", kind="note", elements=["api"]))
    put(store, memory("m1", elements=["api", "db"]))
    put(store, memory("m2", elements=["db"]))
    store.update_memory("m2", status="archived")
    assert [m.id for m in store.list_memories()] == ["m3", "m1"]
    assert [m.id for m in store.list_memories(status=None)] == ["m3", "m1", "m2"]
    assert [m.id for m in store.list_memories(element="db", status=None)] == ["m1", "m2"]
    assert [m.id for m in store.list_memories(kind="note")] == ["m3"]
    assert [m.id for m in store.list_memories(status="archived")] == ["m2"]
    assert [m.id for m in store.list_memories(status=None, limit=2)] == ["m3", "m1"]
    assert store.list_memories(element="db")[0].elements == ["api", "db"]


def test_updates_change_fields_and_unknown_fields_are_refused(store: Store):
    put(store, memory("m1"))
    store.update_memory("m1", confirmed_at=T0 + timedelta(days=1), confirmations=2, confirmed_by="cli/bo")
    found = store.get_memory("m1")
    assert found is not None
    assert (found.confirmed_at, found.confirmations, found.confirmed_by) == (T0 + timedelta(days=1), 2, "cli/bo")
    with pytest.raises(ValueError):
        store.update_memory("m1", created_at=T0)


def test_elements_and_anchors_keep_their_order_and_ignore_repeats(store: Store):
    put(store, memory("m1", elements=["b", "a"], anchors=["x.py"]))
    assert store.add_elements("m1", ["a", "c", "c"]) == ["c"]
    assert store.add_anchors("m1", ["y.py", "x.py"]) == ["y.py"]
    found = store.get_memory("m1")
    assert found is not None and found.elements == ["b", "a", "c"] and found.anchors == ["x.py", "y.py"]


def test_a_deleted_memory_is_gone_and_nothing_points_at_it(store: Store):
    put(store, memory("m1", title="Old"))
    put(store, memory("m2", "new [[Old]]", supersedes="m1", minutes=1))
    store.derive_chains()
    store.replace_links("m2", [(Link(source_id="m2", target_text="Old", target_kind="memory", target_id="m1"), "old")])
    store.delete_memory("m1")
    assert store.get_memory("m1") is None
    successor = store.get_memory("m2")
    assert successor is not None and successor.supersedes is None
    assert [link.target_text for link in store.links(pending=True)] == ["Old"]
    store.scrub()
    assert store.count_memories(None) == 1


def test_chains_are_derived_from_supersedes_and_forks_reported(store: Store):
    put(store, memory("m1"))
    put(store, memory("m2", "b", supersedes="m1", minutes=1))
    put(store, memory("m3", "c", supersedes="m1", minutes=2))
    assert store.derive_chains() >= 1
    old = store.get_memory("m1")
    assert old is not None and (old.status, old.superseded_by) == ("superseded", "m2")
    assert [m.id for m in store.successors("m1")] == ["m2", "m3"]
    assert store.forks() == {"m1": ["m2", "m3"]}
    assert store.derive_chains() == 0  # nothing left to change


def test_documented_elements_are_those_an_active_memory_is_about(store: Store):
    put(store, memory("m1", elements=["api", "db"]))
    put(store, memory("m2", elements=["queue"]))
    store.update_memory("m2", status="archived")
    assert store.documented_elements(["api", "queue", "web"]) == {"api"}
    assert store.documented_elements([]) == set()


def test_element_and_anchor_lookups(store: Store):
    put(store, memory("m1", elements=["api"], anchors=["src/api/routes.py#handler"]))
    put(store, memory("m2", elements=["api"], anchors=["src/api"]))
    put(store, memory("m3", elements=["db"], anchors=["db.py"]))
    store.update_memory("m3", status="archived")
    assert store.element_memory_ids("api", limit=5) == ["m2", "m1"]  # most recently attached first
    assert store.element_memory_ids("api", limit=1) == ["m2"]
    assert store.anchored_memory_ids(["src/api/routes.py"]) == {"m1": ["src/api/routes.py"],
                                                               "m2": ["src/api/routes.py"]}
    assert store.anchored_memory_ids(["db.py"]) == {}  # active memories only
    assert store.anchors_named(["handler"]) == {"m1": ["src/api/routes.py#handler"]}  # the symbol after #
    assert store.anchors_named(["api", "db.py"]) == {"m2": ["src/api"]}  # from a folder boundary on
    assert store.anchor_paths() == ["db.py", "src/api", "src/api/routes.py"]


def test_counts(store: Store):
    put(store, memory("m1", "retry storms", kind="note", elements=["api"]))
    put(store, memory("m2", "retry budgets", elements=["api", "db"]))
    put(store, memory("m3", "retry later", elements=["db"]))
    store.update_memory("m3", status="archived")
    assert store.count_memories() == 2 and store.count_memories("archived") == 1 and store.count_memories(None) == 3
    assert store.memory_total() == 2
    assert store.element_memory_counts() == {"api": 2, "db": 1}
    assert store.term_document_counts(["retry", "storms", "absent"]) == {"retry": 2, "storms": 1, "absent": 0}
    stats = store.stats()
    assert stats["memories"] == {"active": {"note": 1, "pitfall": 1}, "archived": {"pitfall": 1}}
    assert (stats["sessions"], stats["open_sessions"], stats["pending_links"]) == (0, 0, 0)


# ---- the word index, through the query value --------------------------------------


def test_a_word_query_finds_any_phrase_but_none_excluded_best_first(store: Store):
    put(store, memory("m1", "the client retries on timeout"))
    put(store, memory("m2", "rate limit per tenant, retries backed off"))
    put(store, memory("m3", "rate limit per client"))
    put(store, memory("m4", "limit the rate of logging"))
    assert set(ids(store.lexical_search(WordQuery(("retries",))))) == {"m1", "m2"}
    assert set(ids(store.lexical_search(WordQuery(("rate limit",))))) == {"m2", "m3"}  # a phrase, in a row
    assert ids(store.lexical_search(WordQuery(("rate limit",), excluded=("retries",)))) == ["m3"]
    assert len(store.lexical_search(WordQuery(("rate", "limit"), limit=2))) == 2
    assert store.lexical_search(WordQuery(())) == [] and store.lexical_search(WordQuery(("  ",))) == []
    scores = [score for _, score in store.lexical_search(WordQuery(("client", "retries")))]
    assert scores == sorted(scores, reverse=True) and all(score >= 0 for score in scores)


def test_a_word_query_weighs_titles_and_compound_parts(store: Store):
    put(store, memory("m1", "billing", title="Currency"), body="billing")
    put(store, memory("m2", "currency rounding"))
    put(store, memory("m3", "fx"), body="fx", parts="currency")
    ranked = ids(store.lexical_search(WordQuery(("currency",), title_weight=5.0)))
    assert ranked[0] == "m1"
    assert ranked[-1] == "m3"  # found only among the parts of a compound: ranked lowest
    assert "m3" not in ids(store.lexical_search(WordQuery(("currency",), parts_weight=0.0)))[:1]


def test_the_word_index_holds_active_memories_and_words_by_their_stem(store: Store):
    put(store, memory("m1", "the client retries twice"))
    put(store, memory("m2", "one retry only"))
    assert set(ids(store.lexical_search(WordQuery(("retrying",))))) == {"m1", "m2"}
    forms = store.index_forms(["retries", "retry"])
    assert forms["retries"] == forms["retry"]
    store.update_memory("m1", status="archived")
    assert ids(store.lexical_search(WordQuery(("retries",)))) == ["m2"]
    store.update_memory("m2", search_body="payload bodies")
    assert store.lexical_search(WordQuery(("retry",))) == []
    assert ids(store.lexical_search(WordQuery(("payload",)))) == ["m2"]


# ---- links --------------------------------------------------------------------------


def test_links_pending_then_resolved_and_retargeted(store: Store):
    put(store, memory("m1", "see [[Later]]"))
    store.replace_links("m1", [(Link(source_id="m1", target_text="Later", shown="it"), "later")])
    assert [(link.target_text, link.shown, link.pending) for link in store.links(pending=True)] == [
        ("Later", "it", True)]
    put(store, memory("m2", "later one", title="Later"))
    assert store.resolve_pending_links("later", "memory", "m2") == 1
    assert store.links(pending=True) == []
    assert [link.source_id for link in store.links_to("m2")] == ["m1"]
    put(store, memory("m3", "newer", supersedes="m2", minutes=1))
    assert store.retarget_links("m2", "m3") == 1
    assert [link.target_id for link in store.links(source_ids=["m1"])] == ["m3"]


def test_links_follow_a_chain_to_its_head(store: Store):
    put(store, memory("m1", "see [[Old]]"))
    put(store, memory("m2", "old", title="Old"))
    store.replace_links("m1", [(Link(source_id="m1", target_text="Old", target_kind="memory", target_id="m2"), "old")])
    put(store, memory("m3", "newer", supersedes="m2", minutes=1))
    put(store, memory("m4", "newest", supersedes="m3", minutes=2))
    store.derive_chains()
    assert store.retarget_links_to_heads() >= 1
    assert [link.target_id for link in store.links(source_ids=["m1"])] == ["m4"]


# ---- vectors ------------------------------------------------------------------------


def test_vectors_by_model_with_their_hashes_and_a_version_that_moves(store: Store):
    put(store, memory("m1"))
    put(store, memory("m2", "another"))
    assert store.vector_version("a:m:2") == 0 and store.vector_hash("m1", "a:m:2") is None
    store.put_vector("m1", "a:m:2", b"\0" * 8, 2, "h1", AT)
    first = store.vector_version("a:m:2")
    store.put_vector("m2", "b:m:2", b"\1" * 8, 2, "h2", AT)
    assert store.vector_version("a:m:2") == first  # another model's vectors never meet these
    assert store.vectors("a:m:2") == [("m1", b"\0" * 8, 2)]
    assert store.vector_hashes("a:m:2") == {"m1": "h1"} and store.vector_hash("m1", "a:m:2") == "h1"
    store.put_vector("m1", "a:m:2", b"\2" * 8, 2, "h1b", AT)
    assert store.vector_version("a:m:2") > first and store.vector_hash("m1", "a:m:2") == "h1b"
    store.update_memory("m1", status="archived")
    assert store.vectors("a:m:2") == [] and len(store.vectors("a:m:2", status=None)) == 1


# ---- sessions and usage -------------------------------------------------------------


def test_sessions_open_end_once_and_count_usage_once_per_session(store: Store):
    put(store, memory("m1"))
    store.insert_session(Session(id="s1", task="fix the cart", agent="claude-code/ana", elements=["api"],
                                 started_at=T0))
    store.insert_session(Session(id="s2", task="t", started_at=T0 + timedelta(minutes=1)))
    session = store.get_session("s1")
    assert session is not None and (session.task, session.agent, session.elements) == (
        "fix the cart", "claude-code/ana", ["api"])
    assert store.session_ids() == ["s1", "s2"]
    assert store.record_usage("exposures", "s1", ["m1", "m1"], AT) == ["m1"]
    assert store.record_usage("exposures", "s1", ["m1"], AT) == []
    assert store.usage("exposures", "s1") == ["m1"]
    found = store.get_memory("m1")
    assert found is not None and found.exposures == 0  # an open session says nothing yet
    assert store.count_exposures("s1") == 1
    assert store.record_usage("citations", "s1", ["m1"], AT) == ["m1"]
    found = store.get_memory("m1")
    assert found is not None and (found.exposures, found.citations) == (1, 1)
    assert store.end_session("s1", AT, "m1") is True
    assert store.end_session("s1", AT, None) is False
    ended = store.get_session("s1")
    assert ended is not None and ended.ended_at is not None and ended.outcome_memory_id == "m1"
    assert store.stats()["open_sessions"] == 1
    assert [session.id for session in store.open_sessions()] == ["s2"]


# ---- audit and transactions ---------------------------------------------------------


def test_the_audit_log_keeps_its_order_and_details(store: Store):
    store.audit(AT, "archive", "m1", "obsolete", {"title": "Ünïcode"})
    store.audit(AT, "purge", None, None, {})
    assert store.audit_entries() == [
        {"at": AT, "action": "archive", "memory_id": "m1", "reason": "obsolete", "detail": {"title": "Ünïcode"}},
        {"at": AT, "action": "purge", "memory_id": None, "reason": None, "detail": {}},
    ]


def test_a_transaction_that_fails_leaves_nothing_and_runs_its_undo(store: Store):
    undone: list[str] = []
    with pytest.raises(RuntimeError), store.transaction():
        put(store, memory("m1", elements=["api"]))
        store.on_rollback(lambda: undone.append("first"))
        with store.transaction():  # re-entrant: one transaction
            store.audit(AT, "confirm", "m1", None, {})
            store.on_rollback(lambda: undone.append("second"))
        raise RuntimeError("boom")
    assert undone == ["second", "first"]  # the last registered first
    assert store.get_memory("m1") is None and store.audit_entries() == [] and store.element_memory_counts() == {}


def test_a_committed_transaction_forgets_its_undo(store: Store):
    undone: list[str] = []
    with store.transaction():
        put(store, memory("m1"))
        store.on_rollback(lambda: undone.append("m1"))
    with pytest.raises(RuntimeError), store.transaction():
        raise RuntimeError("boom")
    assert undone == [] and store.get_memory("m1") is not None


# ---- what the index knows of the memory files ---------------------------------------


def test_file_records_say_what_each_file_held(store: Store):
    put(store, memory("m1"))
    put(store, memory("m2"))
    put(store, memory("m3"))
    with store.transaction():
        store.record_file(".archmem/memories/a.md", "m1", FileStat(10, 1, False), "sha-a")
        store.record_file(".archmem/private/b.md", "m2", FileStat(20, 2, True), "sha-b")
        store.record_file(".archmem/memories/c.md", None, FileStat(5, 3, False), "sha-c", "bad front matter", 2)
    assert store.file_row(".archmem/memories/a.md") == FileRow(".archmem/memories/a.md", "m1", 10, 1, "sha-a")
    assert store.file_row("absent.md") is None
    assert set(store.file_rows()) == {".archmem/memories/a.md", ".archmem/private/b.md", ".archmem/memories/c.md"}
    assert store.file_stamps()[".archmem/private/b.md"] == (20, 2)
    assert store.file_count() == 3 and store.file_counts(".archmem/private") == (3, 1)
    assert store.file_count(up_to=2) == 2 and store.file_count(up_to=5) == 3
    assert [row.path for row in store.file_problems()] == [".archmem/memories/c.md"]
    assert store.path_of("m1") == ".archmem/memories/a.md" and store.path_of("m3") is None
    assert store.paths_of(["m1", "m2", "m3"]) == {"m1": ".archmem/memories/a.md", "m2": ".archmem/private/b.md"}
    assert store.unfiled_memory_ids() == ["m3"]
    assert store.indexed_ids() == {"m1", "m2", "m3"}
    with store.transaction():
        store.forget_file(".archmem/memories/a.md")
    assert store.path_of("m1") is None


def test_a_file_indexed_again_replaces_its_fields_and_keeps_usage(store: Store):
    put(store, memory("m1", "old text", elements=["api"]))
    store.record_usage("citations", "s1", ["m1"], AT)
    edited = memory("m1", "new text", title="Edited", elements=["db"], anchors=["x.py"])
    store.upsert_from_files([FiledMemory(edited, title_key="edited", content_hash="h", search_title="Edited",
                                         search_body="new text")])
    found = store.get_memory("m1")
    assert found is not None
    assert (found.title, found.content, found.elements, found.anchors, found.citations) == (
        "Edited", "new text", ["db"], ["x.py"], 1)
    assert ids(store.lexical_search(WordQuery(("new",)))) == ["m1"]
    store.forget_memory("m1")
    assert store.get_memory("m1") is None and store.indexed_ids() == set()


def test_small_facts_are_kept_and_dropped(store: Store):
    assert store.meta("files_signature") is None
    store.set_meta("files_signature", "abc")
    assert store.meta("files_signature") == "abc"
    store.set_meta("files_signature", None)
    assert store.meta("files_signature") is None


# ---- the caches drift and conformance keep ------------------------------------------


def commit(sha: str, minutes: int, parent: str | None = None) -> Commit:
    return Commit(sha=sha, time=T0 + timedelta(minutes=minutes), author="ana",
                  parents=(parent,) if parent else (), changes=(FileChange("src/a.py", 3, 1),))


def test_the_history_cache_appends_truncates_and_clears_by_scope(store: Store):
    cache = store.history_cache()
    assert (cache.head(), cache.count(), cache.all()) == (None, 0, [])
    cache.clear(scope="root:/")
    assert cache.scope() == "root:/"
    assert cache.append([commit("a" * 40, 0), commit("b" * 40, 1, "a" * 40)]) == 2
    assert cache.head() == "b" * 40 and cache.contains("a" * 40)
    assert cache.all() == [commit("a" * 40, 0), commit("b" * 40, 1, "a" * 40)]
    cache.set_meta(branch="main")
    assert cache.meta() == {"scope": "root:/", "branch": "main"}
    assert cache.truncate("a" * 40) == 1 and cache.head() == "a" * 40
    assert cache.truncate("f" * 40) is None
    cache.clear(scope="sub:/")
    assert (cache.count(), cache.scope()) == (0, "sub:/")


def test_the_import_cache_keeps_values_by_blob_and_extractor(store: Store):
    cache = store.import_cache()
    cache.put_many([("blob1", "python:1", {"imports": ["os"]}), ("blob2", "python:1", [])])
    assert cache.get_many([("blob1", "python:1"), ("blob1", "go:1")]) == {("blob1", "python:1"): {"imports": ["os"]}}
    assert cache.count() == 2


def test_legacy_accepts_are_listed_and_dropped(store: Store):
    assert store.legacy_accepts() == []
    store.drop_legacy_accepts(10)  # nothing to drop is no error

"""Remember, confirm, supersede, links, sessions, review, export/import through Workspace."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import pytest

from archmem.errors import (
    ConflictError,
    InvalidInputError,
    SecretFoundError,
    UnknownNameError,
)
from archmem.memory.transfer import ImportFailed
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, FrozenClock, write


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(
        root,
        {
            "archmem.yaml": MODEL,
            "docs/adr/0017-use-the-body-for-large-payloads.md": ADR,
            "services/gateway/router.go": "package gateway\n",
            "services/orders/app.py": "x = 1\n",
        },
    )
    return root


@pytest.fixture
def ws(repo: Path, clock: FrozenClock):
    workspace = Workspace.open(repo, clock=clock, env={})
    yield workspace
    workspace.close()


def test_remember_stores_with_elements_by_name_or_id(ws: Workspace):
    result = ws.remember("The gateway strips custom headers longer than 8KB.", kind="pitfall",
                         title="Header limits", elements=["ApiGateway", "orders"], author="claude-code/sarah")
    assert not result.deduplicated and result.elements == ["gateway", "orders"]
    stored = ws.get_memory("header limits")
    assert stored.id == result.id and stored.kind == "pitfall" and stored.author == "claude-code/sarah"
    assert stored.created_at == ws.clock() and stored.status == "active"


def test_unknown_element_lists_the_closest(ws: Workspace):
    with pytest.raises(UnknownNameError) as info:
        ws.remember("x is slow", kind="note", elements=["gatway"])
    assert "gateway" in info.value.candidates
    assert ws.list_memories() == []


def test_bad_kind_is_refused_with_the_kinds(ws: Workspace):
    with pytest.raises(InvalidInputError) as info:
        ws.remember("x", kind="pitfal")
    assert "pitfall" in str(info.value)


def test_restating_confirms_and_adds_elements(ws: Workspace, clock: FrozenClock):
    first = ws.remember("The gateway strips custom headers longer than 8KB.", kind="pitfall", elements=["gateway"])
    clock.advance(days=3)
    again = ws.remember("the gateway strips custom headers longer than 8KB", kind="pitfall", elements=["orders"])
    assert again.deduplicated and again.id == first.id
    stored = ws.get_memory(first.id)
    assert stored.confirmations == 1 and stored.confirmed_at == clock.now
    assert stored.elements == ["gateway", "orders"]
    assert len(ws.list_memories()) == 1


def test_a_changed_number_is_a_different_fact(ws: Workspace):
    ws.remember("The gateway strips custom headers longer than 8KB.", kind="pitfall")
    other = ws.remember("The gateway strips custom headers longer than 16KB.", kind="pitfall")
    assert not other.deduplicated
    assert len(ws.list_memories()) == 2


def test_title_clash_suggests_supersedes(ws: Workspace):
    ws.remember("first fact about tokens", kind="note", title="Tokens")
    with pytest.raises(ConflictError) as info:
        ws.remember("an unrelated second fact on caching", kind="note", title="  TOKENS ")
    assert "--supersedes" in str(info.value)


def test_supersede_keeps_history_and_refuses_forks(ws: Workspace):
    old = ws.remember("Headers over 8KB are dropped.", kind="pitfall", title="Header limits")
    new = ws.remember("Since v2 the limit is 16KB.", kind="pitfall", title="Header limits", supersedes="Header limits")
    assert new.supersedes == old.id
    assert ws.get_memory("Header limits").id == new.id
    assert [m.id for m in ws.list_memories()] == [new.id]
    chain = ws.history(old.id)
    assert [m.id for m in chain] == [old.id, new.id]
    assert chain[0].status == "superseded" and chain[0].superseded_by == new.id
    with pytest.raises(ConflictError) as info:
        ws.remember("A fork.", kind="pitfall", supersedes=old.id)
    assert new.id in str(info.value)


def test_secrets_are_refused_and_nothing_is_stored(ws: Workspace):
    key = "AKIA" + "IOSFODNN7EXAMPLQ"
    with pytest.raises(SecretFoundError) as info:
        ws.remember(f"deploy with {key}", kind="note")
    assert "AWS" in str(info.value) and key not in str(info.value)
    assert ws.list_memories(status=None) == []


def test_backtick_paths_that_exist_become_anchors(ws: Workspace):
    result = ws.remember("Routing lives in `services/gateway/router.go`, not in `lib/missing.go`.", kind="note")
    assert result.anchors == ["services/gateway/router.go"]


def test_wikilinks_resolve_to_memory_element_decision_and_stay_pending(ws: Workspace):
    ws.remember("Headers over 8KB are dropped.", kind="pitfall", title="Header limits")
    result = ws.remember(
        "Big carts broke checkout, see [[Header limits]], [[ApiGateway]], [[ADR-17]] and [[Cart snapshots|snapshots]].",
        kind="note",
    )
    kinds = {link["target"]: link["kind"] for link in result.links}
    assert kinds == {"Header limits": "memory", "ApiGateway": "element", "ADR-17": "decision"}
    assert result.pending_links == ["Cart snapshots"]
    assert [item["target"] for item in ws.review().to_dict()["pending_links"]] == ["Cart snapshots"]
    later = ws.remember("Snapshots are sent in the body.", kind="convention", title="cart snapshots")
    assert ws.review().to_dict()["pending_links"] == []
    assert ws.store.links_to(later.id)[0].source_id == result.id


def test_confirm_archive_purge(ws: Workspace, clock: FrozenClock):
    m = ws.remember("Tokens expire after 15 minutes.", kind="note", title="Token expiry")
    clock.advance(days=10)
    confirmed = ws.confirm("token expiry")
    assert confirmed.confirmations == 1 and confirmed.confirmed_at == clock.now
    archived = ws.archive(m.id, "feature removed")
    assert archived.status == "archived" and ws.list_memories() == []
    with pytest.raises(InvalidInputError):
        ws.purge(m.id, "  ")
    ws.purge(m.id, "privacy request")
    assert ws.list_memories(status=None) == []
    actions = [(e["action"], e["memory_id"]) for e in ws.store.audit_entries()]
    assert ("purge", m.id) in actions
    assert "Tokens expire" not in json.dumps(ws.store.audit_entries())


def test_sessions_record_citations_unknown_names_and_one_outcome(ws: Workspace):
    a = ws.remember("Retry payments with the same idempotency key.", kind="convention", title="Idempotent retries")
    session = ws.start_session("fix double charges", elements=["orders", "gateway"], agent="codex/kim")
    ended = ws.end_session(session.id, used=["idempotent retries", "No such memory"], outcome="Fixed the retry loop.")
    assert ended.cited == [a.id] and ended.unknown == ["No such memory"]
    outcome = ws.get_memory(ended.outcome.id)
    assert outcome.kind == "session_outcome" and outcome.elements == ["orders", "gateway"]
    assert outcome.session_id == session.id and outcome.author == "codex/kim"
    assert ws.get_memory(a.id).citations == 1
    with pytest.raises(ConflictError):
        ws.end_session(session.id, outcome="again")


def test_what_a_session_learns_is_signed_by_its_agent(ws: Workspace):
    session = ws.start_session("fix double charges", agent="codex/kim")
    learned = ws.remember("Charges retry with one idempotency key per order.", kind="pitfall", session_id=session.id)
    assert ws.get_memory(learned.id).author == "codex/kim"
    named = ws.remember("Refunds never retry.", kind="pitfall", session_id=session.id, author="codex/li")
    assert ws.get_memory(named.id).author == "codex/li"


def test_unknown_session_lists_candidates(ws: Workspace):
    with pytest.raises(UnknownNameError):
        ws.end_session("s-nope")


def test_review_lists_ignored_and_near_duplicates(ws: Workspace):
    m = ws.remember("Checkout reserves stock before charging the card.", kind="note")
    unended = ws.start_session("never ended: says nothing about what it was shown")
    ws.store.record_usage("exposures", unended.id, [m.id], "2026-11-01T09:00:00.000000Z")
    for _ in range(4):
        session = ws.start_session("look around")
        ws.store.record_usage("exposures", session.id, [m.id], "2026-11-01T09:00:00.000000Z")
        ws.end_session(session.id)
    assert ws.review().to_dict()["ignored"] == []  # four ended sessions, one open: not yet
    session = ws.start_session("look around")
    ws.store.record_usage("exposures", session.id, [m.id], "2026-11-01T09:00:00.000000Z")
    ws.end_session(session.id)
    ws.remember("Checkout reserves stock before it charges the card and sends an email.", kind="note")
    queue = ws.review().to_dict()
    assert [item["id"] for item in queue["ignored"]] == [m.id]
    assert len(queue["near_duplicates"]) == 1


def test_hostile_input(ws: Workspace):
    with pytest.raises(InvalidInputError, match=r"20,000|20000"):
        ws.remember("x" * 20_001, kind="note")
    with pytest.raises(InvalidInputError):
        ws.remember("bad \x00 byte", kind="note")
    for title in ("a ]] b", "a | b", "a [[ b"):
        with pytest.raises(InvalidInputError):
            ws.remember("fine content", kind="note", title=title)
    sql = ws.remember("Robert'); DROP TABLE memories;-- \"quoted\" NEAR AND OR *", kind="note", title="O'Brien \"q\"")
    assert ws.get_memory("o'brien \"q\"").id == sql.id
    assert len(ws.list_memories()) == 1


def test_export_import_export_is_byte_identical(ws: Workspace, repo: Path, clock: FrozenClock, tmp_path: Path):
    ws.remember("Headers over 8KB are dropped.", kind="pitfall", title="Header limits", elements=["gateway"])
    ws.remember("Since v2 the limit is 16KB; see [[ADR-17]].", kind="pitfall", title="Header limits", supersedes="Header limits")
    m = ws.remember("Payments are idempotent.", kind="convention", elements=["orders"], anchors=["services/orders/app.py#charge"])
    ws.archive(m.id, "moved")
    first = list(ws.export_memories())
    other = tmp_path / "other"
    write(other, {"archmem.yaml": MODEL, "docs/adr/0017-x.md": ADR})
    with Workspace.open(other, clock=clock, env={}) as target:
        report = target.import_memories(first)
        assert len(report.imported) == 3 and not report.errors
        assert list(target.export_memories()) == first
        again = target.import_memories(first)
        assert len(again.unchanged) == 3 and not again.imported


def test_import_reports_bad_lines_and_takes_nothing_without_partial(ws: Workspace):
    good = json.dumps({"id": "m-1", "kind": "note", "content": "fine", "created_at": "2026-01-01T00:00:00Z"})
    lines = [
        good,
        "{not json",
        json.dumps({"id": "m-2", "kind": "gotcha!", "content": "x", "created_at": "2026-01-01T00:00:00Z"}),
        json.dumps({"id": "m-3", "kind": "note", "content": "x", "created_at": "yesterday"}),
        json.dumps({"id": "m-4", "kind": "note", "content": "x", "created_at": "2026-01-01T00:00:00Z", "elements": ["gatway"]}),
        json.dumps({"id": "m-5", "kind": "note", "content": "later", "created_at": "2026-01-02T00:00:00Z", "supersedes": "m-1"}),
    ]
    with pytest.raises(ImportFailed) as info:
        ws.import_memories(lines, source="mem.jsonl")
    assert [e["line"] for e in info.value.report.errors] == [2, 3, 4, 5]
    assert "mem.jsonl:4:" in str(info.value) and "gateway" in str(info.value)
    assert ws.list_memories(status=None) == []
    report = ws.import_memories(lines, partial=True)
    assert sorted(report.imported) == ["m-1", "m-5"]
    assert ws.get_memory("m-1").superseded_by == "m-5"


def test_swapped_numbers_are_different_facts(ws: Workspace):
    ws.remember("Worker 3 closed session 6 cleanly.", kind="session_outcome")
    other = ws.remember("Worker 6 closed session 3 cleanly.", kind="session_outcome")
    assert not other.deduplicated


@pytest.mark.parametrize("form", ["ADR-17", "ADR-017", "0017", "adr 17", "Use the body for large payloads"])
def test_decision_links_in_every_form(ws: Workspace, form: str):
    result = ws.remember(f"Large carts go in the body, see [[{form}]].", kind="convention")
    assert [(link["kind"], link["id"]) for link in result.links] == [("decision", "17")]


@pytest.mark.parametrize("seed", [7, 11, 23, 42, 99])
def test_near_duplicate_pairs_are_exactly_the_brute_force_ones(seed: int):
    import itertools
    import random
    from datetime import datetime

    from archmem.memory import text as textrules
    from archmem.memory.review import near_duplicate_pairs
    from archmem.memory.types import Memory

    rng = random.Random(seed)
    words = [f"w{i}" for i in range(30)] + ["8KB", "16KB", "not", "3 workers"]
    contents: list[str] = []
    for i in range(150):  # families of near-restatements of varied sizes among unrelated texts
        if i % 4 == 0 or not contents:
            base = rng.sample(words, rng.randint(3, 18))
        else:
            base = contents[-1].split()
            for _ in range(rng.randint(0, 3)):
                base[rng.randrange(len(base))] = rng.choice(words)
            base = base + rng.sample(words, rng.randint(0, 2))
        contents.append(" ".join(base))
    created = datetime(2026, 1, 1, tzinfo=UTC)
    memories = [Memory(id=f"m{i:03d}", kind="note", content=c, created_at=created) for i, c in enumerate(contents)]
    expected = set()
    for a, b in itertools.combinations(memories, 2):
        score = textrules.token_set_similarity(a.content, b.content)
        if textrules.classify_similarity(score, lexical=True) != "different":
            expected.add((a.id, b.id))
    found = {(a, b) for a, b, _ in near_duplicate_pairs(memories)}
    assert len(expected) > 20 and found == expected

"""Recall: candidates from words, elements and links; the score; empty when irrelevant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from archmem.config import RecallConfig
from archmem.errors import UnknownNameError
from archmem.memory.types import MEMORY_KINDS
from archmem.recall import score as S
from archmem.recall.engine import RecallContext, recall
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, FrozenClock, git, shown_ids, write
from .conftest import ranked_ids as results


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def ws(tmp_path: Path, clock: FrozenClock):
    root = tmp_path / "repo"
    write(root, {
        "archmem.yaml": MODEL,
        "docs/adr/0017-use-the-body.md": ADR,
        "services/gateway/router.go": "package gateway\n",
        "services/orders/app.py": "x = 1\n",
    })
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    with Workspace.open(root, clock=clock, env={}) as workspace:
        yield workspace


def seed(ws: Workspace) -> dict[str, str]:
    ids = {}
    ids["headers"] = ws.remember("The gateway strips custom headers longer than 8KB; see [[ADR-17]] and [[Token expiry]].",
                                 kind="pitfall", title="Header limits", elements=["gateway"]).id
    ids["tokens"] = ws.remember("Session tokens expire after 15 minutes; refresh them in the background.",
                                kind="note", title="Token expiry", elements=["gateway"]).id
    ids["stock"] = ws.remember("Reserve stock before charging the card, or a failed reservation means a refund.",
                               kind="pitfall", elements=["orders"]).id
    ids["tax"] = ws.remember("Tax is rounded half up on the whole order total, never per line item.",
                             kind="convention", elements=["orders"]).id
    ids["style"] = ws.remember("Commit messages say what and why in the imperative mood.", kind="convention").id
    return ids


def test_words_shared_with_a_memory_find_it(ws: Workspace):
    ids = seed(ws)
    assert results(ws.recall("custom headers are stripped"))[0] == ids["headers"]


def test_nothing_relevant_returns_an_empty_list(ws: Workspace):
    seed(ws)
    result = ws.recall("configure kubernetes ingress certificates")
    assert result.results == [] and result.mode == "lexical"


def test_element_description_brings_its_memories(ws: Workspace):
    ids = seed(ws)
    found = shown_ids(ws.recall("speed up checkout"))
    # neither memory says "checkout"; OrderProcessor's description does
    assert set(found[:2]) == {ids["stock"], ids["tax"]}


def test_hinted_element_and_changed_file(ws: Workspace):
    ids = seed(ws)
    assert ids["tokens"] in results(ws.recall("refactor", elements=["ApiGateway"]))
    by_file = shown_ids(ws.recall("refactor", changed_files=["services/orders/app.py"]))
    assert set(by_file) == {ids["stock"], ids["tax"]}


def test_changed_takes_files_from_git_diff(ws: Workspace):
    ids = seed(ws)
    (ws.root / "services/orders/app.py").write_text("x = 2\n")
    assert set(shown_ids(ws.recall("refactor", changed=True))) == {ids["stock"], ids["tax"]}


def test_unknown_hint_is_an_error(ws: Workspace):
    with pytest.raises(UnknownNameError):
        ws.recall("x", elements=["gatway"])


def test_superseded_and_archived_never_come_back(ws: Workspace):
    ids = seed(ws)
    ws.remember("Since v2 the gateway strips custom headers longer than 16KB.", kind="pitfall",
                title="Header limits", supersedes="Header limits", elements=["gateway"])
    ws.archive(ids["tokens"], "gone")
    found = results(ws.recall("gateway custom headers tokens", limit=10))
    assert ids["headers"] not in found and ids["tokens"] not in found
    assert len(found) == len(set(found))


def test_links_bring_neighbours_in_a_list_of_their_own(ws: Workspace):
    ids = seed(ws)
    result = ws.recall("custom headers stripped", limit=1)
    assert [r["id"] for r in result.results] == [ids["headers"]]
    assert {(r["kind"], r["id"]) for r in result.linked} == {("decision", "17"), ("note", ids["tokens"])}
    assert all(r["via"] == {"id": ids["headers"], "title": "Header limits"} for r in result.linked)
    assert sorted(result.memory_ids) == sorted([ids["headers"], ids["tokens"]])  # what a session was shown
    # a neighbour already ranked is not repeated
    both = ws.recall("custom headers stripped and session tokens expire", limit=2)
    shown = [r["id"] for r in both.results + both.linked]
    assert shown.count(ids["tokens"]) == 1


def test_limit_is_a_cap_on_results_which_hold_memories_only(ws: Workspace):
    """Every top result links a memory, a decision and an element: none of them is
    counted in (or added to) ``results``; a linked element is in ``elements``."""
    seed(ws)
    for n in range(8):
        ws.remember(f"Custom headers rule {n}: stripped past 8KB, see [[ADR-17]], [[Token expiry]] and [[ApiGateway]].",
                    kind="pitfall", title=f"Header rule {n}", elements=["orders"])
    element_ids = {e.id for e in ws.model.elements}
    for limit in (1, 3, 5):
        result = ws.recall("custom headers rule stripped", limit=limit)
        data = result.to_dict()
        assert 0 < len(data["results"]) <= limit, (limit, [r["id"] for r in data["results"]])
        assert all(r["kind"] in MEMORY_KINDS and r["id"].startswith("m-") for r in data["results"])
        assert not {r["id"] for r in data["results"]} & element_ids
        assert all("via" not in r and r["score"] is not None for r in data["results"])
        assert {r["kind"] for r in data["linked"]} <= {*MEMORY_KINDS, "decision"}
        assert not {r["id"] for r in data["linked"]} & element_ids
        gateway = [e for e in data["elements"] if e["id"] == "gateway"]
        assert len(gateway) == 1 and gateway[0]["via"]["id"] == data["results"][0]["id"]
    # a briefing shows a linked element under the memory that links it, with its description
    briefing = ws.brief("custom headers rule stripped").markdown
    assert "→ **ApiGateway** Routes requests and checks tokens" in briefing


def test_explain_factors_multiply_to_the_score(ws: Workspace):
    seed(ws)
    for item in ws.recall("custom headers stripped", explain=True).results:
        f = item["factors"]
        assert f["score"] == pytest.approx(f["relevance"] * f["kind"] * f["freshness"] * f["usage"] * f["drift"], abs=1e-3)
        assert item["score"] == pytest.approx(f["score"], abs=1e-3)


def test_session_recall_records_exposures_and_citations_lift(ws: Workspace):
    ids = seed(ws)
    session = ws.start_session("headers")
    shown = ws.recall("custom headers stripped", session_id=session.id)
    assert sorted(ws.store.usage("exposures", session.id)) == sorted(shown.memory_ids)
    assert ws.get_memory(ids["headers"]).exposures == 0  # counted when the session ends
    before = ws.recall("custom headers stripped", explain=True).results[0]["factors"]["usage"]
    ws.end_session(session.id, used=["Header limits"])
    assert ws.get_memory(ids["headers"]).exposures == 1
    after = ws.recall("custom headers stripped", explain=True).results[0]["factors"]["usage"]
    assert after > before == 1.0
    with pytest.raises(UnknownNameError):
        ws.recall("x", session_id="s-missing")


def test_a_stale_memory_drops_and_says_why(ws: Workspace, clock: FrozenClock):
    ids = seed(ws)
    reason = "ApiGateway drifted since this was confirmed"
    ctx = RecallContext(store=ws.store, model=ws.model, config=RecallConfig(), now=clock(),
                        staleness=lambda ms: {m.id: reason for m in ms if m.id == ids["headers"]})
    plain = RecallContext(store=ws.store, model=ws.model, config=RecallConfig(), now=clock())
    stale = recall(ctx, "custom headers stripped", explain=True).results[0]
    fresh = recall(plain, "custom headers stripped", explain=True).results[0]
    assert stale["id"] == fresh["id"] == ids["headers"]
    assert stale["verify"] is True and stale["verify_reason"] == reason
    assert stale["score"] == pytest.approx(fresh["score"] * 0.6, rel=1e-3)


def test_relevance_dominates_kind_and_age(ws: Workspace, clock: FrozenClock):
    note = ws.remember("Invoices are numbered per tenant and per year, without gaps.", kind="note").id
    clock.advance(days=400)
    ws.remember("Numbering is hard in general.", kind="pitfall")
    assert results(ws.recall("how are invoices numbered per tenant"))[0] == note


# ---- the formula, pure --------------------------------------------------------------

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def test_lexical_relevance_is_bm25_over_its_ceiling():
    assert S.lexical_relevance(0.0, [1.0]) == 0.0
    assert S.lexical_relevance(2.2, [1.0]) == pytest.approx(1.0)
    assert S.lexical_relevance(1.1, [1.0, 1.0]) == pytest.approx(0.25)


def test_semantic_relevance_floor():
    assert S.semantic_relevance(0.1, 0.2) == 0.0
    assert S.semantic_relevance(0.6, 0.2) == pytest.approx(0.5)


def test_relevance_combination():
    config = RecallConfig()
    assert S.relevance(0.0, 1.0, config) == pytest.approx(0.8)
    assert S.relevance(0.5, 0.5, config) == pytest.approx(1 - 0.5 * 0.6)
    assert S.text_relevance(0.4, None, config) == 0.4
    assert S.text_relevance(0.4, 0.8, config) == pytest.approx(0.55 * 0.8 + 0.45 * 0.4)
    # meaning adds to words, never takes away: a weak cosine leaves the lexical relevance
    assert S.text_relevance(0.6, 0.0, config) == 0.6
    assert S.text_relevance(0.6, 0.5, config) == 0.6


def test_bounded_factors_at_full_strength_are_designs_numbers():
    full = RecallConfig(kind_strength=1, freshness_strength=1, usage_strength=1)
    assert S.kind_factor("pitfall", full) == 3.0 and S.kind_factor("session_outcome", full) == 1.0
    assert S.freshness_factor(NOW - timedelta(days=45), NOW, full) == pytest.approx(0.5)
    assert S.freshness_factor(NOW - timedelta(days=900), NOW, full) == pytest.approx(0.3)
    assert S.usage_factor(5, 0, full) == 0.75
    assert S.usage_factor(0, 10_000, full) == 1.8
    assert S.drift_factor(True, full) == 0.6


def test_default_factors_are_gentle():
    config = RecallConfig()
    worst = S.kind_factor("session_outcome", config) * S.freshness_factor(NOW - timedelta(days=999), NOW, config)
    best = S.kind_factor("pitfall", config) * S.freshness_factor(NOW, NOW, config)
    assert best / worst < 1.25


def test_terms_in_most_memories_go_unranked_when_rarer_ones_carry_the_query():
    counts = {"checkout": 3, "pricing": 40, "service": 9_500}
    ranked = S.terms_worth_ranking(counts, 10_000, min_relevance=0.2, exponent=1.0, cap=12)
    assert ranked == ["checkout", "pricing"]  # rarest first; "service" has an IDF near 0
    # what is left out could not lift a memory to min_relevance, nor move one by 5%
    idfs = {t: S.idf(c, 10_000) for t, c in counts.items()}
    assert idfs["service"] / sum(idfs.values()) < S.NEGLIGIBLE_SHARE


def test_terms_that_matter_are_always_ranked():
    counts = {"retry": 30, "loop": 45, "absent": 0}
    assert S.terms_worth_ranking(counts, 1_000, min_relevance=0.2, exponent=1.0, cap=12) == ["retry", "loop"]
    # the only term present is ranked however common it is
    assert S.terms_worth_ranking({"the": 990}, 1_000, min_relevance=0.2, exponent=1.0, cap=12) == ["the"]
    # with min_relevance 0 nothing may be left out, up to the cap
    common = {"a1": 900, "b2": 950, "c3": 5}
    assert S.terms_worth_ranking(common, 1_000, min_relevance=0.0, exponent=1.0, cap=12) == ["c3", "a1", "b2"]
    assert S.terms_worth_ranking(common, 1_000, min_relevance=0.0, exponent=1.0, cap=2) == ["c3", "a1"]
    assert S.terms_worth_ranking({"x": 0}, 1_000, min_relevance=0.2, exponent=1.0, cap=12) == []


def test_a_word_in_every_memory_does_not_crowd_out_the_rare_match(ws: Workspace):
    for i in range(30):
        ws.remember(f"The gateway service handles request batch {i} normally", kind="note")
    ws.remember("The gateway service drops idempotency keys on retry", kind="pitfall", title="Idempotency keys")
    result = ws.recall("gateway service idempotency")
    assert [r["title"] for r in result.results][:1] == ["Idempotency keys"]


def test_one_word_in_two_forms_counts_once(ws: Workspace):
    ws.remember("The importer retries failed rows: one retry per row, then a retry of the batch", kind="pitfall",
                title="Importer retries")
    ws.remember("The importer skips blank rows", kind="note")
    once = ws.recall("importer retry", explain=True).results[0]
    twice = ws.recall("importer retry retries retrying", explain=True).results[0]
    assert once["title"] == twice["title"] == "Importer retries"
    assert twice["factors"] == once["factors"]  # the ceiling counts "retry" once, like the match


def test_a_task_writing_out_a_decisions_title_finds_the_memories_that_link_it(ws: Workspace):
    ids = seed(ws)
    # the ADR's title shares no word with the memory that links it
    result = ws.recall("apply use the body for large payloads to the export endpoint")
    assert ids["headers"] in results(result)

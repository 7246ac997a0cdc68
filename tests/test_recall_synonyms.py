"""Words used for one another (the thesaurus), and the words that say little about where
a task is (persons, the verbs of a task, technologies): issue 15, rules 2 and 4.

Each test fails without its rule: the workspace tests run the whole recall on a real
index; the element tests run the matcher on a model.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.config import RecallConfig, load_config
from archmem.errors import ConfigError
from archmem.model.types import ArchitectureModel, Element
from archmem.recall import score as S
from archmem.recall.elements import ElementIndex, element_terms
from archmem.recall.synonyms import Thesaurus, parse_groups, shipped_groups
from archmem.store.words import IndexForms
from archmem.workspace import Workspace

from .conftest import FrozenClock, write

FORMS = IndexForms().of


# ---- the thesaurus -------------------------------------------------------------------


def test_groups_are_lines_of_comma_separated_words_with_comments() -> None:
    text = "# a comment\nslow, latency  # trailing\n\nlonely\nrate limit, throttle,\n"
    assert parse_groups(text) == [["slow", "latency"], ["rate limit", "throttle"]]


def test_the_shipped_thesaurus_loads_and_every_group_has_two_entries() -> None:
    groups = shipped_groups()
    assert len(groups) > 100
    assert all(len(group) >= 2 for group in groups)
    assert [g for g in groups if "memoize" in g] != ["memoize"]  # memoize sits in a group
    assert any("memoize" in group and "cache" in group for group in groups)


def test_a_task_word_is_found_by_its_stem_and_phrases_win_over_their_words() -> None:
    thesaurus = Thesaurus([["retry", "backoff"], ["rate limit", "throttle"], ["limit", "cap"]], FORMS)
    assert thesaurus.entries_in("the retries pile up") == [(FORMS(["retry"])["retry"],)]
    entries = thesaurus.entries_in("raise the rate limit")
    assert entries == [tuple(FORMS(["rate", "limit"]).values())]  # not "limit" alone as well
    mates = {mate for expansion in thesaurus.expansions("raise the rate limit") for mate in expansion.mates}
    assert mates == {tuple(FORMS(["throttle"]).values())}


def test_synonyms_go_one_step_not_along_a_chain() -> None:
    # "drop" is in two groups: it reaches both; "delete" reaches "drop", never "fall"
    thesaurus = Thesaurus([["drop", "delete"], ["drop", "fall"]], FORMS)

    def mates(text: str) -> set[str]:
        return {" ".join(mate) for expansion in thesaurus.expansions(text) for mate in expansion.mates}

    assert mates("drop") == {FORMS(["delete"])["delete"], FORMS(["fall"])["fall"]}
    assert mates("delete") == {FORMS(["drop"])["drop"]}


def test_a_synonym_the_task_already_says_is_not_asked_for_twice() -> None:
    thesaurus = Thesaurus([["slow", "latency", "sluggish"]], FORMS)
    expansions = thesaurus.expansions("slow latency")
    assert all(FORMS(["latency"])["latency"] not in {m[0] for m in e.mates} for e in expansions)
    assert all(FORMS(["slow"])["slow"] not in {m[0] for m in e.mates} for e in expansions)


def test_synonym_evidence_is_a_share_of_the_word_it_stands_for() -> None:
    ceiling = 2.0 * (S.BM25_K1 + 1)
    assert S.synonym_evidence(1.0, [2.0], 0.7) == pytest.approx(0.7)
    assert S.synonym_evidence(50.0, [2.0], 0.7) == pytest.approx(0.7 * ceiling)  # never more than the word
    assert S.synonym_evidence(-1.0, [2.0], 0.7) == 0.0


# ---- the whole recall -----------------------------------------------------------------

MODEL = """workspace "Shop" {
    !identifiers hierarchical
    model {
        shopper = person "Shopper" "Buys things in a browser."
        shop = softwareSystem "Shop" "The web shop." {
            cart = container "Cart Service" "Keeps the items in each shopper's basket." "Node.js"
            checkout = container "Checkout Service" "Places orders and charges cards." "Node.js"
        }
        shopper -> shop.checkout "Buys through"
    }
}
"""


OTHER_FACTS = [
    "Ads are served from a static list in the jar.",
    "The currency table is refreshed at start-up only.",
    "Card numbers are never written to the logs.",
    "Shipping quotes are a flat rate per parcel.",
    "Recommendations ignore the product being viewed.",
    "Product images are served from the frontend's static folder.",
]
"""Memories about other things: on a store of two, every word is in half of it and no
word is rare enough to rank by."""


def workspace(tmp_path: Path, toml: str = "") -> Workspace:
    root = tmp_path / "repo"
    write(root, {"workspace.dsl": MODEL, "archmem.toml": toml})
    ws = Workspace.open(root, clock=FrozenClock(), env={})
    for fact in OTHER_FACTS:
        ws.remember(fact, kind="note")
    return ws


def test_lexical_recall_finds_a_memory_through_a_synonym(tmp_path: Path) -> None:
    # synonyms alone are weaker evidence than the words (the fitted decision shows this
    # one as weak); answered here so that --explain shows how it was found
    with workspace(tmp_path, "[recall]\nanswer_confidence = 0.7\n") as ws:
        slow = ws.remember("Checkout pages render slowly when the basket is large.", kind="pitfall")
        found = ws.recall("purchase latency", explain=True).results
        assert [r["id"] for r in found][:1] == [slow.id]
        assert found[0]["factors"]["lexical"] > 0
        assert found[0]["synonyms"] == ["purchase", "latency"]  # --explain says how it was found
        shown = CliRunner().invoke(cli, ["recall", "purchase latency", "--explain", "--repo", str(tmp_path / "repo")])
        assert "found through synonyms of: purchase, latency" in shown.output
        assert "task words archmem knows: " in shown.output
    (tmp_path / "repo" / "archmem.toml").write_text("[recall]\nshipped_synonyms = false\n")
    with Workspace.open(tmp_path / "repo", clock=FrozenClock(), env={}) as ws:
        assert ws.recall("purchase latency").results == []


def test_the_word_itself_outranks_its_synonym_and_is_not_counted_twice(tmp_path: Path) -> None:
    with workspace(tmp_path) as ws:
        said = ws.remember("Refund emails are slow to arrive.", kind="note")
        synonym = ws.remember("Refund emails arrive with latency.", kind="note")
        both = ws.remember("Refund emails are slow: latency of minutes.", kind="note")
        found = {r["id"]: r["factors"]["lexical"] for r in ws.recall("slow refund emails", explain=True).results}
        assert found[said.id] > found[synonym.id] > 0
    (tmp_path / "repo" / "archmem.toml").write_text("[recall]\nshipped_synonyms = false\n")
    with Workspace.open(tmp_path / "repo", clock=FrozenClock(), env={}) as ws:
        plain = {r["id"]: r["factors"]["lexical"] for r in ws.recall("slow refund emails", explain=True).results}
    # "latency" adds nothing to a memory that already says "slow" (the group counts once)
    assert found[both.id] == pytest.approx(plain[both.id])


def test_a_project_adds_its_own_words(tmp_path: Path) -> None:
    toml = '[recall]\nshipped_synonyms = false\nsynonyms = [["bag", "basket"], ["pdp", "product page"]]\n'
    with workspace(tmp_path, toml) as ws:
        basket = ws.remember("The basket is lost when the pod restarts: it lives in memory.", kind="pitfall")
        page = ws.remember("The product page loads ads after the price.", kind="note")
        assert [r["id"] for r in ws.recall("bags are lost on restart").results][:1] == [basket.id]
        assert [r["id"] for r in ws.recall("pdp ads").results][:1] == [page.id]  # a phrase entry


def test_a_synonym_group_of_one_word_is_a_clear_error(tmp_path: Path) -> None:
    write(tmp_path, {"archmem.toml": '[recall]\nsynonyms = [["bag", "cart"], ["lonely"]]\n'})
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, env={})
    assert "synonym group 2" in str(raised.value) and "lonely" in str(raised.value)
    result = CliRunner().invoke(cli, ["recall", "anything", "--repo", str(tmp_path)])
    assert result.exit_code != 0 and "synonym group 2" in result.output


def test_a_task_about_something_nobody_wrote_about_gets_nothing(tmp_path: Path) -> None:
    # "shoppers" names the people the shop serves and "keep" a kind of work: neither says
    # where, so the Cart Service, whose description holds both, is not the answer
    with workspace(tmp_path) as ws:
        ws.remember("Cart lines are capped at 100 per basket.", kind="convention", elements=["shop.cart"])
        assert ws.recall("let shoppers keep a wishlist").results == []
        assert ws.recall("the basket of a shopper is capped").results


# ---- element evidence -----------------------------------------------------------------


def shop_model() -> ArchitectureModel:
    return ArchitectureModel(
        name="Shop",
        elements=[
            Element(id="shopper", name="Shopper", kind="person", description="Buys things in a browser."),
            Element(id="shop", name="Shop", kind="softwareSystem", description="The web shop."),
            Element(id="shop.cart", name="Cart Service", kind="container", parent="shop",
                    description="Keeps the items in each shopper's basket.", technology="Node.js"),
            Element(id="shop.checkout", name="Checkout Service", kind="container", parent="shop",
                    description="Places orders and charges cards.", technology="Node.js"),
            Element(id="shop.ads", name="Ad Service", kind="container", parent="shop",
                    description="Serves text ads.", technology="Java"),
        ],
    )


def index(**kwargs) -> ElementIndex:
    thesaurus = Thesaurus(shipped_groups(), FORMS)
    return ElementIndex(shop_model(), FORMS, thesaurus=thesaurus, **kwargs)


def test_a_synonym_of_an_elements_word_finds_it_but_never_a_person() -> None:
    found = index().match("the purchase flow")
    assert found.get("shop.checkout", 0) > 0.3  # purchase ~ checkout
    assert "shopper" not in found  # the shopper "buys things": buy ~ purchase, but a person says who
    assert "shop.checkout" not in index(synonym_weight=0.0).match("the purchase flow")


def test_persons_and_the_verbs_of_a_task_say_little_about_where() -> None:
    found = index().match("let shoppers keep a wishlist")
    assert found.get("shop.cart", 0) < 0.2  # 0.67 when "shoppers" and "keep" counted in full
    assert index().match("items in the basket")["shop.cart"] > 0.5


def unrelated_facts(count: int) -> list[str]:
    """Memories of made-up words, none shared with another: a store that has written much."""
    syllables = ["ka", "lo", "mi", "nu", "re", "si", "to", "ve", "da", "fu"]
    words = ["".join(parts) for parts in itertools.product(syllables, repeat=3)]
    return [" ".join(words[i * 5:i * 5 + 5]).capitalize() + "." for i in range(count)]


def test_a_task_whose_telling_words_nothing_holds_gets_nothing(tmp_path: Path) -> None:
    # "basket" finds the Cart Service and its memory, but "wishlist" and "sharing", the
    # words that say what the task is about, are in no memory and no element of a store
    # that has written enough to have used them (a store of a few memories knows few
    # words of any task, and their absence says little: test_recall_small_store.py)
    with workspace(tmp_path) as ws:
        for fact in unrelated_facts(60):
            ws.remember(fact, kind="note")
        ws.remember("Cart lines are capped at 100 per basket.", kind="convention", elements=["shop.cart"])
        assert ws.recall("cap the basket lines").results
        unknown = ws.recall("basket wishlist sharing", explain=True)
        assert unknown.results == [] and unknown.known_words < 0.5  # by relevance alone it was answered
        # an element named outright says what the task is about, whatever its words
        assert ws.recall("basket wishlist sharing", elements=["shop.cart"]).results


def test_a_technology_word_counts_half() -> None:
    cart = shop_model().get("shop.cart")
    assert cart is not None
    terms = element_terms(cart)
    assert terms["node"] == 0.5 and terms["basket"] == 1.0
    found = index().match("node cpu")
    assert 0 < found["shop.cart"] < 0.5 * index().match("basket cpu")["shop.cart"] + 1e-9


def test_the_calibrated_defaults_are_the_ones_the_benchmark_chose() -> None:
    config = RecallConfig()
    assert config.synonym_weight == 0.7

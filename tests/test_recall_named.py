"""A task that names what archmem knows is never answered with silence: an element by
its identifier or name (any case, with or without separators), a memory by its title."""

from __future__ import annotations

from pathlib import Path

import pytest

from archmem.model.types import ArchitectureModel, Element
from archmem.recall.named import Names, titles_named
from archmem.workspace import Workspace

from .conftest import FrozenClock, git, write
from .conftest import ranked_ids as ids

DSL = """workspace "Online Boutique" {
    !identifiers hierarchical
    model {
        shopper = person "Shopper" "Buys things."
        boutique = softwareSystem "Online Boutique" "The demo web shop." {
            cartService = container "Cart Service" "Keeps the items of each basket." {
                properties {
                    "archmem.paths" "src/cart/**"
                }
            }
            currency = container "Currency Service" "Converts money." {
                properties {
                    "archmem.paths" "src/currency/**"
                }
            }
        }
    }
}
"""


def model() -> ArchitectureModel:
    return ArchitectureModel(name="Online Boutique", elements=[
        Element(id="shopper", name="Shopper", kind="person"),
        Element(id="boutique", name="Online Boutique", kind="softwareSystem"),
        Element(id="boutique.cartService", name="Cart Service", kind="container", parent="boutique"),
        Element(id="boutique.db", name="Orders DB", kind="container", parent="boutique"),
    ])


@pytest.mark.parametrize("task", [
    "what should I know before touching cartService",
    "what should I know before touching the CartService?",
    "what should I know before touching cart_service",
    "anything about boutique.cartService",
    "the cart services keep failing",
    "before I change the CART SERVICE",
])
def test_an_element_is_named_by_identifier_or_name_in_any_spelling(task: str) -> None:
    assert set(Names(model()).elements(task)) == {"boutique.cartService"}


@pytest.mark.parametrize("task", [
    "the online boutique is slow",  # the product: named in every task, it points nowhere
    "a shopper cannot log in",      # a person says who, not where
    "the cart is empty after login",  # one word of a two-word name is not the name
    "cartservices2 is a new thing",
])
def test_the_product_people_and_partial_names_are_not_names(task: str) -> None:
    assert Names(model()).elements(task) == {}


def test_a_title_is_named_only_word_for_word_and_only_when_it_says_enough() -> None:
    titles = [("a", "Migration naming"), ("b", "Retries"), ("c", "Cart TTL rules")]
    assert titles_named("follow the migration naming rule here", titles) == ["a"]
    assert titles_named("add retries to the client", titles) == []  # one word is a topic, not a name
    assert titles_named("naming a migration", titles) == []  # not in a row


@pytest.fixture
def ws(tmp_path: Path):
    root = tmp_path / "repo"
    write(root, {"workspace.dsl": DSL, "src/cart/cart.cs": "x\n", "src/currency/server.js": "x\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    with Workspace.open(root, clock=FrozenClock(), env={}) as workspace:
        yield workspace


def test_a_task_naming_an_element_gets_its_memories_as_with_element(ws: Workspace) -> None:
    cart = [
        ws.remember("Redis keys expire after a day of inactivity.", kind="pitfall",
                    elements=["boutique.cartService"]).id,
        ws.remember("Empty carts are deleted, never stored empty.", kind="convention",
                    elements=["boutique.cartService"]).id,
    ]
    ws.remember("Rates come from the European Central Bank feed.", kind="note", elements=["boutique.currency"])
    hinted = ws.recall("what should I know before touching it", elements=["boutique.cartService"])
    named = ws.recall("what should I know before touching cartService")
    assert set(ids(hinted)) == set(cart)  # asked for outright: an answer, whatever the words
    # named in the words: never silent; an answer or, when the rest of the task says little, weak,
    # the named element's memories first (in a store of three, every memory holds "service",
    # from the element names it is indexed with, and that word alone lifts the third one too)
    assert {r["id"] for r in (named.results + named.weak)[:2]} == set(cart)


def test_a_task_writing_out_a_title_finds_that_memory_first(ws: Workspace) -> None:
    titled = ws.remember("Prices are stored as units and nanos, never floats.", kind="convention",
                         elements=["boutique.currency"], title="Money representation").id
    ws.remember("Money is rounded half to even when converted.", kind="note", elements=["boutique.currency"])
    assert ids(ws.recall("apply the money representation rule to the refund"))[0] == titled


def test_paths_file_names_and_symbols_are_named_as_code_writes_them() -> None:
    from archmem.recall.named import anchor_mentions

    task = ("why does `scraper_strategies.py` call OrderProcessor.checkout and price_cart() "
            "from src/cart/cart.cs? Redis is fine, e.g. v1.2 and https://x.io/a.py too.")
    assert anchor_mentions(task) == ["scraper_strategies.py", "OrderProcessor.checkout", "price_cart", "src/cart/cart.cs"]


def test_a_task_naming_an_anchored_file_or_symbol_finds_its_memories(ws: Workspace) -> None:
    by_file = ws.remember("The cart is kept in Redis hashes.", kind="note", elements=["boutique.cartService"],
                          anchors=["src/cart/cart.cs"]).id
    by_symbol = ws.remember("Conversion rounds half to even.", kind="pitfall", elements=["boutique.currency"],
                            anchors=["src/currency/server.js#convertAmount"]).id
    ws.remember("Rates come from the European Central Bank feed.", kind="note", elements=["boutique.currency"])
    assert ids(ws.recall("what breaks if I refactor cart.cs"))[0] == by_file
    assert ids(ws.recall("is convertAmount safe to call twice"))[0] == by_symbol

"""The parsed DSL model kept in the index: the same model as a parse, until an input changes.

A kept model is served without parsing (the index is not written); any change to what
the parse read (the model file, an include, a decision folder, an environment variable
it substitutes) parses again and says what the fresh parse says.
"""

from __future__ import annotations

import json
from pathlib import Path

from archmem.model.dsl import parse_dsl
from archmem.model.dsl_cache import (
    KEY,
    model_from_json,
    model_to_json,
    parse_dsl_cached,
)
from archmem.store import open_store
from archmem.store.sqlite import SQLiteStore

from .conftest import write

MODEL = """\
workspace "Shop" "${TEAM}" {
  !identifiers hierarchical
  !adrs docs/adr
  model {
    customer = person "Customer"
    shop = softwareSystem "Shop" {
      !include parts.dsl
    }
    customer -> shop "Buys from" "HTTPS"
    live = deploymentEnvironment "Live" {
      deploymentNode "Server" "" "Linux" {
        containerInstance shop.orders
      }
    }
  }
}
"""

PARTS = """\
orders = container "Orders" "Takes orders." "Python" {
  properties {
    "archmem.paths" "orders/**"
  }
}
"""

ADR = """\
# 1. Round tax once

Date: 2026-01-05

## Status

Accepted

## Context

Carts.
"""


class CountedWrites:
    """The real index, counting writes of the kept model: a model served from it writes none."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store, self.writes = store, 0

    def meta(self, key: str) -> str | None:
        return self.store.meta(key)

    def set_meta(self, key: str, value: str | None) -> None:
        self.writes += key == KEY
        self.store.set_meta(key, value)


def shop(tmp_path: Path) -> tuple[Path, CountedWrites]:
    root = tmp_path / "repo"
    write(root, {"workspace.dsl": MODEL, "parts.dsl": PARTS, "docs/adr/0001-round-tax-once.md": ADR})
    return root, CountedWrites(open_store(tmp_path / "index.db"))


def cached(root: Path, store: CountedWrites, env: dict[str, str] | None = None):
    return parse_dsl_cached(root / "workspace.dsl", env=env or {"TEAM": "Checkout"}, root=root, store=store)


def test_the_kept_model_equals_a_fresh_parse_and_is_served_without_parsing(tmp_path: Path):
    root, store = shop(tmp_path)
    fresh = parse_dsl(root / "workspace.dsl", env={"TEAM": "Checkout"}, root=root)
    assert fresh.decisions and fresh.deployment and fresh.relationships and fresh.elements[0].location
    assert cached(root, store) == fresh
    assert store.writes == 1
    again = cached(root, store)
    assert again == fresh and again.description == "Checkout"
    assert again.get("shop.orders") == fresh.get("shop.orders")
    assert store.writes == 1  # served from the index


def test_the_json_form_gives_back_every_field(tmp_path: Path):
    root, _ = shop(tmp_path)
    model = parse_dsl(root / "workspace.dsl", env={}, root=root)
    text = json.dumps(model_to_json(model), default=str)
    assert model_from_json(json.loads(text)) == model


def test_an_edited_model_file_is_parsed_again(tmp_path: Path):
    root, store = shop(tmp_path)
    cached(root, store)
    write(root, {"workspace.dsl": MODEL.replace('"Shop" {', '"Webshop" {')})
    assert cached(root, store).get("shop").name == "Webshop"
    assert store.writes == 2


def test_an_edited_include_is_parsed_again(tmp_path: Path):
    root, store = shop(tmp_path)
    cached(root, store)
    write(root, {"parts.dsl": PARTS.replace("Takes orders.", "Takes and ships orders.")})
    assert cached(root, store).get("shop.orders").description == "Takes and ships orders."


def test_a_new_decision_record_is_parsed_again(tmp_path: Path):
    root, store = shop(tmp_path)
    assert len(cached(root, store).decisions) == 1
    write(root, {"docs/adr/0002-keep-cents.md": ADR.replace("1. Round tax once", "2. Keep cents")})
    assert len(cached(root, store).decisions) == 2


def test_a_changed_environment_variable_is_parsed_again(tmp_path: Path):
    root, store = shop(tmp_path)
    cached(root, store)
    assert cached(root, store, {"TEAM": "Payments"}).description == "Payments"
    assert cached(root, store, {"OTHER": "x"}).description == "${TEAM}"
    writes = store.writes
    assert cached(root, store, {"OTHER": "y"}).description == "${TEAM}"  # a variable it never asked for
    assert store.writes == writes


def test_without_an_index_the_model_is_parsed(tmp_path: Path):
    root, _ = shop(tmp_path)
    model = parse_dsl_cached(root / "workspace.dsl", env={}, root=root, store=None)
    assert model == parse_dsl(root / "workspace.dsl", env={}, root=root)

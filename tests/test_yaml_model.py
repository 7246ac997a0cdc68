"""archmem's YAML model: the tree it builds, and every mistake at its exact line and column."""

from __future__ import annotations

import datetime as dt
import shutil
import textwrap
from pathlib import Path

import pytest

from archmem.errors import ModelError, ModelNotFoundError, ModelSyntaxError
from archmem.model.yaml_model import parse_yaml_model

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "c4-corpus"

SHOP = """\
name: Shop
description: An online shop
properties: {team: core}
elements:
  - id: customer
    kind: person
    name: Customer
    description: Buys things
  - id: shop
    kind: system
    name: Shop
    decisions: docs/shop-adr
    elements:
      - id: api
        technology: Go
        paths: [services/api/**, "libs/money"]
        tags: Backend, HTTP
        properties: {owner: payments-team, port: 8080, public: yes}
        url: https://example.com/api
        group: Services
        elements:
          - id: api.orders
            name: Orders
            description: |
              Takes orders.

      # a comment after the last component
      - id: shop.web
        kind: container
        name: Web
        paths: "web/**; shared/ui"
  - id: mainframe
    kind: Mainframe
relationships:
  - {source: customer, destination: shop.web, description: Uses, technology: HTTPS}
  - source: shop.web
    destination: shop.api
    description: Calls
    tags: [sync]
  - source: shop.api.orders
    destination: mainframe
decisions:
  - docs/adr
  - {path: docs/l4b, format: log4brains, element: api}
"""

ADR = "# {n}. Decision {n}\n\nDate: 2021-01-0{n}\n\n## Status\n\nAccepted\n"


def write_model(tmp_path: Path, text: str, name: str = "archmem.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    for folder, n in (("docs/adr", 1), ("docs/adr", 2), ("docs/shop-adr", 3)):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / f"000{n}-d.md").write_text(ADR.format(n=n), encoding="utf-8")
    (tmp_path / "docs/l4b").mkdir()
    (tmp_path / "docs/l4b/20220101-pick-go.md").write_text("# Pick Go\n\n- Status: accepted\n", encoding="utf-8")
    return write_model(tmp_path, SHOP)


def error_at(tmp_path: Path, text: str) -> ModelError:
    path = write_model(tmp_path, text)
    with pytest.raises(ModelError) as info:
        parse_yaml_model(path)
    assert info.value.file == path.resolve().as_posix()
    return info.value


def where(err: ModelError) -> tuple[int | None, int | None]:
    return err.line, err.column


# ---- a whole model -----------------------------------------------------------------------


def test_shop_tree(shop: Path) -> None:
    model = parse_yaml_model(shop)
    assert model.format == "archmem-yaml"
    assert model.source == shop.resolve().as_posix() and model.files == [model.source]
    assert (model.name, model.description, model.properties) == ("Shop", "An online shop", {"team": "core"})
    tree = [(depth, e.id, e.kind, e.name, e.parent) for depth, e in model.walk()]
    assert tree == [
        (0, "customer", "person", "Customer", None),
        (0, "shop", "softwareSystem", "Shop", None),
        (1, "api", "container", "api", "shop"),  # kind defaults to container in a system
        (2, "api.orders", "component", "Orders", "api"),  # and to component in a container
        (1, "shop.web", "container", "Web", "shop"),
        (0, "mainframe", "Mainframe", "mainframe", None),  # a custom kind, kept as written
    ]
    assert model.counts()["customElements"] == 1


def test_shop_element_fields(shop: Path) -> None:
    model = parse_yaml_model(shop)
    api = model.find("api")
    assert api.technology == "Go"
    assert api.paths == ["services/api/**", "libs/money"]
    assert api.tags == ["Backend", "HTTP"]
    assert api.properties == {"owner": "payments-team", "port": "8080", "public": "yes"}  # as written
    assert (api.url, api.group) == ("https://example.com/api", "Services")
    assert model.find("shop.web").paths == ["web/**", "shared/ui"]
    assert model.find("Orders").description == "Takes orders."  # block text, stripped
    assert model.find("Orders").canonical_name == "Component://Shop.api.Orders"
    assert model.find("customer").description == "Buys things"


def test_shop_locations(shop: Path) -> None:
    model = parse_yaml_model(shop)
    file = shop.resolve().as_posix()
    spans = {e.id: (e.location.file, e.location.line, e.location.column, e.location.end_line) for e in model.elements}
    assert spans["customer"] == (file, 5, 5, 8)
    assert spans["shop"] == (file, 9, 5, 31)
    assert spans["api"] == (file, 14, 9, 25)  # ends with the block text, not the comment after it
    assert spans["api.orders"] == (file, 22, 13, 25)
    assert spans["shop.web"] == (file, 28, 9, 31)
    assert spans["mainframe"] == (file, 32, 5, 33)
    assert [(r.location.line, r.location.end_line) for r in model.relationships] == [(35, 35), (36, 39), (40, 41)]


def test_shop_relationships(shop: Path) -> None:
    model = parse_yaml_model(shop)
    rels = [(r.source, r.destination, r.description, r.technology, r.tags) for r in model.relationships]
    assert rels == [
        ("customer", "shop.web", "Uses", "HTTPS", []),
        ("shop.web", "api", "Calls", "", ["sync"]),  # the tree path shop.api names element api
        ("api.orders", "mainframe", "", "", []),
    ]


def test_shop_decisions(shop: Path) -> None:
    model = parse_yaml_model(shop)
    got = [(d.id, d.format, d.element, d.title) for d in model.decisions]
    assert got == [
        ("1", "adrtools", None, "Decision 1"),
        ("2", "adrtools", None, "Decision 2"),
        ("20220101-pick-go", "log4brains", "api", "Pick Go"),
        ("3", "adrtools", "shop", "Decision 3"),
    ]
    assert model.decisions[0].date == dt.date(2021, 1, 1)
    assert model.decisions_of("shop")[0].path.endswith("docs/shop-adr/0003-d.md")


def test_near_miss_kind_is_a_warning(tmp_path: Path) -> None:
    path = write_model(tmp_path, "elements:\n  - id: a\n    kind: contaner\n")
    model = parse_yaml_model(path)  # "contaner" is a custom kind, allowed at the top level
    assert model.elements[0].kind == "contaner"
    assert model.warnings and "did you mean 'container'" in model.warnings[0]
    assert ":3:11:" in model.warnings[0]


def test_merge_keys_and_empty_lists(tmp_path: Path) -> None:
    path = write_model(
        tmp_path,
        """\
        elements:
          - &base {id: a, kind: system, technology: Java}
          - <<: *base
            id: b
            name: B
        relationships:
        """,
    )
    model = parse_yaml_model(path)
    assert [(e.id, e.technology) for e in model.elements] == [("a", "Java"), ("b", "Java")]
    assert model.relationships == []


def test_decisions_from_the_corpus(tmp_path: Path) -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the C4 corpus is not at {CORPUS}")
    # copied in: a model may only name folders inside its repository
    shutil.copytree(CORPUS / "structurizr-dsl" / "decisions", tmp_path / "decisions")
    text = """\
    elements:
      - {id: s, kind: system, decisions: {path: decisions/adrtools}}
    decisions:
      - {path: decisions/madr, format: madr}
    """
    model = parse_yaml_model(write_model(tmp_path, text))
    assert len(model.decisions_of(None)) == 19
    assert len(model.decisions_of("s")) == 10


@pytest.mark.parametrize("written", ["softwareSystem", "software_system", "System", "software-system"])
def test_kind_aliases(tmp_path: Path, written: str) -> None:
    model = parse_yaml_model(write_model(tmp_path, f"elements:\n  - {{id: a, kind: {written}}}\n"))
    assert model.elements[0].kind == "softwareSystem"


def test_dotted_ids_may_use_the_tree_path(tmp_path: Path) -> None:
    text = """\
    elements:
      - id: shop
        kind: system
        elements:
          - id: api
            elements:
              - id: shop.api.orders
    relationships:
      - {source: shop.api.orders, destination: shop}
    """
    model = parse_yaml_model(write_model(tmp_path, text))
    assert model.find("shop.api.orders").parent == "api"
    assert model.relationships[0].source == "shop.api.orders"


# ---- every mistake, exactly where it is -----------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        parse_yaml_model(tmp_path / "archmem.yaml")


def test_yaml_syntax_error(tmp_path: Path) -> None:
    err = error_at(tmp_path, "elements:\n  - id: a\n    kind: person\n   name: A\n")
    assert isinstance(err, ModelSyntaxError)
    assert where(err) == (4, 4)
    assert err.message.startswith("YAML syntax error")


def test_unclosed_flow_sequence(tmp_path: Path) -> None:
    err = error_at(tmp_path, "elements:\n  - {id: a, kind: person, tags: [x, y}\n")
    assert where(err) == (2, 38)


def test_tab_indentation(tmp_path: Path) -> None:
    err = error_at(tmp_path, "elements:\n\t- id: a\n")
    assert where(err) == (2, 1)


def test_control_character(tmp_path: Path) -> None:
    err = error_at(tmp_path, "name: Sh\x07op\n")
    assert where(err) == (1, 9)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "archmem.yaml"
    path.write_bytes(b"name: Caf\xe9\n")
    with pytest.raises(ModelSyntaxError, match="UTF-8") as info:
        parse_yaml_model(path)
    assert where(info.value) == (1, 10)


def test_empty_file(tmp_path: Path) -> None:
    err = error_at(tmp_path, "# nothing here\n")
    assert where(err) == (1, 1) and "empty" in err.message


def test_root_must_be_a_mapping(tmp_path: Path) -> None:
    err = error_at(tmp_path, "- id: a\n")
    assert where(err) == (1, 1) and "mapping" in err.message


def test_unknown_top_level_key(tmp_path: Path) -> None:
    err = error_at(tmp_path, "name: Shop\nelement:\n  - id: a\n")
    assert isinstance(err, ModelSyntaxError)
    assert where(err) == (2, 1)
    assert "unknown key 'element'" in err.message
    assert "elements" in err.expected and "relationships" in err.expected
    assert err.hint == "did you mean 'elements'?"


def test_unknown_element_key(tmp_path: Path) -> None:
    err = error_at(tmp_path, "elements:\n  - id: a\n    kind: person\n    descripton: x\n")
    assert where(err) == (4, 5)
    assert err.hint == "did you mean 'description'?"
    assert isinstance(err, ModelSyntaxError) and "paths" in err.expected


def test_unknown_relationship_key(tmp_path: Path) -> None:
    text = "elements:\n  - {id: a, kind: person}\nrelationships:\n  - {source: a, destination: a, target: a}\n"
    err = error_at(tmp_path, text)
    assert where(err) == (4, 33)
    assert "destination" in err.expected  # type: ignore[attr-defined]


def test_duplicate_key(tmp_path: Path) -> None:
    err = error_at(tmp_path, "elements:\n  - id: a\n    kind: person\n    id: b\n")
    assert where(err) == (4, 5) and "duplicate key 'id'" in err.message and "line 2" in err.message


@pytest.mark.parametrize(
    ("text", "position", "words"),
    [
        ("elements:\n  id: a\n", (2, 3), "elements must be a list"),
        ("elements:\n  - just-a-name\n", (2, 5), "element must be a mapping"),
        ("elements:\n  - id: a\n    kind: person\n    name: [A, B]\n", (4, 11), "name must be a single value"),
        ("elements:\n  - id: a\n    kind: person\n    properties: [x]\n", (4, 17), "properties must be a mapping"),
        ("elements:\n  - id: a\n    kind: person\n    properties: {x: {y: 1}}\n", (4, 21), "property 'x'"),
        ("elements:\n  - id: a\n    kind: person\n    tags: {a: b}\n", (4, 11), "tags must be a single value"),
        ("elements:\n  - id: a\n    kind: person\n    tags: [[x]]\n", (4, 12), "an item of tags"),
        ("relationships: {source: a}\n", (1, 16), "relationships must be a list"),
    ],
)
def test_wrong_types(tmp_path: Path, text: str, position: tuple[int, int], words: str) -> None:
    err = error_at(tmp_path, text)
    assert isinstance(err, ModelSyntaxError)
    assert where(err) == position
    assert words in err.message


def test_missing_id_and_kind(tmp_path: Path) -> None:
    err = error_at(tmp_path, "elements:\n  - kind: person\n")
    assert where(err) == (2, 5) and "has no id" in err.message
    err = error_at(tmp_path, "elements:\n  - id: a\n")
    assert where(err) == (2, 5) and "no kind" in err.message
    err = error_at(tmp_path, "elements:\n  - id: s\n    kind: system\n    elements:\n      - id: c\n        elements:\n          - id: x\n            elements:\n              - id: y\n")
    assert where(err) == (9, 17) and "under component 'x'" in err.message


def test_invalid_ids(tmp_path: Path) -> None:
    err = error_at(tmp_path, "elements:\n  - id: my api\n    kind: system\n")
    assert where(err) == (2, 9) and "invalid id" in err.message
    err = error_at(tmp_path, "elements:\n  - id: shop.api\n    kind: system\n")
    assert where(err) == (2, 9) and "top-level" in err.message
    text = "elements:\n  - id: shop\n    kind: system\n    elements:\n      - id: other.api\n"
    err = error_at(tmp_path, text)
    assert where(err) == (5, 13) and "does not start with its parent's id 'shop'" in err.message


def test_duplicate_ids(tmp_path: Path) -> None:
    text = """\
    elements:
      - id: api
        kind: system
      - id: shop
        kind: system
        elements:
          - id: api
    """
    err = error_at(tmp_path, text)
    assert where(err) == (7, 13)
    assert "duplicate id 'api'" in err.message and "line 2" in err.message


def test_duplicate_ids_by_tree_path(tmp_path: Path) -> None:
    text = "elements:\n  - id: shop\n    kind: system\n    elements:\n      - id: api\n      - id: shop.api\n"
    err = error_at(tmp_path, text)
    assert where(err) == (6, 13) and "duplicate id 'shop.api'" in err.message


def test_duplicate_sibling_names(tmp_path: Path) -> None:
    text = "elements:\n  - {id: a, kind: person, name: User}\n  - {id: b, kind: system, name: User}\n"
    err = error_at(tmp_path, text)
    assert where(err) == (3, 33) and "duplicate name 'User'" in err.message


@pytest.mark.parametrize(
    ("text", "position", "words"),
    [
        ("elements:\n  - id: a\n    kind: container\n", (3, 11), "a container belongs directly inside a softwareSystem, not at the top level"),
        (
            "elements:\n  - id: p\n    kind: person\n    elements:\n      - id: c\n        kind: container\n",
            (4, 5),
            "a person has no children",
        ),
        (
            "elements:\n  - id: s\n    kind: system\n    elements:\n      - id: c\n        kind: component\n",
            (6, 15),
            "a component belongs directly inside a container, not inside softwareSystem 's'",
        ),
        (
            "elements:\n  - id: s\n    kind: system\n    elements:\n      - {id: p, kind: person}\n",
            (5, 23),
            "a person belongs at the top level",
        ),
        (
            "elements:\n  - id: rack\n    kind: hardware\n    elements:\n      - {id: c, kind: container}\n",
            (5, 23),
            "not inside hardware 'rack'",
        ),
    ],
)
def test_wrong_nesting(tmp_path: Path, text: str, position: tuple[int, int], words: str) -> None:
    err = error_at(tmp_path, text)
    assert where(err) == position
    assert words in err.message


def test_custom_kinds_nest_inside_c4_elements(tmp_path: Path) -> None:
    text = "elements:\n  - id: s\n    kind: system\n    elements:\n      - {id: q, kind: queue, elements: [{id: p, kind: partition}]}\n"
    model = parse_yaml_model(write_model(tmp_path, text))
    assert [(e.id, e.kind, e.parent) for e in model.elements] == [
        ("s", "softwareSystem", None),
        ("q", "queue", "s"),
        ("p", "partition", "q"),
    ]


def test_relationship_to_unknown_element(tmp_path: Path) -> None:
    text = """\
    elements:
      - {id: customer, kind: person}
      - id: shop
        kind: system
        elements:
          - id: api
    relationships:
      - source: customer
        destination: apii
    """
    err = error_at(tmp_path, text)
    assert isinstance(err, ModelSyntaxError)
    assert where(err) == (9, 18)
    assert "relationship destination 'apii' is not an element id; did you mean 'api'" in err.message


def test_relationship_without_destination(tmp_path: Path) -> None:
    err = error_at(tmp_path, "elements:\n  - {id: a, kind: person}\nrelationships:\n  - source: a\n")
    assert where(err) == (4, 5) and "no destination" in err.message


def test_duplicate_relationship(tmp_path: Path) -> None:
    text = (
        "elements:\n  - {id: a, kind: person}\n  - {id: b, kind: system}\nrelationships:\n"
        "  - {source: a, destination: b, description: Uses}\n  - {source: a, destination: b, description: Uses}\n"
    )
    err = error_at(tmp_path, text)
    assert where(err) == (6, 5) and "already exists (line 5)" in err.message


def test_decisions_folder_missing(tmp_path: Path) -> None:
    err = error_at(tmp_path, "name: x\ndecisions:\n  - docs/nowhere\n")
    assert where(err) == (3, 5) and "docs/nowhere" in err.message


def test_decisions_bad_format_and_element(tmp_path: Path) -> None:
    (tmp_path / "adr").mkdir()
    err = error_at(tmp_path, "decisions: {path: adr, format: nygard}\n")
    assert where(err) == (1, 32) and "unknown decision format 'nygard'" in err.message
    err = error_at(tmp_path, "decisions: {path: adr, element: shop}\n")
    assert where(err) == (1, 33) and "not an element id" in err.message
    err = error_at(tmp_path, "decisions: {format: madr}\n")
    assert where(err) == (1, 12) and "no path" in err.message
    text = "elements:\n  - id: a\n    kind: system\n    decisions: {path: adr, element: a}\n"
    err = error_at(tmp_path, text)
    assert where(err) == (4, 28) and "belong to that element" in err.message


def test_errors_inside_a_record_keep_the_record_location(tmp_path: Path) -> None:
    # a record that cannot be read is a warning at its own place; the model still loads
    (tmp_path / "adr").mkdir()
    (tmp_path / "adr" / "0001-x.md").write_text("# 1. X\n\nDate: someday\n", encoding="utf-8")
    model = parse_yaml_model(write_model(tmp_path, "decisions: {path: adr, format: adrtools}\n"))
    assert model.decisions == []
    [warning] = model.warnings
    assert warning.startswith(f"{(tmp_path / 'adr' / '0001-x.md').resolve().as_posix()}:3:7: ")
    assert "someday" in warning and "skipped" in warning

"""The wikilink grammar, titles, contents and kinds (archmem.memory.links, .kinds)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archmem.errors import InvalidInputError
from archmem.memory.kinds import parse_kind
from archmem.memory.links import (
    WikiLink,
    code_spans,
    decision_keys,
    element_keys,
    fenced_ranges,
    mask_code,
    normalize_title,
    parse_links,
    render_link,
    resolution_order,
    resolve_link,
    validate_content,
    validate_title,
)
from archmem.memory.types import MAX_CONTENT_CHARS, MAX_TITLE_CHARS, Link
from archmem.model.adrs import decision_aliases
from archmem.model.types import Decision

# ---- parsing ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see [[Header limits]].", [("Header limits", None)]),
        ("[[Header limits|the 8KB rule]]", [("Header limits", "the 8KB rule")]),
        ("[[  spaced   out  |  shown  ]]", [("spaced   out", "shown")]),
        ("[[target|]] [[other| ]]", [("target", None), ("other", None)]),
        ("[[a|b|c]]", [("a", "b|c")]),
        ("[[]] [[   ]] [[|shown]]", []),
        ("[[a [[b]] c]]", [("b", None)]),
        ("[[[x]]]", [("x", None)]),
        ("x]] [[y", []),
        ("[[Array[0] pitfall]]", [("Array[0] pitfall", None)]),
        ("[[one]][[two]]", [("one", None), ("two", None)]),
        ("[[split\nover lines]] [[ok]]", [("ok", None)]),
        ("`[[in code]]` and [[out]]", [("out", None)]),
        ("```\n[[fenced]]\n```\n[[after]]", [("after", None)]),
        ("~~~md\n[[fenced]]\n", []),
        ("``[[double ` tick]]`` [[real]]", [("real", None)]),
        ("[[ADR-17]] and [[ApiGateway]]", [("ADR-17", None), ("ApiGateway", None)]),
        ("", []),
    ],
)
def test_parse_links(text: str, expected: list[tuple[str, str | None]]) -> None:
    assert [(link.target, link.shown) for link in parse_links(text)] == expected


def test_links_carry_the_offsets_of_their_brackets() -> None:
    text = "a [[T|s]] b [[U]]"
    links = parse_links(text)
    assert links == [WikiLink("T", "s", 2, 9), WikiLink("U", None, 12, 17)]
    assert [text[link.start : link.end] for link in links] == ["[[T|s]]", "[[U]]"]


@given(
    st.text(max_size=200)
    | st.lists(st.sampled_from(["[[", "]]", "|", "`", "```", "\n", "a", " ", "[", "]"])).map("".join)
)
@settings(max_examples=200, deadline=None)
def test_parse_links_never_raises_and_gives_clean_targets(text: str) -> None:
    for link in parse_links(text):
        assert link.target and link.target == link.target.strip()
        assert "\n" not in link.target and "|" not in link.target
        assert text[link.start : link.start + 2] == "[[" and text[link.end - 2 : link.end] == "]]"


# ---- Markdown code ----------------------------------------------------------------


def test_fenced_ranges_and_masking() -> None:
    text = "a\n```py\nx = `b`\n```\nc `d` e\n~~~\nopen"
    assert [text[s:e] for s, e in fenced_ranges(text)] == ["```py\nx = `b`\n```\n", "~~~\nopen"]
    assert [(text[s:e], n) for s, e, n in code_spans(text)] == [("`d`", 1)]
    masked = mask_code(text)
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    assert masked.split("\n")[4] == "c     e"
    assert mask_code(text, inline=False).split("\n")[4] == "c `d` e"


def test_a_fence_closes_only_with_the_same_character_at_least_as_long() -> None:
    text = "````\n```\n~~~~\nstill code\n```` \nafter"
    assert [text[s:e] for s, e in fenced_ranges(text)] == ["````\n```\n~~~~\nstill code\n```` \n"]
    assert fenced_ranges("```py\ncode\n```not a close\n") == [(0, 26)]


def test_inline_spans_match_runs_of_equal_length() -> None:
    text = "``a ` b`` and `c` and `unclosed"
    assert [(text[s:e], n) for s, e, n in code_spans(text)] == [("``a ` b``", 2), ("`c`", 1)]


# ---- rendering and resolution -----------------------------------------------------


@pytest.mark.parametrize(
    ("link", "label", "expected"),
    [
        (WikiLink("Header limits", None, 0, 0), None, "[[Header limits]]"),
        (WikiLink("header limits", None, 0, 0), "Header limits", "[[Header limits]]"),
        (WikiLink("ADR-17", "the ADR", 0, 0), "Use Kafka", "[[the ADR]]"),
        (WikiLink("Pending", "shown", 0, 0), None, "[[shown]]"),
        (Link(source_id="m1", target_text="Not yet written"), None, "[[Not yet written]]"),
        (Link(source_id="m1", target_text="x", target_kind="element", target_id="api"), "ApiGateway", "[[ApiGateway]]"),
    ],
)
def test_render_link_never_shows_none(link: WikiLink | Link, label: str | None, expected: str) -> None:
    assert render_link(link, label) == expected


def test_resolution_order() -> None:
    assert resolution_order() == ("memory", "element", "decision")


DECISIONS = [
    Decision(id="17", title="Use Kafka for events", path="docs/adr/0017-use-kafka-for-events.md"),
    Decision(id="20240111-use-postgres", title="Use Postgres", path="docs/adr/20240111-use-postgres.md"),
]


@pytest.fixture
def maps() -> dict[str, dict[str, str]]:
    elements: dict[str, str] = {}
    for element_id, name in (("api", "ApiGateway"), ("shop.orders", "Order Service"), ("kafka", "Kafka")):
        elements.update(dict.fromkeys(element_keys(element_id, name), element_id))
    decisions: dict[str, str] = {}
    for decision in DECISIONS:
        decisions.update(dict.fromkeys(decision_keys(decision_aliases(decision)), decision.id))
    titles = {normalize_title("Header limits"): "m1", normalize_title("Kafka"): "m2"}
    return {"titles": titles, "elements": elements, "decisions": decisions}


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("Header limits", ("memory", "m1")),
        ("  header   LIMITS ", ("memory", "m1")),
        ("Kafka", ("memory", "m2")),  # a title shadows the element of the same name
        ("api", ("element", "api")),
        ("apigateway", ("element", "api")),
        ("order  service", ("element", "shop.orders")),
        ("shop.orders", ("element", "shop.orders")),
        ("ADR-17", ("decision", "17")),
        ("adr-017", ("decision", "17")),
        ("ADR 17", ("decision", "17")),
        ("adr17", ("decision", "17")),
        ("ADR-00017", ("decision", "17")),
        ("0017", ("decision", "17")),
        ("17", ("decision", "17")),
        ("use kafka for events", ("decision", "17")),
        ("use-postgres", ("decision", "20240111-use-postgres")),
        ("Use Postgres", ("decision", "20240111-use-postgres")),
        ("ADR-18", None),
        ("Not yet written", None),
        ("   ", None),
    ],
)
def test_resolve_link(maps: dict[str, dict[str, str]], target: str, expected: tuple[str, str] | None) -> None:
    assert resolve_link(target, **maps) == expected


# ---- titles -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "key"),
    [("Header limits", "header limits"), ("  Header \t  LIMITS\n", "header limits"), ("Straße", "strasse"),
     ("Cafe\u0301", "café"), ("ＡＰＩ", "api")],
)  # fmt: skip
def test_normalize_title(title: str, key: str) -> None:
    assert normalize_title(title) == key


@pytest.mark.parametrize(
    ("title", "cleaned"),
    [("  Header limits ", "Header limits"), ("Header   limits", "Header limits"), ("Array[0] pitfall", "Array[0] pitfall"),
     ("Cafe\u0301", "Café"), ("x" * MAX_TITLE_CHARS, "x" * MAX_TITLE_CHARS), ("Title\n", "Title")],
)  # fmt: skip
def test_validate_title_cleans(title: str, cleaned: str) -> None:
    assert validate_title(title) == cleaned


@pytest.mark.parametrize(
    ("title", "says"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * (MAX_TITLE_CHARS + 1), f"{MAX_TITLE_CHARS + 1} characters long; the limit is {MAX_TITLE_CHARS}"),
        ("a [[b", "'[['"),
        ("a ]] b", "']]'"),
        ("a | b", "'|'"),
        ("two\nlines", "line break"),
        ("tab\there", "control character U+0009"),
        ("nul\x00", "U+0000 (NUL)"),
        ("bidi \u202e trick", "U+202E"),
    ],
)
def test_validate_title_refuses(title: str, says: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        validate_title(title)
    assert says in str(caught.value)


# ---- contents ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "cleaned"),
    [
        ("a\r\nb\r\n", "a\nb"),
        ("a\rb", "a\nb"),
        ("a   \nb\t\n\n\n", "a\nb"),
        ("\n\n  indented\n", "  indented"),
        ("keeps\ttabs and\n\nblank lines", "keeps\ttabs and\n\nblank lines"),
        ("x" * MAX_CONTENT_CHARS + "   \n", "x" * MAX_CONTENT_CHARS),
    ],
)
def test_validate_content_cleans(content: str, cleaned: str) -> None:
    assert validate_content(content) == cleaned


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("", "empty"),
        (" \n\t\r\n ", "empty"),
        (
            "x" * (MAX_CONTENT_CHARS + 1),
            f"{MAX_CONTENT_CHARS + 1:,} characters long; the limit is {MAX_CONTENT_CHARS:,}",
        ),
        ("ok\nbad \x00 here", "U+0000 (NUL) at line 2, column 5"),
        ("\x1b[31mred", "U+001B (ESC) at line 1, column 1"),
        ("a\r\nb\x7f", "U+007F (DEL) at line 2, column 2"),
        ("c1 \x85 inside", "U+0085"),
        ("\ud800", "U+D800"),
    ],
)
def test_validate_content_refuses(content: str, says: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        validate_content(content)
    assert says in str(caught.value)


# ---- kinds ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [("pitfall", "pitfall"), ("Pitfalls", "pitfall"), (" CONVENTION ", "convention"), ("notes", "note"),
     ("session_outcome", "session_outcome"), ("session-outcome", "session_outcome"), ("Session Outcomes", "session_outcome")],
)  # fmt: skip
def test_parse_kind_accepts(text: str, kind: str) -> None:
    assert parse_kind(text) == kind


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [("gotcha", "pitfall"), ("rule", "convention"), ("pitfal", "pitfall"), ("conventoin", "convention"),
     ("outcome", "session_outcome"), ("xyz", None), ("", None)],
)  # fmt: skip
def test_parse_kind_refuses_and_suggests(text: str, suggestion: str | None) -> None:
    with pytest.raises(InvalidInputError) as caught:
        parse_kind(text)
    message = str(caught.value)
    assert "pitfall, convention, note, session_outcome" in message
    assert (f"did you mean {suggestion!r}" in message) if suggestion else ("did you mean" not in message)

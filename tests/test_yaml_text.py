"""The YAML of archmem's files: text in the shape archmem writes is read without YAML
(``_as_written``), and reads exactly as YAML reads it; anything else goes to the loader."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archmem import yaml_text
from archmem.yaml_text import YamlTextError, load_mapping

KEY_TEXTS = ["id", "kind", "title", "elements", "anchors", "created", "confirmations", "yes", "on",
                        "null", "no", "off", "true", "y", "e", "key_2", "Title", "a-b", "1a"]
KEYS = st.sampled_from(KEY_TEXTS)
VALUE_TEXTS = [
    "m-0123abcdef", "decision", "Retry budget 3", "services/api/x.py#Handler", ".archmem/memories", "./x", "/abs",
    "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123456Z", "2026-01-01T00:00:00+02:00", "2026-01-01", "1:30",
    "0", "7", "012", "0x1F", "1_000", "12345678901234567890", "1e3", ".5", ".inf", ".nan", ".infinite", "yes", "No",
    "ON", "null", "~", "true", "y", "a #b", "a#b", "a: b", "a:", "a  b", "a (b)", "a ", " a", "a\t", "@x", "`x`",
    '"quoted"', '"with: colon # and hash"', '"é ü 中文 🙂"', '"a\\"b"', '"a\\nb"', '""', '"tab\there"',
    '"\u2028"', '"\x85"', '"\ufeff"', "'single'", "[a, b]", "{a: 1}", "&x a", "*x", "!tag a", "- a", "|", ">", "=",
    "<<", "%x", "!", "-", "---", "...",
]  # fmt: skip
VALUES = st.sampled_from(VALUE_TEXTS)
LINES = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", KEYS, VALUES),
    st.builds(lambda k: f"{k}:", KEYS),
    st.builds(lambda v: f"  - {v}", VALUES),
    st.sampled_from(["", "  ", "---", "# comment", "key:  x", " key: x", "key : x", "key:x", "\tkey: x", "  -x",
                     "   - x", "- x"]),
)


def loaded(text: str) -> object:
    """What YAML makes of the text (the loader path, ``_as_written`` left out), or the error."""
    written = yaml_text._as_written
    yaml_text._as_written = lambda text: None  # type: ignore[assignment]
    try:
        return load_mapping(text)
    except YamlTextError as exc:
        return ("error", exc.message)
    finally:
        yaml_text._as_written = written


NEAR_LINES = st.one_of(  # mostly lines in archmem's shape, so most texts take the path
    st.builds(lambda k, v: f"{k}: {v}", KEYS, VALUES),
    st.builds(lambda k: f"{k}:", KEYS),
    st.builds(lambda v: f"  - {v}", VALUES),
)


@given(st.lists(LINES, min_size=1, max_size=12).map("\n".join)
       | st.lists(NEAR_LINES, min_size=1, max_size=3).map("\n".join))
@settings(max_examples=3000, deadline=None)
def test_text_read_without_yaml_reads_as_yaml_reads_it(text: str) -> None:
    fast = yaml_text._as_written(text)
    if fast is not None and text.strip():
        assert fast == loaded(text)
        assert [type(value) for value in fast.values()] == [type(value) for value in loaded(text).values()]


@given(st.lists(LINES, min_size=1, max_size=12).map("\n".join)
       | st.lists(NEAR_LINES, min_size=1, max_size=3).map("\n".join))
@settings(max_examples=1500, deadline=None)
def test_text_read_without_yaml_holds_every_value_as_written(text: str) -> None:
    """``read_mapping`` says a mapping was read without YAML only when every text in it
    stands in the file as it is: the reader then skips the second credential scan (of
    values that escapes or folds could have hidden from the first)."""
    from archmem.memory.secrets import _texts

    try:
        mapping, verbatim = yaml_text.read_mapping(text)
    except YamlTextError:
        return
    assert verbatim == (yaml_text._as_written(text) is not None or not text.strip())
    if verbatim:
        assert mapping == load_mapping(text)
        assert all(written in text for value in mapping.values() for written in _texts(value))


def test_the_front_matter_archmem_writes_is_read_without_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    from archmem.clock import parse_time
    from archmem.memory.file_format import render_memory
    from archmem.memory.types import Memory

    memory = Memory(id="m-0123456789", kind="convention", title="Retries: at most 3 # per call",
                    content="Body.", elements=["c1", "ApiGateway"], anchors=["services/api/x.py#Handler"],
                    author="claude-code/sarah", created_at=parse_time("2026-01-01T00:00:00Z"),
                    confirmed_at=parse_time("2026-02-01T00:00:00Z"), confirmations=2, confirmed_by="omar",
                    confirm_reason="checked the code again")
    front = render_memory(memory).split("---\n")[1]
    monkeypatch.setitem(sys.modules, "yaml", None)  # importing YAML would fail: it is not used
    assert load_mapping(front) == {
        "id": "m-0123456789", "kind": "convention", "title": "Retries: at most 3 # per call",
        "elements": ["c1", "ApiGateway"], "anchors": ["services/api/x.py#Handler"], "author": "claude-code/sarah",
        "created": "2026-01-01T00:00:00.000000Z", "confirmed": "2026-02-01T00:00:00.000000Z",
        "confirmed_by": "omar", "confirm_reason": "checked the code again", "confirmations": 2}


def test_every_key_and_value_reads_as_yaml_reads_it() -> None:
    keys, values = KEY_TEXTS, VALUE_TEXTS
    taken = 0
    for key in keys:
        for value in values:
            for text in (f"{key}: {value}", f"{key}:\n  - {value}\n  - {value}", f"{key}:\nid: {value}"):
                fast = yaml_text._as_written(text)
                if fast is not None:
                    taken += 1
                    assert fast == loaded(text), text
                    assert [type(v) for v in fast.values()] == [type(v) for v in loaded(text).values()], text
    assert taken > 500  # the path is taken, not only refused

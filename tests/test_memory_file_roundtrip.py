"""A memory file reads back as the memory it was written from, whatever the values.

The front matter is the truth a team commits: a value that YAML reads back as something
else (a number, a space for a line break) or cannot read at all would change or lose a
memory on the next rebuild of the index, so every value the write path accepts must
round-trip through ``render_memory`` and ``parse_memory``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from archmem.errors import ArchmemError, InvalidInputError
from archmem.memory import links as linkrules
from archmem.memory.file_format import parse_memory, render_memory
from archmem.memory.lifecycle import normalize_anchor
from archmem.memory.types import Memory

CREATED = datetime(2026, 3, 1, 10, 0, 0, 123456, tzinfo=UTC)


def roundtrip(memory: Memory) -> Memory:
    return parse_memory(render_memory(memory)).memory


@pytest.mark.parametrize("value", [
    ".5", "._5", ".inf", ".NaN", "._", "1e3", "0x1F", "007", "yes", "Off", "~", "null", "- item", "a: b", "x #y",
    "ends:", "[list]", "{map}", "*alias", "&anchor", "!tag", "%directive", "@at", "`tick`", "'quoted'", '"quoted"',
    "tab\there", "line\nbreak", "carriage\rreturn", "del\x7fchar", "c1\x85nel", "c1\x9bcsi", "line\u2028separator",
    "para\u2029separator", "bom\ufeffinside", "non\ufffechar", "emoji 🙂", "中文",
    " leading and trailing ", "trailing backslash \\",
])
def test_a_value_an_author_or_reason_may_hold_round_trips(value: str):
    # author, session and the archive reason are free text (from --author, an MCP client,
    # --reason): nothing validates them on the way in, so the file must hold any of them
    memory = Memory(id="m-0123456789", kind="note", content="Body.", created_at=CREATED, author=value,
                    session_id=value, status="archived", status_reason=value)
    back = roundtrip(memory)
    assert (back.author, back.session_id, back.status_reason) == (value.strip(),) * 3


def test_a_lone_surrogate_cannot_be_written_and_says_so():
    # not text (an undecodable byte of a command line, a bad "\\udcff" JSON escape), and
    # YAML has no escape for it: a clear error, never a file archmem cannot read back
    memory = Memory(id="m-0123456789", kind="note", content="Body.", created_at=CREATED, author="claude-code/\udcff")
    with pytest.raises(InvalidInputError, match="U\\+DCFF, a lone surrogate"):
        render_memory(memory)


def _valid(validate, text):  # type: ignore[no-untyped-def]
    try:
        return validate(text)
    except ArchmemError:
        return None


_names = st.text(min_size=1, max_size=30).map(str.strip).filter(bool)
_times = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(
    title=st.one_of(st.none(), st.text(max_size=60)), content=st.text(min_size=1, max_size=300),
    elements=st.lists(_names, max_size=3, unique=True), anchors=st.lists(st.text(min_size=1, max_size=30), max_size=3),
    author=st.one_of(st.none(), _names), session=st.one_of(st.none(), _names),
    created=_times, confirmed=st.one_of(st.none(), _times), confirmations=st.integers(0, 10**9),
    supersedes=st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,30}", fullmatch=True)),
    archived=st.booleans(), reason=st.one_of(st.none(), _names),
)
def test_any_memory_the_write_path_accepts_round_trips(
    title: str | None, content: str, elements: list[str], anchors: list[str], author: str | None,
    session: str | None, created: datetime, confirmed: datetime | None, confirmations: int,
    supersedes: str | None, archived: bool, reason: str | None,
) -> None:
    content = _valid(linkrules.validate_content, content)
    assume(content is not None)
    title = _valid(linkrules.validate_title, title) if title and title.strip() else None
    # (the file strips each value, as it does a hand edit's; normalize_anchor can leave a
    # trailing space: "0 \\" becomes "0 ")
    clean = list(dict.fromkeys(a.strip() for a in (_valid(normalize_anchor, a) for a in anchors) if a and a.strip()))
    memory = Memory(
        id="m-0123456789", kind="pitfall", title=title, content=content, elements=elements, anchors=clean,
        author=author, session_id=session, created_at=created, confirmed_at=confirmed, confirmations=confirmations,
        supersedes=supersedes, status="archived" if archived else "active", status_reason=reason if archived else None,
    )
    assert roundtrip(memory) == memory

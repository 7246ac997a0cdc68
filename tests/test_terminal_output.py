"""Nothing archmem prints holds a raw control character: the CLI writes through
cli_output.SafeStream, MCP answers through escape.printable (issue 17, item 7)."""

from __future__ import annotations

import io
import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from archmem.cli import cli
from archmem.cli.output import SafeStream, print_memories, safe_output, secho
from archmem.escape import is_control, one_line, printable, terminal_output
from archmem.memory.types import Memory
from archmem.workspace import Workspace

from .conftest import FrozenClock, git, write

ESCAPES = "\x1b]0;T\x07\x1b[2J"
DSL = """\
workspace "Shop" {
    model {
        api = softwareSystem "Api%s" "Routes requests%s" {
            properties {
                "archmem.paths" "src/**"
            }
        }
    }
}
""" % (ESCAPES, "\x9b31m")


def raw_controls(text: str) -> list[str]:
    """The control characters of ``text`` other than newline and tab."""
    return [char for char in text if is_control(char) and char not in "\n\t"]


# ---- archmem.escape -------------------------------------------------------------------


def test_printable_escapes_controls_as_json_escapes_and_keeps_lines():
    assert printable(f"a{ESCAPES}b\n\tc\r\x9b\u202e\ud800") == "a\\u001b]0;T\\u0007\\u001b[2Jb\n\tc\\r\\u009b\\u202e\\ud800"
    assert one_line("checkout\n## Injected") == "checkout\\n## Injected"
    assert printable("plain text, ü, 中文, emoji 🙂") == "plain text, ü, 中文, emoji 🙂"


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_printed_text_never_holds_a_raw_control_character(text: str):
    assert raw_controls(printable(text)) == []
    assert [c for c in one_line(text) if is_control(c) and c != "\t"] == []
    if not raw_controls(text):
        assert printable(text) == text
    assert raw_controls(terminal_output(text)) == []
    styled = "\x1b[1m\x1b[33m" + printable(text) + "\x1b[0m"  # what click.style makes of escaped words
    assert terminal_output(styled, styled=True) == styled


@given(st.recursive(st.none() | st.text() | st.integers(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                    max_leaves=8))
@settings(max_examples=100, deadline=None)
def test_escaped_json_is_still_the_same_json(data: object):
    printed = printable(json.dumps(data, ensure_ascii=False))
    assert raw_controls(printed) == [] and json.loads(printed) == data


def test_only_styled_text_keeps_colour_sequences():
    assert terminal_output("\x1b[1mhi\x1b[0m" + ESCAPES, styled=True) == "\x1b[1mhi\x1b[0m\\u001b]0;T\\u0007\\u001b[2J"
    assert terminal_output("\x1b[8mhidden\x1b[0m" + ESCAPES) == "hidden\\u001b]0;T\\u0007\\u001b[2J"
    assert terminal_output("\x1b[\x1b[31mm") == "\\u001b[m"


# ---- printing through the CLI ---------------------------------------------------------


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Read by every command below, written by none of them."""
    root = tmp_path_factory.mktemp("escapes") / "repo"
    write(root, {"workspace.dsl": DSL, "src/app.py": "x = 1\n"})
    who = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}  # before the per-test isolation
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        git(root, *args, env=who)
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        ws.remember("The router drops <!-- everything after --> and ![x](http://tracker.example/p.png) "
                    "headers over 8KB.\n## Forged heading", kind="pitfall", elements=["api"], author="ci/bot")
    return root


@pytest.mark.parametrize("color", [False, True])
@pytest.mark.parametrize(
    "args",
    [["model"], ["model", "--json"], ["brief", "router headers"], ["map", "--format", "md"], ["map", "--format", "json"],
     ["map", "--format", "html"], ["recall", "router headers"], ["list"], ["brief", "router", "--format", "json"]],
)  # fmt: skip
def test_element_names_from_the_dsl_never_reach_the_terminal_raw(repo: Path, args: list[str], color: bool):
    result = CliRunner().invoke(cli, [*args, "--repo", str(repo)], color=color, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "\x1b]" not in out and "\x07" not in out and "\x1b[2J" not in out and "\x9b" not in out
    if not color:
        assert raw_controls(out) == []
    if "json" in args:
        json.loads(out)
    if args[0] == "model" and "--json" not in args:
        assert "Api\\u001b]0;T\\u0007" in out


def memory(author: str, title: str, content: str) -> Memory:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return Memory(id="m-1", title=title, kind="note", content=content, author=author, created_at=now)


@given(st.text(max_size=40), st.text(max_size=40), st.text(min_size=1, max_size=80))
@settings(max_examples=150, deadline=None)
def test_listing_any_memory_prints_no_raw_control_character(author: str, title: str, content: str):
    for tty in (False, True):
        inner = io.StringIO()
        inner.isatty = lambda tty=tty: tty  # type: ignore[method-assign]
        saved = sys.stdout
        sys.stdout = SafeStream(inner)  # type: ignore[assignment]
        try:
            print_memories([memory(author, title, content)], datetime(2026, 1, 2, tzinfo=UTC))
            secho(f"error: {author}", fg="red")
        finally:
            sys.stdout = saved
        out = inner.getvalue()
        ours = re.compile(r"\x1b\[(?:0|1|2|31|33)m")  # archmem's own colours, on a terminal
        assert raw_controls(ours.sub("", out)) == []
        assert bool(ours.search(out)) == tty


def test_safe_output_wraps_and_restores_the_streams():
    before = sys.stdout, sys.stderr
    with safe_output():
        assert isinstance(sys.stdout, SafeStream) and isinstance(sys.stderr, SafeStream)
        with safe_output():  # nested: wrapped once
            assert not isinstance(sys.stdout.inner, SafeStream)  # type: ignore[attr-defined]
    assert (sys.stdout, sys.stderr) == before


def test_a_stream_set_to_ascii_gets_utf8_bytes_and_no_traceback():
    raw = io.BytesIO()
    inner = io.TextIOWrapper(raw, encoding="ascii")
    stream = SafeStream(inner)
    stream.write("a · b\x1b[2J\n")
    stream.flush()
    assert raw.getvalue() == "a · b\\u001b[2J\n".encode()
    stream.write(b"bytes \xc2\xb7\x1b[2J\n")  # click echoes a completion script as bytes: escaped as text
    stream.flush()
    assert raw.getvalue().endswith("bytes ·\\u001b[2J\n".encode())
    with pytest.raises(TypeError):
        stream.write(7)  # type: ignore[arg-type]

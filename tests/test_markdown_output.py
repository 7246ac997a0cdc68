"""No value interpolated into a Markdown output (briefing, overview, map) forges its
structure: values stay on their line, raw HTML and images are made inert, tasks are
one line (issue 17, item 8; escape.markdown_inline and the templates' finalize)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archmem.errors import InvalidInputError
from archmem.escape import markdown_code, markdown_inline, one_line
from archmem.mcp import tools as mcp_tools
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, FrozenClock, write

markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (a dev dependency) checks the Markdown")


def tokens(markdown: str) -> list[object]:
    """Every block and inline token CommonMark reads in ``markdown``."""
    found: list[object] = []
    for token in markdown_it.MarkdownIt("commonmark").parse(markdown):
        found.append(token)
        found.extend(token.children or [])
    return found


def inert(markdown: str) -> bool:
    """No raw HTML and no image anywhere in ``markdown``."""
    return not [t for t in tokens(markdown) if t.type in ("html_inline", "html_block", "image")]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<!-- the rest is hidden", "&lt;!-- the rest is hidden"),
        ("<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>"),
        ("![x](http://tracker.example/p.png)", "\\![x](http://tracker.example/p.png)"),
        ("keep `List<String>` and `a<b>` as code", "keep `List<String>` and `a<b>` as code"),
        ("escaped \\<b> and \\![x](y) stay", "escaped \\<b> and \\![x](y) stay"),
        ("\\\\<b> is an escaped backslash, then a tag", "\\\\&lt;b> is an escaped backslash, then a tag"),
        ("\\`<b>` opens no code span", "\\`&lt;b>` opens no code span"),
        ("[x](`) <b> ` a link destination takes the backtick", "[x](`) &lt;b> ` a link destination takes the backtick"),
        ("a < b and x <= 3", "a &lt; b and x &lt;= 3"),
        ("line\n## Forged", "line\\n## Forged"),
    ],
)
def test_markdown_inline_cases(text: str, expected: str):
    assert markdown_inline(text) == expected
    assert inert(f"- **Api** [PITFALL]\n\n  (ci/bot, today): {markdown_inline(text)}\n")


MARKDOWN_BITS = st.sampled_from(
    ["<", ">", "!", "[", "]", "(", ")", "](", "`", "``", "\\", "<!--", "-->", "<script>", "<img src=x>", "<http://a.b>",
     "http://x/p.png", "\n", "\r", "#", "## ", "*", "_", "&", "&lt;", " ", "a", "\x1b", "|", ":", "\t"]
)  # fmt: skip


@given(st.lists(MARKDOWN_BITS, max_size=30).map("".join) | st.text(max_size=80))
@settings(max_examples=250, deadline=None)
def test_a_markdown_value_stays_inert_and_on_its_line(text: str):
    value = markdown_inline(text)
    document = f"# Briefing: task\n\n- **Api** [PITFALL]\n\n  (ci/bot, today): {value}\n"
    assert inert(document)
    found = tokens(document)
    assert [t.type for t in found if t.type.endswith("_open") and t.type != "strong_open"][:3] == [  # type: ignore[attr-defined]
        "heading_open", "bullet_list_open", "list_item_open"]
    assert sum(t.type == "heading_open" for t in found) == 1  # type: ignore[attr-defined]
    assert sum(t.type == "paragraph_open" for t in found) == 2  # type: ignore[attr-defined]


@given(st.text(max_size=60).filter(lambda t: t.strip(" ")))
@settings(max_examples=150, deadline=None)
def test_a_code_span_shows_its_value_literally(text: str):
    spans = [t for t in tokens(f"see {markdown_code(text)} here\n") if t.type == "code_inline"]  # type: ignore[attr-defined]
    assert len(spans) == 1 and spans[0].content == one_line(text).replace("\x00", "\ufffd")  # type: ignore[attr-defined]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR, "services/gateway/router.go": "x\n"})
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        ws.remember("The router drops <!-- everything after --> and ![x](http://tracker.example/p.png) "
                    "headers over 8KB.\n## Forged heading", kind="pitfall", elements=["gateway"], author="ci/bot")
    return root


def test_markdown_outputs_are_inert_and_keep_their_structure(repo: Path):
    with Workspace.open(repo, clock=FrozenClock(), env={}) as ws:
        briefing = ws.brief("router headers").markdown
        overview = ws.overview().markdown
        ws.remember("Everyone keeps <script>x</script> out.", kind="convention")
        map_md = ws.knowledge_map().render("md")
        standing = ws.overview().markdown
    for text in (briefing, overview, map_md, standing):
        assert inert(text) and not [line for line in text.splitlines() if line.startswith("## Forged")]
    assert "&lt;!-- everything after --> and \\![x](http://tracker.example/p.png)" in briefing
    assert "## Forged heading" in briefing  # the content is kept, on the line of its item
    assert "&lt;script>" in standing
    headings = [t.content for t in tokens(briefing) if t.type == "inline" and t.map and t.map[0] == 0]  # type: ignore[attr-defined]
    assert headings == ["Briefing: router headers"]


def test_a_changed_file_name_with_a_newline_is_escaped_not_obeyed(repo: Path):
    with Workspace.open(repo, clock=FrozenClock(), env={}) as ws:
        text = ws.brief(changed_files=["services/a\n## Injected\n.py"]).markdown
    assert text.startswith("# Briefing: Work on services/a\\n## Injected\\n.py\n")
    assert not [line for line in text.splitlines() if line.startswith("## Injected")]


def test_mcp_brief_and_start_session_refuse_a_task_with_a_line_break(repo: Path):
    with Workspace.open(repo, clock=FrozenClock(), env={}) as ws:
        for tool in (mcp_tools.brief, mcp_tools.start_session):
            with pytest.raises(InvalidInputError, match="the task has a line break"):
                tool(ws, task="checkout\n## Injected")
        with pytest.raises(InvalidInputError, match="characters long; the limit is 2,000"):
            mcp_tools.start_session(ws, task="x" * 1_000_000)
        assert ws.store.session_ids() == []




def test_the_drift_job_summary_shows_names_inert_and_in_their_cell():
    from archmem.ci.github_drift import summary
    from archmem.drift.report import DriftReport, ElementDrift
    from archmem.drift.types import ElementSize

    name = "Api <!-- hide | the rest\n## Forged ![x](http://tracker.example/p.png)"
    report = DriftReport(elements=[
        ElementDrift(id="api|x", name=name, status="missing", since=None, stamp=None, size=ElementSize(0, 0)),
        ElementDrift(id="web", name="Web", status="drifted", since=None, stamp=None, size=ElementSize(1, 5)),
    ])  # fmt: skip
    text = summary(report)
    assert inert(text) and not [line for line in text.splitlines() if line.startswith("## Forged")]
    parsed = markdown_it.MarkdownIt("commonmark").enable("table").parse(text)
    rows = [t for t in parsed if t.type == "tr_open"]
    cells = [t for t in parsed if t.type in ("th_open", "td_open")]
    assert len(rows) == 3 and len(cells) == 3 * 6

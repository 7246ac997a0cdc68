"""archmem brief: the pre-session briefing, its shape, budget, gaps and templates."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.errors import InvalidInputError
from archmem.render.templates import TemplateError
from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, lines


@pytest.fixture
def clock() -> FrozenClock:
    c = FrozenClock()
    c.now = c.now.replace(year=2026, month=1, day=15)
    return c


def remember_gateway_rules(ws: Workspace) -> None:
    """A pitfall on ApiGateway and a project-wide convention, by two authors."""
    ws.remember("Routes are matched by prefix, longest first.", kind="pitfall", title="Prefix order",
                elements=["ApiGateway"], author="claude-code/sarah")
    ws.remember("Keep request headers under 8KB, bodies carry the rest.", kind="convention",
                title="Header sizes", author="codex/kim")


def test_briefing_shape_with_verify_and_via(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        remember_gateway_rules(ws)
        ws.remember("The prefix order of routes is global for the project; see [[Header sizes]] too.", kind="note",
                    author="codex/kim")
    commit(repo, "team memory", "2026-01-15T10:00:00Z")  # before the rewrite, not with it
    (repo / "services/api/router.go").write_text(lines(100))
    commit(repo, "router rewrite", "2026-02-01T00:00:00Z")
    clock.now = clock.now.replace(month=4, day=21)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        text = ws.brief("prefix order of routes").markdown
    assert text.startswith("# Briefing: prefix order of routes\n")
    assert ('- **ApiGateway** [PITFALL] "Prefix order" [VERIFY — the element drifted since this was written]\n'
            "  (claude-code/sarah, 96 days ago): Routes are matched by prefix, longest first.\n"
            "  ↳ verify: ApiGateway drifted since this was confirmed: ") in text
    assert re.search(r"- \*\*Project\*\* \[NOTE\] `m-[0-9a-f]+`\n  \(codex/kim, 96 days ago\): The prefix order of routes "
                     r"is global for the project", text)
    assert "  ↳ via [[m-" in text and "→ **Header sizes** Keep request headers under 8KB" in text


def test_gaps_multi_element_and_empty_store(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        empty = ws.brief("work on the orders service").markdown
        assert "Nothing archmem knows is relevant to this task yet" in empty
        assert "No memory yet about: Orders" in empty
        ws.remember("Orders and the gateway share one timeout budget of 10 seconds.", kind="convention",
                    elements=["Orders", "ApiGateway"])
        text = ws.brief("orders timeout budget").markdown
    assert "- **Orders (+1)** [CONVENTION]" in text
    assert "No memory yet about: Orders" not in text


def test_budget_cuts_the_lowest_ranked_first_and_says_so(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        for i in range(8):
            ws.remember(f"Orders retry number {i} waits {i + 1} seconds before the next attempt of order sync.",
                        kind="note", elements=["Orders"])
        full = ws.brief("orders retry waits before sync")
        small = ws.brief("orders retry waits before sync", budget=900)
        tokens = ws.brief("orders retry waits before sync", budget_tokens=200)
    assert full.cut == 0 and len(full.memory_ids) == 8
    assert 0 < len(small.memory_ids) < 8 and small.cut == 8 - len(small.memory_ids)
    assert small.memory_ids == full.memory_ids[: len(small.memory_ids)]
    assert len(small.markdown) <= 900
    assert f"{small.cut} more memories not shown: `archmem recall 'orders retry waits before sync' --limit 20`" in small.markdown
    assert tokens.cut > 0


def test_changed_files_session_exposures_and_bad_input(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        m = ws.remember("Orders app keeps totals in cents.", kind="convention", elements=["Orders"])
        (repo / "services/orders/app.py").write_text(lines(41))
        session = ws.start_session("refactor")
        briefing = ws.brief(changed=True, session_id=session.id)
        assert briefing.task == "Work on services/orders/app.py"
        assert briefing.memory_ids == [m.id]
        assert ws.store.usage("exposures", session.id) == [m.id]
        ws.end_session(session.id)
        assert ws.get_memory(m.id).exposures == 1
        with pytest.raises(InvalidInputError):
            ws.brief()


def test_templates_can_be_overridden_and_errors_name_the_line(repo: Path, clock: FrozenClock):
    override = repo / ".archmem" / "templates"
    override.mkdir(parents=True)
    (override / "briefing.md.j2").write_text("TASK={{ task }} <b>{{ memories | length }}</b>\n")
    with Workspace.open(repo, clock=clock, env={}) as ws:
        assert ws.brief("anything").markdown == "TASK=anything <b>0</b>\n"  # Markdown is not escaped
        (override / "briefing.md.j2").write_text("line one\n{% for x in %}\n")
        with pytest.raises(TemplateError, match=r"briefing.md.j2:2: template syntax error"):
            ws.brief("anything")


def test_brief_command_writes_a_file_and_json(repo: Path, tmp_path: Path):
    runner = CliRunner()
    runner.invoke(cli, ["remember", "Orders app keeps totals in cents.", "--kind", "convention", "-e", "Orders",
                        "--repo", str(repo)])
    out = tmp_path / "briefing.md"
    result = runner.invoke(cli, ["brief", "orders totals in cents", "--out", str(out), "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("# Briefing: orders totals in cents")
    data = json.loads(runner.invoke(cli, ["brief", "orders totals", "--format", "json", "--repo", str(repo)]).output)
    assert data["task"] == "orders totals" and len(data["memories"]) == 1 and data["markdown"].startswith("# Briefing")
    missing = runner.invoke(cli, ["brief", "--repo", str(repo)])
    assert missing.exit_code == 8 and "needs a TASK" in missing.output


# ---- the overview: a session with no task yet ----------------------------------------


def test_overview_shows_standing_rules_what_to_verify_and_coverage(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        remember_gateway_rules(ws)
        ws.remember("Never log request bodies: they carry card data.", kind="pitfall", title="No body logs")
        ws.remember("Orders are numbered per day.", kind="note", elements=["Orders"])
    commit(repo, "team memory", "2026-01-15T10:00:00Z")  # before the rewrite, not with it
    (repo / "services/api/router.go").write_text(lines(100))
    commit(repo, "router rewrite", "2026-02-01T00:00:00Z")
    with Workspace.open(repo, clock=clock, env={}) as ws:
        overview = ws.brief(overview=True)
    text = overview.markdown
    assert text.startswith("# Briefing: this repository (no task yet)\n\n"
                           "archmem knows 4 memories about this repository; 2 of 4 elements documented.\n")
    standing = text.split("## Standing rules")[1].split("## To verify")[0]
    # conventions anywhere and pitfalls that hold everywhere; not an element's pitfall, not a note
    assert "Keep request headers under 8KB" in standing and "Never log request bodies" in standing
    assert "Routes are matched by prefix" not in standing and "numbered per day" not in standing
    verify = text.split("## To verify")[1]
    assert "1 memory was confirmed before the code under it moved" in verify
    assert '- **"Prefix order"** [PITFALL] (ApiGateway): ApiGateway drifted since this was confirmed' in verify
    assert overview.mode == "overview" and set(overview.gaps) == {"Shop", "Legacy"}


def test_overview_fits_its_budget_and_is_what_brief_changed_gives_on_a_clean_tree(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        for i in range(30):
            ws.remember(f"Convention {i}: service {i} answers within {100 + i} ms or sheds load.", kind="convention")
    with Workspace.open(repo, clock=clock, env={}) as ws:
        assert ws.brief(overview=True, budget=1200).cut > 0
    result = CliRunner().invoke(cli, ["brief", "--changed", "--overview", "--budget", "1200", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("# Briefing: this repository (no task yet)")
    assert len(result.output) <= 1200 and "more not shown: `archmem list --kind convention`" in result.output
    # without --overview a clean tree is still an error that says what to pass
    plain = CliRunner().invoke(cli, ["brief", "--changed", "--repo", str(repo)])
    assert plain.exit_code == InvalidInputError.exit_code and "--overview briefs the project" in plain.output


def test_changed_files_no_memory_is_about_fall_back_to_the_overview(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        ws.remember("Keep request headers under 8KB, bodies carry the rest.", kind="convention", title="Header sizes")
    (repo / "legacy/old.py").write_text(lines(12))
    with Workspace.open(repo, clock=clock, env={}) as ws:
        assert ws.brief(changed=True).memory_ids == []  # Legacy holds no memory
        fallback = ws.brief(changed=True, overview=True)
        assert fallback.mode == "overview"
        assert '[CONVENTION] "Header sizes"\n' in fallback.markdown  # named, to be cited
        assert "Keep request headers under 8KB" in fallback.markdown
        ws.remember("The legacy importer is frozen: change the new one.", kind="pitfall", elements=["Legacy"])
        about = ws.brief(changed=True, overview=True)
    assert about.task == "Work on legacy/old.py" and "legacy importer is frozen" in about.markdown


def test_pitfalls_come_first_and_are_the_last_a_budget_cuts(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        ws.remember("Route prefixes are matched longest first; route prefix order matters for every route.",
                    kind="note", title="Route prefix order")
        ws.remember("A route prefix without a trailing slash also matches longer paths.", kind="pitfall",
                    title="Prefix slash")
        ranked = [r["title"] for r in ws.recall("route prefix order").results]
        assert ranked.index("Route prefix order") < ranked.index("Prefix slash")  # by relevance
        briefing = ws.brief("route prefix order")
        text = briefing.markdown
        assert text.index("[PITFALL]") < text.index("[NOTE]")
        cut = ws.brief("route prefix order", budget=len(text) - 40)
    assert cut.cut == 1 and "[PITFALL]" in cut.markdown and "[NOTE]" not in cut.markdown


def test_overview_shows_at_most_its_cap_of_standing_rules_and_counts_the_rest(repo: Path, clock: FrozenClock):
    from archmem.render.overview import MAX_STANDING_SHOWN

    with Workspace.open(repo, clock=clock, env={}) as ws:
        for i in range(MAX_STANDING_SHOWN + 15):
            ws.remember(f"Rule {i}: queue {i} drains within {200 + i} ms or pages on-call.", kind="convention")
        overview = ws.brief(overview=True, budget=100_000)
    assert len(overview.memory_ids) == MAX_STANDING_SHOWN and overview.cut == 15
    assert "15 more not shown: `archmem list --kind convention`" in overview.markdown


# ---- briefings name what they show (issue 15, rule 6) ----------------------------------


def test_every_memory_shown_is_named_by_its_title_or_id(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        remember_gateway_rules(ws)
        untitled = ws.remember("The prefix order of routes decides which routes need an operator key.",
                               kind="pitfall", elements=["ApiGateway"]).id
        briefing = ws.brief("prefix order of routes")
    text = briefing.markdown
    assert '[PITFALL] "Prefix order"' in text and f"[PITFALL] `{untitled}`" in text
    assert "`archmem session end ID --used NAME`" in text and "`archmem confirm NAME --reason WHY`" in text
    for line in text.splitlines():
        if line.startswith("- **") and "[" in line and ("PITFALL" in line or "CONVENTION" in line or "NOTE" in line):
            assert re.search(r'\] ("[^"]+"|`m-[0-9a-f]+`)', line), line


def test_a_truncated_briefing_says_how_to_see_the_rest_in_its_own_client(repo: Path, clock: FrozenClock):
    with Workspace.open(repo, clock=clock, env={}) as ws:
        for i in range(12):
            ws.remember(f"Route rule {i}: the gateway matches prefix {i} before prefix {i + 1}.", kind="note",
                        elements=["ApiGateway"])
        cli_text = ws.brief("gateway route prefix rules", budget=900).markdown
        mcp_text = ws.brief("gateway route prefix rules", budget=900, client="mcp").markdown
    assert "more memories not shown: `archmem recall 'gateway route prefix rules' --limit 20`" in cli_text
    assert 'more memories not shown: call `recall` with query "gateway route prefix rules" and limit 20' in mcp_text
    assert "archmem recall" not in mcp_text and "`end_session` (`used_memories`)" in mcp_text


def test_the_mcp_tools_render_briefings_for_mcp(repo: Path, clock: FrozenClock):
    from archmem.mcp import tools as mcp_tools

    with Workspace.open(repo, clock=clock, env={}) as ws:
        remember_gateway_rules(ws)
        answer = mcp_tools.brief(ws, "prefix order of routes")
        started = mcp_tools.start_session(ws, "prefix order of routes")
    for text in (answer.text, started.text):
        assert "`confirm_memory`" in text and "archmem session end" not in text

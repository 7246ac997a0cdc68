"""Path-scoped rules (issue 24, item 2): ``archmem install --rules`` writes each element's
top memories as ``.claude/rules/<element>.md`` (``paths:``) and ``.cursor/rules/<element>.mdc``
(``globs:``), marked as generated; ``archmem brief --rules`` refreshes them; ``archmem
check`` reports stale ones; a person's file is never touched."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from archmem.cli import cli
from archmem.demo import run_demo
from archmem.render.rules import GENERATED_MARK
from archmem.workspace import Workspace

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def invoke(root: Path, *args: str):
    return CliRunner().invoke(cli, [*args, "--repo", str(root)], catch_exceptions=False)


def front_matter(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def stale(root: Path) -> list[str]:
    result = invoke(root, "check", "--json")
    return sorted(p["path"] for p in json.loads(result.output)["problems"] if p["rule"] == "stale-rules")


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return run_demo(tmp_path / "demo", now=NOW).root


def test_install_rules_writes_each_element_s_memories_scoped_to_its_code(demo: Path):
    with Workspace.open(demo, env={}) as ws:
        ws.remember("Only this clone: the staging token lives in my keychain.", kind="pitfall",
                    title="My staging token", elements=["shop.orders.pricing"], private=True)
    result = invoke(demo, "install", "--rules")
    assert result.exit_code == 0, result.output
    claude = (demo / ".claude/rules/shop.orders.pricing.md").read_text()
    assert front_matter(claude) == {"paths": ["services/orders/pricing/**"]}
    assert GENERATED_MARK in claude and "m-prc-tax-rounding" in claude
    assert claude.index("[pitfall]") < claude.index("[convention]") < claude.index("[note]")
    assert "My staging token" not in claude  # private memories stay in this clone
    cursor = (demo / ".cursor/rules/shop.gateway.router.mdc").read_text()
    assert front_matter(cursor) == {
        "description": "What the team noted about Router (shop.gateway.router), from archmem",
        "globs": "services/gateway/router.go,services/gateway/router.go/**", "alwaysApply": False}
    assert not (demo / ".claude/rules/shop.gateway.auth.md").exists()  # no memory on it
    assert stale(demo) == []
    again = invoke(demo, "install", "--rules", "claude-code")
    assert again.exit_code == 0 and "0 rule files written, 0 removed, 7 unchanged" in again.output


def test_check_reports_stale_rules_and_brief_rules_refreshes_them(demo: Path):
    assert invoke(demo, "install", "--rules", "cursor").exit_code == 0
    mine = demo / ".cursor/rules/team.mdc"
    mine.write_text("---\nglobs: '**'\n---\nOur own rule.\n")
    with Workspace.open(demo, env={}) as ws:
        ws.remember("Token lifetimes are in seconds, not minutes.", kind="pitfall", title="Token lifetimes",
                    elements=["shop.gateway.auth"])
        for memory in ws.store.list_memories(element="shop.gateway.router", status="active"):
            ws.archive(memory.id, "the router was replaced")
    found = stale(demo)  # a new element with memories, one without any more (and those sharing its memories)
    assert {".cursor/rules/shop.gateway.auth.mdc", ".cursor/rules/shop.gateway.router.mdc"} <= set(found)
    assert not any(path.startswith(".claude/") for path in found)

    result = invoke(demo, "brief", "--rules")
    assert result.exit_code == 0, result.output
    assert "wrote    .cursor/rules/shop.gateway.auth.mdc" in result.output
    assert "removed  .cursor/rules/shop.gateway.router.mdc" in result.output
    assert "Token lifetimes" in (demo / ".cursor/rules/shop.gateway.auth.mdc").read_text()
    assert not (demo / ".cursor/rules/shop.gateway.router.mdc").exists()
    assert mine.read_text() == "---\nglobs: '**'\n---\nOur own rule.\n"  # a person's file: never touched
    assert not (demo / ".claude/rules").exists()  # only where install put them
    assert stale(demo) == []


def test_rules_are_for_clients_that_read_them(demo: Path):
    refused = invoke(demo, "install", "--rules", "codex")
    assert refused.exit_code == 2 and "--rules is for claude-code and cursor" in refused.output
    nothing = invoke(demo, "brief", "--rules")
    assert nothing.exit_code == 2 and "archmem install --rules" in nothing.output

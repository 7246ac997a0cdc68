"""CLI completeness (issue 16, item 4): show, unarchive, elements, list --limit, --json
wherever results are printed, and the rough texts fixed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.config_template import CONFIG_TEMPLATE
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, cli_commands, git, write

NO_RESULTS = {"mcp", "hook session-start", "hook session-end", "hook file", "hook pre-compact", "merge-file"}
"""Commands whose output is someone else's format: the MCP protocol, a client's hook
output, the merged file git asked for."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR, "services/gateway/router.go": "x\n"})
    return root


def am(repo: Path, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)], env=env, catch_exceptions=False)


def test_show_prints_one_memory_in_full_archived_too(repo: Path):
    first = json.loads(am(repo, "remember", "Headers over 8KB are dropped.\nSplit them.", "-k", "pitfall",
                          "-t", "Header limits", "-e", "gateway", "--anchor", "services/gateway/router.go",
                          "--json").output)
    newer = json.loads(am(repo, "remember", "Since v2 the limit is 16KB.", "-k", "pitfall", "-t", "Header limits",
                          "--supersedes", "Header limits", "--json").output)
    shown = json.loads(am(repo, "show", "header limits", "--json").output)
    assert shown["id"] == newer["id"] and shown["verify"] is False and shown["path"].startswith(".archmem/memories/")
    assert [h["id"] for h in shown["history"]] == [first["id"], newer["id"]]
    old = am(repo, "show", first["id"])
    assert old.exit_code == 0
    assert "superseded" in old.output and "Split them." in old.output and "services/gateway/router.go" in old.output
    missing = am(repo, "show", "Header limit")
    assert missing.exit_code == 5 and "did you mean 'Header limits'" in missing.output


def test_unarchive_brings_a_memory_back_unless_its_title_is_taken(repo: Path):
    am(repo, "remember", "Deploys freeze on Fridays.", "-k", "convention", "-t", "Deploy freeze")
    assert am(repo, "archive", "Deploy freeze", "--reason", "we deploy every day now").exit_code == 0
    assert json.loads(am(repo, "list", "--json").output) == []
    back = am(repo, "unarchive", "Deploy freeze")
    assert back.exit_code == 0 and "unarchived 'Deploy freeze'" in back.output
    listed = json.loads(am(repo, "list", "--json").output)
    assert [m["title"] for m in listed] == ["Deploy freeze"] and listed[0]["status_reason"] is None
    again = am(repo, "unarchive", "Deploy freeze")
    assert again.exit_code == 9 and "is active, not archived" in again.output
    am(repo, "archive", "Deploy freeze", "--reason", "again")
    am(repo, "remember", "Deploys freeze during the sale week.", "-k", "convention", "-t", "Deploy freeze")
    clash = am(repo, "unarchive", listed[0]["id"])
    assert clash.exit_code == 9 and "already titled 'Deploy freeze'" in clash.output


def test_elements_is_the_search_find_elements_does(repo: Path):
    listed = json.loads(am(repo, "elements", "--json").output)["elements"]
    assert [e["id"] for e in listed] == ["customer", "shop", "gateway", "orders"]
    assert listed[2]["paths"] == ["services/gateway/**"] and listed[2]["score"] is None
    found = json.loads(am(repo, "elements", "checks tokens", "--json").output)["elements"]
    with Workspace.open(repo, env={}) as ws:
        assert found == ws.find_elements("checks tokens")
    assert found[0]["id"] == "gateway"
    text = am(repo, "elements", "checks tokens", "-n", "1").output
    assert text.strip().startswith("gateway") and "orders" not in text


def test_list_limit(repo: Path):
    for i in range(4):
        am(repo, "remember", f"Fact number {i} about {'queues caches ledgers tokens'.split()[i]}.", "-k", "note")
    assert len(json.loads(am(repo, "list", "--json").output)) == 4
    limited = json.loads(am(repo, "list", "--limit", "2", "--json").output)
    # the newest two, still oldest first
    assert [m["content"][:13] for m in limited] == ["Fact number 2", "Fact number 3"]
    assert am(repo, "list", "--limit", "0").exit_code == 2


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    return cli_commands(group, prefix)


def test_every_command_that_prints_results_takes_json():
    without = [name for name, command in _commands(cli)
               if name not in NO_RESULTS and not any("--json" in p.opts for p in command.params)
               and not (isinstance(command, click.Group) and not command.invoke_without_command)]
    assert without == []


def test_map_brief_and_export_print_json(repo: Path):
    am(repo, "remember", "Headers over 8KB are dropped.", "-k", "pitfall", "-e", "gateway")
    knowledge = json.loads(am(repo, "map", "--json").output)
    assert knowledge["coverage"] == "1 of 4 elements documented"
    briefing = json.loads(am(repo, "brief", "gateway headers", "--json").output)
    assert briefing["markdown"].startswith("# Briefing: gateway headers") and briefing["memories"]
    exported = json.loads(am(repo, "export", "--json").output)
    assert [m["content"] for m in exported] == ["Headers over 8KB are dropped."]


# ---- the rough texts ------------------------------------------------------------------


def test_the_config_template_points_at_nothing_missing():
    assert "DESIGN.md" not in CONFIG_TEMPLATE and "README" in CONFIG_TEMPLATE


def test_an_unnamed_model_maps_under_the_folder_name_and_drift_is_not_said_twice(tmp_path: Path):
    root = tmp_path / "billing"
    write(root, {"archmem.yaml": "elements:\n  - {id: api, kind: softwareSystem, name: Api, paths: [api/**]}\n",
                 "api/app.py": "x = 1\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    write(root, {"api/app.py": "x = 2\n"})
    git(root, "commit", "-q", "-am", "two")
    text = am(root, "map").output
    assert text.startswith("# billing: knowledge map\n") and "knowledge map: knowledge map" not in text.lower()
    parent = git(root, "rev-parse", "HEAD~1").strip()
    (root / ".git" / "objects" / parent[:2] / parent[2:]).unlink()  # a broken history: drift cannot be read
    note = json.loads(am(root, "map", "--json").output)["drift_note"]
    assert note.startswith("Drift not checked: ") and note.lower().count("drift not checked") == 1


def test_one_is_singular(repo: Path, tmp_path: Path):
    am(repo, "remember", "Headers over 8KB are dropped.", "-k", "pitfall", "-e", "gateway")
    out = tmp_path / "out.jsonl"
    assert "exported 1 memory to" in am(repo, "export", str(out)).stderr
    other = tmp_path / "other"
    write(other, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    assert am(other, "import", str(out)).output == "imported 1 memory\n"
    brief = am(repo, "brief", "gateway headers", "--out", str(tmp_path / "b.md"))
    assert "(1 memory)" in brief.stderr


def test_status_says_when_an_installed_agent_cannot_start_archmem(
    repo: Path, tmp_path: Path, archmem_on_path: dict[str, str]
):
    git(repo, "init", "-q")
    assert CliRunner().invoke(cli, ["install", "claude-code", "--repo", str(repo)]).exit_code == 0
    empty = tmp_path / "nothing-on-path"
    empty.mkdir()
    data = json.loads(am(repo, "status", "--json", env={"PATH": str(empty)}).output)
    assert data["command"] is None and data["agents"]["claude-code"].startswith("installed, but")
    assert any("not on PATH" in step for step in data["next"])
    found = json.loads(am(repo, "status", "--json", env={"PATH": archmem_on_path["PATH"]}).output)
    assert found["agents"]["claude-code"] == "installed" and found["command"].startswith(str(tmp_path))


def test_install_dry_run_says_when_the_mcp_extra_is_missing(repo: Path, monkeypatch: pytest.MonkeyPatch):
    git(repo, "init", "-q")
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if the extra were not installed
    result = CliRunner().invoke(cli, ["install", "claude-code", "--dry-run", "--repo", str(repo)])
    assert result.exit_code == 0 and "archmem[mcp]" in result.output
    monkeypatch.delitem(sys.modules, "mcp")
    pytest.importorskip("mcp")
    assert "archmem[mcp]" not in CliRunner().invoke(cli, ["install", "claude-code", "--dry-run", "--repo",
                                                          str(repo)]).output

"""``archmem install``: merging the agent snippets into a project's own files, never
clobbering, idempotent; and the SessionStart hook it writes, run for real."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.agents import hooks, install
from archmem.cli import cli
from archmem.clock import format_time

from .conftest import REPO_ROOT, git, write

EXAMPLE = REPO_ROOT / "examples" / "shop"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty git repository: no model, no agent files."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q")
    return root


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the real ~/.codex."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


def run(root: Path, *args: str):
    return CliRunner().invoke(cli, ["install", *args, "--repo", str(root)], catch_exceptions=False)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


# ---- Claude Code ---------------------------------------------------------------------


def test_claude_code_on_an_empty_project_then_again_changes_nothing(project: Path):
    first = run(project, "claude-code")
    assert first.exit_code == 0, first.output
    assert re.search(r"created\s+\.mcp\.json", first.output)
    assert re.search(r"created\s+\.claude/settings\.json", first.output)
    assert re.search(r"created\s+CLAUDE\.md", first.output)
    assert (project / ".mcp.json").read_text() == install.mcp_json_snippet()
    assert (project / ".claude" / "settings.json").read_text() == install.settings_snippet()
    assert (project / "CLAUDE.md").read_text() == install.habits_section()
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert servers == {"archmem": {"type": "stdio", "command": "archmem", "args": ["mcp"], "env": {}}}

    before = snapshot(project)
    second = run(project, "claude-code")
    assert second.exit_code == 0, second.output
    assert second.output.count("unchanged") == 3 and "created" not in second.output
    assert snapshot(project) == before


OTHER_MCP = """{
    "mcpServers": {
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
        }
    },
    "comment": "kept"
}
"""

OTHER_SETTINGS = {
    "permissions": {"allow": ["Bash(git:*)"]},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello from team"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}],
    },
}

USER_TEXT = "# Our project\n\nUse tabs. Run `make test` before committing.\n"


def test_claude_code_keeps_other_servers_hooks_and_text(project: Path):
    write(project, {".mcp.json": OTHER_MCP, ".claude/settings.json": json.dumps(OTHER_SETTINGS, indent=2) + "\n",
                    "CLAUDE.md": USER_TEXT})
    result = run(project, "claude-code")
    assert result.exit_code == 0, result.output
    assert result.output.count("updated") == 3
    assert '+        "archmem": {' in result.output  # the diff of what changed is shown

    mcp_text = (project / ".mcp.json").read_text()
    mcp = json.loads(mcp_text)
    original = json.loads(OTHER_MCP)
    assert mcp["mcpServers"]["github"] == original["mcpServers"]["github"] and mcp["comment"] == "kept"
    assert mcp["mcpServers"]["archmem"] == install.server_entry()
    assert '\n    "mcpServers": {\n        "github"' in mcp_text  # its 4-space indentation kept
    assert '"args": ["-y", "@modelcontextprotocol/server-github"],' in mcp_text  # and its one-line values
    assert '"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}' in mcp_text
    removed = [line for line in result.output.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert removed == []  # the diffs only add lines: nothing of theirs was rewritten
    assert mcp_text.endswith("}\n")

    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["permissions"] == OTHER_SETTINGS["permissions"]
    assert settings["hooks"]["PreToolUse"] == OTHER_SETTINGS["hooks"]["PreToolUse"]
    assert settings["hooks"]["SessionStart"] == OTHER_SETTINGS["hooks"]["SessionStart"] + [install.hook_group()]

    claude_md = (project / "CLAUDE.md").read_text()
    assert claude_md.startswith(USER_TEXT + "\n<!-- archmem:start")
    assert claude_md.count("archmem:start") == 1 and claude_md.endswith("<!-- archmem:end -->\n")

    before = snapshot(project)
    again = run(project, "claude-code")
    assert again.exit_code == 0 and again.output.count("unchanged") == 3
    assert snapshot(project) == before


def test_dry_run_writes_nothing_and_prints_the_diff(project: Path):
    write(project, {".mcp.json": OTHER_MCP, "CLAUDE.md": USER_TEXT})
    before = snapshot(project)
    result = run(project, "claude-code", "--dry-run")
    assert result.exit_code == 0, result.output
    assert snapshot(project) == before
    assert re.search(r"would update\s+\.mcp\.json", result.output)
    assert re.search(r"would create\s+\.claude/settings\.json", result.output)
    assert "--- a/.mcp.json\n+++ b/.mcp.json" in result.output
    assert "+++ b/.claude/settings.json" in result.output and "+<!-- archmem:start" in result.output

    as_json = json.loads(run(project, "claude-code", "--dry-run", "--json").output)
    assert as_json["dry_run"] is True and as_json["written"] is False
    actions = {change["path"]: change["action"] for change in as_json["changes"]}
    assert actions == {".mcp.json": "updated", ".claude/settings.json": "created", "CLAUDE.md": "updated"}
    assert snapshot(project) == before


def test_invalid_json_is_an_error_with_line_and_column_and_nothing_is_written(project: Path):
    broken = '{\n  "mcpServers": {\n    "github": {"command": "npx",}\n  }\n}\n'
    write(project, {".mcp.json": broken})
    result = run(project, "claude-code")
    assert result.exit_code == 3
    assert ".mcp.json:3:33: not valid JSON" in result.output and "nothing was written" in result.output
    assert "Traceback" not in result.output
    assert (project / ".mcp.json").read_text() == broken
    assert snapshot(project) == {".mcp.json": broken.encode()}  # not even the other two files

    write(project, {".mcp.json": "[1, 2]\n"})
    assert run(project, "claude-code").exit_code == 3


def test_a_different_archmem_entry_is_refused_unless_forced(project: Path):
    custom = {"mcpServers": {"archmem": {"command": "archmem", "args": ["mcp", "--model", "docs/c4.dsl"]},
                             "other": {"command": "x"}}}
    old_hook = {"hooks": {"SessionStart": [
        {"matcher": "startup", "hooks": [{"type": "command", "command": "echo team"},
                                         {"type": "command", "command": "archmem brief --changed --budget 2000"}]},
    ]}}
    write(project, {".mcp.json": json.dumps(custom, indent=2) + "\n",
                    ".claude/settings.json": json.dumps(old_hook, indent=2) + "\n"})
    before = snapshot(project)

    refused = run(project, "claude-code")
    assert refused.exit_code == 9, refused.output
    assert "--force" in refused.output and "nothing was written" in refused.output
    assert snapshot(project) == before

    dry = run(project, "claude-code", "--dry-run")
    assert dry.exit_code == 9 and '-        "--model",' in dry.output
    assert snapshot(project) == before

    forced = run(project, "claude-code", "--force")
    assert forced.exit_code == 0, forced.output
    mcp = json.loads((project / ".mcp.json").read_text())
    assert mcp["mcpServers"] == {"archmem": install.server_entry(), "other": {"command": "x"}}
    groups = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]["SessionStart"]
    assert groups == [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo team"}]},
                      install.hook_group()]
    assert run(project, "claude-code").output.count("unchanged") == 3


def test_an_equivalent_entry_written_by_hand_is_left_alone(project: Path):
    text = '{"mcpServers": {"archmem": {"command": "archmem", "args": ["mcp"]}}}'
    write(project, {".mcp.json": text})
    result = run(project, "claude-code")
    assert result.exit_code == 0 and re.search(r"unchanged\s+\.mcp\.json", result.output)
    assert (project / ".mcp.json").read_text() == text


def test_budget_changes_the_hook_and_needs_force_over_an_older_one(project: Path):
    assert run(project, "claude-code", "--budget", "3000").exit_code == 0
    command = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]["SessionStart"][0]
    assert "--budget 3000" in command["hooks"][0]["command"]
    assert run(project, "claude-code").exit_code == 9
    assert run(project, "claude-code", "--force").exit_code == 0
    groups = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]["SessionStart"]
    assert groups == [install.hook_group()]  # replaced, not added twice


def test_the_section_is_replaced_in_place_and_markers_must_balance(project: Path):
    old = ("# Notes\n\nbefore\n\n<!-- archmem:start old -->\nold habits\n<!-- archmem:end -->\n\n"
           "## After\n\nafter text\n")
    write(project, {"CLAUDE.md": old})
    assert run(project, "claude-code").exit_code == 0
    text = (project / "CLAUDE.md").read_text()
    assert text == "# Notes\n\nbefore\n\n" + install.habits_section() + "\n## After\n\nafter text\n"

    write(project, {"CLAUDE.md": "intro\n<!-- archmem:start -->\nno end\n"})
    result = run(project, "claude-code", "--force")
    assert result.exit_code == 3 and "CLAUDE.md:2:1" in result.output


def test_windows_line_endings_are_kept(project: Path):
    (project / "CLAUDE.md").write_bytes(b"# Ours\r\n\r\ntext\r\n")
    assert run(project, "claude-code").exit_code == 0
    data = (project / "CLAUDE.md").read_bytes()
    assert data.startswith(b"# Ours\r\n\r\ntext\r\n\r\n<!-- archmem:start") and b"\n" not in data.replace(b"\r\n", b"")
    assert run(project, "claude-code").output.count("unchanged") == 3


def test_a_symlinked_claude_md_stays_a_link(project: Path):
    write(project, {"AGENTS.md": USER_TEXT})
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    assert run(project, "claude-code").exit_code == 0
    assert (project / "CLAUDE.md").is_symlink()
    assert (project / "AGENTS.md").read_text().startswith(USER_TEXT)
    # codex writes the same section into the same file: nothing to do there
    result = run(project, "codex")
    assert re.search(r"unchanged\s+AGENTS\.md", result.output), result.output


# ---- Codex ---------------------------------------------------------------------------


CODEX_CONFIG = """\
# my Codex settings
model = "o3"
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]  # the docs server

[mcp_servers.docs.env]
TOKEN_FILE = "~/.docs"

[profiles.fast]
model = "o4-mini"
"""


def test_codex_merges_the_server_table_and_keeps_everything_else(project: Path):
    write(project, {".codex/config.toml": CODEX_CONFIG})
    result = run(project, "codex")
    assert result.exit_code == 0, result.output
    text = (project / ".codex" / "config.toml").read_text()
    assert text == CODEX_CONFIG + "\n" + install.codex_toml_snippet()  # comments and layout as they were
    data = tomllib.loads(text)
    original = tomllib.loads(CODEX_CONFIG)
    assert data["mcp_servers"]["archmem"] == {"command": "archmem", "args": ["mcp"]}
    assert data["mcp_servers"]["docs"] == original["mcp_servers"]["docs"]
    assert data["profiles"] == original["profiles"] and data["model"] == "o3"
    assert (project / "AGENTS.md").read_text() == install.habits_section()

    assert (project / ".codex" / "hooks.json").read_text() == install.codex_hooks_snippet()
    before = snapshot(project)
    again = run(project, "codex")
    assert again.exit_code == 0 and again.output.count("unchanged") == 3
    assert snapshot(project) == before


def test_codex_replaces_a_different_archmem_table_only_with_force(project: Path):
    config = ('model = "o3"\n\n[mcp_servers.archmem]\ncommand = "/opt/archmem"\nargs = ["mcp"]\n\n'
              '[mcp_servers.archmem.env]\nX = "1"\n\n[mcp_servers.docs]\ncommand = "npx"\n')
    write(project, {".codex/config.toml": config})
    refused = run(project, "codex")
    assert refused.exit_code == 9 and (project / ".codex" / "config.toml").read_text() == config
    forced = run(project, "codex", "--force")
    assert forced.exit_code == 0, forced.output
    text = (project / ".codex" / "config.toml").read_text()
    assert text == 'model = "o3"\n\n' + install.codex_toml_snippet() + '\n[mcp_servers.docs]\ncommand = "npx"\n'
    assert run(project, "codex").output.count("unchanged") == 3


def test_codex_refuses_what_it_cannot_merge_textually(project: Path):
    write(project, {".codex/config.toml": 'mcp_servers = { docs = { command = "npx" } }\n'})
    result = run(project, "codex")
    assert result.exit_code == 3 and "add it by hand" in result.output
    assert (project / ".codex" / "config.toml").read_text() == 'mcp_servers = { docs = { command = "npx" } }\n'
    write(project, {".codex/config.toml": 'model = "o3"\n[broken\n'})
    broken = run(project, "codex")
    assert broken.exit_code == 3 and ".codex/config.toml:2:" in broken.output and "not valid TOML" in broken.output


def test_codex_global_writes_the_user_config(project: Path, _home: Path, monkeypatch: pytest.MonkeyPatch):
    result = run(project, "codex", "--global")
    assert result.exit_code == 0, result.output
    assert "~/.codex/config.toml" in result.output
    assert (_home / ".codex" / "config.toml").read_text() == install.codex_toml_snippet()
    assert (_home / ".codex" / "hooks.json").read_text() == install.codex_hooks_snippet()
    assert "~/.codex/hooks.json" in result.output
    assert not (project / ".codex").exists() and (project / "AGENTS.md").exists()

    elsewhere = _home / "codex-home"
    elsewhere.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(elsewhere))
    assert run(project, "codex", "--global").exit_code == 0
    assert (elsewhere / "config.toml").read_text() == install.codex_toml_snippet()
    assert run(project, "claude-code", "--global").exit_code == 2


# ---- Cursor ----------------------------------------------------------------------------


def test_cursor_keeps_other_servers_and_a_second_run_changes_nothing(project: Path):
    write(project, {
        ".cursor/mcp.json": '{\n    "mcpServers": {\n        "github": {"command": "gh-mcp"}\n    },\n    "x": 1\n}\n',
        "AGENTS.md": "# Agents\n\nRun the tests before you push.\n",
    })
    result = run(project, "cursor")
    assert result.exit_code == 0, result.output
    assert "updated  .cursor/mcp.json" in result.output and "updated  AGENTS.md" in result.output
    data = json.loads((project / ".cursor" / "mcp.json").read_text())
    assert data["mcpServers"]["github"] == {"command": "gh-mcp"} and data["x"] == 1
    assert data["mcpServers"]["archmem"] == install.cursor_server_entry()
    assert '\n        "github": {"command": "gh-mcp"}' in (project / ".cursor" / "mcp.json").read_text()  # its style kept
    agents = (project / "AGENTS.md").read_text()
    assert agents.startswith("# Agents\n\nRun the tests before you push.\n") and install.habits_section() in agents
    assert json.loads((project / ".cursor" / "hooks.json").read_text()) == json.loads(install.cursor_hooks_snippet())
    before = snapshot(project)
    again = run(project, "cursor")
    assert again.exit_code == 0 and again.output.count("unchanged") == 3 and snapshot(project) == before


# ---- --print and the docs ------------------------------------------------------------


def test_print_gives_snippets_that_parse_and_writes_nothing(project: Path):
    result = run(project, "--print")
    assert result.exit_code == 0, result.output
    blocks = re.findall(r"```(\w+)\n(.*?)```", result.output, re.DOTALL)
    kinds = [kind for kind, _ in blocks]
    assert kinds == ["json", "json", "json", "json", "toml", "json", "markdown"]
    assert json.loads(blocks[0][1])["mcpServers"]["archmem"] == install.server_entry()
    assert json.loads(blocks[1][1])["hooks"]["SessionStart"] == [install.hook_group()]
    assert json.loads(blocks[2][1])["mcpServers"]["archmem"] == install.cursor_server_entry()
    assert blocks[3][1] == install.cursor_hooks_snippet()
    assert tomllib.loads(blocks[4][1])["mcp_servers"]["archmem"] == install.codex_server_entry()
    assert blocks[5][1] == install.codex_hooks_snippet()
    assert blocks[6][1] == install.habits_section()
    assert snapshot(project) == {}

    data = json.loads(run(project, "--print", "--json").output)
    assert data["mcp_json"]["mcpServers"]["archmem"] == install.server_entry()
    assert data["cursor_mcp_json"]["mcpServers"]["archmem"]["args"] == ["mcp", "--repo", "${workspaceFolder}"]
    assert tomllib.loads(data["codex_toml"]) == {"mcp_servers": {"archmem": install.codex_server_entry()}}
    codex_only = re.findall(r"```(\w+)\n", run(project, "codex", "--print").output)
    assert codex_only == ["toml", "json", "markdown"]
    assert run(project).exit_code == 2  # no TARGET and no --print


def test_docs_quote_exactly_what_install_writes():
    text = (REPO_ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    for snippet in (install.mcp_json_snippet(), install.settings_snippet(), install.codex_toml_snippet(),
                    install.codex_hooks_snippet(), install.cursor_mcp_json_snippet(), install.cursor_hooks_snippet(),
                    install.habits_section()):
        assert snippet in text, f"docs/agents.md does not quote:\n{snippet}"


def test_the_readme_quotes_the_snippet_it_shows():
    """The README's agents section shows Claude Code's ``.mcp.json`` exactly as install
    writes it; the other clients' files are in docs/agents.md (checked above)."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert install.mcp_json_snippet() in text, f"README.md does not quote:\n{install.mcp_json_snippet()}"
    assert "(docs/agents.md)" in text


# ---- the hook, for real --------------------------------------------------------------


def _memory_lines(now: datetime) -> list[str]:
    lines = []
    for raw in (EXAMPLE / "demo" / "memories.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(raw)
        created, confirmed = record.pop("created_days_ago"), record.pop("confirmed_days_ago")
        record["created_at"] = format_time(now - timedelta(days=created))
        record["confirmed_at"] = format_time(now - timedelta(days=confirmed)) if confirmed is not None else None
        lines.append(json.dumps(record))
    return lines


@pytest.mark.skipif(shutil.which("archmem") is None, reason="the archmem command is not installed")
def test_the_hook_prints_a_briefing_and_never_fails_a_session_start(tmp_path: Path):
    from archmem.workspace import Workspace

    shop = tmp_path / "shop"
    shutil.copytree(EXAMPLE, shop, ignore=shutil.ignore_patterns("demo"))
    git(shop, "init", "-q")
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "-m", "the shop")
    with Workspace.open(shop) as workspace:
        report = workspace.import_memories(_memory_lines(datetime.now(UTC)))
    assert report.imported and not report.errors
    assert run(shop, "claude-code").exit_code == 0
    write(shop, {".gitignore": ".archmem/\n"})
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "-m", "archmem install claude-code")

    settings = json.loads((shop / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(shop)}
    # a clean tree, no task yet: the project overview (standing rules, what to verify)
    ran = subprocess.run(command, check=False, shell=True, cwd=shop, env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("# Briefing: this repository (no task yet)\n")
    assert "## Standing rules" in ran.stdout and len(ran.stdout) <= install.DEFAULT_BUDGET + 200

    router = shop / "services" / "gateway" / "router.go"
    router.write_text(router.read_text() + "// a new route\n")
    ran = subprocess.run(command, check=False, shell=True, cwd=shop / "services", env=env, capture_output=True, text=True,
                         timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("# Briefing: Work on services/gateway/router.go\n")
    assert "## What we know" in ran.stdout and len(ran.stdout) <= install.DEFAULT_BUDGET + 200

    # no CLAUDE_PROJECT_DIR: the current folder, which is the project here
    without = {key: value for key, value in os.environ.items() if key != "CLAUDE_PROJECT_DIR"}
    ran = subprocess.run(command, check=False, shell=True, cwd=shop, env=without, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and ran.stdout.startswith("# Briefing:")

    # archmem fails (not a git repository: --changed needs git): exit 0, nothing on stdout
    plain = tmp_path / "plain"
    plain.mkdir()
    ran = subprocess.run(command, check=False, shell=True, cwd=plain, env=without, capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stdout) == (0, "")

    # archmem cannot be started at all: exit 0, and one line saying how to install it (never silent)
    no_archmem = {**without, "PATH": "/nonexistent"}
    ran = subprocess.run(command, check=False, shell=True, cwd=shop, env=no_archmem, capture_output=True, text=True,
                         timeout=120, executable="/bin/sh")
    assert (ran.returncode, ran.stdout) == (0, hooks.NOTICE + "\n")


def test_a_write_that_fails_is_an_error_that_says_what_was_written(project: Path, monkeypatch: pytest.MonkeyPatch):
    real = install.write_atomic

    def failing(path: Path, text: str) -> None:
        if path.name == "settings.json":
            raise PermissionError(13, "Permission denied")
        real(path, text)

    monkeypatch.setattr(install, "write_atomic", failing)
    result = run(project, "claude-code")
    assert result.exit_code == 3 and "Traceback" not in result.output
    assert "cannot write .claude/settings.json: Permission denied (already written: .mcp.json)" in result.output

"""Hook parity (issue 16, item 2): each client's installed files as golden files in the
shapes their docs give, the start-up hooks in each client's format and below its limit,
and the session-end hooks recording usage, run for real through the installed commands.

Regenerate the golden files after an intended change with ``ARCHMEM_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.agents import hooks
from archmem.cli import cli
from archmem.cli.hook import cap
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, git, git_status, write

GOLDEN = Path(__file__).with_name("golden") / "agents"
UPDATE = os.environ.get("ARCHMEM_UPDATE_GOLDEN") == "1"
FILES = {
    "claude-code": [".mcp.json", ".claude/settings.json", "CLAUDE.md"],
    "codex": [".codex/config.toml", ".codex/hooks.json", "AGENTS.md"],
    "cursor": [".cursor/mcp.json", ".cursor/hooks.json", "AGENTS.md"],
}


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real ~/.codex."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CODEX_HOME", raising=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR,
                 "services/gateway/router.go": "package gateway\n", "services/orders/app.py": "x = 1\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the shop")
    return root


def install(root: Path, target: str, *args: str):
    return CliRunner().invoke(cli, ["install", target, *args, "--repo", str(root)], catch_exceptions=False)


def hook_commands(root: Path, client: str) -> dict[str, str]:
    """The commands the client would run, read back from the files install wrote."""
    if client == "cursor":
        data = json.loads((root / ".cursor" / "hooks.json").read_text())
        return {event: entries[0]["command"] for event, entries in data["hooks"].items()}
    path = root / (".claude/settings.json" if client == "claude-code" else ".codex/hooks.json")
    data = json.loads(path.read_text())
    return {event: groups[-1]["hooks"][0]["command"] for event, groups in data["hooks"].items()}


def run_hook(command: str, payload: dict, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, shell=True, input=json.dumps(payload), cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


# ---- the files --------------------------------------------------------------------------


@pytest.mark.parametrize("client", sorted(FILES))
def test_installed_files_match_the_golden_files(client: str, tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    assert install(project, client).exit_code == 0
    written = sorted(p.relative_to(project).as_posix() for p in project.rglob("*")
                     if p.is_file() and ".git" not in p.parts and ".archmem" not in p.parts)
    assert written == sorted(FILES[client])
    assert (project / ".archmem" / "hooks" / "python").is_file()  # the hooks' fallback, git-ignored:
    assert ".archmem" not in git(project, "status", "--porcelain", "--untracked-files=all")
    for name in FILES[client]:
        golden = GOLDEN / client / name
        text = (project / name).read_text(encoding="utf-8")
        if UPDATE:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(text, encoding="utf-8")
        assert text == golden.read_text(encoding="utf-8"), f"{client} {name} changed (ARCHMEM_UPDATE_GOLDEN=1)"


def test_the_files_have_the_shapes_the_clients_document():
    claude = json.loads((GOLDEN / "claude-code" / ".claude/settings.json").read_text())["hooks"]
    assert list(claude) == ["SessionStart", "PostToolUse", "PreCompact", "SessionEnd"]
    for event, groups in claude.items():  # event → [{matcher?, hooks: [{type: command, command, timeout}]}]
        handler = groups[0]["hooks"][0]
        assert set(handler) == {"type", "command", "timeout"} and handler["type"] == "command", event
    assert claude["SessionStart"][0]["matcher"] == "startup|clear|compact" and "matcher" not in claude["SessionEnd"][0]
    assert claude["PostToolUse"][0]["matcher"] == "Read|Edit|Write|MultiEdit"

    codex = json.loads((GOLDEN / "codex" / ".codex/hooks.json").read_text())["hooks"]
    assert list(codex) == ["SessionStart", "PostToolUse", "PreCompact"]  # Codex has no session-end event
    group = codex["SessionStart"][0]
    assert set(group["matcher"].split("|")) <= {"startup", "resume", "clear", "compact"}
    assert "apply_patch" in codex["PostToolUse"][0]["matcher"].split("|")
    for groups in codex.values():
        assert set(groups[0]["hooks"][0]) <= {"type", "command", "timeout", "statusMessage"}
    assert tomllib.loads((GOLDEN / "codex" / ".codex/config.toml").read_text())["mcp_servers"]["archmem"]

    cursor = json.loads((GOLDEN / "cursor" / ".cursor/hooks.json").read_text())
    assert cursor["version"] == 1 and set(cursor["hooks"]) == {"sessionStart", "postToolUse", "sessionEnd"}
    for entries in cursor["hooks"].values():  # flat entries: {command, timeout, matcher?}
        assert set(entries[0]) - {"matcher"} == {"command", "timeout"}
    for client in FILES:
        for command in hook_commands(GOLDEN / client, client).values():
            # a hook never fails a session, and never fails silently: the notice is its last word
            assert " 2>/dev/null || echo " in command and command.endswith("'")


def test_a_second_install_keeps_other_hooks_and_changes_nothing(repo: Path):
    write(repo, {".cursor/hooks.json": json.dumps({"version": 1, "hooks": {
        "afterFileEdit": [{"command": "./format.sh"}], "sessionStart": [{"command": "./hello.sh"}]}}, indent=2)})
    assert install(repo, "cursor").exit_code == 0
    data = json.loads((repo / ".cursor" / "hooks.json").read_text())
    assert data["hooks"]["afterFileEdit"] == [{"command": "./format.sh"}]
    assert data["hooks"]["sessionStart"][0] == {"command": "./hello.sh"} and len(data["hooks"]["sessionStart"]) == 2
    again = install(repo, "cursor")
    assert again.exit_code == 0 and again.output.count("unchanged") == 3
    changed = install(repo, "cursor", "--budget", "3000")
    assert changed.exit_code == 9 and "sessionStart" in changed.output  # a different archmem hook: --force


def test_a_budget_over_what_the_client_keeps_is_lowered_with_a_warning(repo: Path):
    result = install(repo, "claude-code", "--budget", "20000")
    assert result.exit_code == 0
    assert "warning: --budget 20,000 is more than claude-code keeps from a hook (10,000" in result.stderr
    assert "--budget 9000\"" in hook_commands(repo, "claude-code")["SessionStart"]
    assert "warning" not in install(repo, "cursor", "--budget", "8000").stderr


def test_output_past_the_limit_is_cut_at_a_line():
    text = "# Briefing: x\n\n" + "".join(f"- memory {i}: " + "word " * 30 + "\n" for i in range(200))
    for client in hooks.CLIENT_LIMITS:
        cut = cap(text, client)
        assert len(cut) < hooks.CLIENT_LIMITS[client] and cut.endswith("`archmem brief --changed --overview` shows it all)\n")
        assert cut.split("\n\n… (cut")[0].endswith("word")  # a whole line, not half of one
    assert cap("short\n", "codex") == "short\n"


# ---- the start-up hooks ------------------------------------------------------------------


def test_each_client_gets_the_briefing_in_its_own_format(repo: Path, archmem_on_path: dict[str, str], tmp_path: Path):
    with Workspace.open(repo, env={}) as ws:
        ws.remember("The gateway strips headers over 8KB.", kind="pitfall", title="Header limits",
                    elements=["gateway"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a memory")
    for client in FILES:
        assert install(repo, client).exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**archmem_on_path, "CLAUDE_PROJECT_DIR": str(repo)}

    claude = run_hook(hook_commands(repo, "claude-code")["SessionStart"], {"source": "startup"}, env, elsewhere)
    assert claude.returncode == 0 and claude.stdout.startswith("# Briefing: this repository")
    cursor = run_hook(hook_commands(repo, "cursor")["sessionStart"], {"workspace_roots": [str(repo)]}, env, elsewhere)
    assert cursor.returncode == 0, cursor.stderr
    assert json.loads(cursor.stdout)["additional_context"].startswith("# Briefing: this repository")
    codex = run_hook(hook_commands(repo, "codex")["SessionStart"], {"cwd": str(repo), "source": "startup"}, env,
                     elsewhere)
    output = json.loads(codex.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    assert output["additionalContext"].startswith("# Briefing: this repository")
    assert git(repo, "status", "--porcelain").splitlines() == [
        "?? .claude/", "?? .codex/", "?? .cursor/", "?? .mcp.json", "?? AGENTS.md", "?? CLAUDE.md"]

    nothing = tmp_path / "nothing"  # a repository where archmem has nothing: silent, exit 0, nothing created
    nothing.mkdir()
    git(nothing, "init", "-q")
    for client, event in (("cursor", "sessionStart"), ("codex", "SessionStart")):
        ran = run_hook(hook_commands(repo, client)[event], {"cwd": str(nothing), "workspace_roots": [str(nothing)]},
                       env, nothing)
        assert (ran.returncode, ran.stdout) == (0, "")
    assert git_status(nothing) == ""


# ---- the session-end hooks ---------------------------------------------------------------


def transcript(path: Path, session_id: str, said: str) -> Path:
    """A Claude Code transcript: the tool result names everything shown, the agent names one."""
    records = [
        {"type": "user", "message": {"role": "user", "content": "change how headers are limited"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "name": "mcp__archmem__start_session", "input": {"task": "header limits"}}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": (
            f"session_id: {session_id} (pass it to recall and remember)\n"
            "- Header limits: the gateway strips headers over 8KB\n- Order numbers: per day")}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": said}]}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_the_session_end_hook_records_what_the_agent_used(repo: Path, archmem_on_path: dict[str, str],
                                                          tmp_path: Path):
    with Workspace.open(repo, env={}) as ws:
        header = ws.remember("The gateway strips headers over 8KB.", kind="pitfall", title="Header limits",
                             elements=["gateway"]).id
        orders = ws.remember("Order numbers restart every day.", kind="note", title="Order numbers",
                             elements=["orders"]).id
        mine = ws.start_session("raise the header limit", agent="claude-code").id
        ws.recall("headers and order numbers", session_id=mine, limit=5)
        other = ws.start_session("another agent's work", agent="codex").id
        ws.recall("headers", session_id=other)
    assert install(repo, "claude-code").exit_code == 0
    payload = {"session_id": "cc-1", "hook_event_name": "SessionEnd", "reason": "other", "cwd": str(repo),
               "transcript_path": str(transcript(tmp_path / "t.jsonl", mine,
                                                 "Done: I kept to Header limits and raised nothing else."))}
    ran = run_hook(hook_commands(repo, "claude-code")["SessionEnd"], payload,
                   {**archmem_on_path, "CLAUDE_PROJECT_DIR": str(repo)}, repo)
    assert (ran.returncode, ran.stdout) == (0, "")
    with Workspace.open(repo, env={}) as ws:
        assert ws.store.get_session(mine).ended_at is not None
        assert ws.store.get_session(other).ended_at is None  # not this client session's
        assert (ws.get_memory(header).citations, ws.get_memory(header).exposures) == (1, 1)
        assert (ws.get_memory(orders).citations, ws.get_memory(orders).exposures) == (0, 1)  # shown, not named

    again = run_hook(hook_commands(repo, "claude-code")["SessionEnd"], payload,
                     {**archmem_on_path, "CLAUDE_PROJECT_DIR": str(repo)}, repo)
    assert (again.returncode, again.stdout) == (0, "")  # ended already: nothing more counted
    with Workspace.open(repo, env={}) as ws:
        assert ws.get_memory(header).citations == 1


def test_without_a_transcript_the_clients_own_sessions_end(repo: Path, archmem_on_path: dict[str, str]):
    with Workspace.open(repo, env={}) as ws:
        ws.remember("The gateway strips headers over 8KB.", kind="pitfall", title="Header limits")
        cursor = ws.start_session("cursor's task", agent="cursor-vscode").id
        codex = ws.start_session("codex's task", agent="codex-mcp-client").id
        ws.recall("headers", session_id=codex)
    for client in ("cursor", "codex"):
        assert install(repo, client).exit_code == 0
    env = {**archmem_on_path}
    assert run_hook(hook_commands(repo, "cursor")["sessionEnd"], {"workspace_roots": [str(repo)]}, env,
                    repo).returncode == 0
    with Workspace.open(repo, env={}) as ws:
        assert ws.store.get_session(cursor).ended_at is not None and ws.store.get_session(codex).ended_at is None
    # Codex has no session end: the next Codex session's start ends what Codex left open
    started = run_hook(hook_commands(repo, "codex")["SessionStart"], {"cwd": str(repo)}, env, repo)
    assert started.returncode == 0 and json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    with Workspace.open(repo, env={}) as ws:
        assert ws.store.get_session(codex).ended_at is not None
        assert ws.get_memory("Header limits").exposures == 1  # its exposure counts now


def test_session_end_auto_at_a_terminal(repo: Path, tmp_path: Path):
    with Workspace.open(repo, env={}) as ws:
        ws.remember("The gateway strips headers over 8KB.", kind="pitfall", title="Header limits")
        sid = ws.start_session("a task", agent="claude-code").id
        ws.recall("headers", session_id=sid)
    path = transcript(tmp_path / "t.jsonl", sid, "I relied on header limits.")
    result = CliRunner().invoke(cli, ["session", "end", "--auto", "--transcript", str(path), "--repo", str(repo),
                                      "--json"])
    assert result.exit_code == 0, result.output
    assert [(e["session_id"], len(e["cited"])) for e in json.loads(result.output)] == [(sid, 1)]
    assert CliRunner().invoke(cli, ["session", "end", "--auto", "--repo", str(repo)]).exit_code == 2

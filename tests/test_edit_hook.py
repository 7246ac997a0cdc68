"""The file hook (issue 24, items 1, 3 and 4): in the demo, the commands ``archmem install``
writes for each client run as the clients run them (a shell, the client's tool-hook JSON
on stdin) and add the memories on an edited file's element in the client's format, once
per element per session; a file of an element without memories gets nothing; and where
archmem cannot be started (``PATH=/usr/bin:/bin``, no recorded Python) a one-line notice
says so instead of nothing. ``archmem status`` runs the installed hooks the same way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.agents import edit_hook, hooks
from archmem.cli import cli
from archmem.demo import run_demo
from archmem.render.file_notes import file_notes
from archmem.workspace import Workspace

from .conftest import REPO_ROOT

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
PRICING = "services/orders/pricing/engine.py"
PRICING_TOO = "services/orders/pricing/quote.py"
WITHOUT_MEMORIES = "services/gateway/auth/token.go"
"""The TokenVerifier component: no memory is on it (its container's are the container's)."""
CLEAN = {"PATH": "/usr/bin:/bin"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = run_demo(tmp_path_factory.mktemp("edit-hook") / "demo", now=NOW).root
    for client in ("claude-code", "codex", "cursor"):
        result = CliRunner().invoke(cli, ["install", client, "--repo", str(root)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return root


@pytest.fixture(scope="module")
def verify_ids(demo: Path) -> set[str]:
    """The demo's VERIFY memories on the pricing engine (it was rewritten 12 days ago)."""
    with Workspace.open(demo, env={}) as ws:
        found = {m.id for m in ws.store.list_memories(element="shop.orders.pricing", status="active")
                 if ws.staleness(m)}
    assert found
    return found


def file_command(root: Path, client: str) -> str:
    """The file hook's command, read back from the file install wrote."""
    if client == "cursor":
        return json.loads((root / ".cursor/hooks.json").read_text())["hooks"]["postToolUse"][0]["command"]
    name = ".claude/settings.json" if client == "claude-code" else ".codex/hooks.json"
    return json.loads((root / name).read_text())["hooks"]["PostToolUse"][0]["hooks"][0]["command"]


def payload(client: str, root: Path, session: str, path: str) -> dict:
    """The tool-hook JSON each client sends after an edit of ``path``."""
    if client == "claude-code":
        return {"session_id": session, "transcript_path": None, "cwd": str(root), "hook_event_name": "PostToolUse",
                "tool_name": "Edit", "tool_input": {"file_path": str(root / path), "old_string": "a",
                                                    "new_string": "b"}, "tool_response": {"success": True}}
    if client == "codex":
        patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"
        return {"session_id": session, "turn_id": "t1", "transcript_path": None, "cwd": str(root),
                "hook_event_name": "PostToolUse", "model": "gpt-5", "permission_mode": "default",
                "tool_name": "apply_patch", "tool_use_id": "call-1", "tool_input": {"command": patch},
                "tool_response": "Success."}
    return {"conversation_id": session, "generation_id": "g1", "hook_event_name": "postToolUse",
            "workspace_roots": [str(root)], "tool_name": "Write",
            "tool_input": {"file_path": str(root / path)}, "tool_output": "ok"}


def context_of(client: str, stdout: str) -> str:
    """The text the client adds to the model's context from the hook's stdout."""
    data = json.loads(stdout)
    if client == "cursor":
        return data["additional_context"]
    assert data["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    return data["hookSpecificOutput"]["additionalContext"]


def run(command: str, data: dict, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(data), cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.parametrize("client", ["claude-code", "codex", "cursor"])
def test_an_edit_under_a_verify_element_prints_it_once_per_session(
    client: str, demo: Path, verify_ids: set[str], archmem_on_path: dict[str, str]
):
    env = {**archmem_on_path, "CLAUDE_PROJECT_DIR": str(demo)}
    command = file_command(demo, client)
    session = f"{client}-once"

    first = run(command, payload(client, demo, session, PRICING), env, demo)
    assert first.returncode == 0, first.stderr
    text = context_of(client, first.stdout)
    assert "VERIFY" in text and any(memory_id in text for memory_id in verify_ids)
    assert "shop.orders.pricing" in text and len(text) <= 1600
    lines = text.splitlines()
    assert lines[1].startswith("- VERIFY ")  # VERIFY first

    again = run(command, payload(client, demo, session, PRICING_TOO), env, demo)  # the same element
    assert (again.returncode, again.stdout) == (0, "")
    other = run(command, payload(client, demo, f"{session}-2", PRICING), env, demo)  # another session
    assert any(memory_id in context_of(client, other.stdout) for memory_id in verify_ids)

    nothing = run(command, payload(client, demo, f"{session}-3", WITHOUT_MEMORIES), env, demo)
    assert (nothing.returncode, nothing.stdout) == (0, "")


@pytest.mark.parametrize("client", ["claude-code", "codex", "cursor"])
def test_where_archmem_cannot_start_the_hook_says_so_in_one_line(client: str, demo: Path, tmp_path: Path):
    recorded = demo / ".archmem" / "hooks" / "python"
    kept = recorded.read_text()
    recorded.unlink()
    try:
        ran = run(file_command(demo, client), payload(client, demo, f"{client}-clean", PRICING),
                  {**CLEAN, "CLAUDE_PROJECT_DIR": str(demo)}, demo)
    finally:
        recorded.write_text(kept)
    assert ran.returncode == 0 and ran.stdout.count("\n") == 1
    assert context_of(client, ran.stdout) == hooks.NOTICE


def test_in_a_clean_environment_the_recorded_python_starts_archmem(demo: Path, verify_ids: set[str]):
    """``archmem install`` recorded the Python that ran it: a client whose PATH has no
    archmem (a virtualenv install) still gets the notes."""
    assert (demo / ".archmem" / "hooks" / "python").read_text().strip() == sys.executable
    ran = run(file_command(demo, "claude-code"), payload("claude-code", demo, "clean-python", PRICING),
              {**CLEAN, "CLAUDE_PROJECT_DIR": str(demo)}, demo)
    assert ran.returncode == 0, ran.stderr
    assert any(memory_id in context_of("claude-code", ran.stdout) for memory_id in verify_ids)
    ignored = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", ".archmem"],
                             cwd=demo, capture_output=True, text=True, check=True).stdout
    assert ignored == ""  # the index, the sessions and the recorded Python stay out of git


def test_pre_compact_has_the_notes_shown_again(demo: Path, archmem_on_path: dict[str, str]):
    env = {**archmem_on_path, "CLAUDE_PROJECT_DIR": str(demo)}
    settings = json.loads((demo / ".claude/settings.json").read_text())["hooks"]
    compact = settings["PreCompact"][0]["hooks"][0]["command"]
    edit = payload("claude-code", demo, "compacted", PRICING)
    assert run(file_command(demo, "claude-code"), edit, env, demo).stdout
    assert run(file_command(demo, "claude-code"), edit, env, demo).stdout == ""
    ran = run(compact, {"session_id": "compacted", "hook_event_name": "PreCompact", "trigger": "auto",
                        "cwd": str(demo)}, env, demo)
    assert (ran.returncode, ran.stdout) == (0, "")
    assert run(file_command(demo, "claude-code"), edit, env, demo).stdout


def test_a_new_memory_is_in_the_next_answer(demo: Path, archmem_on_path: dict[str, str]):
    """The prepared index is built again when a memory file changes."""
    env = {**archmem_on_path, "CLAUDE_PROJECT_DIR": str(demo)}
    command = file_command(demo, "claude-code")
    assert run(command, payload("claude-code", demo, "before", WITHOUT_MEMORIES), env, demo).stdout == ""
    with Workspace.open(demo, env={}) as ws:
        memory = ws.remember("Token lifetimes are in seconds, not minutes.", kind="pitfall",
                             title="Token lifetimes", elements=["shop.gateway.auth"])
    try:
        ran = run(command, payload("claude-code", demo, "after", WITHOUT_MEMORIES), env, demo)
        assert "Token lifetimes" in context_of("claude-code", ran.stdout) and memory.id in ran.stdout
    finally:
        with Workspace.open(demo, env={}) as ws:
            ws.purge(memory.id, "test memory")


def test_status_runs_each_installed_hook_in_a_clean_environment(demo: Path):
    def hook_status() -> list[dict]:
        result = CliRunner().invoke(cli, ["status", "--json", "--repo", str(demo)], catch_exceptions=False)
        return json.loads(result.output)["hooks"]

    found = hook_status()
    assert {(h["client"], h["event"]) for h in found} == {
        ("claude-code", "SessionStart"), ("claude-code", "PostToolUse"), ("claude-code", "PreCompact"),
        ("claude-code", "SessionEnd"), ("codex", "SessionStart"), ("codex", "PostToolUse"), ("codex", "PreCompact"),
        ("cursor", "sessionStart"), ("cursor", "postToolUse"), ("cursor", "sessionEnd")}
    assert all(h["works"] for h in found), found
    recorded = demo / ".archmem" / "hooks" / "python"
    kept = recorded.read_text()
    recorded.unlink()
    try:
        found = hook_status()
        text = CliRunner().invoke(cli, ["status", "--repo", str(demo)], catch_exceptions=False).output
    finally:
        recorded.write_text(kept)
    assert not any(h["works"] for h in found) and "cannot start archmem" in found[0]["detail"]
    assert "0 of 10 start archmem in a clean environment" in text
    assert "10 installed hooks cannot start archmem with PATH=/usr/bin:/bin" in text


def test_the_hook_call_skips_the_command_line_machinery(demo: Path):
    """Called on every edit: the answer comes without click or the workspace once the
    index is built."""
    warm = run(file_command(demo, "claude-code"), payload("claude-code", demo, "warm", PRICING), CLEAN, demo)
    assert warm.returncode == 0 and warm.stdout  # the index is built (once)
    data = json.dumps(payload("claude-code", demo, "imports", PRICING))
    code = ("import sys; sys.argv = ['archmem', 'hook', 'file', '--client', 'claude-code']; "
            "from archmem.entry import main; main(); "
            "print(sorted(m for m in ('click', 'pydantic', 'archmem.cli', 'archmem.workspace') if m in sys.modules))")
    ran = subprocess.run([sys.executable, "-c", code], input=data, cwd=demo, capture_output=True, text=True,
                         timeout=120, check=False, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)})
    assert ran.returncode == 0, ran.stderr
    output, loaded = ran.stdout.rsplit("\n", 2)[:2]
    assert "VERIFY" in output and loaded == "[]"


# ---- the pieces -------------------------------------------------------------------------


def test_the_files_a_tool_call_names():
    patch = ("*** Begin Patch\n*** Add File: a/new.py\n+x\n*** Update File: b/old.py\n*** Move to: b/moved.py\n"
             "@@\n-x\n+y\n*** Delete File: c/gone.py\n*** End Patch\n")
    assert edit_hook.payload_paths({"tool_input": {"command": patch}}) == [
        "a/new.py", "b/old.py", "b/moved.py", "c/gone.py"]
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/y.py\n"
    assert edit_hook.payload_paths({"tool_input": {"patch": diff}}) == ["x.py", "y.py"]
    assert edit_hook.payload_paths({"tool_input": {"file_path": "/r/a.py", "edits": [{"old_string": "a"}]}}) == ["/r/a.py"]
    assert edit_hook.payload_paths({"tool_input": {"notebook_path": "n.ipynb"}}) == ["n.ipynb"]
    assert edit_hook.payload_paths({"file_path": "/r/c.ts", "edits": []}) == ["/r/c.ts"]  # Cursor's afterFileEdit
    assert edit_hook.payload_paths({"tool_input": {"command": "ls -la"}}) == []  # a shell command names no file
    assert edit_hook.session_of({"conversation_id": "c1"}) == "c1" and edit_hook.session_of({}) is None


def test_a_file_s_elements_are_the_most_specific_owners(tmp_path: Path):
    index = {"elements": {
        "gw": {"name": "Gateway", "parent": None, "patterns": [r"(?s:services/gateway(?:/.*)?)"]},
        "gw.auth": {"name": "Auth", "parent": "gw", "patterns": [r"(?s:services/gateway/auth(?:/.*)?)"]},
    }, "notes": {
        "gw": [{"id": "m-1", "kind": "pitfall", "line": "Headers over 8KB are cut", "verify": False,
                "elements": ["gw"]}],
    }, "anchors": [["services/gateway/auth", {"id": "m-2", "kind": "note", "line": "Clock skew",
                                                     "verify": True, "elements": []}]]}
    text, keys = file_notes(index, ["services/gateway/router.go"])
    assert "m-1" in text and keys == ["element:gw", "memory:m-1"]
    text, keys = file_notes(index, ["services/gateway/auth/token.go"])  # the component, not its container
    assert "m-1" not in text and "VERIFY [note] Clock skew (m-2; services/gateway/auth/token.go)" in text
    assert file_notes(index, ["services/gateway/auth/token.go"], keys) == ("", [])


def test_the_notes_stay_within_their_budget():
    notes = [{"id": f"m-{i}", "kind": "convention", "line": "x" * 100, "verify": i % 3 == 0, "elements": ["e"]}
             for i in range(40)]
    index = {"elements": {"e": {"name": "E", "parent": None, "patterns": [r"(?s:src(?:/.*)?)"]}},
             "notes": {"e": notes}, "anchors": []}
    text, keys = file_notes(index, ["src/a.py"])
    assert len(text) <= 1500 and "… and " in text and "`archmem list --element ID`" in text
    assert len(keys) == 41  # the element and every memory on it count as shown


def test_a_model_that_does_not_parse_costs_one_build_not_one_per_edit(tmp_path: Path,
                                                                      archmem_on_path: dict[str, str]):
    root = tmp_path / "broken"
    (root / ".archmem").mkdir(parents=True)
    (root / "workspace.dsl").write_text("workspace {\n  model {\n    a = softwareSystem\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    edit = json.dumps(payload("claude-code", root, "s", "src/a.py"))
    code = ("import sys; sys.argv = ['archmem', 'hook', 'file', '--client', 'claude-code']; "
            "from archmem.entry import main; main(); print('archmem.workspace' in sys.modules)")

    def call() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code], input=edit, cwd=root, capture_output=True, text=True,
                              timeout=120, check=False, env={**archmem_on_path, "PYTHONPATH": str(REPO_ROOT)})

    first = call()
    assert (first.returncode, first.stdout) == (0, "True\n") and "workspace.dsl" in first.stderr
    assert call().stdout == "False\n"  # the failure is remembered: no workspace opened again
    (root / "workspace.dsl").write_text('workspace {\n  model {\n    a = softwareSystem "A"\n  }\n}\n')
    assert call().stdout == "True\n"  # the model changed: built again

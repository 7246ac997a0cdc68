"""``confirm`` and ``drift accept`` show what changed before they clear anything, ask on a
terminal, and say it to scripts and agents (``--json``, the MCP tool) as data."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from archmem.cli import cli
from archmem.mcp.tools import confirm_memory
from archmem.workspace import Workspace

from .conftest import REPO_ROOT, FrozenClock, commit, lines


def am(repo: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)])


@pytest.fixture
def moved(repo: Path) -> dict[str, str]:
    """A pitfall on ApiGateway anchored to the router, written in January; the router
    rewritten in February (the pitfall is VERIFY)."""
    clock = FrozenClock()
    clock.now = clock.now.replace(year=2026, month=1, day=15)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        memory = ws.remember("Routes are matched by prefix, longest first.", kind="pitfall", title="Prefix order",
                             elements=["ApiGateway"], anchors=["services/api/router.go"])
        path = ws.store.path_of(memory.id)
    commit(repo, "team memory", "2026-01-15T10:00:00Z")
    (repo / "services/api/router.go").write_text(lines(30) + lines(5, "new route"))
    commit(repo, "router: five new routes", "2026-02-01T00:00:00Z")
    assert path is not None
    return {"id": memory.id, "path": path}


def test_confirm_shows_the_memory_and_the_diff_since_it_was_confirmed_then_confirms(repo: Path, moved):
    result = am(repo, "confirm", "Prefix order", "--yes")
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.startswith(f"Prefix order [PITFALL] ({moved['id']}) on ApiGateway\n"
                           "  Routes are matched by prefix, longest first.\n")
    assert "VERIFY: ApiGateway drifted since this was written" in text or "VERIFY: services/api/router.go" in text
    assert " services/api/router.go | 15 " in text and "1 file changed, 5 insertions(+), 10 deletions(-)" in text
    assert "+new route 0" in text and "-line 30" in text  # the anchor's diff
    assert text.index("1 file changed") < text.index("confirmed 'Prefix order'")
    with Workspace.open(repo, env={}) as ws:
        assert ws.get_memory(moved["id"]).confirmations == 1


def test_confirm_as_json_carries_the_changes_and_the_reason_goes_to_the_audit_log(repo: Path, moved):
    result = am(repo, "confirm", moved["id"], "--yes", "--json", "--reason", "five routes added, the order rule holds")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["id"] == moved["id"] and data["confirmations"] == 1
    changes = data["changes_since_confirmed"]
    assert changes["files"] == ["services/api/router.go"] and changes["base"] and changes["head"]
    assert changes["stat"]["lines"][-1].strip() == "1 file changed, 5 insertions(+), 10 deletions(-)"
    assert any(line.startswith("@@") for line in changes["anchor_diff"]["lines"])
    with Workspace.open(repo, env={}) as ws:
        [entry] = [e for e in ws.store.audit_entries() if e["action"] == "confirm"]
    assert entry["memory_id"] == moved["id"] and entry["reason"] == "five routes added, the order rule holds"
    assert entry["detail"]["head"] == changes["head"] and entry["detail"]["files"] == 1


def test_the_mcp_tool_returns_the_changes_with_the_result(repo: Path, moved):
    with Workspace.open(repo, env={}) as ws:
        answer = confirm_memory(ws, "Prefix order", reason="checked")
    assert answer.data["confirmations"] == 1
    assert answer.data["changes_since_confirmed"]["files"] == ["services/api/router.go"]
    assert "1 file changed, 5 insertions(+), 10 deletions(-)" in answer.text


def test_drift_accept_shows_the_elements_diff_since_its_baseline(repo: Path, moved):
    result = am(repo, "drift", "accept", "ApiGateway", "--yes", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["element"] == "shop.api"
    assert data["changes_since_described"]["files"] == ["services/api/router.go"]
    text = am(repo, "drift", "accept", "Orders", "--yes").output
    assert text.startswith("Orders (shop.orders)\n\nno change to its code since 2026-01-01")


def on_terminal(repo: Path, args: list[str], answer: str) -> tuple[int, str]:
    """Run archmem with a terminal on stdin, answer its question, return (exit, output)."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "NO_COLOR": "1"}
    process = subprocess.Popen([sys.executable, "-m", "archmem", *args, "--repo", str(repo)], stdin=slave,
                               stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    output, answered = b"", False
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                raise AssertionError(f"no output for 60 s: {output.decode(errors='replace')}")
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal closed: the process ended
                break
            if not chunk:
                break
            output += chunk
            if not answered and b"[y/N]" in output:
                os.write(master, answer.encode() + b"\n")
                answered = True
    finally:
        os.close(master)
    return process.wait(timeout=60), output.decode("utf-8", errors="replace")


def test_on_a_terminal_confirm_asks_and_no_leaves_the_memory_as_it_was(repo: Path, moved):
    before = (repo / moved["path"]).read_text()
    code, output = on_terminal(repo, ["confirm", "Prefix order"], "n")
    assert code == 1 and "Aborted" in output
    assert output.index("1 file changed") < output.index("Is it still true? Confirm it [y/N]")
    assert (repo / moved["path"]).read_text() == before
    code, output = on_terminal(repo, ["confirm", "Prefix order"], "y")
    assert code == 0 and "confirmed 'Prefix order'" in output
    assert "confirmations: 1" in (repo / moved["path"]).read_text()


def test_on_a_terminal_drift_accept_asks_first(repo: Path, moved):
    code, output = on_terminal(repo, ["drift", "accept", "ApiGateway"], "n")
    assert code == 1 and "Aborted" in output and " services/api/router.go | 15 " in output
    with Workspace.open(repo, env={}) as ws:
        assert ws.drift_view().accepted() == {}


def test_drift_accept_without_a_terminal_and_without_yes_refuses_and_writes_nothing(repo: Path, moved):
    """Accepting drift vouches for the model as confirming vouches for a memory: nobody at a
    terminal and no --yes, nobody vouched."""
    result = am(repo, "drift", "accept", "ApiGateway", "--reason", "routes only moved")
    assert result.exit_code == 8, result.output
    assert "error: drift accept asks a person first, and stdin is not a terminal" in result.output
    assert "pass --yes" in result.output and "Traceback" not in result.output
    assert not (repo / ".archmem" / "accepts").exists() or not any((repo / ".archmem" / "accepts").iterdir())
    with Workspace.open(repo, env={}) as ws:
        assert ws.drift_view().accepted() == {}

"""Long first scans are visible and never block an agent (issue 13, item 6): progress
with a true total on a terminal; the start-up hook, an agent's recall and MCP answers
use what is cached and say drift is not computed yet (and how), instead of waiting."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from archmem.cli import cli
from archmem.drift.scan import reader_for, scan_history
from archmem.mcp.server import WorkspaceHost
from archmem.workspace import Workspace

from .conftest import DRIFT_MODEL, REPO_ROOT, git

COMMITS = 300


def long_history(root: Path, count: int = COMMITS) -> Path:
    """A repository with ``count`` commits, written in one ``git fast-import``."""
    root.mkdir()
    (root / ".archmem").mkdir()  # archmem is in use here: the history cache persists (reading creates no store)
    git(root, "init", "-q")
    stream = []
    model = DRIFT_MODEL.encode()
    for n in range(count):
        when = 1767225600 + n * 3600
        message = f"change {n}".encode()
        body = f"line {n}\n".encode() * (n % 7 + 1)
        stream.append(b"commit refs/heads/main\n")
        stream.append(b"committer Dev <dev@example.com> %d +0000\n" % when)
        stream.append(b"data %d\n%s\n" % (len(message), message))
        if not n:
            stream.append(b"M 100644 inline workspace.dsl\ndata %d\n%s\n" % (len(model), model))
        stream.append(b"M 100644 inline services/api/router.go\ndata %d\n%s\n" % (len(body), body))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(stream), check=True)
    git(root, "checkout", "-q", "-f", "main")
    return root


def test_progress_is_told_the_true_total_first_and_incrementally(tmp_path: Path):
    root = long_history(tmp_path / "repo")
    seen: list[tuple[int, int]] = []
    with Workspace.open(root, env={}) as ws:
        scan_history(ws.store, reader_for(ws.repository), progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, COMMITS) and seen[-1] == (COMMITS, COMMITS)
    assert all(total == COMMITS for _, total in seen)


def test_answers_for_agents_skip_a_long_first_scan_and_say_how_to_get_it(tmp_path: Path):
    root = long_history(tmp_path / "repo")
    (root / "archmem.toml").write_text("[drift]\nscan_budget = 100\n", encoding="utf-8")
    hook = CliRunner().invoke(cli, ["brief", "--changed", "--overview", "--repo", str(root)], catch_exceptions=False)
    assert hook.exit_code == 0
    assert f"Drift is not computed yet: {COMMITS} commits of history are not read" in hook.output
    assert "run `archmem drift` once" in hook.output
    with Workspace.open(root, env={}) as ws:
        assert ws.store.db.execute("SELECT COUNT(*) FROM history_commits").fetchone()[0] == 0  # nothing was read
    recall = CliRunner().invoke(cli, ["recall", "routes", "--json", "--repo", str(root)], catch_exceptions=False)
    assert "not computed yet" in recall.output

    assert CliRunner().invoke(cli, ["drift", "--repo", str(root)]).exit_code == 0  # a person computes it once
    hook = CliRunner().invoke(cli, ["brief", "--changed", "--overview", "--repo", str(root)], catch_exceptions=False)
    assert "not computed yet" not in hook.output


def test_the_mcp_server_answers_at_once_and_scans_in_the_background(tmp_path: Path):
    root = long_history(tmp_path / "repo")
    workspace = Workspace.open(root, env={})
    workspace.config.drift.scan_budget = 100
    host = WorkspaceHost(workspace)
    try:
        host._warm()
        assert workspace.__dict__.get("drift") is None and workspace.history_unread == COMMITS
        assert host._scanner is not None
        host._scanner.join(timeout=60)
        drift = host._call(lambda ws: ws.drift, {})
        assert drift is not None and len(drift.scan.commits) == COMMITS
    finally:
        host.shutdown()


def test_drift_on_a_terminal_shows_a_bar_with_the_true_total(tmp_path: Path):
    root = long_history(tmp_path / "repo")
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "COLUMNS": "120"}
    done = subprocess.run([sys.executable, "-m", "archmem", "drift", "--repo", str(root)], env=env,
                          stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL, timeout=120, check=False)
    os.close(follower)
    shown = b""
    try:
        while chunk := os.read(leader, 65536):
            shown += chunk
    except OSError:
        pass
    os.close(leader)
    assert done.returncode == 0
    text = shown.decode(errors="replace")
    assert "reading git history" in text and f"{COMMITS}/{COMMITS}" in text and "/0" not in text

"""Issue 22, item 6: JSON from outside is read with a depth limit. ``"[" * 5000`` is a
clear error (with its line and column) in every way in: the MCP server answers it and
goes on, ``archmem import`` names the line, ``archmem pr`` names the event file; none
prints a traceback. Real processes, real files."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from archmem.json_input import MAX_DEPTH, load_json

from .conftest import ADR, MODEL, REPO_ROOT, write

DEEP = "[" * 5000


def run(root: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "archmem", *args, "--repo", str(root)], capture_output=True,
                          text=True, input=stdin, env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})},
                          timeout=120)


def test_the_reader_refuses_deep_nesting_at_the_bracket_and_ignores_brackets_in_strings():
    with pytest.raises(json.JSONDecodeError) as refused:
        load_json('{"a":\n  ' + "[" * 5000)
    assert refused.value.lineno == 2 and refused.value.colno == 3 + MAX_DEPTH - 1
    assert f"nested deeper than {MAX_DEPTH} levels" in refused.value.msg
    assert load_json(json.dumps({"text": "[" * 5000 + '\\"{' * 100})) == {"text": "[" * 5000 + '\\"{' * 100}
    nested: object = 1
    for _ in range(MAX_DEPTH):
        nested = [nested]
    assert load_json(json.dumps(nested)) == nested
    assert load_json(b'\xef\xbb\xbf{"a": [1]}') == {"a": [1]}


def test_the_mcp_server_answers_a_deep_line_with_a_parse_error_and_goes_on(tmp_path: Path):
    pytest.importorskip("mcp")
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    process = subprocess.Popen([sys.executable, "-m", "archmem", "mcp", "--repo", str(root)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    answers: queue.Queue[dict] = queue.Queue()
    threading.Thread(target=lambda: [answers.put(json.loads(raw)) for raw in process.stdout], daemon=True).start()
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    deep_request = '{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"x": ' + DEEP + "}}"
    try:
        process.stdin.write((json.dumps(initialize) + "\n").encode())
        process.stdin.flush()
        assert answers.get(timeout=60)["id"] == 1
        lines = [json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), DEEP, deep_request,
                 '{"jsonrpc": "2.0", "id": 8, "method": "ping"}']
        process.stdin.write("".join(line + "\n" for line in lines).encode())
        process.stdin.flush()
        got = [answers.get(timeout=30) for _ in range(3)]
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    errors = [(a["id"], a["error"]["code"], a["error"]["data"]["reason"]) for a in got if "error" in a]
    assert [(i, code) for i, code, _ in errors] == [(None, -32700), (None, -32700)]
    assert all(f"nested deeper than {MAX_DEPTH} levels" in reason for _, _, reason in errors)
    assert {"jsonrpc": "2.0", "id": 8, "result": {}} in got
    assert process.returncode == 0 and b"Traceback" not in process.stderr.read()


def test_import_names_the_deep_line_and_imports_nothing(tmp_path: Path):
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    good = {"id": "m-1", "kind": "note", "content": "Payments are idempotent.", "created_at": "2026-01-01T00:00:00Z"}
    source = tmp_path / "memories.jsonl"
    source.write_text(json.dumps(good) + "\n" + DEEP + "\n", encoding="utf-8")
    result = run(root, "import", str(source))
    assert result.returncode == 8, result.stderr
    assert f"{source}:2: invalid JSON at column {MAX_DEPTH + 1}: nested deeper than {MAX_DEPTH} levels" in result.stderr
    assert "Traceback" not in result.stderr
    assert json.loads(run(root, "list", "--json").stdout) == []


def test_pr_names_a_deep_event_file(tmp_path: Path):
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    event = tmp_path / "event.json"
    event.write_text('{"pull_request": ' + DEEP, encoding="utf-8")
    result = run(root, "pr", env={"GITHUB_EVENT_PATH": str(event)})
    assert result.returncode == 8, result.stderr
    assert f"GITHUB_EVENT_PATH {event}:1:{17 + MAX_DEPTH}: not valid JSON: nested deeper than" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_hook_given_deep_json_on_stdin_still_never_fails(tmp_path: Path):
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    result = run(root, "hook", "session-start", "--client", "claude-code", stdin=DEEP)
    assert result.returncode == 0 and "Traceback" not in result.stderr


def test_a_deep_agent_config_file_is_a_config_error_at_its_line_and_nothing_is_written(tmp_path: Path):
    from click.testing import CliRunner

    from archmem.cli import cli

    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".mcp.json").write_text('{"mcpServers":\n' + DEEP, encoding="utf-8")
    result = CliRunner().invoke(cli, ["install", "claude-code", "--repo", str(root)], catch_exceptions=False)
    assert result.exit_code == 3, result.output
    assert f".mcp.json:2:{MAX_DEPTH}: not valid JSON: nested deeper than {MAX_DEPTH} levels" in result.output
    assert sorted(p.name for p in root.iterdir()) == [".git", ".mcp.json"]


def test_deep_tsconfig_and_package_json_files_are_skipped_by_conformance(git_repo):
    from archmem.workspace import Workspace

    from .conformance_repos import shop

    root = git_repo({**shop("typescript"), "orders/tsconfig.json": DEEP, "packages/x/package.json": DEEP})
    with Workspace.open(root, env={}) as ws:
        report = ws.conformance()
    assert report.errors == [] and report.counts.unresolved >= 0


def test_a_number_too_long_to_read_is_a_json_error_at_its_position() -> None:
    import json

    import pytest

    from archmem.json_input import load_json

    text = '{"confirmations": ' + "9" * 5000 + "}"
    with pytest.raises(json.JSONDecodeError) as caught:
        load_json(text)
    assert caught.value.pos == text.index("9") and "too long" in caught.value.msg
    assert load_json('{"n": 12345}') == {"n": 12345}

"""``archmem mcp`` over real stdio answers every line: malformed JSON, batches and
``id: null`` get their JSON-RPC error instead of silence, and the server goes on."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from archmem.mcp.stdio import INVALID_REQUEST, PARSE_ERROR, refusal

from .conftest import MODEL, REPO_ROOT, write

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.mark.parametrize(("line", "code", "answer_id"), [
    ("{not json", PARSE_ERROR, None),
    ('[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]', INVALID_REQUEST, None),
    ("[]", INVALID_REQUEST, None),
    ("42", INVALID_REQUEST, None),
    ('"ping"', INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0", "id": null, "method": "ping"}', INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0", "id": 7}', INVALID_REQUEST, 7),
    ('{"jsonrpc": "1.0", "id": "x", "method": "ping"}', INVALID_REQUEST, "x"),
    ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', INVALID_REQUEST, None),
])
def test_lines_that_are_no_message_get_their_error(line: str, code: int, answer_id: object):
    answer = refusal(line)
    assert answer is not None and answer.error.code == code and answer.id == answer_id
    assert answer.error.message == ("Parse error" if code == PARSE_ERROR else "Invalid Request")


@pytest.mark.parametrize("line", [
    json.dumps(INITIALIZE), json.dumps(INITIALIZED), '{"jsonrpc": "2.0", "id": "a", "method": "tools/list"}',
    '{"jsonrpc": "2.0", "id": 3, "result": {}}', '{"jsonrpc": "2.0", "id": null, "error": {"code": 1, "message": "x"}}',
    "", "  \n",
])
def test_messages_and_blank_lines_are_passed_on(line: str):
    assert refusal(line) is None


def test_over_real_stdio_every_bad_line_is_answered_and_the_server_goes_on(tmp_path: Path):
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL})
    process = subprocess.Popen([sys.executable, "-m", "archmem", "mcp", "--repo", str(root)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    answers: queue.Queue[dict] = queue.Queue()
    threading.Thread(target=lambda: [answers.put(json.loads(raw)) for raw in process.stdout], daemon=True).start()

    def send(*lines: str) -> None:
        process.stdin.write("".join(line + "\n" for line in lines).encode())
        process.stdin.flush()

    try:
        send(json.dumps(INITIALIZE))
        assert answers.get(timeout=60)["id"] == 1
        send(json.dumps(INITIALIZED), "{not json", '[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
             '{"jsonrpc":"2.0","id":null,"method":"ping"}', "", '{"jsonrpc":"2.0","id":7}',
             '{"jsonrpc":"2.0","id":8,"method":"ping"}')
        got = [answers.get(timeout=30) for _ in range(5)]
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    assert {"jsonrpc": "2.0", "id": 8, "result": {}} in got  # the server still answers
    errors = [(a["id"], a["error"]["code"]) for a in got if "error" in a]
    assert errors == [(None, -32700), (None, -32600), (None, -32600), (7, -32600)]  # in the order sent
    assert answers.empty() and process.returncode == 0
    assert b"Traceback" not in process.stderr.read()


def test_requests_still_running_when_the_client_closes_its_end_are_answered(tmp_path: Path):
    """A client may write its requests and close stdin at once (a script, a one-shot
    call): each gets its answer before the server ends."""
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL})
    calls = [{"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
              "params": {"name": "recall", "arguments": {"query": f"checkout payment retries {n}"}}} for n in range(6)]
    listings = [{"jsonrpc": "2.0", "id": 100 + n, "method": method}
                for n, method in enumerate(["tools/list", "ping", "resources/list", "prompts/list"] * 10)]
    lines = [INITIALIZE, INITIALIZED, *calls, *listings]
    done = subprocess.run([sys.executable, "-m", "archmem", "mcp", "--repo", str(root)],
                          input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    answered = {json.loads(line)["id"] for line in done.stdout.splitlines() if line.strip()}
    assert answered == {1, *(call["id"] for call in calls), *(ask["id"] for ask in listings)}, done.stderr[-2000:]
    assert done.returncode == 0

"""``archmem mcp`` through the MCP Inspector's CLI: a client on the TypeScript SDK, which
checks every answer's structured content against the tool's output schema (an answer
that does not match becomes "MCP error -32602: Structured content does not match the
tool's output schema"). ``.ci/run`` installs it under ``.ci/inspector``; without node or
the package this module skips."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from archmem.demo import run_demo

from .conftest import REPO_ROOT

INSPECTOR = REPO_ROOT / ".ci" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(not INSPECTOR.exists(), reason="the MCP Inspector is not installed (.ci/run installs it)"),
    pytest.mark.slow,
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("inspector") / "shop"
    run_demo(root, now=datetime.now(UTC))
    return root


def inspect(root: Path, method: str, *options: str) -> tuple[int, dict[str, Any]]:
    """One Inspector CLI run against ``python -m archmem mcp`` in ``root``: its exit code
    and the JSON it prints (``{"result": …}`` or ``{"error": …}``)."""
    home = root.parent / "home"  # the Inspector keeps a catalog under ~/.mcp-inspector
    home.mkdir(exist_ok=True)
    command = [str(INSPECTOR), "--cli", "--format", "json", "--quiet", "--method", method, *options,
               "-e", f"PYTHONPATH={REPO_ROOT}", "--", sys.executable, "-m", "archmem", "mcp", "--repo", str(root)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "HOME": str(home)}, cwd=root)
    answer = done.stdout.strip() or done.stderr.strip()
    try:
        return done.returncode, json.loads(answer.splitlines()[-1] if answer else "{}")
    except json.JSONDecodeError:
        raise AssertionError(f"the Inspector printed no JSON (exit {done.returncode}): {answer[-2000:]}") from None


def call(root: Path, tool: str, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return inspect(root, "tools/call", "--tool-name", tool, "--tool-args-json", json.dumps(arguments))


def test_recall_answers_when_a_decision_comes_along(demo: Path):
    code, answer = call(demo, "recall", {"query": "gateway header size"})
    assert code == 0 and "error" not in answer, answer
    result = answer["result"]
    assert not result.get("isError"), result
    assert any(item["kind"] == "decision" for item in result["structuredContent"]["linked"])


@pytest.mark.parametrize(("tool", "arguments", "says"), [
    ("remember", {"content": "x", "kind": "note", "element": "API Gateway"}, "did you mean 'elements'?"),
    ("recall", {"query": "tax", "limit": 0}, "limit: input should be greater than or equal to 1 (got 0)"),
    ("confirm_memory", {"memory": "no such memory"}, "unknown memory"),
])
def test_tool_errors_reach_the_client_as_tool_errors(demo: Path, tool: str, arguments: dict[str, Any], says: str):
    _code, answer = call(demo, tool, arguments)
    assert "result" in answer, answer  # not "Structured content does not match the tool's output schema"
    result = answer["result"]
    assert result["isError"] is True and says in result["content"][0]["text"], result
    assert "structuredContent" not in result and result["_meta"]["archmem/error"]["message"]


@pytest.mark.parametrize(("tool", "arguments"), [
    ("knowledge_map", {}),
    ("find_elements", {"task": "speed up checkout"}),
    ("drift", {"memory": "Tax rounding"}),
    ("history", {"memory": "Tax rounding"}),
])
def test_reading_tools_pass_the_clients_schema_check(demo: Path, tool: str, arguments: dict[str, Any]):
    code, answer = call(demo, tool, arguments)
    assert code == 0 and not answer["result"].get("isError"), answer
    assert answer["result"]["structuredContent"]


def test_the_surface_an_agent_pays_for_and_reads(demo: Path):
    """tools/list within 16 KB, the resource templates, one memory and one element read
    through them, and the tool that reads one memory, as the Inspector sees them."""
    code, listed = inspect(demo, "tools/list")
    assert code == 0 and len(json.dumps(listed["result"], separators=(",", ":")).encode()) <= 16 * 1024
    assert "show_memory" in {tool["name"] for tool in listed["result"]["tools"]}
    code, templates = inspect(demo, "resources/templates/list")
    assert {t["uriTemplate"] for t in templates["result"]["resourceTemplates"]} == {
        "archmem://memory/{id}", "archmem://element/{id}"}
    code, memory = inspect(demo, "resources/read", "--uri", "archmem://memory/m-prc-tax-rounding")
    assert code == 0 and memory["result"]["contents"][0]["text"].startswith("# Tax rounding")
    code, element = inspect(demo, "resources/read", "--uri", "archmem://element/shop.orders.pricing")
    assert code == 0 and "Tax rounding" in element["result"]["contents"][0]["text"]
    code, shown = call(demo, "show_memory", {"memory": "Tax rounding"})
    assert code == 0 and shown["result"]["structuredContent"]["id"] == "m-prc-tax-rounding"

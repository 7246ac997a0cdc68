"""Every MCP tool's answers match the output schema it declares, as a client that
validates them (the TypeScript SDK, the MCP Inspector) checks them: each tool's success
and error paths, over a real stdio session with ``python -m archmem mcp`` on the demo,
through ``jsonschema`` and the schema ``tools/list`` published."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
jsonschema = pytest.importorskip("jsonschema")

from mcp_types import CallToolResult  # noqa: E402

from archmem.mcp.schemas import OUTPUTS  # noqa: E402

from .conftest import REPO_ROOT, git  # noqa: E402
from .test_mcp_server import Connected, build_demo, stdio_server  # noqa: E402

SUCCESSES: dict[str, list[dict[str, Any]]] = {
    "start_session": [{"task": "change how tax is rounded", "agent": "schema/test", "elements": ["PricingEngine"]},
                      {"task": "x"}],
    "remember": [
        {"content": "Schema probe: the gateway's header limit is set in [[API Gateway]], see [[ADR-2]].",
         "kind": "pitfall", "title": "Schema probe gateway headers", "elements": ["API Gateway"],
         "anchors": ["services/gateway/router.go"], "author": "schema/test"},
        {"content": "Schema probe note with a [[Pending title]] link.", "kind": "note"},
        {"content": "Schema probe note with a [[Pending title]] link.", "kind": "note"},  # restated: deduplicated
    ],
    "recall": [
        {"query": "gateway header size"},  # a decision (ADR) comes along through a [[link]]
        {"query": "gateway header size", "explain": True, "limit": 1},
        {"query": "tax rounding", "elements": ["PricingEngine"], "changed_files": ["services/orders/pricing/tax.py"]},
        {"query": "Schema probe gateway headers"},  # the probe memory links an element
        {"query": "configure kubernetes ingress"},  # nothing
    ],
    "supersede": [{"memory": "Schema probe gateway headers",
                   "content": "Schema probe: the header limit is 16KB since v2 of [[API Gateway]]."}],
    "confirm_memory": [{"memory": "Flat tax rate"}],
    "archive": [{"memory": "Schema probe gateway headers", "reason": "schema probe done"}],
    "end_session": [{"session_id": "{session}", "used_memories": ["Tax rounding", "No such memory"],
                     "outcome": "Schema probe outcome."}],
    "brief": [{"task": "gateway header size"}, {"elements": ["PricingEngine"], "budget": 1500}, {}],
    "find_elements": [{"task": "speed up checkout"}, {"task": "configure kubernetes ingress"}],
    "knowledge_map": [{}],
    "review_queue": [{}],
    "drift": [{}, {"element": "PricingEngine"}, {"memory": "Tax rounding"}],
    "show_memory": [{"memory": "Schema probe gateway headers"}, {"memory": "m-prc-tax-rounding-old"}],
    "history": [{"memory": "Schema probe gateway headers"}, {"memory": "Tax rounding"}],
}

ERRORS: dict[str, list[dict[str, Any]]] = {
    "start_session": [{}, {"task": "x", "elements": ["Gatway"]}],
    "recall": [{}, {"query": "tax", "limit": 0}, {"query": "tax", "session_id": "s-nope"},
               {"query": "tax", "element": "API Gateway"}],
    "remember": [{"content": "x", "kind": "note", "element": "API Gateway"}, {"content": "x", "kind": "gotcha"},
                 {"content": "The key is AKIA" + "Z7QW4RTX9MBN2KLP for staging.", "kind": "note"},
                 {"content": "Prices are cached.", "kind": "note", "elements": ["PricingEngin"]}],
    "supersede": [{"memory": "no such memory", "content": "x"}, {"memory": "Tax rounding"}],
    "confirm_memory": [{"memory": "no such memory"}],
    "archive": [{"memory": "no such memory", "reason": "x"}],
    "end_session": [{"session_id": "s-nope", "used_memories": []}],
    "brief": [{"elements": ["Gatway"]}, {"task": "x", "budget": 10}],
    "find_elements": [{"task": "  "}, {"task": "x", "limit": 0}],
    "knowledge_map": [{"verbose": True}],
    "review_queue": [{"verbose": True}],
    "drift": [{"element": "Gatway"}, {"memory": "no such memory"}],
    "show_memory": [{"memory": "no such memory"}, {"id": "m-prc-tax-rounding"}],
    "history": [{"memory": "no such memory"}, {}],
}


def check_against(schema: dict[str, Any], result: CallToolResult, call: str) -> None:
    """What a validating client does: structured content, when there is any, must match
    the output schema (on an error too: the TypeScript SDK checks it there as well) —
    the one published and the full model's, down to what each field nests."""
    if result.structured_content is None:
        assert result.is_error, f"{call}: a success without structured content"
        return
    full = OUTPUTS[call.split("(")[0]].model_json_schema()
    for checked in (schema, full):
        errors = sorted(jsonschema.Draft202012Validator(checked).iter_errors(result.structured_content), key=str)
        assert not errors, f"{call}: " + "; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    root = build_demo(tmp_path_factory)
    connected = Connected(stdio_server(root, root.parent / "server.log"))
    connected.root = root
    yield connected
    connected.close()


def test_every_tool_answers_as_its_output_schema_says(session: Connected):
    tools = {tool.name: tool for tool in session.run(session.client.list_tools()).tools}
    assert set(SUCCESSES) == set(tools) == set(ERRORS), "every tool has success and error cases here"
    for tool in tools.values():
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    session_id = session.ok("start_session", {"task": "schema probe"})["session_id"]
    for name, calls in SUCCESSES.items():
        for arguments in calls:
            arguments = {k: (session_id if v == "{session}" else v) for k, v in arguments.items()}
            result = session.call(name, arguments)
            assert not result.is_error, f"{name}({arguments}): {result.content[0].text}"
            check_against(tools[name].output_schema, result, f"{name}({arguments})")
    for name, calls in ERRORS.items():
        for arguments in calls:
            result = session.call(name, arguments)
            assert result.is_error, f"{name}({arguments}) should be a tool error"
            check_against(tools[name].output_schema, result, f"{name}({arguments})")
            assert "Traceback" not in result.content[0].text


def test_a_decision_that_comes_along_is_answered(session: Connected):
    """The demo's "gateway header size": ADR-2 comes along through a [[link]]."""
    recalled = session.ok("recall", {"query": "gateway header size"})
    assert any(item["kind"] == "decision" for item in recalled["linked"]), recalled["linked"]
    assert all(item["kind"] != "decision" for item in recalled["results"])


def test_a_tool_error_keeps_its_data_outside_the_structured_content(session: Connected):
    """The error as data stays available (``_meta``), where no client checks it against
    the success schema."""
    wrong = session.call("recall", {"query": "tax", "limit": 0})
    assert wrong.is_error and wrong.structured_content is None
    assert wrong.meta is not None and wrong.meta["archmem/error"]["problems"] == [
        {"argument": "limit", "problem": "input should be greater than or equal to 1 (got 0)"}]
    unknown = session.call("remember", {"content": "x", "kind": "note", "elements": ["gatway"]})
    assert unknown.meta is not None and unknown.meta["archmem/error"]["candidates"]


def test_a_repository_with_nothing_yet_answers_as_the_schemas_say(tmp_path):
    """No model, no memories, no commits: every tool answers as its schema says."""
    root = tmp_path / "empty"
    root.mkdir()
    git(root, "init", "-q")
    connected = Connected(stdio_server(root, tmp_path / "server.log"))
    try:
        tools = {tool.name: tool for tool in connected.run(connected.client.list_tools()).tools}
        for name, arguments in [("recall", {"query": "tax rounding"}), ("brief", {"task": "tax rounding"}),
                                ("brief", {}), ("find_elements", {"task": "checkout"}), ("knowledge_map", {}),
                                ("review_queue", {}), ("drift", {}), ("start_session", {"task": "first steps"}),
                                ("remember", {"content": "The first memory of an empty repository.", "kind": "note"}),
                                ("recall", {"query": "first memory empty repository"})]:
            result = connected.call(name, arguments)
            # the map and drift need a model: they say so, as tool errors
            assert result.is_error is (name in ("knowledge_map", "drift")), f"{name}: {result.content[0].text}"
            check_against(tools[name].output_schema, result, f"{name}({arguments})")
    finally:
        connected.close()


def raw_session(root: Path, *requests: dict[str, Any]) -> list[str]:
    """The lines ``python -m archmem mcp`` answers to an initialize and ``requests``, read as
    a client does: stdin stays open until every request is answered (a server may drop
    what is still in flight when its input ends), then closes."""
    hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    lines = [hello, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *requests]
    waiting = {m["id"] for m in lines if "id" in m}
    server = subprocess.Popen([sys.executable, "-m", "archmem", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, cwd=root,
                              env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    deadline = threading.Timer(120, server.kill)  # a server that never answers fails the test, not the run
    deadline.start()
    answered: list[str] = []
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("".join(json.dumps(m) + "\n" for m in lines))
        server.stdin.flush()
        while waiting:
            line = server.stdout.readline()
            if not line:
                break
            answered.append(line.rstrip("\n"))
            waiting.discard(json.loads(line).get("id"))
        server.stdin.close()
        server.wait(timeout=120)
    finally:
        deadline.cancel()
        if server.poll() is None:
            server.kill()
    return answered


def test_tools_list_costs_an_agent_at_most_16_kb(session: Connected):
    """Every session pays for ``tools/list`` in tokens: at most 16 KB on the wire."""
    assert session.root is not None
    answers = raw_session(session.root, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    listed = next(line for line in answers if json.loads(line).get("id") == 1)
    assert len(listed.encode("utf-8")) <= 16 * 1024, f"tools/list is {len(listed.encode('utf-8'))} bytes"


def test_compact_schemas_accept_and_refuse_what_the_full_ones_do():
    """Published schemas leave out pydantic's titles and write ``X | None`` as a type
    list; a null stays allowed in an enum, and a property named ``title`` stays."""
    from archmem.mcp.schemas import compact_schema

    full = {"type": "object", "title": "Thing", "properties": {
        "title": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Title"},
        "kind": {"anyOf": [{"enum": ["a", "b"], "type": "string"}, {"type": "null"}], "title": "Kind"},
        "via": {"anyOf": [{"$ref": "#/$defs/Via"}, {"type": "null"}]},
        "tags": {"items": {"type": "string"}, "type": "array", "title": "Tags"},
    }, "required": ["title"], "$defs": {"Via": {"properties": {"id": {"type": "string", "title": "Id"}},
                                               "required": ["id"], "type": "object", "title": "Via"}}}
    compact = compact_schema(full)
    assert "title" in compact["properties"] and compact["required"] == ["title"]
    assert "title" not in json.dumps(compact).replace('"title": {', "").replace('["title"]', "")
    for value in [{"title": None}, {"title": "x", "kind": None}, {"title": "x", "kind": "a", "via": {"id": "m"}},
                  {"title": "x", "via": None, "tags": []}]:
        assert jsonschema.Draft202012Validator(compact).is_valid(value), value
    for value in [{}, {"title": 1}, {"title": "x", "kind": "c"}, {"title": "x", "via": {}}, {"title": "x", "tags": [1]}]:
        assert not jsonschema.Draft202012Validator(full).is_valid(value), value
        assert not jsonschema.Draft202012Validator(compact).is_valid(value), value

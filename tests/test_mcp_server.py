"""``archmem mcp`` driven by the MCP SDK's own client: in memory and over real stdio
(``python -m archmem mcp`` in a copy of the demo repository), no mocks."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp_types import CallToolResult, Implementation  # noqa: E402

from archmem.demo import run_demo  # noqa: E402
from archmem.git.checkout import current_head  # noqa: E402
from archmem.mcp.server import build_server  # noqa: E402
from archmem.workspace import Workspace  # noqa: E402

from .conftest import REPO_ROOT, git, write  # noqa: E402

TOOLS = {
    "start_session": ["task"],
    "recall": ["query"],
    "remember": ["content", "kind"],
    "confirm_memory": ["memory"],
    "end_session": ["session_id", "used_memories"],
    "brief": [],
    "find_elements": ["task"],
    "knowledge_map": [],
    "review_queue": [],
    "supersede": ["memory", "content"],
    "archive": ["memory", "reason"],
    "drift": [],
    "show_memory": ["memory"],
    "history": ["memory"],
}
READ_ONLY = {"recall", "brief", "find_elements", "knowledge_map", "review_queue", "drift", "show_memory", "history"}


class Connected:
    """An MCP client session kept open on a background event loop, so plain test
    functions (and a module-scoped fixture) can call tools one after the other."""

    def __init__(self, target: Any, *, mode: str = "auto", client_info: Any = None) -> None:
        self.client_info = client_info
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        ready: concurrent.futures.Future[Client] = concurrent.futures.Future()
        self._stop: asyncio.Event | None = None
        self._main = asyncio.run_coroutine_threadsafe(self._serve(target, mode, ready), self.loop)
        self.client = ready.result(timeout=60)
        self.root: Path | None = None

    async def _serve(self, target: Any, mode: str, ready: concurrent.futures.Future[Client]) -> None:
        self._stop = asyncio.Event()
        try:
            async with Client(target, mode=mode, client_info=self.client_info) as client:
                ready.set_result(client)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    def run(self, coroutine: Any, timeout: float = 60) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        return self.run(self.client.call_tool(name, arguments or {}))

    def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.call(name, arguments)
        assert not result.is_error, result.content[0].text
        assert result.content[0].type == "text" and result.content[0].text
        return result.structured_content

    def close(self) -> None:
        assert self._stop is not None
        self.loop.call_soon_threadsafe(self._stop.set)
        try:
            self._main.result(timeout=30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()


def stdio_server(root: Path, errlog: Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> Any:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "archmem", "mcp"], cwd=str(cwd or root),
        env={"PYTHONPATH": str(REPO_ROOT), **(env or {})},
    )
    return stdio_client(params, errlog=errlog.open("a", encoding="utf-8"))


def build_demo(factory: pytest.TempPathFactory) -> Path:
    """The demo repository: real git history, 41 memories, drifted elements."""
    root = factory.mktemp("mcp") / "shop"
    run_demo(root, now=datetime.now(timezone.utc))
    return root


@pytest.fixture(scope="module")
def over_stdio(tmp_path_factory: pytest.TempPathFactory):
    """One ``python -m archmem mcp`` subprocess for the module, started in a sub-folder
    (the repository is the git top level of the working directory)."""
    root = build_demo(tmp_path_factory)
    connected = Connected(stdio_server(root, root.parent / "server.log", cwd=root / "services"))
    connected.root = root
    yield connected
    connected.close()


@pytest.fixture(scope="module")
def in_memory(tmp_path_factory: pytest.TempPathFactory):
    """The same server in this process, through the SDK's in-memory transport (its own
    copy of the demo, so each store sees only its own transport's writes)."""
    root = build_demo(tmp_path_factory)
    connected = Connected(build_server(Workspace.open(root, env={})), mode="legacy",
                          client_info=Implementation(name="probe-agent", version="1.0"))
    connected.root = root
    yield connected
    connected.close()


@pytest.fixture(params=["in_memory", "over_stdio"])
def server(request: pytest.FixtureRequest) -> Connected:
    return request.getfixturevalue(request.param)


def error_text(result: CallToolResult) -> str:
    assert result.is_error, f"expected a tool error, got {result.structured_content}"
    return result.content[0].text


def error_data(result: CallToolResult) -> dict[str, Any]:
    """A tool error's data: in ``_meta``, never in the structured content (which a
    client checks against the tool's output schema)."""
    assert result.is_error and result.structured_content is None and result.meta is not None
    return result.meta["archmem/error"]


# ---- the tools ----------------------------------------------------------------------


def test_tools_schemas_and_descriptions_teach_the_habits(server: Connected):
    tools = {tool.name: tool for tool in server.run(server.client.list_tools()).tools}
    assert set(tools) == set(TOOLS)
    for name, required in TOOLS.items():
        schema = tools[name].input_schema
        assert schema["type"] == "object"
        assert sorted(schema.get("required", [])) == sorted(required), name
        assert tools[name].description and len(tools[name].description) < 700, name
    assert tools["recall"].input_schema["properties"]["limit"]["maximum"] == 200
    assert "session_id" in tools["recall"].description
    assert "supersedes" in tools["remember"].description and "[[Title]]" in tools["remember"].description
    assert "cited" in tools["end_session"].description or "citations" in tools["end_session"].description
    assert "start_session" in server.client.instructions and "used_memories" in server.client.instructions
    for name, tool in tools.items():  # what a client shows and may rely on, on every tool
        hints = tool.annotations
        # each hint said where it differs from MCP's default (not read-only, destructive, not
        # idempotent, open world) and means something (destructive, idempotent: not read-only)
        assert tool.title and hints is not None, name
        assert bool(hints.read_only_hint) is (name in READ_ONLY), name
        if name not in READ_ONLY:
            assert hints.destructive_hint is (name == "archive"), name
            assert bool(hints.idempotent_hint) is (name == "archive"), name
        assert hints.open_world_hint is False, name
        assert tool.output_schema and tool.output_schema["type"] == "object", name
    kinds = ["pitfall", "convention", "note", "session_outcome"]
    assert tools["remember"].input_schema["properties"]["kind"]["enum"] == kinds
    assert "element" not in tools["remember"].input_schema["properties"]  # one way to name elements
    recalled = tools["recall"].output_schema["properties"]
    assert {"mode", "results", "elements", "warnings"} <= set(recalled)
    assert "markdown" not in tools["brief"].output_schema["properties"]  # the Markdown is the text, once


def test_a_whole_session_lands_in_the_store(server: Connected, request: pytest.FixtureRequest):
    tag = request.node.callspec.id
    started = server.ok("start_session", {"task": "change how tax is rounded", "agent": f"test/{tag}",
                                         "elements": ["PricingEngine"]})
    session_id = started["session_id"]
    assert session_id.startswith("s-") and started["briefing"]["memories"] and "markdown" not in started["briefing"]
    text = server.call("start_session", {"task": "x"}).content[0].text
    assert "session_id" in text and "# Briefing: x" in text

    recalled = server.ok("recall", {"query": "tax rounding", "session_id": session_id, "explain": True})
    top = recalled["results"][0]
    assert top["title"] == "Tax rounding" and top["verify"] is True and "drifted" in top["verify_reason"]
    assert "factors" in top and recalled["linked"] and all(r["via"] for r in recalled["linked"])
    assert recalled["elements"][0]["id"] == "shop.orders.pricing"

    written = server.ok("remember", {
        "content": f"Refund tax is recomputed on the refunded lines ({tag}), rounding as [[Tax rounding]] says.",
        "kind": "pitfall", "title": f"Refund tax {tag}", "elements": ["PricingEngine"], "session_id": session_id,
        "author": f"test/{tag}",
    })
    assert written["deduplicated"] is False
    assert [link["target"] for link in written["links"]] == ["Tax rounding"]

    confirmed = server.ok("confirm_memory", {"memory": "Flat tax rate"})
    assert confirmed["confirmations"] >= 1

    ended = server.ok("end_session", {
        "session_id": session_id, "used_memories": ["Tax rounding", f"Refund tax {tag}", "No such memory"],
        "outcome": f"Tax is still rounded once per cart; refunds now follow it ({tag}).",
    })
    assert ended["unknown"] == ["No such memory"] and len(ended["cited"]) == 2 and ended["outcome_id"]

    with Workspace.open(server.root, env={}) as ws:
        session = ws.store.get_session(session_id)
        assert session is not None and session.ended_at is not None
        outcome = ws.get_memory(ended["outcome_id"])
        assert outcome.kind == "session_outcome" and outcome.session_id == session_id
        assert outcome.elements == ["shop.orders.pricing"] and outcome.author == f"test/{tag}"
        assert ws.get_memory("Tax rounding").citations >= 1 and ws.get_memory("Tax rounding").exposures >= 1
        assert ws.get_memory(written["id"]).citations == 1


def test_a_memory_without_an_author_is_signed_by_the_client_and_the_git_user(in_memory: Connected):
    subprocess.run(["git", "config", "user.name", "Sarah Lee"], cwd=in_memory.root, check=True)
    written = in_memory.ok("remember", {"content": "The probe agent ran the pricing tests twice.", "kind": "note"})
    assert Workspace.open(in_memory.root, env={}).get_memory(written["id"]).author == "probe-agent/Sarah-Lee"
    named = in_memory.ok("remember", {"content": "Named authors are kept as given.", "kind": "note",
                                      "author": "probe-agent/sarah"})
    assert Workspace.open(in_memory.root, env={}).get_memory(named["id"]).author == "probe-agent/sarah"
    started = in_memory.ok("start_session", {"task": "probe the session's signature"})
    assert started["session"]["agent"] == "probe-agent/Sarah-Lee"  # the client's: its session-end hook finds it


def test_a_confirmation_is_signed_by_the_client_and_its_reason_goes_to_the_file(in_memory: Connected):
    subprocess.run(["git", "config", "user.name", "Sarah Lee"], cwd=in_memory.root, check=True)
    written = in_memory.ok("remember", {"content": "Invoices are numbered per fiscal year.", "kind": "convention"})
    confirmed = in_memory.ok("confirm_memory", {"memory": written["id"], "reason": "the numbering code is unchanged"})
    assert (confirmed["confirmed_by"], confirmed["confirm_reason"]) == (
        "probe-agent/Sarah-Lee", "the numbering code is unchanged")
    text = (in_memory.root / written["path"]).read_text(encoding="utf-8")
    assert "confirmed_by: probe-agent/Sarah-Lee\nconfirm_reason: the numbering code is unchanged\n" in text


def test_reading_tools(server: Connected):
    found = server.ok("find_elements", {"task": "speed up checkout"})["elements"]
    assert found[0]["id"] == "shop.orders.checkout" and found[0]["paths"] == ["services/orders/checkout/**"]
    assert found[0]["score"] > 0 and found[0]["reasons"] == ["matches the task"] and found[0]["memories"] > 0
    briefing = server.call("brief", {"elements": ["PricingEngine"], "budget": 1500})
    assert briefing.content[0].text.startswith("# Briefing") and len(briefing.content[0].text) <= 1500
    assert "markdown" not in briefing.structured_content and briefing.structured_content["memories"]
    knowledge = server.call("knowledge_map")
    assert knowledge.structured_content["coverage"].endswith("of 13 elements documented")
    assert knowledge.content[0].text.splitlines()[0] == knowledge.structured_content["coverage"]
    queue = server.ok("review_queue")
    assert {"ignored", "near_duplicates", "pending_links", "verify", "total"} <= set(queue)
    assert any(item["title"] == "Tax rounding" for item in queue["verify"])  # the demo's pricing rewrite
    nothing = server.ok("recall", {"query": "configure kubernetes ingress"})
    assert nothing["results"] == []
    assert "Nothing archmem knows" in server.call("recall", {"query": "configure kubernetes ingress"}).content[0].text


# ---- mistakes -----------------------------------------------------------------------


def test_mistakes_are_tool_errors_and_the_server_answers_the_next_call(server: Connected):
    def still_answers() -> None:
        assert server.ok("recall", {"query": "tax rounding", "limit": 1})["results"]

    mistakes = [
        ("remember", {"kind": "note"}, "content"),  # missing argument (the SDK's schema check)
        ("recall", {}, "query"),
        ("end_session", {"session_id": "s-0"}, "used_memories"),
        ("recall", {"query": "tax", "limit": "many"}, "limit"),  # wrong types
        ("recall", {"query": "tax", "limit": 0}, "limit"),
        ("remember", {"content": ["a", "list"], "kind": "note"}, "content: input should be a valid string"),
        ("remember", {"content": "Prices are cached.", "kind": "note", "elements": ["PricingEngin"]},
         "unknown element 'PricingEngin'; did you mean 'PricingEngine'"),
        ("remember", {"content": "Prices are cached.", "kind": "note", "element": "PricingEngine"},
         "element: unknown argument; did you mean 'elements'?"),
        ("remember", {"content": "x" * 20_001, "kind": "note"}, "20,000"),
        ("remember", {"content": "The key is AKIA" + "Z7QW4RTX9MBN2KLP for staging.", "kind": "note"}, "AWS"),
        ("remember", {"content": "A fact about queues.", "kind": "gotcha"},
         "kind: input should be 'pitfall', 'convention', 'note' or 'session_outcome' (got 'gotcha')"),
        ("remember", {"content": "Something else entirely about caches.", "kind": "note", "title": "tax rounding"},
         "already titled 'Tax rounding'"),
        ("recall", {"query": "tax", "session_id": "s-nope"}, "unknown session 's-nope'"),
        ("end_session", {"session_id": "s-nope", "used_memories": []}, "unknown session"),
        ("confirm_memory", {"memory": "no such memory"}, "unknown memory"),
        ("find_elements", {"task": "  "}, "needs a task"),
        ("no_such_tool", {}, "no_such_tool"),
    ]
    for name, arguments, expected in mistakes:
        result = server.call(name, arguments)
        assert expected in error_text(result), (name, arguments, result.content[0].text)
        assert "Traceback" not in result.content[0].text and "pydantic" not in result.content[0].text
        assert "\n" not in result.content[0].text.split("\n  hint:")[0], result.content[0].text  # one line
        still_answers()
    secret = server.call("remember", {"content": "AKIA" + "Z7QW4RTX9MBN2KLP", "kind": "note"})
    assert error_data(secret)["error"] == "secret_found" and "AKIA" not in error_text(secret)
    assert error_data(server.call("remember", {"content": "x", "kind": "note", "elements": ["gatway"]}))["candidates"]
    wrong = error_data(server.call("recall", {"query": "tax", "limit": 0}))
    assert wrong["error"] == "invalid_input" and wrong["problems"] == [
        {"argument": "limit", "problem": "input should be greater than or equal to 1 (got 0)"}]


# ---- two servers, one store ---------------------------------------------------------


WORDS = ("gateway cache ledger token retry queue invoice cart refund stock price webhook session header "
         "batch index shard replica cursor timeout lock audit export schema tenant quota").split()


def test_two_servers_write_to_one_store_at_once(tmp_path: Path):
    root = tmp_path / "shop"
    shutil.copytree(REPO_ROOT / "examples" / "shop", root, ignore=shutil.ignore_patterns("demo"))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "shop")
    rng = random.Random(3)
    texts = {(w, i): " ".join(rng.sample(WORDS, 7)) + f" ({w}-{i})" for w in (1, 2) for i in range(30)}
    servers = [Connected(stdio_server(root, tmp_path / f"server{w}.log")) for w in (1, 2)]
    try:
        async def write_all(connected: Connected, writer: int) -> list[CallToolResult]:
            return await asyncio.gather(*(
                connected.client.call_tool("remember", {"content": texts[writer, i], "kind": "note",
                                                         "title": f"Fact {writer}-{i}", "elements": ["shop.gateway"]})
                for i in range(30)
            ))

        futures = [asyncio.run_coroutine_threadsafe(write_all(s, w), s.loop) for s, w in zip(servers, (1, 2))]
        results = [r for future in futures for r in future.result(timeout=120)]
        assert not [r.content[0].text for r in results if r.is_error]
        ids = {r.structured_content["id"] for r in results}
        assert len(ids) == 60 and not any(r.structured_content["deduplicated"] for r in results)
        assert servers[0].ok("recall", {"query": "Fact 2-7", "limit": 3})["results"]  # sees the other's writes
    finally:
        for connected in servers:
            connected.close()
    with Workspace.open(root, env={}) as ws:
        stored = {m.id: m for m in ws.list_memories()}
    assert ids <= set(stored) and {stored[i].title for i in ids} == {f"Fact {w}-{i}" for w in (1, 2) for i in range(30)}


# ---- refresh, start-up, environment -------------------------------------------------


MODEL = ("elements:\n"
         "  - {id: api, kind: softwareSystem, name: Api, description: Serves the public API., paths: [api/**]}\n")


def test_a_changed_model_or_head_is_read_again(git_repo):
    root = git_repo({"archmem.yaml": MODEL, "api/app.py": "x = 1\n"})
    head = current_head(root)
    assert head and len(head) == 40
    connected = Connected(build_server(Workspace.open(root, env={})))
    try:
        assert connected.ok("find_elements", {"task": "billing invoices"})["elements"] == []
        write(root, {"archmem.yaml": MODEL + "  - {id: billing, kind: softwareSystem, name: Billing, "
                                             "description: Sends invoices., paths: [billing/**]}\n"})
        assert [e["id"] for e in connected.ok("find_elements", {"task": "billing invoices"})["elements"]] == ["billing"]
        written = connected.ok("remember", {"content": "Invoices go out at 02:00 UTC.", "kind": "note",
                                            "elements": ["Billing"]})
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "billing")
        assert current_head(root) != head
        assert connected.ok("recall", {"query": "when do invoices go out"})["results"][0]["id"] == written["id"]
    finally:
        connected.close()


def test_an_edited_likec4_file_is_read_again(git_repo):
    """A LikeC4 model is a folder of files: an edit inside one (the folder's own time
    unchanged) is seen."""
    spec = "specification { element system }\n"
    root = git_repo({"c4/spec.c4": spec, "c4/model.c4": "model { api = system 'Api' 'Serves the public API.' }\n",
                     "api/app.py": "x = 1\n"})
    connected = Connected(build_server(Workspace.open(root, env={})))
    try:
        assert connected.ok("find_elements", {"task": "billing invoices"})["elements"] == []
        folder_time = (root / "c4").stat().st_mtime_ns
        write(root, {"c4/model.c4": "model {\n  api = system 'Api'\n  billing = system 'Billing' 'Sends invoices.'\n}\n"})
        os.utime(root / "c4", ns=(folder_time, folder_time))
        assert [e["id"] for e in connected.ok("find_elements", {"task": "billing invoices"})["elements"]] == ["billing"]
    finally:
        connected.close()


def test_without_the_sdk_the_command_says_what_to_install(tmp_path: Path):
    code = ("import sys; sys.modules['mcp'] = None\n"
            "from archmem.cli import main\nsys.argv = ['archmem', 'mcp', '--repo', sys.argv[1]]\nmain()")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=False,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert result.returncode == 3 and "archmem[mcp]" in result.stderr and result.stdout == ""


def test_a_bad_setting_stops_the_server_at_start_with_its_message(tmp_path: Path):
    result = subprocess.run([sys.executable, "-m", "archmem", "mcp", "--repo", str(tmp_path)],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "ARCHMEM_EMBEDINGS_PROVIDER": "openai"})
    assert result.returncode == 3 and "ARCHMEM_EMBEDDINGS_PROVIDER" in result.stderr and result.stdout == ""


def test_run_by_a_person_it_says_what_it_waits_for_and_stops_on_end_of_input(tmp_path: Path):
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "archmem", "mcp", "--repo", str(tmp_path)], stdin=follower,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    os.close(follower)
    try:
        first = process.stderr.readline()  # written before the server reads anything
        assert first.startswith(f"archmem mcp: serving {tmp_path.resolve()} over stdio")
        assert "archmem install" in first
        os.write(leader, b"\x04")  # Ctrl-D: end of input
        out, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    assert process.returncode == 0 and out == ""  # nothing but protocol ever goes to stdout


def test_resources_and_the_start_task_prompt(in_memory: Connected):
    listed = in_memory.run(in_memory.client.list_resources()).resources
    assert {(str(r.uri), r.mime_type) for r in listed} == {("archmem://overview", "text/markdown"),
                                                          ("archmem://map", "text/markdown")}
    overview = in_memory.run(in_memory.client.read_resource("archmem://overview")).contents[0].text
    assert overview.startswith("# Briefing: this repository (no task yet)") and "## To verify" in overview
    knowledge = in_memory.run(in_memory.client.read_resource("archmem://map")).contents[0].text
    assert "of 13 elements documented" in knowledge
    prompts = in_memory.run(in_memory.client.list_prompts()).prompts
    assert [(p.name, [(a.name, a.required) for a in p.arguments]) for p in prompts] == [
        ("start_task", [("task", True), ("elements", False)])]
    message = in_memory.run(in_memory.client.get_prompt("start_task", {"task": "change how tax is rounded"}))
    text = message.messages[0].content.text
    assert text.startswith("We are going to work on: change how tax is rounded")
    assert "call start_session" in text and "# Briefing: change how tax is rounded" in text
    assert "Tax is rounded half up once" in text  # the Tax rounding memory, from the briefing


def test_a_resource_or_prompt_that_fails_says_why(tmp_path: Path):
    from mcp.shared.exceptions import MCPError

    write(tmp_path, {"workspace.dsl": 'workspace {\n    model {\n        a = softwareSystem "A" {\n'})
    connected = Connected(build_server(Workspace.open(tmp_path, env={})), mode="legacy")
    try:
        for read in (connected.client.read_resource("archmem://map"),
                     connected.client.get_prompt("start_task", {"task": "add a service"})):
            with pytest.raises(MCPError) as failed:
                connected.run(read)
            assert failed.value.error.message.startswith(f"{tmp_path / 'workspace.dsl'}:3:1: Unexpected end")
        after = connected.call("recall", {"query": "add a service"})  # the server answers the next call
        assert after.is_error and "Unexpected end of DSL content" in after.content[0].text
    finally:
        connected.close()


def test_a_task_no_memory_is_about_still_starts_with_the_standing_rules(in_memory: Connected):
    started = in_memory.call("start_session", {"task": "configure the kubernetes ingress certificates"})
    text = started.content[0].text
    assert "# Briefing: configure the kubernetes ingress certificates" in text
    assert "Nothing archmem knows is about this task itself; what holds for every task:" in text
    assert "## Standing rules" in text and "Trunk-based development" in text  # a project-wide convention
    briefing = started.structured_content["briefing"]
    assert briefing["mode"] == "overview" and briefing["memories"]


def test_drift_history_supersede_and_archive_tools(in_memory: Connected):
    whole = in_memory.ok("drift")
    assert whole["score"] == 80 and whole["memory"] is None and whole["stale_memories"]
    one = in_memory.ok("drift", {"element": "PricingEngine"})
    assert [e["id"] for e in one["elements"]] == ["shop.orders.pricing"] and one["elements"][0]["status"] == "drifted"
    assert one["elements"][0]["stamp"]["lines"] > 0
    assert all("shop.orders.pricing" in m["elements"] for m in one["stale_memories"])
    asked = in_memory.ok("drift", {"memory": "Tax rounding"})
    assert asked["memory"]["verify"] is True and "PricingEngine drifted" in asked["memory"]["verify_reason"]
    assert [m["id"] for m in asked["stale_memories"]] == [asked["memory"]["id"]]

    chain = in_memory.ok("history", {"memory": "Tax rounding"})
    assert [m["status"] for m in chain["history"]] == ["superseded", "active"]
    assert chain["current"] == chain["history"][-1]["id"]

    old = in_memory.ok("remember", {"content": "Refund webhooks retry three times, then give up.", "kind": "pitfall",
                                    "title": "Refund webhook retries", "elements": ["shop.payments"]})
    new = in_memory.ok("supersede", {"memory": old["id"], "content": "Refund webhooks retry for 24 hours now."})
    assert new["supersedes"] == old["id"] and new["title"] == "Refund webhook retries"
    assert new["elements"] == ["shop.payments"]  # kind, title and elements carried over
    refused = in_memory.call("supersede", {"memory": old["id"], "content": "Refund webhooks never retry."})
    assert "already superseded by 'Refund webhook retries'" in error_text(refused)
    archived = in_memory.ok("archive", {"memory": "Refund webhook retries", "reason": "payments moved to the PSP"})
    assert archived["status"] == "archived" and archived["status_reason"] == "payments moved to the PSP"
    shown = {r["id"] for r in in_memory.ok("recall", {"query": "refund webhooks retry"})["results"]}
    assert not shown & {old["id"], new["id"]}  # archived (and its superseded predecessor) leave recall


def test_prompt_mistakes_get_standard_json_rpc_codes(in_memory: Connected):
    from mcp.shared.exceptions import MCPError

    for request, words in ((in_memory.client.get_prompt("no_such_prompt", {}), "unknown prompt 'no_such_prompt'"),
                           (in_memory.client.get_prompt("start_task", {}), "needs the argument(s) task"),
                           (in_memory.client.read_resource("archmem://nothing"), "archmem://nothing")):
        with pytest.raises(MCPError) as failed:
            in_memory.run(request)
        assert failed.value.error.code == -32602 and words in failed.value.error.message


def test_nothing_that_can_wait_runs_before_initialize_is_answered(git_repo):
    """The tools' schemas and the warm-up (store, model, history) wait for the first
    request that needs them, so the initialize answer costs only the SDK and the config."""
    import time

    root = git_repo({"archmem.yaml": MODEL, "api/app.py": "x = 1\n"})
    workspace = Workspace.open(root, env={})
    server = build_server(workspace)
    assert server.arguments == {}  # no tool registered yet
    connected = Connected(server)  # initialize answered
    try:
        assert server.arguments == {} and "store" not in workspace.__dict__
        assert {tool.name for tool in connected.run(connected.client.list_tools()).tools} == set(TOOLS)
        deadline = time.monotonic() + 30
        while "drift" not in workspace.__dict__ and time.monotonic() < deadline:
            time.sleep(0.05)  # the warm-up runs on the workspace's thread once tools are listed
        assert "store" in workspace.__dict__ and "drift" in workspace.__dict__
    finally:
        connected.close()

"""The MCP surface besides tools, over real stdio (``python -m archmem mcp`` on the demo,
the SDK's own client): the memory and element resource templates, completion of their
ids and of the prompt's elements, and the tool that reads one memory."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from mcp.shared.exceptions import MCPError
from mcp_types import PromptReference, ResourceTemplateReference

from .test_mcp_server import Connected, build_demo, error_text, stdio_server


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    root = build_demo(tmp_path_factory)
    connected = Connected(stdio_server(root, root.parent / "server.log"))
    connected.root = root
    yield connected
    connected.close()


def read(session: Connected, uri: str) -> str:
    return session.run(session.client.read_resource(uri)).contents[0].text


def complete(session: Connected, ref: object, name: str, value: str) -> list[str]:
    return session.run(session.client.complete(ref, {"name": name, "value": value})).completion.values


def test_resource_templates_are_listed(session: Connected):
    templates = session.run(session.client.list_resource_templates()).resource_templates
    assert {(t.uri_template, t.mime_type) for t in templates} == {
        ("archmem://memory/{id}", "text/markdown"), ("archmem://element/{id}", "text/markdown")}
    assert all(t.description for t in templates)


def test_a_memory_and_an_element_read_as_markdown(session: Connected):
    memory = read(session, "archmem://memory/m-prc-tax-rounding")
    assert memory.startswith("# Tax rounding\n") and "**VERIFY**" in memory and "Tax is rounded half up once" in memory
    assert "- history: Tax rounding (superseded) → Tax rounding (active)" in memory
    old = read(session, "archmem://memory/m-prc-tax-rounding-old")  # superseded ones too
    assert "convention `m-prc-tax-rounding-old`, superseded" in old
    element = read(session, "archmem://element/shop.orders.pricing")
    assert element.startswith("# PricingEngine\n") and "Code: `services/orders/pricing/**`" in element
    lines = element.splitlines()
    memories = [line for line in lines if line.startswith("- [")]
    assert memories and "**VERIFY**" in memories[0] and any("Tax rounding" in line for line in memories)
    by_name = read(session, "archmem://element/PricingEngine")
    assert by_name == element


def test_an_unknown_memory_or_element_is_invalid_params(session: Connected):
    for uri, says in [("archmem://memory/m-nope", "unknown memory 'm-nope'"),
                      ("archmem://element/PricingEngin", "did you mean 'PricingEngine'")]:
        with pytest.raises(MCPError) as failed:
            session.run(session.client.read_resource(uri))
        assert failed.value.error.code == -32602 and says in failed.value.error.message
    assert read(session, "archmem://map")  # and the server goes on


def test_ids_complete_from_a_prefix(session: Connected):
    memory = ResourceTemplateReference(type="ref/resource", uri="archmem://memory/{id}")
    assert "m-prc-tax-rounding" in complete(session, memory, "id", "m-prc")
    assert complete(session, memory, "id", "tax ROUND")[0] == "m-prc-tax-rounding"  # by title, any case
    assert complete(session, memory, "id", "zzz") == []
    element = ResourceTemplateReference(type="ref/resource", uri="archmem://element/{id}")
    assert complete(session, element, "id", "shop.orders.p") == ["shop.orders.pricing"]
    assert complete(session, element, "id", "pricing") == ["shop.orders.pricing"]  # by name or last id part
    prompt = PromptReference(type="ref/prompt", name="start_task")
    assert complete(session, prompt, "elements", "shop.gateway, Pricing") == ["shop.gateway, shop.orders.pricing"]
    assert complete(session, prompt, "task", "x") == []  # a task is free text


def test_the_prompt_takes_elements(session: Connected):
    message = session.run(session.client.get_prompt("start_task", {"task": "change rounding",
                                                                  "elements": "PricingEngine"}))
    assert "Tax is rounded half up once" in message.messages[0].content.text


def test_show_memory_reads_one_memory_by_id_or_title(session: Connected):
    by_title = session.ok("show_memory", {"memory": "Tax rounding"})
    assert by_title["id"] == "m-prc-tax-rounding" and by_title["verify"] is True
    assert [h["status"] for h in by_title["history"]] == ["superseded", "active"]
    assert by_title["path"].endswith(".md") and by_title["content"].startswith("Tax is rounded")
    text = session.call("show_memory", {"memory": "m-prc-tax-rounding"}).content[0].text
    assert text.startswith("[CONVENTION] Tax rounding (m-prc-tax-rounding, active; shop.orders.pricing)")
    assert "VERIFY: " in text
    assert "unknown memory" in error_text(session.call("show_memory", {"memory": "no such memory"}))

"""The conformance corpus: Structurizr's own DSL test inputs, with expected outcomes.

EXPECTATIONS.json (beside the inputs) says, per file, whether the reference parser
accepts it (and with how many of each kind of element), rejects it (with which key
phrase, at which line), or needs what archmem never does (JVM code, the network).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from archmem.errors import ArchmemError, ModelError, UnsupportedFeatureError
from archmem.model.dsl import parse_dsl
from archmem.model.structurizr_json import parse_structurizr_json
from archmem.model.types import ArchitectureModel

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "c4-corpus"
DSL = CORPUS / "structurizr-dsl"
JSON = CORPUS / "structurizr-json"
COUNTED = ("people", "softwareSystems", "containers", "components", "customElements", "decisions", "deploymentNodes")


def _cases() -> list[dict[str, Any]]:
    path = DSL / "EXPECTATIONS.json"
    if not path.is_file():
        return []
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


CASES = _cases()
pytestmark = pytest.mark.skipif(not CASES, reason=f"the conformance corpus is not at {DSL}")


def _parse(case: dict[str, Any]) -> ArchitectureModel:
    encoding = "iso-8859-1" if "ISO-8859-1" in case.get("note", "") else None
    return parse_dsl(DSL / case["file"], env={}, encoding=encoding)


def _check_consistent(model: ArchitectureModel) -> None:
    """Whatever the counts, a parsed model must hang together."""
    ids = [e.id for e in model.elements]
    deployment_ids = [d.id for d in model.deployment]
    assert len(set(ids)) == len(ids), "element ids are unique"
    assert len(set(deployment_ids)) == len(deployment_ids), "deployment ids are unique"
    known = set(ids) | set(deployment_ids)
    for element in model.elements:
        assert element.parent is None or element.parent in ids
        assert element.canonical_name
        assert element.location is not None and element.location.file in model.files
        assert element.location.end_line is not None and element.location.end_line >= element.location.line
    for relationship in model.relationships:
        assert relationship.source in known and relationship.destination in known
    for node in model.deployment:
        assert node.parent is None or node.parent in deployment_ids
        assert node.instance_of is None or node.instance_of in ids


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] == "ok"], ids=lambda c: c["file"])
def test_ok_cases_parse_with_the_expected_counts(case: dict[str, Any]) -> None:
    model = _parse(case)
    counts = model.counts()
    got = {key: counts[key] for key in COUNTED}
    got["relationships_explicit"] = len(model.relationships)
    assert got == case["counts"]
    _check_consistent(model)


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] == "error"], ids=lambda c: c["file"])
def test_error_cases_fail_at_the_expected_line(case: dict[str, Any]) -> None:
    with pytest.raises(ModelError) as caught:
        _parse(case)
    error = caught.value
    assert case["error_contains"] in error.message
    assert error.line == case["error_line"]
    assert error.file is not None and Path(error.file).is_file()
    assert error.column is not None and error.column >= 1


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] == "unsupported"], ids=lambda c: c["file"])
def test_unsupported_cases_are_refused_or_warned_about(case: dict[str, Any]) -> None:
    try:
        model = _parse(case)
    except UnsupportedFeatureError as error:
        assert error.line is not None and error.file is not None
        assert "never" in error.message
    except ArchmemError as error:  # pragma: no cover - a clear failure message
        pytest.fail(f"expected UnsupportedFeatureError, got {type(error).__name__}: {error}")
    else:
        assert model.warnings, "parsed without saying what was not done"
        assert any("never" in warning for warning in model.warnings)


def test_every_case_is_covered() -> None:
    assert len(CASES) == 97
    assert {c["expect"] for c in CASES} == {"ok", "error", "unsupported"}


# ---- facts beyond the counts -----------------------------------------------------------


def _model(name: str, **kwargs: Any) -> ArchitectureModel:
    return parse_dsl(DSL / name, env={}, **kwargs)


def test_fact_hierarchical_lookup_prefers_the_nearest_element() -> None:
    model = _model("hierarchical-identifiers.dsl")
    assert [(r.source, r.destination) for r in model.relationships] == [("b.c.d", "b.c.a")]


def test_fact_groups_nest() -> None:
    groups = {e.name: e.group for e in _model("groups-nested.dsl").elements}
    assert groups["A"] == "Organisation/Department A"
    assert groups["A API"] == "Capability 1/Service A"
    assert groups["API Endpoint"] == "a-api.jar/API Layer"
    assert groups["C"] == "Organisation"


def test_fact_archetypes_extend_each_other() -> None:
    model = _model("archetypes-for-extension.dsl")
    b = model.get("b")
    assert b is not None and b.tags == ["Default Tag", "External Software System"]
    relationship = model.relationships[0]
    assert (relationship.description, relationship.technology) == ("Makes API calls to", "HTTPS")
    assert relationship.tags == ["Default Tag", "Synchronous", "HTTPS"]
    defaults = _model("archetypes-for-defaults.dsl")
    a = defaults.get("a")
    assert a is not None and a.properties == {"Default Property Name": "Default Property Value"}
    assert a.perspectives == {"Default Perspective Name": "Default Perspective Description"}


def test_fact_find_element_merges_properties() -> None:
    component = _model("find-element-hierarchical.dsl").get("a.b.c")
    assert component is not None
    assert component.properties == {"Name1": "Value1", "Name2": "Value2", "Name3": "Value3"}


def test_fact_text_and_encodings() -> None:
    assert _model("multi-line.dsl").elements[0].name == "Software System"
    assert _model("utf8.dsl").elements[0].name == "你好 Usér \U0001f642"
    assert _model("iso-8859.dsl", encoding="iso-8859-1").elements[0].name == "Namé"
    assert _model("constants-and-variables-from-workspace-extension-child.dsl").elements[0].description == "Description"


def test_fact_view_keys_and_properties() -> None:
    assert _model("views-without-keys.dsl").views == [
        "SystemLandscape-001",
        "SystemLandscape-002",
        "SystemLandscape-003",
    ]
    assert _model("workspace-properties.dsl").properties == {"structurizr.dslEditor": "false"}


def test_fact_decisions_by_format_and_element() -> None:
    model = _model("decisions/workspace.dsl")
    by_element: dict[str | None, int] = {}
    for decision in model.decisions:
        by_element[decision.element] = by_element.get(decision.element, 0) + 1
    assert sorted(by_element.values()) == [4, 10, 10, 19]
    assert any("ExampleDecisionImporter" in warning for warning in model.warnings)


def test_fact_included_files_are_listed() -> None:
    model = _model("big-bank-plc/internet-banking-system.dsl")
    names = sorted(Path(f).name for f in model.files)
    assert names == [
        "details.dsl",
        "internet-banking-system.dsl",
        "people-and-software-systems.dsl",
        "styles-people.dsl",
    ]
    container = model.find("Single-Page Application")
    assert container.location is not None and container.location.file.endswith("details.dsl")


# ---- Structurizr JSON examples ------------------------------------------------------------


def _json_counts(data: dict[str, Any]) -> dict[str, int]:
    model = data.get("model", {})
    counts = {"people": len(model.get("people", [])), "softwareSystems": len(model.get("softwareSystems", []))}
    counts["containers"] = sum(len(s.get("containers", [])) for s in model.get("softwareSystems", []))
    counts["components"] = sum(
        len(c.get("components", [])) for s in model.get("softwareSystems", []) for c in s.get("containers", [])
    )
    relationships = 0
    nodes = 0

    def visit(item: dict[str, Any]) -> None:
        nonlocal relationships
        relationships += sum(1 for r in item.get("relationships", []) if not r.get("linkedRelationshipId"))

    def walk_node(node: dict[str, Any]) -> None:
        nonlocal nodes
        nodes += 1
        visit(node)
        for key in ("infrastructureNodes", "softwareSystemInstances", "containerInstances"):
            for item in node.get(key, []):
                visit(item)
        for child in node.get("children", []):
            walk_node(child)

    for person in model.get("people", []):
        visit(person)
    for system in model.get("softwareSystems", []):
        visit(system)
        for container in system.get("containers", []):
            visit(container)
            for component in container.get("components", []):
                visit(component)
    for node in model.get("deploymentNodes", []):
        walk_node(node)
    counts["relationships"] = relationships
    counts["deploymentNodes"] = nodes
    return counts


@pytest.mark.parametrize("path", sorted(JSON.glob("examples/*.json")) if JSON.is_dir() else [], ids=lambda p: p.name)
def test_structurizr_json_examples(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    model = parse_structurizr_json(path)
    counts = model.counts()
    expected = _json_counts(data)
    assert {k: counts[k] for k in expected} == expected
    _check_consistent(model)

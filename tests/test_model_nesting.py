"""Issue 17, item 4: deep nesting costs memory and time linear in depth, and beyond the
nesting limit it is a clear error at file:line:col, never RecursionError or MemoryError.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import archmem.model.dsl.parser as dsl_parser
from archmem.cli import cli
from archmem.errors import ModelError, ModelSyntaxError
from archmem.model.dsl import parse_dsl
from archmem.model.limits import MAX_DOCUMENT_DEPTH, MAX_FILE_DEPTH, MAX_NESTING
from archmem.model.structurizr_json import parse_structurizr_json
from archmem.model.yaml_model import parse_yaml_model

# (lines that open the outer blocks, the line that opens one more level, the innermost statement)
DSL_NESTINGS = {
    "groups in the model": (["model {"], 'group "G" {', 'p = person "P"'),
    "groups in a software system": (['model {', 's = softwareSystem "S" {'], 'group "G" {', 'c = container "C"'),
    "groups in a container": (
        ['model {', 's = softwareSystem "S" {', 'c = container "C" {'], 'group "G" {', 'x = component "X"'
    ),
    "deployment nodes": (
        ['model {', 'deploymentEnvironment "Live" {'], 'deploymentNode "N" {', 'infrastructureNode "I"'
    ),
    "groups in a deployment environment": (
        ['model {', 'deploymentEnvironment "Live" {'], 'group "G" {', 'deploymentNode "N"'
    ),
    "blocks in configuration": (["configuration {"], "x {", "y z"),
    "blocks in a view's styles": (["views {", "styles {"], "element Person {", "color #ffffff"),
}


def nested_dsl(kind: str, depth: int) -> tuple[str, int]:
    """A workspace with ``depth`` levels of one nestable block, and the line of the first
    block the nesting limit refuses (0 when none is refused)."""
    outer, opener, inner = DSL_NESTINGS[kind]
    lines = ["workspace {", *outer, *[opener] * depth, inner, *["}"] * (depth + len(outer) + 1)]
    already_open = 1 + len(outer)
    refused = MAX_NESTING - already_open + 1  # the level that would make the stack too deep
    return "\n".join(lines) + "\n", (already_open + refused if depth >= refused else 0)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def assert_nesting_error(error: ModelError, file: Path, line: int) -> None:
    assert isinstance(error, ModelSyntaxError)
    assert "nesting limit" in error.message, error.message
    assert error.file == str(file.resolve()) and error.line == line and error.column >= 1, str(error)


# ---- the reproduction: 50,000 nested groups (36 s and 8.1 GB before) ------------------------


def test_fifty_thousand_nested_groups_stop_at_the_nesting_limit(tmp_path: Path) -> None:
    text, line = nested_dsl("groups in the model", 50_000)
    path = write(tmp_path / "workspace.dsl", text)
    with pytest.raises(ModelError) as caught:
        parse_dsl(path, env={})
    assert_nesting_error(caught.value, path, line)


def test_the_cli_names_the_place_of_the_nesting_limit(tmp_path: Path) -> None:
    text, line = nested_dsl("groups in the model", 1_000)
    write(tmp_path / "workspace.dsl", text)
    result = CliRunner().invoke(cli, ["model", "--repo", str(tmp_path)])
    assert result.exit_code == 4, result.output
    where = f"{(tmp_path / 'workspace.dsl').resolve()}:{line}:1"
    assert f"{where}: blocks nest more than {MAX_NESTING} deep" in result.output
    assert "Traceback" not in result.output


def test_below_any_limit_group_nesting_costs_memory_linear_in_depth(tmp_path: Path, monkeypatch) -> None:
    """20,000 nested groups took 1.27 GB, 5,000 took 80 MB: every group kept its whole path."""
    monkeypatch.setattr(dsl_parser, "MAX_NESTING", 10**6)  # only to measure the cost itself
    text, _ = nested_dsl("groups in the model", 5_000)
    path = write(tmp_path / "workspace.dsl", text.replace('"G"', '"Group"'))
    tracemalloc.start()
    try:
        model = parse_dsl(path, env={})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert model.elements[0].group == "/".join(["Group"] * 5_000)
    assert peak < 20 * 2**20, f"{peak / 2**20:.0f} MB"  # 8 MB now, 80 MB before


def test_a_nested_group_still_gives_its_members_to_the_groups_around_it(tmp_path: Path) -> None:
    text = """\
workspace {
    model {
        outer = group "Outer" {
            a = person "A"
            inner = group "Inner" {
                b = person "B"
            }
            c = person "C"
        }
        d = softwareSystem "D"
        !elements outer {
            -> d "Uses"
        }
    }
}
"""
    model = parse_dsl(write(tmp_path / "workspace.dsl", text), env={})
    assert [(r.source, r.destination) for r in model.relationships] == [("a", "d"), ("b", "d"), ("c", "d")]
    assert model.get("b").group == "Outer/Inner" and model.get("c").group == "Outer"


# ---- every nestable block, any depth --------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(DSL_NESTINGS))
def test_each_nestable_block_parses_up_to_the_limit_and_is_refused_beyond(tmp_path: Path, kind: str) -> None:
    deepest = MAX_NESTING - 1 - len(DSL_NESTINGS[kind][0])
    text, line = nested_dsl(kind, deepest)
    assert line == 0
    parse_dsl(write(tmp_path / "ok.dsl", text), env={})
    text, line = nested_dsl(kind, deepest + 1)
    path = write(tmp_path / "deep.dsl", text)
    with pytest.raises(ModelError) as caught:
        parse_dsl(path, env={})
    assert_nesting_error(caught.value, path, line)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(DSL_NESTINGS)), depth=st.integers(min_value=1, max_value=3 * MAX_NESTING))
def test_any_nesting_depth_parses_or_gives_the_nesting_error(tmp_path: Path, kind: str, depth: int) -> None:
    text, line = nested_dsl(kind, depth)
    path = write(tmp_path / "workspace.dsl", text)
    if line == 0:
        parse_dsl(path, env={})
    else:
        with pytest.raises(ModelError) as caught:
            parse_dsl(path, env={})
        assert_nesting_error(caught.value, path, line)


# ---- files that include or extend each other ----------------------------------------------------


@pytest.mark.parametrize("how", ["include", "extends"])
def test_a_long_chain_of_files_is_refused_at_the_limit(tmp_path: Path, how: str) -> None:
    count = MAX_FILE_DEPTH + 10
    for i in range(1, count):
        body = f"!include part{i + 1}.dsl\n" if how == "include" else f"workspace extends part{i + 1}.dsl {{\n}}\n"
        write(tmp_path / f"part{i}.dsl", body)
    last = 'p = person "P"\n' if how == "include" else "workspace {\n}\n"
    write(tmp_path / f"part{count}.dsl", last)
    head = "workspace {\n    model {\n        !include part1.dsl\n    }\n}\n"
    model = write(tmp_path / "workspace.dsl", head if how == "include" else "workspace extends part1.dsl {\n}\n")
    with pytest.raises(ModelSyntaxError) as caught:
        parse_dsl(model, env={})
    error = caught.value
    assert "nesting limit" in error.message and Path(error.file or "").name.startswith("part")
    assert error.line == 1 and error.column == 1


def test_a_long_chain_of_element_prefixes_is_no_recursion(tmp_path: Path) -> None:
    expression = "element==" * 2_000 + "a"  # recursion stopped at Python's limit of 1,000
    text = f'workspace {{\n model {{\n  a = person "A"\n  !elements "{expression}" {{\n  }}\n }}\n}}\n'
    model = parse_dsl(write(tmp_path / "workspace.dsl", text), env={})
    assert [e.id for e in model.elements] == ["a"]


# ---- YAML and Structurizr JSON ------------------------------------------------------------------


def nested_yaml(depth: int) -> str:
    lines, indent = ["elements:"], ""
    for i in range(depth):
        lines += [f"{indent}  - id: e{i}", f"{indent}    kind: thing", f"{indent}    elements:"]
        indent += "    "
    lines.append(f"{indent}  - {{id: last, kind: thing}}")
    return "\n".join(lines) + "\n"


def test_yaml_elements_nest_up_to_the_limit(tmp_path: Path) -> None:
    model = parse_yaml_model(write(tmp_path / "archmem.yaml", nested_yaml(MAX_NESTING - 1)))
    assert len(model.elements) == MAX_NESTING
    assert max(depth for depth, _ in model.walk()) == MAX_NESTING - 1
    path = write(tmp_path / "deep.yaml", nested_yaml(MAX_NESTING))
    with pytest.raises(ModelError) as caught:
        parse_yaml_model(path)
    assert_nesting_error(caught.value, path, 3 * MAX_NESTING + 2)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(depth=st.integers(min_value=1, max_value=3 * MAX_DOCUMENT_DEPTH), flow=st.sampled_from(["[", "{a: "]))
def test_any_yaml_nesting_is_a_model_or_a_model_error(tmp_path: Path, depth: int, flow: str) -> None:
    closing = "]" if flow == "[" else "}"
    path = write(tmp_path / "archmem.yaml", "name: " + flow * depth + "x" + closing * depth + "\n")
    try:
        parse_yaml_model(path)
    except ModelError as error:
        if depth > MAX_DOCUMENT_DEPTH - 1:
            assert_nesting_error(error, path, 1)


def test_deeply_nested_json_is_a_clear_error(tmp_path: Path) -> None:
    path = write(tmp_path / "workspace.json", '{"model": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ModelError) as caught:
        parse_structurizr_json(path)
    assert_nesting_error(caught.value, path, 1)


def test_json_deployment_nodes_nest_up_to_the_limit(tmp_path: Path) -> None:
    def nodes(depth: int) -> dict:
        node: dict = {"id": f"n{depth}", "name": "N", "environment": "Live"}
        for i in range(depth - 1, 0, -1):
            node = {"id": f"n{i}", "name": "N", "environment": "Live", "children": [node]}
        return node

    ok = write(tmp_path / "ok.json", json.dumps({"model": {"deploymentNodes": [nodes(MAX_NESTING)]}}))
    assert len(parse_structurizr_json(ok).deployment) == MAX_NESTING
    deep = write(tmp_path / "deep.json", json.dumps({"model": {"deploymentNodes": [nodes(MAX_NESTING + 1)]}}))
    with pytest.raises(ModelError) as caught:
        parse_structurizr_json(deep)
    assert "nesting limit" in caught.value.message

"""`archmem model` on every case of the Structurizr conformance corpus, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli

from .conftest import CORPUS

DSL = CORPUS / "structurizr-dsl"
CASES = json.loads((DSL / "EXPECTATIONS.json").read_text())["cases"] if (DSL / "EXPECTATIONS.json").exists() else []


@pytest.mark.skipif(not CASES, reason="the c4-corpus is not beside this checkout (../shared/c4-corpus)")
@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_archmem_model_on_each_corpus_case(case: dict, tmp_path: Path):
    model = DSL / case["file"]
    result = CliRunner().invoke(
        cli, ["model", "--repo", str(tmp_path), "--model", str(model), "--json"], catch_exceptions=False
    )
    if case["expect"] == "ok":
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        counts = case["counts"]
        kinds = [e["kind"] for e in data["elements"]]
        assert kinds.count("person") == counts["people"]
        assert kinds.count("softwareSystem") == counts["softwareSystems"]
        assert kinds.count("container") == counts["containers"]
        assert kinds.count("component") == counts["components"]
        assert len(data["relationships"]) == counts["relationships_explicit"]
        assert len(data["decisions"]) == counts["decisions"]
    elif case["expect"] == "error":
        assert result.exit_code == 4
        error = json.loads(result.stderr)
        assert case["error_contains"] in error["message"]
        assert error["line"] == case["error_line"]
        assert "Traceback" not in result.output
    else:
        # refused as unsupported, or parsed with a warning where the rest still holds
        if result.exit_code == 0:
            assert json.loads(result.output)["warnings"]
        else:
            assert result.exit_code == 4
            assert json.loads(result.stderr)["error"] == "unsupported"

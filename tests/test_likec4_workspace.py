"""Everything archmem does works on a LikeC4 model: a small real repository whose model is
two ``.c4`` files (paths from ``metadata`` and from ``[paths]``), one memory, and a branch
that rewrites the router. Model, drift, recall, briefing, map, paths suggest, conformance
and the pull request review all read the LikeC4 elements by their FQNs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from archmem.cli import cli
from archmem.model.description_lines import described_text, is_mapping_line
from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, git, lines, write

SPEC = "specification {\n  element system\n  element service\n}\n"
MODEL = """\
model {
  shop = system 'Shop' {
    api = service 'ApiGateway' 'Routes requests' {
      metadata { archmem_paths 'services/api/**' }
      -> orders 'Sends orders to' 'HTTP'
    }
    orders = service 'Orders' {
      metadata { archmem_paths 'services/orders/**' }
    }
    legacy = service 'Legacy'
  }
}
"""
ROUTER = "services/api/router.py"


def am(repo: Path, *args: str) -> Result:
    base = {"GITHUB_EVENT_PATH": "", "GITHUB_STEP_SUMMARY": "", "GITHUB_OUTPUT": "", "GITHUB_TOKEN": "",
            "GITHUB_REPOSITORY": "", "GITHUB_API_URL": "", "GITHUB_SERVER_URL": ""}
    result = CliRunner().invoke(cli, [*args, "--repo", str(repo)], env=base, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def likec4_repo(tmp_path: Path) -> Path:
    """main: the model, code and a pitfall on shop.api; HEAD: the branch `router`."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {
        "architecture/spec.c4": SPEC, "architecture/model.c4": MODEL,
        "archmem.toml": '[paths]\n"shop.legacy" = ["legacy/**"]\n',
        "services/__init__.py": "", "services/api/__init__.py": "", "services/orders/__init__.py": "",
        "legacy/__init__.py": "", ROUTER: "from services.orders import app\n" + lines(40, "# route"),
        "services/orders/app.py": "import legacy.old\n", "legacy/old.py": "y = 1\n",
    })
    commit(root, "initial", "2026-01-01T00:00:00Z")
    clock = FrozenClock()
    clock.now = clock.now.fromisoformat("2026-01-10T09:00:00+00:00")
    with Workspace.open(root, clock=clock, env={}) as ws:
        ws.remember("Routes are matched by prefix, longest first.", kind="pitfall", title="Prefix order",
                    elements=["shop.api"])
    commit(root, "team memory", "2026-01-10T12:00:00Z")
    git(root, "checkout", "-q", "-b", "router")
    (root / ROUTER).write_text("from services.orders import app\n" + lines(100, "# new route"))
    commit(root, "rewrite the router", "2026-02-01T12:00:00Z")
    return root


def test_every_command_reads_the_likec4_model(likec4_repo: Path) -> None:
    model = json.loads(am(likec4_repo, "model", "--json").output)
    assert model["format"] == "likec4" and model["model"] == "architecture"
    paths = {e["id"]: e["paths"] for e in model["elements"]}
    assert paths == {"shop": [], "shop.api": ["services/api/**"], "shop.orders": ["services/orders/**"],
                     "shop.legacy": ["legacy/**"]}

    drift = json.loads(am(likec4_repo, "drift", "--json").output)
    status = {e["id"]: e["status"] for e in drift["elements"]}
    assert status["shop.api"] == "drifted" and status["shop.orders"] == "in_sync"

    recall = json.loads(am(likec4_repo, "recall", "change the routes of the api gateway", "--json").output)
    assert [m["title"] for m in recall["results"]] == ["Prefix order"]
    assert recall["results"][0]["elements"] == ["shop.api"]

    briefing = am(likec4_repo, "brief", "change the routes of the api gateway").output
    assert "**ApiGateway** (container): Routes requests" in briefing and '"Prefix order"' in briefing

    knowledge = json.loads(am(likec4_repo, "map", "--format", "json").output)
    assert knowledge["documented"] == 1 and knowledge["total"] == 4

    suggest = am(likec4_repo, "paths", "suggest", "--json")
    assert json.loads(suggest.output) is not None

    conformance = json.loads(am(likec4_repo, "conformance", "--json").output)
    undeclared = [(d["source"], d["target"]) for d in conformance["undeclared"]]
    assert undeclared == [("shop.orders", "shop.legacy")]

    review = json.loads(am(likec4_repo, "pr", "--base", "main", "--format", "json").output)
    touched = {e["id"]: e for e in review["elements"]}
    assert set(touched) == {"shop", "shop.api"} and touched["shop.api"]["files"] == [ROUTER]
    assert [v["title"] for v in review["verify"]] == ["Prefix order"]


def test_model_takes_a_likec4_folder_or_file(likec4_repo: Path) -> None:
    folder = json.loads(am(likec4_repo, "model", "--json", "--model", str(likec4_repo / "architecture")).output)
    assert [e["id"] for e in folder["elements"]] == ["shop", "shop.api", "shop.orders", "shop.legacy"]
    one = json.loads(am(likec4_repo, "model", "--json", "--model", str(likec4_repo / "architecture/model.c4")).output)
    assert [e["kind"] for e in one["elements"]] == ["softwareSystem", "container", "container", "container"]
    assert any("is not in the specification" in w for w in one["warnings"])


def test_likec4_metadata_that_maps_code_does_not_describe_an_element() -> None:
    for line in ("  metadata { archmem_paths 'services/api/**' }", "    archmem_paths 'a/**, b/**'",
                 "    archmem_paths: ['a/**']", "  metadata {"):
        assert described_text(line) == "", line
    assert is_mapping_line("    archmem_paths 'a/**'")
    assert described_text("    owner 'team-a'") == "owner 'team-a'"


def test_the_kind_mapping_is_configured_in_archmem_toml(likec4_repo: Path) -> None:
    (likec4_repo / "archmem.toml").write_text('[likec4]\nkinds = { service = "component", system = "person" }\n')
    model = json.loads(am(likec4_repo, "model", "--json").output)
    assert {e["id"]: e["kind"] for e in model["elements"]} == {
        "shop": "person", "shop.api": "component", "shop.orders": "component", "shop.legacy": "component"}
    (likec4_repo / "archmem.toml").write_text('[likec4]\nkinds = { service = "microservice" }\n')
    result = CliRunner().invoke(cli, ["model", "--json", "--repo", str(likec4_repo)])
    assert result.exit_code == 3 and "likec4.kinds.service" in result.output

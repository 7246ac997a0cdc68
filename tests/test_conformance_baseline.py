"""The conformance baseline and test code (issue 26, items 3 and 4): a test file's
imports are no dependency; ``--update-baseline`` freezes today's findings in a committed
file, later runs fail only on new ones and count the frozen ones, every format leaves the
same findings out, fixed entries drop out on the next update, and ``check`` reports a
baseline that no longer holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli

from .conftest import git

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (dev extra)")
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
BASELINE = ".archmem/conformance-baseline.json"
MODEL = """\
name: Shop
elements:
  - id: shop
    kind: softwareSystem
    name: Shop
    elements:
      - {id: api, kind: container, name: Api, paths: [src/shop/api/**]}
      - {id: db, kind: container, name: Db, paths: [src/shop/db/**]}
      - {id: cache, kind: container, name: Cache, paths: [src/shop/cache/**]}
relationships:
  - {source: api, destination: cache, description: Caches with}
"""
API = '"""The API."""\nimport json\n\nfrom shop.db.tables import ORDERS\n'


def small_shop(git_repo) -> Path:
    """One undeclared import (api → db at api.py:4), and a test file of the API that
    imports the database and the cache."""
    return git_repo({
        "archmem.yaml": MODEL, "src/shop/__init__.py": "", "src/shop/api/__init__.py": "",
        "src/shop/db/__init__.py": "", "src/shop/db/tables.py": "ORDERS = 'orders'\n",
        "src/shop/cache/__init__.py": "", "src/shop/cache/store.py": "STORE = {}\n",
        "src/shop/api/api.py": API,
        "src/shop/api/routes.py": "from shop.cache.store import STORE\n",
        "src/shop/api/tests/test_api.py": "from shop.db.tables import ORDERS\nfrom shop.api import api\n",
        "src/shop/api/test_routes.py": "from shop.db import tables\n",
    })


def run(root: Path, *args: str):
    return CliRunner().invoke(cli, [*args, "--repo", str(root)], catch_exceptions=False)


def sarif_results(root: Path, *args: str) -> tuple[dict, list[dict]]:
    result = run(root, "conformance", "--format", "sarif", *args)
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    return log, log["runs"][0]["results"]


def where(result: dict) -> tuple[str, int]:
    place = result["locations"][0]["physicalLocation"]
    return place["artifactLocation"]["uri"], place["region"]["startLine"]


def test_test_files_import_nothing_the_architecture_counts(git_repo):
    root = small_shop(git_repo)
    _log, results = sarif_results(root)
    assert [where(r) for r in results] == [("src/shop/api/api.py", 4)]
    data = json.loads(run(root, "conformance", "--json").output)
    assert data["imports"]["tests"] == 2 and data["imports"]["files"] == 8
    assert "Left out: 2 test files" in run(root, "conformance").output


def test_test_code_globs_are_configurable(git_repo):
    root = small_shop(git_repo)
    (root / "archmem.toml").write_text('[conformance]\ntest_code = ["**/tests/**"]\n', encoding="utf-8")
    _, results = sarif_results(root)
    assert sorted(where(r) for r in results) == [("src/shop/api/api.py", 4), ("src/shop/api/test_routes.py", 1)]


def test_the_issues_check_baseline_then_a_new_violation(git_repo):
    root = small_shop(git_repo)
    assert run(root, "conformance", "--fail-on", "any").exit_code == 1
    written = run(root, "conformance", "--update-baseline")
    assert written.exit_code == 0 and f"Wrote {BASELINE}: 1 finding frozen" in written.output
    frozen = json.loads((root / BASELINE).read_text(encoding="utf-8"))["frozen"]
    assert frozen == [{"kind": "undeclared", "from": "api", "to": "db", "file": "src/shop/api/api.py",
                       "import": "shop.db.tables", "reaches": "src/shop/db/tables.py"}]
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "freeze the conformance findings")

    passed = run(root, "conformance", "--fail-on", "any")
    assert passed.exit_code == 0, passed.output
    assert "1 finding frozen by the baseline" in passed.output and "api.py:4" not in passed.output
    log, results = sarif_results(root)
    assert results == [] and log["runs"][0]["properties"] == {"frozenByBaseline": 1}
    assert json.loads(run(root, "conformance", "--format", "codequality").stdout) == []

    # lines above the frozen import move it, it stays frozen
    (root / "src/shop/api/api.py").write_text('"""The API."""\n\nimport os\n' + API[15:], encoding="utf-8")
    assert run(root, "conformance", "--fail-on", "any").exit_code == 0

    (root / "src/shop/api/orders.py").write_text("import json\nfrom shop.db.tables import ORDERS\n", encoding="utf-8")
    git(root, "add", "-A")
    failed = run(root, "conformance", "--fail-on", "any")
    assert failed.exit_code == 1
    assert "src/shop/api/orders.py:2" in failed.output and "src/shop/api/api.py" not in failed.output
    _, results = sarif_results(root)
    assert [where(r) for r in results] == [("src/shop/api/orders.py", 2)]
    everything = run(root, "conformance", "--no-baseline", "--json")
    sites = {s["file"] for d in json.loads(everything.output)["undeclared"] for s in d["sites"]}
    assert sites == {"src/shop/api/api.py", "src/shop/api/orders.py"}


def test_fixed_entries_are_said_and_dropped_on_the_next_update_and_check_reports_them(git_repo):
    root = small_shop(git_repo)
    run(root, "conformance", "--update-baseline")
    (root / "src/shop/api/api.py").write_text('"""The API."""\nimport json\n', encoding="utf-8")
    out = run(root, "conformance").output
    assert "1 frozen finding fixed since" in out and "--update-baseline` drops them" in out

    check = run(root, "check", "--json")
    [finding] = [f for f in json.loads(check.output)["problems"] if f["rule"] == "stale-baseline"]
    assert finding["path"] == BASELINE and finding["line"] == 5
    assert "src/shop/api/api.py no longer imports shop.db.tables" in finding["message"]

    updated = run(root, "conformance", "--update-baseline", "--json")
    assert json.loads(updated.output)["dropped"][0]["file"] == "src/shop/api/api.py"
    assert json.loads((root / BASELINE).read_text(encoding="utf-8"))["frozen"] == []
    assert not [f for f in json.loads(run(root, "check", "--json").output)["problems"]
                if f["rule"] == "stale-baseline"]


def test_a_broken_baseline_is_named_at_its_line_without_a_traceback(git_repo):
    root = small_shop(git_repo)
    (root / ".archmem").mkdir()
    (root / BASELINE).write_text('{\n  "version": 1,\n  "frozen": [\n    {"kind": "undeclared",}\n  ]\n}\n',
                                 encoding="utf-8")
    result = CliRunner().invoke(cli, ["conformance", "--repo", str(root)])
    assert result.exit_code == 8, result.output
    assert f"{BASELINE}:4:" in result.output and "Traceback" not in result.output
    check = json.loads(run(root, "check", "--json").output)
    [finding] = [f for f in check["problems"] if f["rule"] == "stale-baseline"]
    assert (finding["line"], finding["severity"]) == (4, "error")


def test_no_dependency_observed_is_not_measured(git_repo):
    model = MODEL.replace("paths: [src/shop/db/**]", "paths: [db/**]")
    root = git_repo({"archmem.yaml": model, "src/shop/api/api.py": "import json\n", "db/schema.sql": "select 1;\n",
                     "src/shop/cache/store.py": "STORE = {}\n"})
    out = run(root, "conformance").output
    assert "Not measured: no dependency between elements could be observed" in out
    assert "has the model's shape" not in out
    data = json.loads(run(root, "conformance", "--json").output)
    assert data["measured"] is False and data["clean"] is True


def test_generated_code_is_neither_unowned_nor_a_source(git_repo):
    root = git_repo({
        "archmem.yaml": MODEL, "src/shop/__init__.py": "", "src/shop/api/__init__.py": "",
        "src/shop/db/__init__.py": "", "src/shop/db/tables.py": "ORDERS = 'orders'\n",
        "src/shop/api/orders_pb2.py": "# Generated by the protocol buffer compiler.  DO NOT EDIT!\n"
                                      "from shop.db.tables import ORDERS\n",
        "src/shop/genproto/demo_pb2.py": "X = 1\n",
        "src/shop/api/api.py": "from shop.genproto import demo_pb2\n",
    })
    data = json.loads(run(root, "conformance", "--json").output)
    assert data["undeclared"] == [] and data["imports"]["generated"] == 2
    assert data["imports"]["to_unowned"] == 0 and data["warnings"] == []


def test_check_names_a_frozen_element_the_model_lost(git_repo):
    root = small_shop(git_repo)
    run(root, "conformance", "--update-baseline")
    model = MODEL.replace("      - {id: db, kind: container, name: Db, paths: [src/shop/db/**]}\n", "")
    (root / "archmem.yaml").write_text(model, encoding="utf-8")
    [finding] = [f for f in json.loads(run(root, "check", "--json").output)["problems"]
                 if f["rule"] == "stale-baseline"]
    assert "the model has no element 'db' any more" in finding["message"] and finding["severity"] == "warning"

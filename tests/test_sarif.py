"""SARIF 2.1.0 and GitLab Code Quality from ``conformance``, ``drift`` and ``check``
(issue 26, items 1 and 2a): valid against the official SARIF 2.1.0 schema (vendored in
tests/data, with its source), one rule per kind of finding, each result at its file and
line, and fingerprints that stay put while the code around a finding moves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli

from .conformance_repos import UNDECLARED_MARK, shop
from .conftest import DRIFT_MODEL, commit, git, write
from .test_conformance import RULES, line_of
from .test_pr import ROUTER, change  # noqa: F401  (the pull request fixture)

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (dev extra)")
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
CHECKOUT = "orders/service/checkout.py"


def run(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*args, "--repo", str(root)], catch_exceptions=False)
    return result.exit_code, result.stdout


def sarif(root: Path, *args: str, code: int = 0) -> dict:
    """The command's SARIF, checked against the official schema."""
    exit_code, out = run(root, *args, "--format", "sarif")
    assert exit_code == code, out
    log = json.loads(out)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    return log


def results(log: dict, rule: str | None = None) -> list[dict]:
    found = log["runs"][0]["results"]
    return [r for r in found if rule is None or r["ruleId"] == rule]


def where(result: dict) -> tuple[str, int]:
    place = result["locations"][0]["physicalLocation"]
    return place["artifactLocation"]["uri"], place["region"]["startLine"]


def test_the_schema_refuses_what_is_not_sarif():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate({"version": "2.1.0", "runs": [{"results": []}]})  # no tool


def test_conformance_sarif_has_one_rule_per_kind_and_each_import_at_its_line(git_repo):
    root = git_repo({**shop("python"), "archmem.toml": RULES})
    log = sarif(root, "conformance")
    assert log["version"] == "2.1.0" and "sarif-schema-2.1.0.json" in log["$schema"]
    run_ = log["runs"][0]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "archmem" and run_["automationDetails"]["id"] == "archmem/conformance/"
    rules = {r["id"]: r for r in driver["rules"]}
    assert set(rules) == {"archmem/conformance/undeclared-dependency", "archmem/conformance/rule-violation",
                          "archmem/conformance/cycle"}
    for rule in rules.values():
        assert rule["shortDescription"]["text"] and rule["help"]["text"] and rule["name"]
    [undeclared] = [r for r in results(log, "archmem/conformance/undeclared-dependency") if where(r)[0] == CHECKOUT]
    assert where(undeclared) == (CHECKOUT, line_of(root, CHECKOUT, UNDECLARED_MARK))
    assert undeclared["level"] == "warning" and "OrderService → PaymentInternal" in undeclared["message"]["text"]
    assert driver["rules"][undeclared["ruleIndex"]]["id"] == undeclared["ruleId"]
    broken = results(log, "archmem/conformance/rule-violation")
    assert broken and all(r["level"] == "error" for r in broken)
    assert {where(r)[0] for r in broken} == {"audit/log.py", CHECKOUT}
    assert results(log, "archmem/conformance/cycle")
    prints = [r["partialFingerprints"]["archmemFinding/v1"] for r in results(log)]
    assert len(set(prints)) == len(prints)


def test_a_fingerprint_stays_when_lines_are_added_above_the_import(git_repo):
    root = git_repo(shop("python"))

    def fingerprints() -> dict[str, tuple[str, int]]:
        return {r["partialFingerprints"]["archmemFinding/v1"]: where(r)
                for r in results(sarif(root, "conformance"), "archmem/conformance/undeclared-dependency")}

    before = fingerprints()
    text = (root / CHECKOUT).read_text()
    (root / CHECKOUT).write_text('"""Checkout, now with a longer story."""\n\n\n' + text)
    after = fingerprints()
    assert set(after) == set(before)  # the same findings, known by the same fingerprints
    moved = [print_ for print_, place in before.items() if place[0] == CHECKOUT]
    assert moved and all(after[p][1] == before[p][1] + 3 for p in moved)  # at their new lines


def test_a_path_with_a_space_is_a_uri(git_repo):
    files = {name.replace("orders/service/", "orders/service/my "): text for name, text in shop("python").items()}
    root = git_repo(files)
    uris = {where(r)[0] for r in results(sarif(root, "conformance"))}
    assert "orders/service/my%20checkout.py" in uris


def test_drift_sarif_points_at_the_model_the_memory_file_and_the_changed_files(repo: Path, change):  # noqa: F811
    log = sarif(repo, "drift")
    assert log["runs"][0]["automationDetails"]["id"] == "archmem/drift/"
    assert {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]} == {
        "archmem/drift/drifted-element", "archmem/drift/missing-element", "archmem/drift/memory-to-verify"}
    [drifted] = [r for r in results(log, "archmem/drift/drifted-element") if "ApiGateway" in r["message"]["text"]]
    model_lines = (repo / "workspace.dsl").read_text().splitlines()
    assert where(drifted) == ("workspace.dsl", next(i for i, t in enumerate(model_lines, 1) if '"ApiGateway"' in t))
    assert ROUTER in [r["physicalLocation"]["artifactLocation"]["uri"] for r in drifted["relatedLocations"]]
    [verify] = results(log, "archmem/drift/memory-to-verify")
    assert where(verify)[0].startswith(".archmem/memories/prefix-order") and "Prefix order" in verify["message"]["text"]
    assert ROUTER in [r["physicalLocation"]["artifactLocation"]["uri"] for r in verify["relatedLocations"]]


def test_drift_sarif_without_commits_is_valid_and_empty(tmp_path: Path):
    root = tmp_path / "fresh"
    write(root, {"workspace.dsl": DRIFT_MODEL})
    git(root, "init", "-q")
    assert results(sarif(root, "drift")) == []


def test_check_sarif_keeps_its_exit_code_and_each_problem_at_line_and_column(repo: Path):
    write(repo, {".archmem/memories/broken.md": "---\nid: m-1\nkind: note\ntitle: [unclosed\ncreated: 2026-01-01\n"
                                                "---\n\nx\n"})
    commit(repo, "a broken memory file", "2026-01-02T00:00:00Z")
    log = sarif(repo, "check", code=2)
    [problem] = results(log)
    assert problem["ruleId"] == "archmem/check/schema" and problem["level"] == "error"
    region = problem["locations"][0]["physicalLocation"]["region"]
    assert (where(problem)[0], region["startLine"], region["startColumn"]) == (".archmem/memories/broken.md", 5, 8)
    assert "archmem/check/dangling-link" in {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}


@pytest.mark.parametrize("command", ["conformance", "drift", "check"])
def test_code_quality_has_gitlabs_fields(git_repo, command: str):
    root = git_repo({**shop("python"), "archmem.toml": RULES,
                     ".archmem/memories/broken.md": "---\nkind: note\ntitle: [unclosed\n---\nx\n"})
    (root / "orders/api/handlers.py").write_text("import requests\n" * 30)
    commit(root, "rewrite the handlers", "2026-02-01T00:00:00Z")
    _code, out = run(root, command, "--format", "codequality")
    issues = json.loads(out)
    assert isinstance(issues, list) and issues, out
    for issue in issues:
        assert {"description", "check_name", "fingerprint", "severity", "location"} <= set(issue)
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
        assert isinstance(issue["location"]["path"], str) and issue["location"]["lines"]["begin"] >= 1
        assert issue["check_name"].startswith(f"archmem/{command}/")
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_a_small_repository_with_one_undeclared_import(git_repo):
    """The issue's check: one undeclared import is one SARIF result at its file and line;
    drift and check of the same repository are valid SARIF too."""
    model = ("name: Shop\nelements:\n  - id: shop\n    kind: softwareSystem\n    name: Shop\n    elements:\n"
             "      - id: api\n        kind: container\n        name: Api\n        paths: [src/shop/api/**]\n"
             "      - id: db\n        kind: container\n        name: Db\n        paths: [src/shop/db/**]\n")
    root = git_repo({
        "archmem.yaml": model, "src/shop/__init__.py": "", "src/shop/api/__init__.py": "",
        "src/shop/db/__init__.py": "", "src/shop/db/tables.py": "ORDERS = 'orders'\n",
        "src/shop/api/api.py": '"""The API."""\nimport json\n\nfrom shop.db.tables import ORDERS\n',
    })
    [finding] = results(sarif(root, "conformance"))
    assert finding["ruleId"] == "archmem/conformance/undeclared-dependency"
    assert where(finding) == ("src/shop/api/api.py", 4)
    assert "Api → Db is not in the model" in finding["message"]["text"]
    assert results(sarif(root, "drift")) == [] and results(sarif(root, "check")) == []
    _code, out = run(root, "conformance", "--format", "codequality")
    [issue] = json.loads(out)
    assert issue["location"] == {"path": "src/shop/api/api.py", "lines": {"begin": 4}}
    assert issue["fingerprint"] == finding["partialFingerprints"]["archmemFinding/v1"]

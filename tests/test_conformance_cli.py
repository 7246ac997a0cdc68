"""``archmem conformance``: text, JSON, GitHub Actions output, and failing on request."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from archmem.cli import cli

from .conformance_repos import shop
from .test_conformance import RULES


def run(root: Path, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["conformance", *args, "--repo", str(root)], env=env, catch_exceptions=False)


def test_text_names_the_import_lines_and_exits_zero_unless_asked(git_repo):
    root = git_repo({**shop("python"), "archmem.toml": RULES})
    result = run(root)
    assert result.exit_code == 0, result.output
    assert "Dependencies the model does not draw (2)" in result.output
    assert "  OrderService → PaymentInternal  (shop.orders.service → shop.payments.internal, 1 import)" in result.output
    assert "    orders/service/checkout.py:5 imports payments/internal/ledger.py" in result.output
    assert "Rules broken (2)" in result.output and "audit only listens" in result.output
    assert "Audit → Orders → Payments → Audit" in result.output
    assert "Orders → Notifications: Publishes order events to" in result.output
    assert "The code leaves the model. 4 of 6 dependencies between elements are in the model." in result.output
    assert run(root, "--fail-on", "undeclared").exit_code == 1
    assert run(root, "--fail-on", "cycles").exit_code == 1
    assert run(root, "--fail-on", "any").exit_code == 1


def test_a_clean_repository_passes_every_fail_on(git_repo):
    files = shop("python")
    files["audit/log.py"] = "import json\n"
    files["orders/service/checkout.py"] = "from payments.api import client\n"
    root = git_repo(files)
    result = run(root, "--fail-on", "any")
    assert result.exit_code == 0, result.output
    assert "The code has the model's shape." in result.output


def test_json_is_the_report(git_repo):
    root = git_repo({**shop("go"), "archmem.toml": RULES})
    data = json.loads(run(root, "--json").output)
    assert data["clean"] is False
    assert data["counts"] == {"dependencies": 6, "undeclared": 2, "undeclared_sites": 2, "unevidenced": 1,
                              "cycles": 1, "violations": 2, "unresolved": 0, "files": 6, "frozen": 0, "ignored": 0}
    (ledger,) = [d for d in data["undeclared"] if d["target"] == "shop.payments.internal"]
    assert ledger["sites"] == [{"file": "orders/service/checkout.go", "line": 6,
                                "import": "example.com/shop/payments/internal", "target": "payments/internal/ledger.go"}]


def test_github_format_annotates_import_lines_and_writes_outputs_and_summary(git_repo, tmp_path: Path):
    root = git_repo({**shop("typescript"), "archmem.toml": RULES})
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    result = run(root, "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs)})
    assert result.exit_code == 0, result.output
    assert (
        "::warning file=orders/service/checkout.ts,line=4,title=archmem conformance::orders/service/checkout.ts:4 "
        "imports payments/internal/ledger.ts: OrderService → PaymentInternal is not in the model"
    ) in result.output
    assert "::error file=audit/log.ts,line=2,title=archmem conformance%3A rule::" in result.output
    assert "title=archmem conformance%3A cycle::" in result.output
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert values == {"element-dependencies": "6", "undeclared-dependencies": "2", "undeclared-imports": "2",
                      "rule-violations": "2", "cycles": "1", "unevidenced-relationships": "1",
                      "unresolved-imports": "0"}
    text = summary.read_text()
    assert "## archmem conformance: the code leaves the model" in text
    assert "| OrderService (`shop.orders.service`) | PaymentInternal (`shop.payments.internal`) | `orders/service/checkout.ts:4` |" in text

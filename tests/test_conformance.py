"""Conformance on generated repositories, one per language, with one model: a declared
dependency is fine, an undeclared one is reported at its import line, a relationship no
import shows is informational, a cycle is found, rules are checked, and a third-party
import is never an element dependency."""

from __future__ import annotations

from pathlib import Path

import pytest

from archmem.errors import ConfigError
from archmem.workspace import Workspace

from .conformance_repos import LANGUAGES, UNDECLARED_MARK, shop

RULES = """\
[conformance]
forbid = [{ from = "Audit", to = "shop.orders", reason = "audit only listens" }]
only = [{ to = "PaymentInternal", from = ["PaymentApi"] }]
"""


def open_shop(git_repo, language: str, extra: dict[str, str] | None = None) -> Workspace:
    root = git_repo({**shop(language), **(extra or {})})
    return Workspace.open(root, env={})


def line_of(root: Path, path: str, needle: str) -> int:
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    return next(i for i, text in enumerate(lines, start=1) if needle in text)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_code_against_the_model_in_every_language(git_repo, language: str):
    with open_shop(git_repo, language, {"archmem.toml": RULES}) as ws:
        report = ws.conformance()
        edges = {(d.source, d.target): d for d in report.dependencies}
        assert set(edges) == {
            ("shop.orders.api", "shop.orders.service"),
            ("shop.orders.service", "shop.payments.papi"),
            ("shop.orders.service", "shop.payments.internal"),
            ("shop.payments.papi", "shop.payments.internal"),
            ("shop.payments.internal", "shop.audit"),
            ("shop.audit", "shop.orders.api"),
        }, report.unresolved
        # declared, directly or through a container's relationship
        assert edges[("shop.orders.api", "shop.orders.service")].declared
        assert edges[("shop.payments.internal", "shop.audit")].relationship == "shop.payments -> shop.audit"
        # undeclared, at the import line
        undeclared = {(d.source, d.target) for d in report.undeclared}
        assert undeclared == {("shop.orders.service", "shop.payments.internal"), ("shop.audit", "shop.orders.api")}
        ledger = edges[("shop.orders.service", "shop.payments.internal")]
        (site,) = ledger.sites
        assert site.line == line_of(ws.root, site.file, UNDECLARED_MARK)
        assert "/orders/service/" in "/" + site.file and "/payments/internal/" in "/" + site.target
        assert ledger.sentence(site).endswith(": OrderService → PaymentInternal is not in the model")
        # a relationship with no import is informational; one to a person cannot be checked
        unevidenced = {(u.source, u.destination): u for u in report.unevidenced}
        assert unevidenced[("shop.orders", "shop.notifications")].checkable
        assert not unevidenced[("customer", "shop.orders.api")].checkable
        assert len(unevidenced) == 2
        # the ring orders → payments → audit → orders, between the containers
        (cycle,) = report.cycles
        assert set(cycle.members) == {"shop.orders", "shop.payments", "shop.audit"} and not cycle.drawn
        assert cycle.steps[0].source in cycle.members
        # rules
        broken = {(v.rule, v.dependency.source, v.dependency.target) for v in report.violations}
        assert broken == {
            ("forbid Audit → shop.orders", "shop.audit", "shop.orders.api"),
            ("only PaymentApi → PaymentInternal", "shop.orders.service", "shop.payments.internal"),
        }
        # third-party imports are counted outside, never lifted to an element
        assert report.counts.external >= 3
        assert report.counts.unresolved == 0
        assert not report.clean


def test_a_model_that_draws_the_code_is_clean(git_repo):
    files = shop("python")
    files["workspace.dsl"] = files["workspace.dsl"].replace(
        '        shop.orders -> shop.notifications "Publishes order events to"\n',
        '        shop.orders.service -> shop.payments.internal "Records payments in"\n'
        '        shop.audit -> shop.orders "Replays orders with"\n',
    )
    root = git_repo(files)
    with Workspace.open(root, env={}) as ws:
        report = ws.conformance()
        assert report.undeclared == [] and report.violations == []
        (cycle,) = report.cycles
        assert cycle.drawn and report.clean


def test_unknown_elements_in_rules_are_refused_with_the_closest_names(git_repo):
    rules = '[conformance]\nforbid = [{ from = "Audit", to = "PaymentInternl" }]\n'
    with open_shop(git_repo, "python", {"archmem.toml": rules}) as ws, pytest.raises(ConfigError) as caught:
        ws.conformance()
    message = str(caught.value)
    assert "[conformance] forbid[0] to: unknown element 'PaymentInternl'" in message
    assert "did you mean 'PaymentInternal'" in message


def test_python_resolution_counts_what_it_cannot_resolve(git_repo):
    extra = {
        "orders/service/broken.py": "from orders.service.nowhere import x\nfrom . import missing_module\nimport yaml\n",
        "tools/run.py": "import helper\n",
        "tools/helper.py": "import orders.api.handlers\n",
    }
    with open_shop(git_repo, "python", extra) as ws:
        report = ws.conformance()
        unresolved = {(u.file, u.line, u.spec) for u in report.unresolved}
        assert unresolved == {("orders/service/broken.py", 1, "orders.service.nowhere")}
        assert report.counts.unresolved == 1
        # a script's sibling resolves (Python puts the script's folder on sys.path); tools
        # belong to no element, so their imports are counted, not lifted
        assert report.counts.from_unowned == 2


def test_typescript_workspace_packages_index_files_and_tsconfig_extends(git_repo):
    extra = {
        "packages/money/package.json": '{"name": "@shop/money", "main": "dist/index.js"}',
        "packages/money/src/index.ts": "export const cents = 1;\n",
        "orders/tsconfig.json": '{ "extends": "../tsconfig.json" }\n',
        "orders/service/pricing.ts": (
            'import { cents } from "@shop/money";\nimport { write } from "@payments/nowhere";\nimport React from "react";\n'
        ),
    }
    files = {**shop("typescript"), **extra}
    files["workspace.dsl"] = files["workspace.dsl"].replace(
        'notifications = container "Notifications" {',
        'money = container "Money" {\n                properties {\n                    "archmem.paths" "packages/money/**"\n'
        '                }\n            }\n            notifications = container "Notifications" {',
    )
    root = git_repo(files)
    with Workspace.open(root, env={}) as ws:
        report = ws.conformance()
        money = [d for d in report.dependencies if d.target == "shop.money"]
        assert [(d.source, [str(s) for s in d.sites]) for d in money] == [
            ("shop.orders.service", ["orders/service/pricing.ts:1"])
        ]
        assert [(u.file, u.spec) for u in report.unresolved] == [("orders/service/pricing.ts", "@payments/nowhere")]
        assert "tsconfig paths '@payments/*' matched" in report.unresolved[0].reason


def test_an_import_that_leaves_the_repository_is_never_a_dependency(git_repo):
    extra = {"orders/api/escape.ts": 'import x from "../../../outside/lib";\nimport y from "/abs/path";\n'}
    with open_shop(git_repo, "typescript", extra) as ws:
        report = ws.conformance()
        assert not [d for d in report.dependencies for s in d.sites if s.file == "orders/api/escape.ts"]
        assert report.counts.unresolved == 0


def test_a_second_run_reads_only_the_files_that_changed(git_repo):
    root = git_repo(shop("python"))
    (root / ".archmem").mkdir()  # a repository that uses archmem: the cache persists (reading creates no store)
    with Workspace.open(root, env={}) as ws:
        first = ws.conformance()
        assert first.counts.read == first.counts.files == 14
    with Workspace.open(root, env={}) as ws:
        assert ws.conformance().counts.read == 0
    (root / "audit" / "log.py").write_text("import json\n", encoding="utf-8")  # the cycle is gone
    (root / "notifications" / "new.py").write_text("from orders.api import handlers\n", encoding="utf-8")
    with Workspace.open(root, env={}) as ws:
        report = ws.conformance()
        assert report.counts.read == 2
        assert report.cycles == []
        assert ("shop.notifications", "shop.orders.api") in {(d.source, d.target) for d in report.undeclared}


def test_ignored_files_are_not_read(git_repo):
    with open_shop(git_repo, "python", {"archmem.toml": '[conformance]\nignore = ["audit/**"]\n'}) as ws:
        report = ws.conformance()
        assert report.counts.files == 12
        assert ("shop.audit", "shop.orders.api") not in {(d.source, d.target) for d in report.dependencies}


def test_a_briefing_on_an_element_names_its_undeclared_dependencies(git_repo):
    with open_shop(git_repo, "python") as ws:
        text = ws.brief("change the checkout flow", elements=["OrderService"]).markdown
        assert ("⚠ its code imports, where the model draws no relationship: PaymentInternal "
                "(orders/service/checkout.py:5)") in text
        # a container answers for its components' imports that leave it; the system's stay inside
        orders = ws.brief("orders", elements=["shop.orders"]).markdown
        assert "PaymentInternal (orders/service/checkout.py:5)" in orders
        other = ws.brief("notification emails", elements=["Notifications", "Shop"]).markdown
        blocks = {block.split("**")[0]: block for block in other.split("- **")[1:]}
        assert "⚠" not in blocks["Shop"] and "⚠" not in blocks["Notifications"]


def test_briefings_can_leave_conformance_out(git_repo):
    with open_shop(git_repo, "python", {"archmem.toml": "[conformance]\nbriefings = false\n"}) as ws:
        assert "⚠" not in ws.brief("change the checkout flow", elements=["OrderService"]).markdown


def test_the_knowledge_map_lists_undeclared_dependencies_and_badges_their_cells(git_repo):
    with open_shop(git_repo, "python") as ws:
        knowledge = ws.knowledge_map()
        markdown = knowledge.render("md")
        section = markdown.split("## Dependencies the model does not draw")[1].split("##")[0]
        assert "- **OrderService → PaymentInternal**: 1 import (`orders/service/checkout.py:5`)" in section
        assert "- **Audit → OrderApi**: 1 import (`audit/log.py:5`)" in section
        html = knowledge.render("html")
        assert 'id="undeclared"' in html and "<strong>Audit → OrderApi</strong>" in html
        cell = html.split('data-element="shop.orders.service"')[1].split("</article>")[0]
        assert '<span class="badge undeclared"' in cell and "→ PaymentInternal not in the model" in cell
        data = knowledge.to_dict()
        assert {(d["source"], d["target"]) for d in data["undeclared"]} == {
            ("shop.orders.service", "shop.payments.internal"), ("shop.audit", "shop.orders.api")}


def test_the_knowledge_map_says_when_conformance_could_not_run(git_repo):
    rules = '[conformance]\nonly = [{ to = "Nowhere" }]\n'
    with open_shop(git_repo, "python", {"archmem.toml": rules}) as ws:
        markdown = ws.knowledge_map().render("md")
        assert "_Conformance not checked: " in markdown and "unknown element 'Nowhere'" in markdown


def test_the_speed_bench_runs_and_finds_what_it_planted(capsys):
    """No timing here (bench/conformance_speed.py measures); only that it runs, small."""
    import importlib.util

    from .conftest import REPO_ROOT

    spec = importlib.util.spec_from_file_location("conformance_speed", REPO_ROOT / "bench" / "conformance_speed.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--files", "200", "--undeclared", "4", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "undeclared dependencies found: 3, planted: 3; agree: True" in out, out


def test_a_relationship_to_code_no_import_can_name_is_not_checkable(git_repo):
    files = shop("python")
    files["workspace.dsl"] = files["workspace.dsl"].replace(
        'notifications = container "Notifications" {',
        'db = container "Database" {\n                properties {\n                    "archmem.paths" "db/**"\n'
        '                }\n            }\n            notifications = container "Notifications" {',
    ).replace('        shop.orders -> shop.notifications', '        shop.orders -> shop.db "Reads and writes"\n'
              '        shop.orders -> shop.notifications')
    files["db/0001_orders.sql"] = "CREATE TABLE orders (id TEXT);\n"
    root = git_repo(files)
    with Workspace.open(root, env={}) as ws:
        (db,) = [u for u in ws.conformance().unevidenced if u.destination == "shop.db"]
        assert not db.checkable and "no import can name Database's code" in db.reason


def test_a_report_cut_to_changed_files_keeps_only_their_import_sites(git_repo):
    with open_shop(git_repo, "python", {"archmem.toml": RULES}) as ws:
        report = ws.conformance().in_files(["orders/service/checkout.py"])
        assert [(d.source, d.target) for d in report.undeclared] == [("shop.orders.service", "shop.payments.internal")]
        assert [v.dependency.source for v in report.violations] == ["shop.orders.service"]
        assert len(report.cycles) == 1  # checkout.py's import is one step of the ring
        assert ws.conformance().in_files(["notifications/mailer.py"]).clean

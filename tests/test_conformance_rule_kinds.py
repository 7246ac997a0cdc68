"""Rule kinds of ``[conformance]`` besides forbid and only (issue 26, item 6): ordered
layers, independence, acyclic siblings (a drawn ring too), and per-dependency ignores
whose reason is required.

The shop's code: orders.api → orders.service → payments.api → payments.internal →
audit → orders.api, and orders.service → payments.internal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.errors import ConfigError
from archmem.workspace import Workspace

from .conformance_repos import shop


def report_with(git_repo, rules: str):
    root = git_repo({**shop("python"), "archmem.toml": "[conformance]\n" + rules})
    with Workspace.open(root, env={}) as ws:
        return ws.conformance()


def broken(report) -> set[tuple[str, str, str]]:
    return {(v.rule, v.dependency.source, v.dependency.target) for v in report.violations}


def test_layers_forbid_only_upward_dependencies(git_repo):
    report = report_with(git_repo, 'layers = [{ order = ["shop.orders", "Payments", "shop.audit"] }]\n')
    assert broken(report) == {("layers shop.orders > Payments > shop.audit", "shop.audit", "shop.orders.api")}
    [violation] = report.violations
    assert violation.reason == "shop.audit is below shop.orders"


def test_a_list_is_one_layer_whose_members_may_use_each_other(git_repo):
    report = report_with(git_repo, 'layers = [{ order = [["shop.orders", "shop.payments"], "shop.audit"], '
                                   'reason = "audit is at the bottom" }]\n')
    assert broken(report) == {("layers shop.orders | shop.payments > shop.audit", "shop.audit", "shop.orders.api")}
    assert report.violations[0].reason == "audit is at the bottom"


def test_independent_elements_use_none_of_each_other(git_repo):
    report = report_with(git_repo, 'independent = [{ elements = ["OrderService", "PaymentInternal", "Audit"] }]\n')
    assert broken(report) == {
        ("independent OrderService, PaymentInternal, Audit", "shop.orders.service", "shop.payments.internal"),
        ("independent OrderService, PaymentInternal, Audit", "shop.payments.internal", "shop.audit"),
    }


def test_acyclic_siblings_refuse_a_ring_even_one_the_model_draws(git_repo):
    report = report_with(git_repo, 'acyclic = [{ within = "shop", reason = "containers deploy alone" }]\n')
    [cycle] = report.cycles
    assert cycle.members == ["shop.audit", "shop.orders", "shop.payments"]
    steps = {(v.dependency.source, v.dependency.target) for v in report.violations}
    assert steps == {(a, b) for a, b in zip(cycle.elements, [*cycle.elements[1:], cycle.elements[0]], strict=True)}
    assert {v.rule for v in report.violations} == {"acyclic within shop"}



def test_acyclic_within_another_parent_leaves_the_ring_alone(git_repo):
    report = report_with(git_repo, 'acyclic = [{ within = "shop.orders" }]\n')
    assert len(report.cycles) == 1 and report.violations == []


def test_an_ignored_dependency_leaves_every_finding_with_its_reason(git_repo):
    rules = ('layers = [{ order = ["shop.orders", "shop.payments", "shop.audit"] }]\n'
             'ignore_dependencies = [{ from = "Audit", to = "shop.orders", reason = "the replay tool, gone in Q3" }]\n')
    report = report_with(git_repo, rules)
    assert report.violations == [] and report.cycles == []
    assert ("shop.audit", "shop.orders.api") not in {(d.source, d.target) for d in report.undeclared}
    [ignored] = report.ignored
    assert (ignored.dependency.source, ignored.reason) == ("shop.audit", "the replay tool, gone in Q3")


def test_an_ignore_without_a_reason_is_refused_at_its_line(git_repo):
    root = git_repo({**shop("python"), "archmem.toml":
                     '[conformance]\nignore_dependencies = [{ from = "Audit", to = "shop.orders" }]\n'})
    result = CliRunner().invoke(cli, ["conformance", "--repo", str(root)])
    assert result.exit_code == ConfigError.exit_code, result.output
    assert "line 2: conformance.ignore_dependencies.0.reason: Field required" in result.output
    assert "Traceback" not in result.output


def test_an_unknown_element_in_a_layer_names_the_rule(git_repo):
    with pytest.raises(ConfigError) as raised:
        report_with(git_repo, 'layers = [{ order = ["shop.orders", "Paymnts"] }]\n')
    assert "[conformance] layers[0] order" in raised.value.message and "Paymnts" in raised.value.message


def test_the_cli_lists_ignored_dependencies(git_repo):
    root = git_repo({**shop("python"), "archmem.toml": '[conformance]\nignore_dependencies = '
                     '[{ from = "Audit", to = "shop.orders", reason = "the replay tool" }]\n'})
    out = CliRunner().invoke(cli, ["conformance", "--repo", str(root)]).output
    assert "Dependencies ignored by [conformance] ignore_dependencies (1)" in out
    assert "Audit → OrderApi: the replay tool (1 import)" in out
    data = json.loads(CliRunner().invoke(cli, ["conformance", "--json", "--repo", str(Path(root))]).output)
    assert data["ignored"][0]["reason"] == "the replay tool"

"""``archmem init --starter-model`` (issue 23, item 6): a repository without a model gets
a draft workspace.dsl from its manifests, containers with paths and technology, tagged
Draft; a repository with a model keeps it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from archmem.cli import cli
from archmem.workspace import Workspace

from . import repos
from .conftest import lines


def files() -> dict[str, str]:
    return {
        "README.md": "# Shop\n",
        "services/orders/Dockerfile": "FROM python:3.12\n",
        "services/orders/pyproject.toml": '[project]\nname = "orders"\n',
        "services/orders/orders/app.py": lines(20, "app"),
        "services/cart-service/go.mod": "module example.com/shop/cart-service\n",
        "services/cart-service/main.go": lines(20, "main"),
        "web/package.json": json.dumps({"name": "storefront", "dependencies": {"next": "16"}}),
        "web/src/pages/index.tsx": lines(20, "page"),
        "services/orders/orders/migrations/0001_initial.py": lines(5, "migration"),
        "tests/e2e/package.json": json.dumps({"name": "e2e"}),
    }


def test_a_repository_without_a_model_gets_a_draft_it_can_use(tmp_path: Path):
    root = repos.make_repo(tmp_path / "shop", files())
    result = CliRunner().invoke(cli, ["init", "--starter-model", "--repo", str(root)], catch_exceptions=False)
    assert result.exit_code == 0 and "drafted workspace.dsl" in result.output
    text = (root / "workspace.dsl").read_text()
    assert text.startswith("# DRAFT") and "tags \"Draft\"" in text
    with Workspace.open(root, env={}) as ws:
        containers = {e.id: e for e in ws.model.elements if e.kind == "container"}
        assert set(containers) == {"system.orders", "system.cart_service", "system.web", "system.database"}
        assert containers["system.cart_service"].name == "Cart Service"
        assert containers["system.cart_service"].technology == "Go"
        assert containers["system.web"].technology == "TypeScript, Next.js"
        assert ws.model.effective_paths("system.database") == ["services/orders/orders/migrations/**"]
        assert ws.ownership.files["system.orders"] == ["services/orders/Dockerfile", "services/orders/orders/app.py",
                                                      "services/orders/pyproject.toml"]
        assert ws.ownership_warnings() == []  # the database's migrations are given back
    again = CliRunner().invoke(cli, ["init", "--starter-model", "--repo", str(root)], catch_exceptions=False)
    assert "(kept; --starter-model writes one only where there is none)" in again.output
    assert (root / "workspace.dsl").read_text() == text

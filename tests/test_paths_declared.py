"""``paths suggest`` from what a repository declares about itself (issue 23, items 1, 3
and 4): a Next.js app is the folder whose package.json depends on next, a Django web
application is INSTALLED_APPS' apps and manage.py minus what its siblings own (written as
``!glob``), a PostgreSQL database owns the migrations, deployment elements own the
folders of their manifests, and a product run as is (telegraf) gets nothing."""

from __future__ import annotations

import json
from pathlib import Path

from archmem.workspace import Workspace

from . import repos
from .conftest import lines

MODEL = """\
workspace "Relay" {
    model {
        relay = softwareSystem "Relay" {
            db = container "Database" "Stores profiles" "PostgreSQL" "Database"
            cache = container "Cache" "Runtime data" "Redis" "Database"
            metrics = container "Metrics Aggregator" "Collects metrics" "telegraf"
            web_app = container "Web Application" "Serves the API" "Python - Django Application"
            task_cleanup = container "Cleanup Task" "Fixes data" "Python - Django Command"
            web = container "Single-Page App" "Dashboards" "JavaScript - Next.js"
            charts = container "Helm Chart" "Deploys it" "Helm"
            infra = container "Cloud Infrastructure" "Provisions the cluster" "Terraform"
        }
    }
}
"""

SETTINGS = '''\
INSTALLED_APPS = [
    "django.contrib.auth",
    "rest_framework",
    "privaterelay.apps.PrivateRelayConfig",
    "api.apps.ApiConfig",
]
if PHONES_ENABLED:
    INSTALLED_APPS += ["phones.apps.PhonesConfig"]
'''


def relay_files() -> dict[str, str]:
    files = {
        "workspace.dsl": MODEL,
        "manage.py": "import django\n",
        "privaterelay/__init__.py": "",
        "privaterelay/settings.py": SETTINGS,
        "privaterelay/urls.py": lines(10, "url"),
        "privaterelay/migrations/0001_initial.py": lines(20, "migration"),
        "privaterelay/management/commands/cleanup_data.py": lines(30, "cleanup"),
        "api/__init__.py": "", "api/views.py": lines(30, "view"),
        "phones/__init__.py": "", "phones/models.py": lines(20, "model"),
        "phones/migrations/0001_initial.py": lines(20, "migration"),
        "tools/__init__.py": "", "tools/lint.py": lines(5, "lint"),
        "frontend/package.json": json.dumps({"name": "relay-ui", "dependencies": {"next": "^16", "react": "19"}}),
        "frontend/src/pages/index.page.tsx": lines(20, "page"),
        "frontend/src/hooks/metrics.ts": lines(20, "metrics"),
        "package.json": json.dumps({"name": "root", "devDependencies": {"@playwright/test": "1"}}),
        "deploy/chart/Chart.yaml": "apiVersion: v2\nname: relay\n",
        "deploy/chart/templates/web.yaml": "kind: Deployment\n",
        "infra/main.tf": 'resource "x" "y" {}\n',
        "infra/modules/gke/main.tf": 'resource "x" "z" {}\n',
    }
    return files


def test_a_django_and_nextjs_monorepo_is_mapped_from_its_manifests(tmp_path: Path):
    root = repos.make_repo(tmp_path / "relay", relay_files())
    result = Workspace.open(root, env={}).suggest_paths().to_dict()
    paths = {s["element"]: s["paths"] for s in result["suggestions"]}
    assert paths["web"] == ["frontend/**"]
    assert paths["db"] == ["phones/migrations/**", "privaterelay/migrations/**"]
    assert paths["task_cleanup"] == ["privaterelay/management/commands/cleanup_data.py"]
    web_app = paths["web_app"]
    assert set(web_app) == {"manage.py", "privaterelay/**", "api/**", "phones/**", "!phones/migrations/**",
                            "!privaterelay/migrations/**", "!privaterelay/management/commands/cleanup_data.py"}
    assert all(not glob.startswith("!") for glob in web_app[:4])  # what is given comes before what is taken
    assert paths["charts"] == ["deploy/chart/**"]
    assert paths["infra"] == ["infra/**"]
    assert "metrics" not in paths and "cache" not in paths
    evidence = next(s for s in result["suggestions"] if s["element"] == "web")["evidence"]
    assert any("depends on next" in line for line in evidence)


def test_accepted_negations_leave_no_overlap_between_siblings(tmp_path: Path):
    root = repos.make_repo(tmp_path / "relay", relay_files())
    with Workspace.open(root, env={}) as ws:
        ws.suggest_paths(write=True)
    with Workspace.open(root, env={}) as ws:
        assert ws.ownership_warnings() == []
        assert "privaterelay/management/commands/cleanup_data.py" not in ws.ownership.files["web_app"]
        assert ws.ownership.files["task_cleanup"] == ["privaterelay/management/commands/cleanup_data.py"]


LIBRARY_MODEL = """\
workspace "CHAP" {
    model {
        chap = softwareSystem "CHAP Core" {
            api = container "REST API" "Serves it" "Python, FastAPI"
            engine = container "Modelling Engine" "The core library" "Python library"
            examples = container "Bundled Example Models" "Models it can run" "R, Python, MLproject"
            tasks = container "Periodic Tasks" "Scheduled jobs" "Python" "Container Collection"
            purge = container "Purge Job" "Deletes old runs" "Python - Django Command" "Task,in_periodic_tasks"
        }
    }
}
"""


def test_a_library_is_its_package_minus_its_siblings_and_a_collection_owns_its_members(tmp_path: Path):
    files = {
        "workspace.dsl": LIBRARY_MODEL,
        "pyproject.toml": '[project]\nname = "chap-core"\n',
        "chap_core/__init__.py": "", "chap_core/models/model.py": lines(20, "model"),
        "chap_core/rest_api/__init__.py": "", "chap_core/rest_api/app.py": lines(20, "app"),
        "chap_core/management/commands/purge_runs.py": lines(20, "purge"),
        "external_models/deepar/MLproject": "name: deepar\n", "external_models/deepar/train.py": lines(5, "t"),
        "external_models/naive/MLproject": "name: naive\n", "external_models/naive/train.py": lines(5, "t"),
    }
    root = repos.make_repo(tmp_path / "chap", files)
    paths = {s["element"]: s["paths"] for s in Workspace.open(root, env={}).suggest_paths().to_dict()["suggestions"]}
    assert paths["api"] == ["chap_core/rest_api/**"]
    assert paths["engine"][0] == "chap_core/**" and "!chap_core/rest_api/**" in paths["engine"]
    assert paths["examples"] == ["external_models/**"]
    assert paths["purge"] == ["chap_core/management/commands/purge_runs.py"]
    assert paths["tasks"] == ["chap_core/management/commands/purge_runs.py"]


COMPONENTS_MODEL = """\
workspace "Boutique" {
    !identifiers hierarchical
    model {
        boutique = softwareSystem "Online Boutique" {
            frontend = container "Frontend" "Renders the shop" "Go" {
                rpc = component "Backend RPC Clients" "gRPC client wrappers" "Go, gRPC"
                pages = component "Page Templates and Static Assets" "HTML and CSS" "html/template, CSS"
            }
            currency = container "Currency Service" "Converts money" "Node.js"
        }
    }
}
"""


def test_components_are_the_parts_of_their_container_named_by_them(tmp_path: Path):
    files = {
        "workspace.dsl": COMPONENTS_MODEL,
        "src/frontend/main.go": lines(10, "main"), "src/frontend/rpc.go": lines(10, "rpc"),
        "src/frontend/templates/home.html": lines(5, "html"), "src/frontend/static/styles/site.css": lines(5, "css"),
        "src/currencyservice/server.js": lines(10, "server"), "src/currencyservice/client.js": lines(10, "client"),
    }
    root = repos.make_repo(tmp_path / "boutique", files)
    paths = {s["element"]: s["paths"] for s in Workspace.open(root, env={}).suggest_paths().to_dict()["suggestions"]}
    assert paths["boutique.frontend.rpc"] == ["src/frontend/rpc.go"]  # not another service's client.js
    assert sorted(paths["boutique.frontend.pages"]) == ["src/frontend/static/**", "src/frontend/templates/**"]

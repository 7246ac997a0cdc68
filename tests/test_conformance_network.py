"""Calls over the network from deployment manifests (issue 26, item 5): an address in a
Kubernetes workload's environment or a compose service's ``depends_on`` is a dependency
between the elements owning the two services, at its manifest line, compared with the
model like an import; Helm templates are skipped; ``network = false`` turns it off."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from archmem.cli import cli

MODEL = """\
name: Boutique
elements:
  - id: shop
    kind: softwareSystem
    name: Boutique
    elements:
      - {id: frontend, kind: container, name: Frontend, paths: [src/frontend/**]}
      - {id: currency, kind: container, name: Currency Service, paths: [src/currencyservice/**]}
      - {id: cart, kind: container, name: Cart, paths: [src/cartservice/**]}
      - {id: redis, kind: container, name: Redis Cart}
relationships:
  - {source: frontend, destination: cart, description: Keeps carts in}
"""
FRONTEND = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
spec:
  template:
    spec:
      containers:
        - name: server
          image: frontend
          env:
          - name: PORT
            value: "8080"
          - name: CURRENCY_SERVICE_ADDR
            value: "currencyservice:7000"
          - name: CART_SERVICE_ADDR
            value: "cart:7070"
          - name: LISTEN
            value: "0.0.0.0:8080"
---
apiVersion: v1
kind: Service
metadata:
  name: frontend
spec:
  selector:
    app: frontend
"""
BACKENDS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: currencyservice
spec:
  template:
    spec:
      containers:
        - name: server
          image: gcr.io/shop/currencyservice:v1
---
apiVersion: v1
kind: Service
metadata:
  name: cart
spec:
  selector:
    app: cartservice
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: cartservice
spec:
  template:
    spec:
      containers:
        - name: server
          image: cartservice
"""
HELM = 'kind: Deployment\nmetadata:\n  name: frontend\n{{- if .Values.x }}\n  env: [{name: A, value: "currencyservice:1"}]\n'


def boutique(git_repo, extra: dict[str, str] | None = None) -> Path:
    return git_repo({
        "archmem.yaml": MODEL, "src/frontend/main.go": "package main\n",
        "src/currencyservice/server.js": "const x = 1;\n", "src/cartservice/Program.cs": "namespace Cart;\n",
        "kubernetes-manifests/frontend.yaml": FRONTEND, "kubernetes-manifests/backends.yaml": BACKENDS,
        "helm-chart/templates/frontend.yaml": HELM, **(extra or {}),
    })


def run(root: Path, *args: str):
    return CliRunner().invoke(cli, ["conformance", *args, "--repo", str(root)], catch_exceptions=False)


def test_an_address_in_a_workload_is_a_dependency_at_its_manifest_line(git_repo):
    root = boutique(git_repo)
    data = json.loads(run(root, "--json").output)
    edges = {(d["source"], d["target"]): d for d in data["dependencies"]}
    assert set(edges) == {("frontend", "currency"), ("frontend", "cart")}
    assert edges[("frontend", "cart")]["declared"]  # the Service cart selects the cartservice workload
    [undeclared] = data["undeclared"]
    [site] = undeclared["sites"]
    assert site == {"file": "kubernetes-manifests/frontend.yaml", "line": 15, "import": (
        "CURRENCY_SERVICE_ADDR=currencyservice:7000"), "target": "currencyservice", "kind": "network"}
    assert data["imports"]["manifests"] == 2 and data["imports"]["calls"] == 2
    assert data["measured"] is True

    text = run(root).output
    assert "kubernetes-manifests/frontend.yaml:15 calls currencyservice (CURRENCY_SERVICE_ADDR=" in text
    assert "Frontend → Currency Service  (frontend → currency, 1 call)" in text
    sarif = json.loads(run(root, "--format", "sarif").stdout)
    [result] = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 15
    assert "calls currencyservice: Frontend → Currency Service is not in the model" in result["message"]["text"]


def test_compose_depends_on_and_environment_addresses(git_repo):
    compose = ("services:\n  frontend:\n    build: ./src/frontend\n    environment:\n"
               "      CURRENCY_URL: http://currency:7000/convert\n    depends_on:\n      - cart\n"
               "  currency:\n    build: ./src/currencyservice\n  cart:\n    build:\n      context: src/cartservice\n"
               "  redis:\n    image: redis:7\n")
    root = git_repo({
        "archmem.yaml": MODEL + "  - {source: cart, destination: redis, description: Stores carts in}\n",
        "src/frontend/main.go": "package main\n", "src/currencyservice/server.js": "const x = 1;\n",
        "src/cartservice/Program.cs": "namespace Cart;\n", "docker-compose.yml": compose,
    })
    data = json.loads(run(root, "--json").output)
    sites = {(d["source"], d["target"]): d["sites"][0] for d in data["dependencies"]}
    assert set(sites) == {("frontend", "currency"), ("frontend", "cart")}
    assert (sites[("frontend", "cart")]["line"], sites[("frontend", "cart")]["import"]) == (7, "depends_on")
    assert sites[("frontend", "currency")]["line"] == 5
    assert [(d["source"], d["target"]) for d in data["undeclared"]] == [("frontend", "currency")]


def test_network_off_reads_no_manifest(git_repo):
    root = boutique(git_repo, {"archmem.toml": "[conformance]\nnetwork = false\n"})
    data = json.loads(run(root, "--json").output)
    assert data["dependencies"] == [] and data["imports"]["manifests"] == 0
    assert data["measured"] is False
    assert "Not measured: no dependency between elements could be observed" in run(root).output


def test_a_called_service_no_element_owns_is_said(git_repo):
    root = boutique(git_repo, {"kubernetes-manifests/cart-env.yaml": (
        "kind: Deployment\nmetadata:\n  name: cartservice2\nspec:\n  template:\n    spec:\n      containers:\n"
        "        - image: nothing\n          env:\n          - name: REDIS_ADDR\n            value: redis-cart:6379\n"
        "---\nkind: Deployment\nmetadata:\n  name: redis-cart\nspec: {}\n")})
    warnings = json.loads(run(root, "--json").output)["warnings"]
    assert any("map to no element (cartservice2" in w for w in warnings), warnings


def test_the_map_counts_calls_as_calls(git_repo):
    root = boutique(git_repo)
    out = CliRunner().invoke(cli, ["map", "--repo", str(root)], catch_exceptions=False).output
    assert "**Frontend → Currency Service**: 1 call (`kubernetes-manifests/frontend.yaml:15`)" in out

"""Negated globs (issue 23, item 3): ``!glob`` takes code away from an element, with
gitignore's semantics (the last glob that matches decides), in ``archmem.paths`` and in
``[paths]``; drift, ownership, conformance and the overlap warnings honour them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.model.paths import compile_globs, normalize_glob
from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, git, lines, write

MODEL = """\
workspace "Shop" {
    !identifiers hierarchical
    model {
        shop = softwareSystem "Shop" {
            app = container "Storefront" {
                properties {
                    "archmem.paths" "src/**, !src/gen/**"
                }
            }
            client = container "Generated API client" {
                properties {
                    "archmem.paths" "src/gen/**"
                }
            }
        }
    }
}
"""


def test_the_last_matching_glob_decides():
    match = compile_globs(["src/**", "!src/gen/**", "src/gen/keep.py"])
    assert match("src/app.py")
    assert not match("src/gen/client.py")
    assert match("src/gen/keep.py")
    assert not compile_globs(["!src/**"])("src/app.py")  # a negation alone gives nothing
    assert not compile_globs(["!src/gen/**", "lib/**"])("src/gen/x.py")
    assert normalize_glob(" !./src/gen/ ") == "!src/gen"
    with pytest.raises(ValueError):
        normalize_glob("!../outside/**")


def make(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {
        "workspace.dsl": MODEL,
        "src/app.py": lines(40),
        "src/cart.py": lines(40),
        "src/gen/client.py": lines(100, "client"),
    })
    commit(root, "initial", "2026-01-01T00:00:00Z")
    return root


def test_a_change_under_the_negated_folder_makes_only_the_generated_clients_memories_verify(tmp_path: Path):
    root = make(tmp_path)
    clock = FrozenClock()
    clock.now = clock.now.replace(year=2026, month=1, day=2)
    with Workspace.open(root, clock=clock, env={}) as ws:
        assert set(ws.ownership.files["shop.app"]) == {"src/app.py", "src/cart.py"}
        assert ws.ownership.files["shop.client"] == ["src/gen/client.py"]
        assert len(ws.ownership.files["shop"]) == 3  # the system owns both, what one takes away the other has
        assert ws.ownership_warnings() == []
        storefront = ws.remember("The storefront renders prices in cents.", kind="convention", elements=["shop.app"])
        client = ws.remember("The client is regenerated from openapi.yaml.", kind="convention",
                             elements=["shop.client"])
    commit(root, "memories", "2026-01-02T00:00:00Z")
    write(root, {"src/gen/client.py": lines(100, "regenerated client")})
    commit(root, "regenerate the client", "2026-01-03T00:00:00Z")
    clock.now = clock.now.replace(day=4)
    with Workspace.open(root, clock=clock, env={}) as ws:
        stale = {memory.id for memory, _ in ws.drift_report().stale}
        drift = {e["id"]: e["status"] for e in ws.drift_report().to_dict()["elements"]}
    assert stale == {client.id}
    assert storefront.id not in stale
    assert drift["shop.app"] == "in_sync"
    data = json.loads(CliRunner().invoke(cli, ["model", "--json", "--repo", str(root)]).output)
    assert data["ownership_warnings"] == []


def test_negations_in_the_config_paths_table(tmp_path: Path):
    root = make(tmp_path)
    write(root, {
        "workspace.dsl": MODEL.replace('"src/**, !src/gen/**"', '"lib/**"'),
        "archmem.toml": '[paths]\n"shop.app" = ["src/**", "!src/gen/**"]\n',
        "lib/x.py": lines(5),
    })
    with Workspace.open(root, env={}) as ws:
        assert set(ws.ownership.files["shop.app"]) == {"lib/x.py", "src/app.py", "src/cart.py"}
        assert ws.ownership_warnings() == []

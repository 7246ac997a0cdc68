"""archmem status: every part read on its own, errors in their place, no store created."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.demo import run_demo
from archmem.testing.embedding_server import EmbeddingServer
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, git, write

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def status(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["status", *args, "--repo", str(root)], env=env, catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_demo(tmp_path_factory.mktemp("status") / "demo", now=NOW).root


def test_the_demo_says_what_it_holds_and_what_to_do(demo: Path):
    code, output = status(demo, "--json")
    assert code == 0
    data = json.loads(output)
    with Workspace.open(demo, env={}) as ws:
        active = ws.store.count_memories("active")
    assert data["model"] == {"file": "workspace.dsl", "format": "structurizr-dsl", "elements": 13,
                             "relationships": data["model"]["relationships"], "decisions": 3, "documented": 7,
                             "warnings": 0,
                             # the demo deletes the database's migrations: drift calls it missing
                             "ownership_warnings": ["workspace.dsl:53: shop.database: its path 'db/migrations/**' "
                                                    "matches no file"]}
    assert sum(data["store"]["memories"]["active"].values()) == active
    assert data["store"]["memories"]["superseded"] == {"convention": 1} and data["store"]["schema"] >= 8
    assert data["recall"] == {"mode": "lexical", "provider": "none", "active_memories": active}
    assert data["drift"]["score"] == 80 and data["drift"]["stale_memories"] == 16
    assert data["agents"] == {"claude-code": "no", "codex": "no", "cursor": "no"}
    assert "16 memories to verify: `archmem review`, then confirm or supersede" in data["next"]

    _, text = status(demo)
    assert "7 of 13 elements documented" in text and "score 80/100" in text
    pitfalls = data["store"]["memories"]["active"]["pitfall"]
    assert f"{pitfalls} pitfalls" in text and "session outcome" in text


def test_agents_installed_customized_and_a_broken_file(demo: Path):
    assert CliRunner().invoke(cli, ["install", "claude-code", "--repo", str(demo)]).exit_code == 0
    assert json.loads(status(demo, "--json")[1])["agents"]["claude-code"] == "installed"
    mcp = demo / ".mcp.json"
    mcp.write_text(mcp.read_text().replace('"mcp"', '"mcp", "--log-level", "debug"'))
    assert json.loads(status(demo, "--json")[1])["agents"]["claude-code"] == "customized"
    mcp.write_text("{ not json")
    agents = json.loads(status(demo, "--json")[1])["agents"]
    assert agents["claude-code"].startswith("error: .mcp.json:1:3: not valid JSON") and agents["codex"] == "no"


def test_an_empty_folder_gets_every_part_explained_and_no_store(tmp_path: Path):
    code, output = status(tmp_path)
    assert code == 0
    assert "model   no architecture model found" in output
    assert ".archmem/archmem.db does not exist yet" in output
    assert "not a git repository" in output
    assert "write the model: workspace.dsl" in output and "no memories yet" in output
    assert not (tmp_path / ".archmem").exists()  # status never creates a store


def test_a_broken_model_is_reported_in_its_line_and_the_rest_still_shows(tmp_path: Path):
    write(tmp_path, {"workspace.dsl": 'workspace {\n    model {\n        a = softwareSystem "A"\n    }\n}\n'})
    git(tmp_path, "init", "-q")
    with Workspace.open(tmp_path, env={}) as ws:
        ws.remember("Keep the build reproducible.", kind="convention")
    write(tmp_path, {"workspace.dsl": 'workspace {\n    model {\n        a = softwareSystem "A" {\n'})
    data = json.loads(status(tmp_path, "--json")[1])
    assert data["model"]["error"].startswith(f"{tmp_path / 'workspace.dsl'}:3:1: ")  # file:line:col
    assert sum(data["store"]["memories"]["active"].values()) == 1
    assert "error" in data["drift"]
    assert not any(step.startswith("write the model") for step in data["next"])
    assert data["next"][0] == (f"fix the model at {tmp_path / 'workspace.dsl'}:3:1: "
                               "every { needs a matching } (on a line of its own)")


def test_a_repository_with_two_models_is_told_to_choose_one_not_to_write_one(tmp_path: Path):
    spec = "specification {\n  element system\n}\n"
    for project in ("billing", "shipping"):
        write(tmp_path, {f"{project}/likec4.config.json": json.dumps({"name": project}),
                         f"{project}/model.c4": spec + f"model {{\n  {project} = system '{project.title()}'\n}}\n"})
    data = json.loads(status(tmp_path, "--json")[1])
    assert data["model"]["error"].startswith(f"several LikeC4 projects in {tmp_path}: billing, shipping")
    assert data["next"][0] == 'choose one: model = "folder" in archmem.toml, or --model FOLDER'
    assert not any(step.startswith("write the model") for step in data["next"])


def test_embeddings_counted_and_the_provider_checked_on_request(tmp_path: Path):
    with EmbeddingServer(dims=32) as server:
        write(tmp_path, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR, "archmem.toml": (
            '[embeddings]\nprovider = "openai"\nmodel = "fake"\n'
            f'base_url = "{server.openai_base_url}"\ntimeout = 2.0\n'
        )})
        with Workspace.open(tmp_path, env={"ARCHMEM_EMBEDDINGS_PROVIDER": "none"}) as ws:
            ws.remember("The gateway strips headers over 8KB.", kind="pitfall")
            ws.remember("Orders are numbered per day.", kind="note")
        requests = dict(server.requests)
        data = json.loads(status(tmp_path, "--json")[1])
        assert data["recall"] == {"mode": "hybrid", "provider": "openai", "model": "fake", "active_memories": 2,
                                  "embedded": 0}
        assert dict(server.requests) == requests  # no provider call without --check-provider
        assert "2 memories have no vector yet: `archmem embed`" in data["next"]
        checked = json.loads(status(tmp_path, "--json", "--check-provider")[1])["recall"]
        assert checked["provider_ok"] is True and checked["identity"] == "openai:fake:32"
        server.fail_with(500)
        failed = json.loads(status(tmp_path, "--json", "--check-provider")[1])
        assert failed["recall"]["provider_ok"] is False and failed["recall"]["provider_error"]
        assert any("did not answer" in step for step in failed["next"])


FRESH = """\
workspace "Shop" {
    model {
        shop = softwareSystem "Shop" {
            orders = container "Orders" "Takes orders" "Python" {
                properties {
                    "archmem.paths" "orders/**"
                }
            }
            billing = container "Billing" "Charges cards" "Python"
            cache = container "Cache" "Sessions" "Redis" "Database"
        }
    }
}
"""


def test_the_hint_names_only_what_paths_suggest_proposes_and_drift_says_since_when(tmp_path: Path):
    from .conftest import commit, lines

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": FRESH, "orders/app.py": lines(20), "billing/charge.py": lines(20)})
    commit(root, "a fresh model", "2026-03-01T00:00:00Z")
    data = json.loads(status(root, "--json")[1])
    assert data["drift"]["suggestible"] == ["billing"]
    step = next(s for s in data["next"] if "not measured" in s)
    assert "proposes code for 1 of them (billing)" in step and "cache" not in step
    assert data["drift"]["since"].startswith("2026-03-01") and data["drift"]["measured"] == 2  # the system owns its container's code
    _, text = status(root)
    assert "score 100/100 over 2 elements with code since 2026-03-01, 1 commit read" in text


def test_what_paths_suggest_proposes_is_kept_until_what_it_reads_moves(tmp_path: Path, monkeypatch):
    """A status worked the suggestions out on every run; they are kept in the index under
    the model, the files, HEAD and the manifests read, and worked out again when one moves."""
    import os

    from archmem.onboarding import suggest as suggest_module
    from archmem.workspace import Workspace

    from .conftest import FrozenClock, commit, lines, spy

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": FRESH, "orders/app.py": lines(20), "billing/charge.py": lines(20),
                 "cache/package.json": '{"name": "sessions"}\n'})
    commit(root, "a fresh model", "2026-03-01T00:00:00Z")
    manifest = root / "cache/package.json"
    os.utime(manifest, (1_700_000_000, 1_700_000_000))  # settled: not changed within its mtime's tick
    (root / ".archmem").mkdir()  # reads keep the index there (as after `archmem init`)
    made = spy(monkeypatch, suggest_module, "suggest_paths")

    def suggestible() -> list[str]:
        with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
            ws.store  # noqa: B018
            return ws.suggestible_elements()

    assert suggestible() == ["billing"] and len(made) == 1
    assert suggestible() == ["billing"] and len(made) == 1  # kept
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:  # a damaged row is worked out again
        kept = json.loads(ws.store.meta("suggestible_elements") or "{}")
        ws.store.set_meta("suggestible_elements", json.dumps({**kept, "elements": 7}))
    assert suggestible() == ["billing"] and len(made) == 2
    manifest.write_text('{"name": "billing-cache"}\n')  # a manifest it read
    os.utime(manifest, (1_700_000_100, 1_700_000_100))
    suggestible()
    assert len(made) == 3
    write(root, {"cache/redis.conf": "maxmemory 1gb\n"})  # a new file
    suggestible()
    assert len(made) == 4
    suggestible()
    assert len(made) == 4
    write(root, {"workspace.dsl": FRESH.replace('"Sessions"', '"Sessions and carts"')})  # the model
    suggestible()
    assert len(made) == 5
    commit(root, "more", "2026-03-02T00:00:00Z")  # HEAD: the recent commits it weighs
    suggestible()
    assert len(made) == 6

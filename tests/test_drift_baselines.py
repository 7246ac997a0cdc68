"""Drift baselines survive mapping (issue 13, item 2): adding or changing ``archmem.*``
properties never moves an element's "described at" time, only a change to what the
model says about it does; ``--since`` takes a date, a tag or a commit."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from archmem.cli import cli
from archmem.drift.baselines import is_mapping_only
from archmem.model.description_lines import mapping_lines

from .conftest import commit, git, lines, write

UNMAPPED = """\
workspace "Shop" {
    model {
        shop = softwareSystem "Shop" {
            api = container "API" "Routes requests" "Go"
            orders = container "Orders" "Takes orders" "Python" {
                tags "Core"
            }
        }
    }
}
"""

MAPPED = """\
workspace "Shop" {
    model {
        shop = softwareSystem "Shop" {
            api = container "API" "Routes requests" "Go" {
                properties {
                    "archmem.paths" "services/api/**"
                }
            }
            orders = container "Orders" "Takes orders" "Python" {
                tags "Core"
                properties {
                    "archmem.paths" "services/orders/**"
                }
            }
        }
    }
}
"""


def run(root: Path, *args: str):
    return CliRunner().invoke(cli, [*args, "--repo", str(root)], catch_exceptions=False)


def drift(root: Path, *args: str) -> dict[str, dict]:
    data = json.loads(run(root, "drift", "--json", *args).output)
    return {e["id"]: e for e in data["elements"]}


def history(root: Path) -> None:
    """Described on 01-01; the API's code grows past its threshold on 02-01."""
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": UNMAPPED, "services/api/router.go": lines(40), "services/orders/app.py": lines(40)})
    commit(root, "model and code", "2026-01-01T00:00:00Z")
    write(root, {"services/api/router.go": lines(40) + lines(30, "new route")})
    commit(root, "new routes", "2026-02-01T00:00:00Z")


def test_mapping_in_the_model_keeps_the_drift_from_before_it(tmp_path: Path):
    root = tmp_path / "repo"
    history(root)
    write(root, {"workspace.dsl": MAPPED})
    commit(root, "map the model to the code", "2026-03-01T00:00:00Z")
    found = drift(root)
    assert found["api"]["status"] == "drifted"
    assert found["api"]["since"].startswith("2026-01-01")  # not the mapping commit
    assert found["api"]["stamp"]["time"].startswith("2026-02-01")
    assert found["orders"]["status"] == "in_sync" and found["orders"]["since"].startswith("2026-01-01")


def test_mapping_not_yet_committed_keeps_the_drift_from_before_it(tmp_path: Path):
    root = tmp_path / "repo"
    history(root)
    write(root, {"workspace.dsl": MAPPED})  # trying the mapping out, before committing it
    found = drift(root)
    assert found["api"]["status"] == "drifted" and found["api"]["since"].startswith("2026-01-01")
    write(root, {"workspace.dsl": MAPPED.replace('"Routes requests"', '"Routes and signs requests"')})
    assert drift(root)["api"]["status"] == "in_sync"  # a new description, even uncommitted, holds from now


def test_mapping_in_the_model_or_in_archmem_toml_reports_the_same_drift(tmp_path: Path):
    by_config = tmp_path / "config"
    history(by_config)
    write(by_config, {"archmem.toml": '[paths]\napi = ["services/api/**"]\norders = ["services/orders/**"]\n'})
    commit(by_config, "map in archmem.toml", "2026-03-01T00:00:00Z")
    by_model = tmp_path / "model"
    history(by_model)
    write(by_model, {"workspace.dsl": MAPPED})
    commit(by_model, "map in the model", "2026-03-01T00:00:00Z")

    def shape(found: dict[str, dict]) -> dict[str, tuple]:
        return {k: (v["status"], v["since"], (v["stamp"] or {}).get("time"), (v["stamp"] or {}).get("lines"))
                for k, v in found.items()}

    assert shape(drift(by_config)) == shape(drift(by_model))


def test_changing_only_archmem_properties_or_comments_keeps_the_baseline(tmp_path: Path):
    root = tmp_path / "repo"
    history(root)
    write(root, {"workspace.dsl": MAPPED})
    commit(root, "map", "2026-03-01T00:00:00Z")
    text = MAPPED.replace('"services/api/**"', '"services/api/**, libs/api/**"').replace(
        "        shop =", "        // the shop we build\n        shop =")
    text = text.replace('                    "archmem.paths" "services/orders/**"',
                        '                    "archmem.paths" "services/orders/**"\n'
                        '                    "archmem.anchor" "services/orders/app.py"')
    write(root, {"workspace.dsl": text})
    commit(root, "remap, comment", "2026-03-02T00:00:00Z")
    assert drift(root)["api"]["since"].startswith("2026-01-01")


def test_a_new_description_moves_the_baseline(tmp_path: Path):
    root = tmp_path / "repo"
    history(root)
    write(root, {"workspace.dsl": MAPPED.replace('"Routes requests"', '"Routes and authenticates requests"')})
    commit(root, "map and describe the API anew", "2026-03-01T00:00:00Z")
    found = drift(root)
    assert found["api"]["status"] == "in_sync" and found["api"]["since"].startswith("2026-03-01")
    # the same commit mapped Orders without describing it: its archmem lines do not count
    assert found["orders"]["since"].startswith("2026-01-01")


def test_since_takes_a_date_a_tag_or_a_commit(tmp_path: Path):
    root = tmp_path / "repo"
    history(root)
    write(root, {"archmem.toml": '[paths]\napi = ["services/api/**"]\n'})
    commit(root, "map", "2026-03-01T00:00:00Z")
    git(root, "tag", "v1", "HEAD~1")
    assert drift(root, "--since", "2026-01-15")["api"]["status"] == "drifted"
    assert drift(root, "--since", "2026-02-15")["api"]["status"] == "in_sync"
    assert drift(root, "--since", "v1")["api"]["status"] == "in_sync"
    first = git(root, "rev-list", "--max-parents=0", "HEAD").strip()
    assert drift(root, "--since", first[:10])["api"]["status"] == "drifted"
    wrong = CliRunner().invoke(cli, ["drift", "--since", "yesterday-ish", "--repo", str(root)])
    assert wrong.exit_code == 6 and "unknown revision or date 'yesterday-ish'" in wrong.output
    assert "2025-01-01" in wrong.output


def test_what_counts_as_mapping_only():
    assert is_mapping_only(
        ['            api = container "API" "Routes requests" "Go"'],
        ['            api = container "API" "Routes requests" "Go" {', "                properties {",
         '                    "archmem.paths" "services/api/**"', "                }", "            }"],
    )
    assert is_mapping_only(['    "archmem.paths" "a/**"'], ['    "archmem.paths" "a/**, b/**"', "  // why"])
    assert not is_mapping_only(['    description "Old"'], ['    description "New"'])
    assert not is_mapping_only([], ['    "owner" "team-a"'])


def test_mapping_lines_cover_a_properties_block_holding_only_them():
    text = MAPPED.split("\n")
    found = mapping_lines(text)
    assert {n for n in found} == {5, 6, 7, 11, 12, 13}
    mixed = ["properties {", '  "owner" "team-a"', '  "archmem.paths" "x/**"', "}"]
    assert mapping_lines(mixed) == {3}

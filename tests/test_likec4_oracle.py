"""LikeC4's own toolchain as the oracle: on real public workspaces (tests/data/likec4,
SOURCE.md there), ``archmem model --json`` in a folder holding only the workspace reads
the elements, titles, kinds and relationships that ``likec4 export json`` exports.

The CLI is installed project-locally by ``.ci/run`` (``.ci/likec4``); without it (or
without node) these tests skip.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.model.likec4.kinds import c4_level
from archmem.model.likec4.syntax import KindSpec

from .conftest import REPO_ROOT

CORPUS = REPO_ROOT / "tests" / "data" / "likec4"
LIKEC4 = REPO_ROOT / ".ci" / "likec4" / "node_modules" / ".bin" / "likec4"
WORKSPACES = sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.glob("*/*") if p.is_dir())
"""``<repository>/<workspace>``, as SOURCE.md lists them."""

needs_likec4 = pytest.mark.skipif(not LIKEC4.exists() or shutil.which("node") is None,
                                  reason="the LikeC4 CLI is not installed (.ci/run installs it into .ci/likec4)")


def test_the_corpus_is_ten_workspaces_from_five_repositories_at_least() -> None:
    assert len(WORKSPACES) >= 10
    assert len({w.split("/")[0] for w in WORKSPACES}) >= 5


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Each workspace copied into a folder of its own, with LikeC4's export of it (two at a time)."""
    base = tmp_path_factory.mktemp("likec4")

    def export(name: str) -> tuple[str, tuple[Path, dict[str, Any]]]:
        repo = base / name.replace("/", "__")
        shutil.copytree(CORPUS / name, repo / "architecture")
        out = repo.parent / (repo.name + ".json")
        subprocess.run([str(LIKEC4), "export", "json", "--no-use-dot", "-o", str(out), str(repo / "architecture")],
                       capture_output=True, check=True, timeout=600)
        return name, (repo, json.loads(out.read_text(encoding="utf-8")))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(export, WORKSPACES))


def oracle_levels(export: dict[str, Any]) -> dict[str, str]:
    """The C4 level of each exported element by archmem's rule, from LikeC4's own kinds."""
    spec = export["specification"]["elements"]
    levels: dict[str, str] = {}
    for fqn in sorted(export["elements"], key=lambda f: f.count(".")):
        kind = export["elements"][fqn]["kind"]
        kind_spec = spec.get(kind, {})
        parent = fqn.rpartition(".")[0]
        levels[fqn] = c4_level(kind, KindSpec(kind, notation=kind_spec.get("notation", ""),
                                              shape=kind_spec.get("style", {}).get("shape", "")),
                               levels.get(parent) if parent else None)
    return levels


def f1(ours: Counter[Any], theirs: Counter[Any]) -> float:
    if not ours and not theirs:
        return 1.0
    return 2 * sum((ours & theirs).values()) / (sum(ours.values()) + sum(theirs.values()))


@pytest.mark.slow
@needs_likec4
@pytest.mark.parametrize("name", WORKSPACES)
def test_archmem_reads_what_likec4_exports(name: str, exports: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    repo, export = exports[name]
    result = CliRunner().invoke(cli, ["model", "--json", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    ours = json.loads(result.output)
    assert ours["format"] == "likec4"
    levels = oracle_levels(export)
    their_elements = Counter(
        (fqn, e.get("title", fqn.rpartition(".")[2]), levels[fqn], e.get("technology", ""))
        for fqn, e in export["elements"].items()
    )
    our_elements = Counter((e["id"], e["name"], e["kind"], e["technology"]) for e in ours["elements"])
    their_relations = Counter(
        (r["source"]["model"], r["target"]["model"], r.get("title", ""), r.get("technology", ""))
        for r in export["relations"].values()
    )
    our_relations = Counter((r["source"], r["destination"], r["description"], r["technology"])
                            for r in ours["relationships"])
    assert our_elements == their_elements, (our_elements - their_elements, their_elements - our_elements)
    assert our_relations == their_relations, (our_relations - their_relations, their_relations - our_relations)
    assert f1(our_elements, their_elements) >= 0.95 and f1(our_relations, their_relations) >= 0.95

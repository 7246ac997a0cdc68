"""archmem's own code against its own workspace.dsl and the layer rules of its
archmem.toml: the model draws every dependency between archmem's parts, and imports
point down (docs/architecture.md, "The layers") as a conformance check of the model.

tests/test_layers.py stays as an independent oracle: it reads imports its own way (a
hand-written ast walk over a hand-written layer list), so a bug in conformance's
resolution cannot hide an upward import from both. The last test here checks that the
two agree on an upward import planted in a copy of the package.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from archmem.config import load_config
from archmem.conformance.engine import check_conformance
from archmem.conformance.types import ConformanceReport
from archmem.workspace import Workspace

from .conftest import REPO_ROOT
from .test_layers import upward_imports


def conformance_of(root: Path) -> ConformanceReport:
    """The report without a store (no cache, nothing written into the repository)."""
    workspace = Workspace.open(root, model=root / "workspace.dsl", env={})
    return check_conformance(
        files=workspace.repository.files(), hashes=workspace.repository.content_hashes,
        read=workspace.repository.read_bytes, model=workspace.model, ownership=workspace.ownership,
        config=workspace.config.conformance, config_source=workspace.config.source,
    )


def test_archmem_has_the_shape_its_own_model_draws():
    report = conformance_of(REPO_ROOT)
    problems = [f"{d.source} → {d.target} at {', '.join(map(str, d.sites))}" for d in report.undeclared]
    problems += [f"{v.rule}: {v.dependency.source} → {v.dependency.target} at {v.dependency.sites[0]}"
                 for v in report.violations]
    problems += [" → ".join(c.names) for c in report.cycles if not c.drawn]
    assert report.clean, "archmem leaves its own model:\n" + "\n".join(problems)
    assert report.counts.unresolved == 0, report.unresolved
    assert report.errors == []
    package = [d for d in report.dependencies if d.source.startswith("archmem.")]
    assert len(package) > 50, "the package's own dependencies were read and lifted"


def test_archmem_toml_states_the_layers_as_rules():
    rules = load_config(REPO_ROOT, env={}).conformance.forbid
    assert {tuple(r.sources) for r in rules} >= {("archmem.foundation",), ("archmem.adapters",), ("archmem.service",)}


def test_an_upward_import_is_a_rule_violation_and_test_layers_agrees(tmp_path: Path):
    root = tmp_path / "copy"
    shutil.copytree(REPO_ROOT / "archmem", root / "archmem", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("workspace.dsl", "archmem.toml"):
        shutil.copy(REPO_ROOT / name, root / name)
    sqlite = root / "archmem" / "store" / "sqlite.py"
    text = sqlite.read_text(encoding="utf-8")
    sqlite.write_text(text + "\n\ndef _shortcut():\n    from archmem.workspace import Workspace\n", encoding="utf-8")
    line = text.count("\n") + 4

    report = conformance_of(root)
    broken = [v for v in report.violations if v.dependency.source == "archmem.adapters.store"]
    assert [(v.dependency.target, [str(s) for s in v.dependency.sites], v.reason) for v in broken] == [
        ("archmem.service.facade", [f"archmem/store/sqlite.py:{line}"], "adapters never reach up")
    ]
    assert [f"archmem/store/sqlite.py:{line}"] == [
        found.split(": ")[0] for found in upward_imports(root / "archmem")
    ]

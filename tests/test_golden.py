"""Golden files: the demo's briefing and knowledge map, byte for byte, with a frozen clock.

Regenerate after an intended change with ``ARCHMEM_UPDATE_GOLDEN=1 python -m pytest
tests/test_golden.py`` and review the diff. (Not an ARCHMEM_ setting: the test reads it
before the isolation fixture runs.)
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from archmem.demo import run_demo
from archmem.workspace import Workspace

GOLDEN = Path(__file__).with_name("golden")
UPDATE = os.environ.get("ARCHMEM_UPDATE_GOLDEN") == "1"
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_demo(tmp_path_factory.mktemp("golden") / "demo", now=NOW).root


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed; see the module docstring to regenerate"


def test_briefing_golden(demo: Path):
    check("demo-briefing.md", (demo / "briefing.md").read_text(encoding="utf-8"))


def test_knowledge_map_golden(demo: Path):
    with Workspace.open(demo, clock=lambda: NOW, env={}) as ws:
        check("demo-map.md", ws.knowledge_map().render("md"))


def test_briefing_budget_golden(demo: Path):
    with Workspace.open(demo, clock=lambda: NOW, env={}) as ws:
        full = ws.brief("speed up checkout and change how tax is rounded")
        tight = ws.brief("speed up checkout and change how tax is rounded", budget=1500)
        check("demo-briefing-1500.md", tight.markdown)
    # a tight budget keeps the best memory and lists fewer elements, not the other way round
    assert tight.memory_ids == full.memory_ids[:1]
    assert 1 <= len(tight.elements) < len(full.elements) and len(tight.markdown) <= 1500


def test_overview_golden(demo: Path):
    with Workspace.open(demo, clock=lambda: NOW, env={}) as ws:
        check("demo-overview.md", ws.brief(overview=True, budget=4000).markdown)

"""archmem map: coverage, cells, gaps, escaping, and the HTML page in a real browser."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, lines, write


@pytest.fixture
def mapped(repo: Path) -> Path:
    clock = FrozenClock()
    clock.now = clock.now.replace(year=2026, month=1, day=15)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        ws.remember("Routes are matched by prefix, longest first.", kind="pitfall", title="Prefix order",
                    elements=["ApiGateway"])
        ws.remember("Never trust <script>alert(1)</script> in headers.", kind="note", elements=["ApiGateway"])
        ws.remember("Commit messages say what and why.", kind="convention", title="Commit style")
    (repo / "services/api/router.go").write_text(lines(100))
    write(repo, {"tools/gen.py": "print(1)\n"})
    commit(repo, "router rewrite", "2026-02-01T00:00:00Z")
    return repo


def test_markdown_map_has_coverage_cells_gaps_and_sections(mapped: Path):
    result = CliRunner().invoke(cli, ["map", "--repo", str(mapped)])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "**1 of 4 elements documented.**" in text
    assert "- **ApiGateway** (container) · code drifted · 1 file, 100 lines" in text
    assert "1 pitfall, **2 to VERIFY**" in text and "pitfall: Prefix order" in text
    assert "  - **Orders** (container) · code in sync · 1 file, 40 lines\n    **nothing known yet**" in text
    assert "## Code no element owns\n\n- `tools/gen.py`" in text
    assert "- [CONVENTION] Commit style" in text


def test_json_map(mapped: Path):
    data = json.loads(CliRunner().invoke(cli, ["map", "--format", "json", "--repo", str(mapped)]).output)
    assert data["coverage"] == "1 of 4 elements documented" and (data["documented"], data["total"]) == (1, 4)
    api = next(e for e in data["elements"] if e["id"] == "shop.api")
    assert api["memories"]["pitfall"] == ["Prefix order"] and api["drift"] == "drifted" and api["verify"] == 2
    assert api["freshness"] == "old"  # confirmed in January, read in November
    assert data["unowned"] == ["tools/gen.py"]


def test_html_is_self_contained_and_escapes_memory_content(mapped: Path, tmp_path: Path):
    out = tmp_path / "map.html"
    result = CliRunner().invoke(cli, ["map", "--format", "html", "--out", str(out), "--repo", str(mapped)])
    assert result.exit_code == 0 and "1 of 4 elements documented" in result.output
    html = out.read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html
    assert "http://" not in html and "https://" not in html  # no network: inline CSS only


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs Debian's chromium)")
def test_the_map_in_headless_chromium(mapped: Path, tmp_path: Path):
    page = tmp_path / "map.html"
    CliRunner().invoke(cli, ["map", "--format", "html", "--out", str(page), "--repo", str(mapped)])
    profile = ["--user-data-dir=" + str(tmp_path / "profile")]
    dom = subprocess.run([CHROMIUM, *FLAGS, *profile, "--dump-dom", page.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    assert 'id="coverage"' in dom and "1 of 4 elements documented" in dom
    assert dom.count('data-documented="no"') == 3 and dom.count('data-drift="drifted"') == 2
    assert "&lt;script&gt;" in dom  # still text after the browser parsed it
    shot = tmp_path / "map.png"
    subprocess.run([CHROMIUM, *FLAGS, *profile, "--window-size=1280,900", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000

"""archmem map: coverage, cells, gaps, escaping, and the HTML page in a real browser."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

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
    commit(repo, "team memory", "2026-01-15T10:00:00Z")  # before the rewrite, not with it
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


class _Nesting(HTMLParser):
    """For each ``data-element`` cell, the ``data-box`` ids around it, outermost first."""

    VOID: ClassVar[set[str]] = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self, page: str) -> None:
        super().__init__()
        self.stack: list[tuple[str, str | None]] = []
        self.cells: dict[str, list[str]] = {}
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("data-element"):
            self.cells[str(found["data-element"])] = [box for _, box in self.stack if box]
        if tag not in self.VOID:
            self.stack.append((tag, found.get("data-box")))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass


def test_html_nests_children_inside_the_box_of_their_parent(mapped: Path, tmp_path: Path):
    out = tmp_path / "map.html"
    CliRunner().invoke(cli, ["map", "--format", "html", "--out", str(out), "--repo", str(mapped)])
    nesting = _Nesting(out.read_text()).cells
    # the system is a box: its own cell first, then its containers inside it
    assert nesting == {"shop": ["shop"], "shop.api": ["shop"], "shop.orders": ["shop"], "shop.legacy": ["shop"]}


BIG_CONTAINERS, BIG_COMPONENTS = 15, 20
LONG_TITLE = "A" + "very" * 30 + "LongTitleWithoutSpaces and some more words after it"  # 178 of 200 characters


def _big_model() -> str:
    """A person and an external system at the top; a system with 15 containers, one of which
    has 20 components and another 2."""
    containers = []
    for c in range(BIG_CONTAINERS):
        count = BIG_COMPONENTS if c == 3 else 2 if c == 7 else 0
        components = "".join(
            f'                k{k:02d} = component "Component {k:02d} of container {c:02d} with a long name" '
            f'"Does one thing." "Go"\n' for k in range(count)
        )
        body = " {\n" + components + "            }" if components else ""
        containers.append(f'            c{c:02d} = container "Container {c:02d}" "Serves." "Python"{body}\n')
    return (
        'workspace "Big" {\n    !identifiers hierarchical\n    model {\n'
        '        shopper = person "Shopper"\n        bank = softwareSystem "Bank"\n'
        '        big = softwareSystem "Big" {\n' + "".join(containers) + "        }\n    }\n}\n"
    )


LAYOUT_PROBE = """<script>
(() => {
  const rect = (el) => el.getBoundingClientRect();
  const name = (el) => el.dataset.element || el.dataset.box;
  const out = {overlaps: [], outside: [], clipped: [], columns: {}, pageWidth: document.documentElement.scrollWidth,
               viewport: window.innerWidth};
  for (const grid of document.querySelectorAll(".grid")) {
    const items = [...grid.children], g = rect(grid);
    items.forEach((item, i) => {
      const a = rect(item);
      if (a.left < g.left - 0.5 || a.right > g.right + 0.5) out.outside.push(name(item));
      for (const other of items.slice(i + 1)) {
        const b = rect(other);
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
          out.overlaps.push([name(item), name(other)]);
      }
    });
    const owner = grid.closest("[data-box]");
    if (owner) out.columns[owner.dataset.box] = new Set(items.map((item) => Math.round(rect(item).left))).size;
  }
  for (const cell of document.querySelectorAll("[data-element]")) {
    if (cell.scrollWidth > cell.clientWidth + 1) out.clipped.push(cell.dataset.element);
    const box = cell.closest("[data-box]");
    if (box) {
      const a = rect(cell), b = rect(box);
      if (a.left < b.left || a.right > b.right || a.top < b.top || a.bottom > b.bottom) out.outside.push(cell.dataset.element);
    }
  }
  const pre = document.createElement("pre");
  pre.id = "layout";
  pre.textContent = JSON.stringify(out);
  document.body.append(pre);
})();
</script>
"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs Debian's chromium)")
def test_a_big_model_nests_and_wraps_without_overlap(git_repo, tmp_path: Path):
    root = git_repo({"workspace.dsl": _big_model()}, name="big")
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        ws.remember("Long titles must not widen the cell.", kind="pitfall", title=LONG_TITLE, elements=["big.c03.k05"])
        ws.remember("Container notes sit in the box's own cell.", kind="note", title="Own cell", elements=["big.c03"])
        ws.remember("A pitfall of a leaf container.", kind="pitfall", title="Leaf", elements=["big.c01"])
    page = tmp_path / "big.html"
    result = CliRunner().invoke(cli, ["map", "--format", "html", "--out", str(page), "--repo", str(root)])
    assert result.exit_code == 0 and "3 of 40 elements documented" in result.output, result.output

    # the hierarchy is the DOM's: components inside their container's box inside the system's box
    nesting = _Nesting(page.read_text()).cells
    assert nesting["shopper"] == nesting["bank"] == []
    assert nesting["big"] == ["big"] and nesting["big.c00"] == ["big"]
    assert nesting["big.c03"] == ["big", "big.c03"]
    assert all(nesting[f"big.c03.k{k:02d}"] == ["big", "big.c03"] for k in range(BIG_COMPONENTS))
    assert nesting["big.c07.k01"] == ["big", "big.c07"] and len(nesting) == 40

    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", LAYOUT_PROBE + "</body>"))
    for width, columns in ((1280, 3), (760, 1)):
        profile = ["--user-data-dir=" + str(tmp_path / f"profile-{width}")]
        dom = subprocess.run([CHROMIUM, *FLAGS, *profile, f"--window-size={width},900", "--dump-dom", probe.as_uri()],
                             check=False, capture_output=True, text=True, timeout=120).stdout
        found = re.search(r'<pre id="layout">(.*?)</pre>', dom, re.DOTALL)
        assert found, dom[-2000:]
        layout = json.loads(html.unescape(found.group(1)))
        assert layout["overlaps"] == [] and layout["outside"] == [] and layout["clipped"] == [], (width, layout)
        assert layout["pageWidth"] <= layout["viewport"], (width, layout)  # no sideways scrolling
        # the 20 components wrap into rows of several columns (one column only on a narrow window)
        assert layout["columns"]["big.c03"] >= columns and layout["columns"]["big"] >= columns, (width, layout)

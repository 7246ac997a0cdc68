"""The merge driver for memory files: the field merge, ``archmem merge-file``, ``archmem
install merge-driver``, and real ``git merge`` runs with and without it."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.git.merge_file import merge_texts
from archmem.memory.file_format import parse_memory, render_memory
from archmem.memory.merge import merge_lists, merge_memory_file
from archmem.memory.types import Memory
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, REPO_ROOT, FrozenClock, git, write

WHEN = datetime(2026, 5, 1, 9, 0, tzinfo=timezone.utc)
BASE = Memory(
    id="m-1", kind="pitfall", title="Header limits", content="Headers over 8KB are dropped.\n\nSee the router.",
    elements=["gateway"], anchors=["services/gateway/router.go"], author="claude-code/sarah", created_at=WHEN,
    confirmed_at=WHEN, confirmations=1,
)


def version(**changes: object) -> str:
    return render_memory(dataclasses.replace(BASE, **changes))


def merge(base: str | None, ours: str, theirs: str):
    return merge_memory_file(base, ours, theirs, merge_texts)


def merged(base: str | None, ours: str, theirs: str) -> Memory:
    result = merge(base, ours, theirs)
    assert not result.conflicted, result
    return parse_memory(result.text).memory


# ---- the field merge ----------------------------------------------------------------


def test_two_confirmations_take_the_later_time_and_both_counts():
    ours = version(confirmed_at=WHEN + timedelta(days=3), confirmations=2)
    theirs = version(confirmed_at=WHEN + timedelta(days=5), confirmations=3)
    result = merge(version(), ours, theirs)
    assert (result.conflicted, result.method) == (False, "fields")
    memory = parse_memory(result.text).memory
    assert memory.confirmed_at == WHEN + timedelta(days=5) and memory.confirmations == 4
    assert result.text == version(confirmed_at=WHEN + timedelta(days=5), confirmations=4)


def test_elements_and_anchors_are_united_in_order_and_removals_stay():
    ours = version(elements=["gateway", "orders"], anchors=["services/gateway/router.go", "a.py"])
    theirs = version(elements=["billing", "gateway"], anchors=["b.py"])  # removed the router anchor
    memory = merged(version(), ours, theirs)
    assert memory.elements == ["gateway", "orders", "billing"]
    assert memory.anchors == ["a.py", "b.py"]
    assert merge_lists(None, ["a", "b"], ["c", "a"]) == ["a", "b", "c"]


def test_a_field_changed_on_one_side_is_taken_from_that_side():
    ours = version(title="Header size limits")
    theirs = version(confirmed_at=WHEN + timedelta(days=1), confirmations=2, status="archived",
                     status_reason="moved to the wiki")
    memory = merged(version(), ours, theirs)
    assert memory.title == "Header size limits" and memory.status == "archived"
    assert memory.status_reason == "moved to the wiki" and memory.confirmations == 2


def test_edits_to_different_lines_of_the_content_both_land():
    ours = version(content="Headers over 16KB are dropped.\n\nSee the router.")
    theirs = version(content="Headers over 8KB are dropped.\n\nSee the router (services/gateway).")
    expected = "Headers over 16KB are dropped.\n\nSee the router (services/gateway)."
    assert merged(version(), ours, theirs).content == expected


def test_both_sides_changing_one_field_differently_is_a_conflict_with_git_markers():
    result = merge(version(), version(title="Header size limits"), version(title="Limits on headers"))
    assert result.conflicted and result.method == "text" and result.conflicts == ("title",)
    lines = result.text.split("\n")
    assert lines[3:8] == ["<<<<<<< ours", "title: Header size limits", "=======", "title: Limits on headers",
                          ">>>>>>> theirs"]


def test_both_sides_editing_one_content_line_is_a_conflict():
    result = merge(version(), version(content="Headers over 16KB are dropped."),
                   version(content="Headers over 32KB are dropped."))
    assert result.conflicted and result.conflicts == ("content",)
    assert "<<<<<<< ours" in result.text and "Headers over 32KB" in result.text


def test_a_version_that_is_not_a_memory_falls_back_to_a_line_merge():
    broken = version().replace("kind: pitfall", "kind: gotcha")
    result = merge(version(), broken, version(confirmations=2))
    assert result.method == "text" and "ours is not a memory file" in (result.reason or "")


def test_unknown_keys_are_never_dropped_by_a_rewrite():
    ours = version(confirmations=2).replace("kind: pitfall\n", "kind: pitfall\nreviewed-by: ana\n")
    result = merge(version(), ours, version(title="Header size limits"))
    assert result.method == "text" and "reviewed-by: ana" in result.text


def test_two_additions_of_one_memory_merge_without_a_base():
    ours = version(confirmations=2, elements=["gateway"])
    theirs = version(confirmations=1, elements=["orders"], confirmed_at=WHEN + timedelta(days=1))
    memory = merged(None, ours, theirs)
    assert memory.elements == ["gateway", "orders"] and memory.confirmations == 2
    assert memory.confirmed_at == WHEN + timedelta(days=1)


def test_versions_of_different_memories_fall_back_to_a_line_merge():
    result = merge(version(), version(id="m-2"), version(confirmations=2))
    assert result.method == "text" and result.reason == "the versions hold different memories (m-1, m-2)"


# ---- archmem merge-file -------------------------------------------------------------


def files(tmp_path: Path, base: str, ours: str, theirs: str) -> list[str]:
    paths = []
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    return paths


def test_merge_file_writes_ours_and_exits_0(tmp_path: Path):
    paths = files(tmp_path, version(), version(confirmations=2), version(confirmations=3))
    result = CliRunner().invoke(cli, ["merge-file", *paths, "mem.md"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "ours").read_text(encoding="utf-8") == version(confirmations=4)


def test_merge_file_writes_markers_and_exits_1_on_a_conflict(tmp_path: Path):
    paths = files(tmp_path, version(), version(title="A"), version(title="B"))
    result = CliRunner().invoke(cli, ["merge-file", *paths, "mem.md"], catch_exceptions=False)
    assert result.exit_code == 1
    assert "mem.md: conflict (both sides changed title)" in result.output
    assert "<<<<<<< ours" in (tmp_path / "ours").read_text(encoding="utf-8")


# ---- archmem install merge-driver ---------------------------------------------------


def install(root: Path, *args: str):
    return CliRunner().invoke(cli, ["install", "merge-driver", "--repo", str(root), *args], catch_exceptions=False)


def test_install_writes_gitattributes_and_git_config_once(git_repo):
    root = git_repo({".gitattributes": "*.png binary\n"})
    result = install(root)
    assert result.exit_code == 0, result.output
    assert (root / ".gitattributes").read_text(encoding="utf-8") == (
        "*.png binary\n# archmem: merge memory files as memories (archmem install merge-driver)\n"
        ".archmem/memories/**/*.md merge=archmem\n"
    )
    assert git(root, "config", "--local", "merge.archmem.driver").strip() == "archmem merge-file %O %A %B %P"
    assert git(root, "config", "--local", "merge.archmem.name").strip().startswith("archmem memory files")
    again = install(root, "--json")
    data = json.loads(again.output)
    assert [c["action"] for c in data["changes"]] + [s["action"] for s in data["git_config"]] == ["unchanged"] * 3
    write(root, {".archmem/memories/a.md": "", ".archmem/memories/team/b.md": "", ".archmem/private/c.md": ""})
    attrs = git(root, "check-attr", "merge", "--", ".archmem/memories/a.md", ".archmem/memories/team/b.md",
                ".archmem/private/c.md")
    assert attrs.splitlines() == [".archmem/memories/a.md: merge: archmem",
                                  ".archmem/memories/team/b.md: merge: archmem",
                                  ".archmem/private/c.md: merge: unspecified"]


def test_install_follows_a_custom_memory_folder_and_dry_run_writes_nothing(git_repo):
    root = git_repo({"archmem.toml": '[store]\nmemories = "docs/team memory"\n'})
    result = install(root, "--dry-run")
    assert result.exit_code == 0 and "would create  .gitattributes" in result.output
    assert '+"docs/team memory/**/*.md" merge=archmem' in result.output
    assert not (root / ".gitattributes").exists()
    assert subprocess.run(["git", "config", "--local", "merge.archmem.driver"], cwd=root).returncode == 1


def test_install_never_replaces_another_driver_without_force(git_repo):
    root = git_repo({"README.md": "x\n"})
    git(root, "config", "merge.archmem.driver", "my-own-driver %A")
    refused = install(root)
    assert refused.exit_code == 9 and "merge.archmem.driver is 'my-own-driver %A'" in refused.output
    assert not (root / ".gitattributes").exists()
    assert install(root, "--force").exit_code == 0
    assert git(root, "config", "merge.archmem.driver").strip() == "archmem merge-file %O %A %B %P"


def test_install_global_and_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    plain = tmp_path / "plain"
    plain.mkdir()
    refused = install(plain)
    assert refused.exit_code == 6 and "not a git repository" in refused.output
    assert install(plain, "--global").exit_code == 0
    assert "driver = archmem merge-file %O %A %B %P" in (tmp_path / "gitconfig").read_text(encoding="utf-8")
    printed = install(plain, "--print")
    assert ".archmem/memories/**/*.md merge=archmem" in printed.output


# ---- real git merges ----------------------------------------------------------------


def confirm_on_branch(root: Path, branch: str, times: int, clock: FrozenClock) -> None:
    git(root, "checkout", "-q", "-b", branch, "main")
    with Workspace.open(root, clock=clock, env={}) as ws:
        for _ in range(times):
            clock.advance(days=1)
            ws.confirm("Header limits")
    git(root, "commit", "-q", "-am", f"confirm on {branch}")


@pytest.fixture
def two_confirmations(git_repo) -> Path:
    """main holds one memory; branches left and right each confirm it."""
    root = git_repo({"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR,
                     ".gitignore": ".archmem/archmem.db*\n"})
    clock = FrozenClock()
    with Workspace.open(root, clock=clock, env={}) as ws:
        ws.remember("Headers over 8KB are dropped.", kind="pitfall", title="Header limits", elements=["gateway"])
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a memory")
    confirm_on_branch(root, "left", 1, clock)
    git(root, "checkout", "-q", "main")
    confirm_on_branch(root, "right", 2, clock)
    git(root, "checkout", "-q", "left")
    return root


def test_two_confirmations_conflict_in_git_without_the_driver(two_confirmations: Path):
    root = two_confirmations
    merged = subprocess.run(["git", "merge", "--no-edit", "right"], cwd=root, capture_output=True, text=True)
    assert merged.returncode != 0 and "CONFLICT" in merged.stdout
    result = CliRunner().invoke(cli, ["check", "--repo", str(root), "--json"])
    assert result.exit_code == 2
    [problem] = json.loads(result.output)["problems"]
    assert problem["rule"] == "conflict-markers"
    text = (root / problem["path"]).read_text(encoding="utf-8")
    assert text.split("\n")[problem["line"] - 1].startswith("<<<<<<< ")


def test_two_confirmations_merge_cleanly_with_the_driver(two_confirmations: Path):
    root = two_confirmations
    assert install(root).exit_code == 0
    # git runs the driver by name from PATH; point it at this checkout's archmem instead
    git(root, "config", "merge.archmem.driver", f'"{sys.executable}" -m archmem merge-file %O %A %B %P')
    git(root, "merge", "-q", "--no-edit", "right", env={"PYTHONPATH": str(REPO_ROOT)})
    [path] = (root / ".archmem" / "memories").glob("*.md")
    memory = parse_memory(path.read_text(encoding="utf-8")).memory
    assert memory.confirmations == 3  # one on the left, two on the right
    assert memory.confirmed_at == FrozenClock().now + timedelta(days=3)  # the right's second, the latest
    assert CliRunner().invoke(cli, ["check", "--repo", str(root)]).exit_code == 0
    with Workspace.open(root, env={}) as ws:
        assert ws.get_memory("Header limits").confirmations == 3

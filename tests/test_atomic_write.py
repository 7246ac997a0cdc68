"""One atomic writer for every file archmem replaces (memory and accept files, the
agents' config files, archmem.toml)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from archmem.atomic_write import write_atomic


def test_text_and_bytes_replace_the_file_and_leave_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "a.md"
    write_atomic(path, "one\r\ntwo\n")
    assert path.read_bytes() == b"one\r\ntwo\n"  # line endings as given
    write_atomic(path, b"\xc3\xa9", durable=False)
    assert path.read_text(encoding="utf-8") == "é"
    assert [p.name for p in path.parent.iterdir()] == ["a.md"]


def test_the_mode_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "hook.sh"
    path.write_text("old")
    path.chmod(0o750)
    write_atomic(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o750


def test_a_symlink_is_replaced_unless_asked_to_follow_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    link = tmp_path / "repo" / "memory.md"
    link.parent.mkdir()
    link.symlink_to(outside)
    write_atomic(link, "memory")  # a planted link never sends a write outside
    assert outside.read_text() == "keep me" and not link.is_symlink() and link.read_text() == "memory"

    agents = tmp_path / "repo" / "AGENTS.md"
    agents.write_text("agents")
    claude = tmp_path / "repo" / "CLAUDE.md"
    claude.symlink_to(agents.name)
    write_atomic(claude, "both", follow_symlinks=True)  # CLAUDE.md -> AGENTS.md stays a link
    assert claude.is_symlink() and agents.read_text() == "both"


def test_a_failed_rename_leaves_no_temporary(tmp_path: Path) -> None:
    # a folder where the file should be: the rename fails after the data was written
    target = tmp_path / "a.md"
    (target / "inside").mkdir(parents=True)
    with pytest.raises(OSError):
        write_atomic(target, "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"] and target.is_dir()

"""A damaged store or a full disk through the CLI and MCP: exit 7 (a store error) with
what happened and what to do, never a traceback, and nothing half-written."""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli

from .conftest import ADR, MODEL, REPO_ROOT, write

BIG_NOTE = " ".join(
    "".join(random.Random(i).choice("abcdefghijklmnopqrstuvwxyz") for _ in range(4 + i % 6)) for i in range(3000)
)[:19_000]
"""A note of 19,000 characters in 3,000 distinct words: pages of rows and FTS segments."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR, "services/gateway/router.go": "x\n"})
    return root


def am(repo: Path, *args: str):
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)])


def archmem(repo: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None,
            limit_file_size: int | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m archmem`` in a real process (optionally unable to grow any file past a size)."""

    def limit() -> None:
        if limit_file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file_size, limit_file_size))

    return subprocess.run(
        [sys.executable, "-m", "archmem", *args, "--repo", str(repo)], input=stdin, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}, preexec_fn=limit, timeout=120,
    )


def assert_store_error(code: int, output: str, *words: str) -> None:
    assert code == 7, output
    assert "Traceback" not in output and "cannot rollback" not in output, output
    for word in words:
        assert word in output, output


def corrupt_a_page(store: Path) -> None:
    """8 KB of random bytes at offset 12288: two pages of the schema's tables and indexes
    (written back from the WAL first, so the damaged pages are the ones read)."""
    db = sqlite3.connect(store)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with store.open("r+b") as handle:
        handle.seek(12288)
        handle.write(random.Random(17).randbytes(8192))


def test_a_corrupt_page_is_a_store_error_that_says_what_to_do(repo: Path):
    for i in range(30):
        note = f"note {i} about gateway headers, token {i}, word{i} and other{i * 7}"
        assert am(repo, "remember", note, "--kind", "note", "--element", "gateway").exit_code == 0
    store = repo / ".archmem" / "archmem.db"
    corrupt_a_page(store)
    for args in (["remember", "another fact about the gateway", "--kind", "note"], ["recall", "gateway headers"],
                 ["brief", "fix the gateway"]):
        result = am(repo, *args)
        assert isinstance(result.exception, SystemExit), result.exception  # not a DatabaseError
        assert_store_error(result.exit_code, result.output, f"the archmem index {store} is corrupt", ".recover")
    as_json = am(repo, "recall", "gateway headers", "--json")
    assert as_json.exit_code == 7 and json.loads(as_json.output)["error"] == "store_error"


def test_a_corrupt_page_is_a_store_error_over_mcp(repo: Path):
    pytest.importorskip("mcp")
    from mcp import Client

    from archmem.mcp.server import build_server
    from archmem.workspace import Workspace

    assert am(repo, "remember", "the gateway drops headers over 8KB", "--kind", "pitfall").exit_code == 0
    corrupt_a_page(repo / ".archmem" / "archmem.db")

    async def recall() -> object:
        async with Client(build_server(Workspace.open(repo, env={})), mode="legacy") as client:
            return await client.call_tool("recall", {"query": "gateway headers"})

    result = asyncio.run(recall())
    assert result.is_error and result.structured_content is None  # type: ignore[attr-defined]
    assert result.meta["archmem/error"]["error"] == "store_error"  # type: ignore[attr-defined]
    assert "is corrupt" in result.content[0].text  # type: ignore[attr-defined]


@pytest.fixture
def small_disk(tmp_path: Path):
    """A real 2 MB file system (tmpfs), where root may mount one; skipped elsewhere."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_a_full_disk_at_commit_says_the_disk_is_full_and_changes_nothing(repo: Path, small_disk: Path):
    env = {"ARCHMEM_STORE_PATH": str(small_disk / "archmem.db")}
    assert archmem(repo, "remember", "the gateway drops headers over 8KB", "--kind", "note", env=env).returncode == 0
    free = os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize
    (small_disk / "filler").write_bytes(b"\0" * (free - 64 * 1024))  # room for the shared-memory file, no more

    full = archmem(repo, "remember", "-", "--kind", "note", env=env, stdin=BIG_NOTE)
    assert_store_error(full.returncode, full.stderr, "is full (database or disk is full)", "free some space")

    (small_disk / "filler").unlink()
    listed = json.loads(archmem(repo, "list", "--json", env=env).stdout)
    assert [m["content"] for m in listed] == ["the gateway drops headers over 8KB"]
    assert archmem(repo, "remember", "-", "--kind", "note", env=env, stdin=BIG_NOTE).returncode == 0


def test_a_write_the_file_system_refuses_at_commit_is_reported_not_hidden(repo: Path):
    """No file may grow past 64 KB (RLIMIT_FSIZE; needs no privileges): the WAL cannot
    take the commit, SQLite rolls back by itself, and the error says why."""
    assert archmem(repo, "remember", "the gateway drops headers over 8KB", "--kind", "note").returncode == 0
    refused = archmem(repo, "remember", "-", "--kind", "note", stdin=BIG_NOTE, limit_file_size=64 * 1024)
    assert_store_error(refused.returncode, refused.stderr, "cannot read or write the store", "nothing was changed")
    listed = json.loads(archmem(repo, "list", "--json").stdout)
    assert [m["content"] for m in listed] == ["the gateway drops headers over 8KB"]

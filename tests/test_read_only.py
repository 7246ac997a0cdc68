"""Reading creates nothing: read commands, the agents' start-up hook and ``archmem mcp``
leave ``git status`` as it was; only ``init`` and writes create ``.archmem/``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from archmem.agents.install import hook_command
from archmem.cli import cli
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, REPO_ROOT, git, git_status, write

EXAMPLE = REPO_ROOT / "examples" / "shop"
READS = [
    ["recall", "how are taxes rounded"], ["brief", "change the tax rounding"], ["brief", "--changed", "--overview"],
    ["map"], ["list"], ["review"], ["drift"], ["export"], ["model"], ["status"],
]


def cli_run(root: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [*args, "--repo", str(root)], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def shop_repo(tmp_path: Path) -> Path:
    """The example shop (a model, code, history) with no archmem state at all."""
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("demo"))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the shop")
    return root


def test_read_commands_in_a_repository_without_archmem_create_nothing(tmp_path: Path):
    root = shop_repo(tmp_path)
    for args in READS:
        code, _out, err = cli_run(root, *args)
        assert code == 0, (args, err)
        assert not (root / ".archmem").exists(), args
        assert git_status(root) == "", args
    code, out, _ = cli_run(root, "drift", "--json")
    assert code == 0 and json.loads(out)["commits"] == 1  # the history, read into memory


def test_a_clone_with_committed_memories_indexes_them_out_of_git_status(tmp_path: Path):
    root = shop_repo(tmp_path)
    with Workspace.open(root, env={}) as ws:
        ws.remember("Tax is rounded once per cart, never per line.", kind="pitfall", title="Tax rounding")
    git(root, "add", ".archmem/memories")
    git(root, "commit", "-q", "-m", "a memory")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    assert not (clone / ".archmem" / "archmem.db").exists()
    code, out, _ = cli_run(clone, "recall", "tax rounding", "--json")
    assert code == 0 and json.loads(out)["results"][0]["title"] == "Tax rounding"
    assert (clone / ".archmem" / "archmem.db").exists()  # the index, built once, git-ignored
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""


def test_where_archmem_has_nothing_reads_say_what_to_do_and_exit_0(tmp_path: Path):
    root = tmp_path / "empty"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"README.md": "hello\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "readme")
    for args in READS:
        if args in (["status"], ["model"]):
            continue  # status explains every part; model says where it looked (exit 4)
        code, out, err = cli_run(root, *args)
        assert (code, out) == (0, ""), args
        assert "no architecture model and no memories" in err and "archmem init" in err, args
    code, out, _ = cli_run(root, "list", "--json")
    assert code == 0 and json.loads(out)["set_up"] is False
    assert git_status(root) == "" and not (root / ".archmem").exists()


def test_a_write_creates_the_store_and_only_the_memory_file_shows(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "model")
    assert cli_run(root, "recall", "gateway headers")[0] == 0 and not (root / ".archmem").exists()
    code, _, err = cli_run(root, "remember", "The gateway strips long headers.", "--kind", "pitfall", "-e", "gateway")
    assert code == 0, err
    assert (root / ".archmem" / "archmem.db").exists()
    shown = git(root, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert len(shown) == 1 and shown[0].startswith("?? .archmem/memories/")


def test_the_start_up_hook_creates_nothing_and_is_silent_where_archmem_has_nothing(
    tmp_path: Path, archmem_on_path: dict[str, str]
):
    root = shop_repo(tmp_path)
    env = {**archmem_on_path, "CLAUDE_PROJECT_DIR": str(root)}
    ran = subprocess.run(hook_command(), shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert ran.returncode == 0 and ran.stdout.startswith("# Briefing: this repository (no task yet)")
    assert git_status(root) == ""
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    env["CLAUDE_PROJECT_DIR"] = str(empty)
    ran = subprocess.run(hook_command(), shell=True, cwd=empty, env=env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert (ran.returncode, ran.stdout) == (0, "")
    assert git_status(empty) == ""


def test_the_mcp_server_reads_without_creating_a_store(tmp_path: Path):
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def session(root: Path) -> tuple[list[str], Any, Any]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "archmem", "mcp"], cwd=str(root),
                                       env={"PYTHONPATH": str(REPO_ROOT)})
        with (tmp_path / "server.log").open("a") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write_), ClientSession(read, write_) as client:
                await client.initialize()
                tools = [tool.name for tool in (await client.list_tools()).tools]
                recalled = await client.call_tool("recall", {"query": "tax rounding"})
                found = await client.call_tool("find_elements", {"task": "checkout"})
                if root.name == "empty":  # a session is a write: it creates the index, which git ignores
                    started = await client.call_tool("start_session", {"task": "look around"})
                    assert "archmem has nothing here yet" in started.content[0].text
                return tools, recalled, found

    root = shop_repo(tmp_path)
    tools, recalled, found = anyio.run(session, root)
    assert "recall" in tools and recalled.structured_content["results"] == [] and found.structured_content["elements"]
    assert not (root / ".archmem").exists() and git_status(root) == ""

    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    _, recalled, found = anyio.run(session, empty)
    assert "archmem has nothing here yet" in recalled.content[0].text and found.structured_content["elements"] == []
    assert (empty / ".archmem" / "archmem.db").exists()
    assert git(empty, "status", "--porcelain", "--untracked-files=all") == ""

"""Shared fixtures: isolation from the caller's environment, real git repositories."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
CORPUS = SHARED / "c4-corpus"


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ARCHMEM_* setting of the person running the tests leaks into them, and every
    ``archmem`` they start runs in its own process (the command server's tests turn it on)."""
    for name in list(os.environ):
        if name.upper().startswith("ARCHMEM_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ARCHMEM_SERVER", "off")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.com")


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git in ``cwd`` and return its stdout (raises on failure)."""
    result = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def ranked_ids(result) -> list[str]:
    """The ids a recall ranked (its [[link]] neighbours are in ``linked``)."""
    return [r["id"] for r in result.results]


def shown_ids(result) -> list[str]:
    """What recall shows an agent: its answer, else the weak candidates it is unsure of.
    A test on a store of a few memories checks ranking through this: the decision to
    answer is fitted on repositories of a hundred and more, and is tested on its own."""
    return [r["id"] for r in (result.results or result.weak)]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def git_repo(tmp_path: Path):
    """A factory: an initialised git repository with the given files committed."""

    def make(files: dict[str, str], *, name: str = "repo") -> Path:
        root = tmp_path / name
        root.mkdir()
        git(root, "init", "-q")
        write(root, files)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
        return root

    return make


# ---- shared by several test modules ------------------------------------------------

MODEL = """\
name: Shop
elements:
  - id: customer
    kind: person
    name: Customer
  - id: shop
    kind: softwareSystem
    name: Shop
    elements:
      - id: gateway
        kind: container
        name: ApiGateway
        description: Routes requests and checks tokens
        paths: [services/gateway/**]
      - id: orders
        kind: container
        name: OrderProcessor
        description: Turns carts into orders at checkout
        paths: [services/orders/**]
decisions: docs/adr
"""

ADR = "# 17. Use the body for large payloads\n\nDate: 2026-05-18\n\n## Status\n\nAccepted\n"


class FrozenClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


DRIFT_MODEL = """\
workspace "Shop" {
    !identifiers hierarchical
    model {
        shop = softwareSystem "Shop" {
            api = container "ApiGateway" {
                properties {
                    "archmem.paths" "services/api/**"
                }
            }
            orders = container "Orders" {
                properties {
                    "archmem.paths" "services/orders/**"
                }
            }
            legacy = container "Legacy" {
                properties {
                    "archmem.paths" "legacy/**"
                }
            }
        }
    }
}
"""


def commit(root: Path, message: str, when: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, env={"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})


def lines(n: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(n))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with a three-container DSL model, committed on 2026-01-01."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": DRIFT_MODEL, "services/api/router.go": lines(40), "services/orders/app.py": lines(40),
                 "legacy/old.py": lines(10)})
    commit(root, "initial", "2026-01-01T00:00:00Z")
    return root


@pytest.fixture
def archmem_on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose ``archmem`` command runs this checkout (an agent's hook
    starts ``archmem`` by name), never an installed copy of another version."""
    import sys

    folder = tmp_path / "bin"
    folder.mkdir()
    shim = folder / "archmem"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO_ROOT}" exec "{sys.executable}" -m archmem "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(REPO_ROOT)}


def git_status(root: Path) -> str:
    """``git status`` with untracked and ignored files: what a read must leave empty."""
    return git(root, "status", "--porcelain", "--untracked-files=all", "--ignored")


def cli_commands(group, prefix: str = "") -> list:
    """Every command under a click group as (name, command), subcommands included: asked
    through ``list_commands``/``get_command``, so lazily loaded commands are listed too
    (``group.commands`` holds only those loaded so far)."""
    import click

    ctx = click.Context(group)
    found = []
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        if command is None:
            continue
        found.append((prefix + name, command))
        if isinstance(command, click.Group):
            found += cli_commands(command, prefix + name + " ")
    return found


def spy(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[tuple]:
    """Count the calls of ``owner.name`` while the real one runs: the arguments of each
    call are appended to the list returned (``self`` first for a method on a class)."""
    real = getattr(owner, name)
    calls: list[tuple] = []

    def recorded(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return calls


def drift_again(root: Path, monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> tuple[dict, list[tuple]]:
    """The drift report of a first open of ``root``, then of a second with ``owner.name``
    spied: the second must say what the first said; its report and the spied calls (what
    a kept answer saves the next command from)."""
    from archmem.workspace import Workspace

    (root / ".archmem").mkdir(exist_ok=True)  # as after `archmem init`: reads keep the index in a file
    with Workspace.open(root) as ws:
        first = ws.drift_report().to_dict()
    calls = spy(monkeypatch, owner, name)
    with Workspace.open(root) as ws:
        again = ws.drift_report().to_dict()
    assert again == first
    return first, calls


def signature_shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with three committed memories, and the size from which an open asks
    git whether the memory folder changed lowered to take them (``sync.SIGNATURE_FROM``)."""
    from archmem.memory import sync as sync_module
    from archmem.workspace import Workspace

    monkeypatch.setattr(sync_module, "SIGNATURE_FROM", 2)
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": DRIFT_MODEL, "services/api/router.go": lines(10)})
    commit(root, "initial", "2026-01-01T00:00:00Z")
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        for name in ("Retries", "Timeouts", "Headers"):
            ws.remember(f"{name} are set in the gateway.", kind="convention", title=name, elements=["ApiGateway"])
    commit(root, "memories", "2026-01-02T00:00:00Z")
    return root

"""Team memory in git (issue 11): memory files travel through real clones, branches and
merges, hand edits reach the index, the index can be deleted, an old store moves to files
once, and crashes, failed writes and concurrent writers leave files and index agreeing."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from archmem.cli import cli
from archmem.memory.file_format import parse_memory
from archmem.workspace import Workspace

from .conftest import FrozenClock, git, write

WRITER = Path(__file__).with_name("writer_process.py")
MEMORIES = Path(".archmem/memories")

SHOP_DSL = """\
workspace "Shop" {
    model {
        shop = softwareSystem "Shop" {
            gateway = container "ApiGateway" "Routes requests and checks tokens" {
                properties {
                    "archmem.paths" "services/gateway/**"
                }
            }
            orders = container "OrderProcessor" "Turns carts into orders at checkout" {
                properties {
                    "archmem.paths" "services/orders/**"
                }
            }
        }
    }
}
"""
GITIGNORE = ".archmem/archmem.db\n.archmem/archmem.db-*\n.archmem/private/\n"


# ---- helpers ---------------------------------------------------------------------------


def am(repo: Path, *args: str) -> Result:
    """One archmem command against ``repo``, as a person runs it."""
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)], catch_exceptions=False)


def am_json(repo: Path, *args: str) -> Any:
    result = am(repo, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def remember(repo: Path, content: str, *args: str) -> str:
    """Remember through the CLI; the new memory's id."""
    data = am_json(repo, "remember", content, *args)
    assert not data["deduplicated"], data
    return str(data["id"])


def recalled(repo: Path, query: str, limit: int = 10) -> list[str]:
    """What recall shows: its answer, or its weak candidates when it is unsure (these stores are
    too small for the decision to be sure; what is tested here is what the index holds)."""
    result = am_json(repo, "recall", query, "--limit", str(limit))
    return [r["id"] for r in result["results"] or result["weak"]]


def listed(repo: Path, *args: str) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in am_json(repo, "list", *args)}


def memory_files(repo: Path) -> dict[str, Path]:
    """{memory id: its file} for every file in the committed folder (parsed, not guessed)."""
    found: dict[str, Path] = {}
    for path in sorted((repo / MEMORIES).glob("**/*.md")):
        memory_id = parse_memory(path.read_text(encoding="utf-8")).memory.id
        assert memory_id not in found, f"two files for {memory_id}: {found[memory_id]} and {path}"
        found[memory_id] = path
    return found


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def merge(repo: Path, ref: str) -> subprocess.CompletedProcess[str]:
    """``git merge`` without raising: the test looks at what git said."""
    return subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "merge", "--no-edit", ref], cwd=repo, capture_output=True, text=True,
        env=os.environ.copy(),
    )


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare repository (the team's remote) holding a shop with a model and some code."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q")
    write(seed, {"workspace.dsl": SHOP_DSL, ".gitignore": GITIGNORE, "services/gateway/router.go": "package gateway\n",
                 "services/orders/app.py": "def checkout():\n    pass\n"})
    commit_all(seed, "the shop")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    return bare


def clone(origin: Path, name: str) -> Path:
    target = origin.parent / name
    git(origin.parent, "clone", "-q", str(origin), str(target))
    return target


def index_agrees_with_files(repo: Path) -> None:
    """Every memory file is indexed, and every indexed shared memory has its file."""
    files = memory_files(repo)
    with Workspace.open(repo, env={}) as ws:
        indexed = {m.id: m for m in ws.store.list_memories(status=None)}
        assert ws.file_warnings == []
    assert set(files) <= set(indexed)
    assert {i for i, m in indexed.items() if not m.private} == set(files)


# ---- git: clones, branches, merges ----------------------------------------------------


def test_a_memory_committed_in_one_clone_is_recalled_in_another_after_a_pull(origin: Path):
    alice, bob = clone(origin, "alice"), clone(origin, "bob")
    own = remember(bob, "The checkout page caches prices for a minute.", "--kind", "note")
    assert recalled(bob, "checkout page caches prices") == [own]  # bob's index holds a file before the pull

    memory_id = remember(alice, "Checkout must be idempotent: the payment callback can arrive twice.",
                         "--kind", "pitfall", "--title", "Idempotent checkout", "--element", "OrderProcessor")
    git(alice, "add", ".archmem/memories")
    assert git(alice, "status", "--porcelain") == f"A  {memory_files(alice)[memory_id].relative_to(alice)}\n"
    git(alice, "commit", "-q", "-m", "remember: idempotent checkout")
    git(alice, "push", "-q", "origin", "HEAD")

    git(bob, "pull", "-q", "--ff-only")
    assert recalled(bob, "checkout idempotency")[0] == memory_id
    shown = listed(bob)[memory_id]
    assert shown["title"] == "Idempotent checkout" and shown["elements"] == ["orders"]
    assert shown["kind"] == "pitfall"


def test_memories_added_on_two_branches_merge_without_conflict(origin: Path):
    alice, bob = clone(origin, "alice"), clone(origin, "bob")
    git(alice, "checkout", "-q", "-b", "alice-work")
    git(bob, "checkout", "-q", "-b", "bob-work")
    ours = [
        remember(alice, "The gateway strips headers over 8KB.", "--kind", "pitfall", "--element", "ApiGateway"),
        remember(alice, "Tokens are checked before routing.", "--kind", "convention", "--title", "Token first"),
    ]
    theirs = [
        remember(bob, "Orders are written in one transaction with their lines.", "--kind", "convention",
                 "--element", "orders"),
        remember(bob, "Retry loops back off from 50 ms to 5 s.", "--kind", "note", "--title", "Retry backoff"),
    ]
    commit_all(alice, "alice's memories")
    commit_all(bob, "bob's memories")
    git(bob, "push", "-q", "origin", "bob-work")
    assert recalled(alice, "orders transaction") == []  # alice's index exists before the merge

    git(alice, "fetch", "-q", "origin")
    merged = merge(alice, "origin/bob-work")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "CONFLICT" not in merged.stdout
    assert git(alice, "status", "--porcelain") == ""

    assert set(listed(alice)) == set(ours + theirs)
    for memory_id, query in zip(ours + theirs, ["headers 8KB", "tokens routing", "orders transaction",
                                                  "retry back off"], strict=True):
        assert memory_id in recalled(alice, query), query
    index_agrees_with_files(alice)


def test_two_branches_superseding_one_memory_merge_cleanly_into_a_fork(origin: Path):
    seed = clone(origin, "seed-clone")
    old = remember(seed, "Headers over 8KB are dropped by the gateway.", "--kind", "pitfall", "--title",
                   "Header limits", "--element", "ApiGateway")
    commit_all(seed, "header limits")
    git(seed, "push", "-q", "origin", "HEAD")
    alice, bob = clone(origin, "alice"), clone(origin, "bob")
    git(alice, "checkout", "-q", "-b", "alice-16kb")
    git(bob, "checkout", "-q", "-b", "bob-32kb")
    by_alice = remember(alice, "Since v2 the gateway drops headers over 16KB.", "--kind", "pitfall",
                        "--title", "Header limits", "--supersedes", "Header limits")
    by_bob = remember(bob, "Behind the new proxy, headers up to 32KB pass the gateway.", "--kind", "pitfall",
                      "--title", "Header limits", "--supersedes", old)
    commit_all(alice, "header limits: 16KB")
    commit_all(bob, "header limits: 32KB")
    assert git(alice, "show", "--stat", "--format=", "HEAD").count("|") == 1  # only the new file was written
    git(bob, "push", "-q", "origin", "bob-32kb")

    git(alice, "fetch", "-q", "origin")
    merged = merge(alice, "origin/bob-32kb")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "CONFLICT" not in merged.stdout

    git(alice, "push", "-q", "origin", "HEAD:main")
    carol = clone(origin, "carol")  # an index built from the merged files alone
    for repo in (alice, carol):
        with Workspace.open(repo, env={}) as ws:
            assert {k: set(v) for k, v in ws.store.forks().items()} == {old: {by_alice, by_bob}}
            assert ws.store.get_memory(old).status == "superseded"
        found = recalled(repo, "gateway header limits KB")
        assert old not in found
        assert {by_alice, by_bob} <= set(found)
        assert set(listed(repo)) == {by_alice, by_bob}


# ---- hand edits -----------------------------------------------------------------------


@pytest.fixture
def shop(origin: Path) -> Path:
    return clone(origin, "shop")


def test_a_hand_edit_is_picked_up_by_the_next_command(shop: Path):
    memory_id = remember(shop, "The gateway strips headers over 8KB.", "--kind", "pitfall", "--title", "Header limits",
                         "--element", "ApiGateway")
    path = memory_files(shop)[memory_id]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("title: Header limits", "title: Header size limits")
                    .replace("strips headers over 8KB.", "strips headers over 16KB since the Zanzibar proxy."),
                    encoding="utf-8")

    assert recalled(shop, "zanzibar proxy") == [memory_id]
    shown = listed(shop)[memory_id]
    assert shown["content"] == "The gateway strips headers over 16KB since the Zanzibar proxy."
    assert shown["title"] == "Header size limits"
    assert am_json(shop, "history", "Header size limits")[0]["id"] == memory_id
    assert recalled(shop, "8") == []  # the old words left the index (8KB: 8kb, 8 and kb, which 16KB keeps)


def test_a_hand_deleted_file_leaves_the_index(shop: Path):
    kept = remember(shop, "Orders are written in one transaction with their lines.", "--kind", "convention")
    gone = remember(shop, "The orders cache is warmed before deploys.", "--kind", "pitfall", "--title", "Cache warm")
    assert set(recalled(shop, "orders")) == {kept, gone}
    memory_files(shop)[gone].unlink()

    assert recalled(shop, "orders") == [kept]
    assert set(listed(shop, "--status", "all")) == {kept}
    assert am(shop, "history", "Cache warm").exit_code != 0
    index_agrees_with_files(shop)


def test_a_copy_with_the_same_id_is_a_duplicate_until_the_original_goes(shop: Path):
    memory_id = remember(shop, "The gateway strips headers over 8KB.", "--kind", "pitfall", "--title", "Header limits")
    original = memory_files(shop)[memory_id]
    copy = original.with_name("header-limits-v2.md")
    copy.write_text(original.read_text(encoding="utf-8").replace("8KB", "16KB"), encoding="utf-8")
    with Workspace.open(shop, env={}) as ws:
        ws.store  # noqa: B018
        assert [w.split(":")[:2] for w in ws.file_warnings] == [[copy.relative_to(shop).as_posix(), "2"]]
        assert "duplicate id" in ws.file_warnings[0]
    assert listed(shop)[memory_id]["content"] == "The gateway strips headers over 8KB."

    original.unlink()  # the copy is now the one file holding the memory
    with Workspace.open(shop, env={}) as ws:
        ws.store  # noqa: B018
        assert ws.file_warnings == []
    assert recalled(shop, "gateway headers") == [memory_id]
    assert listed(shop)[memory_id]["content"] == "The gateway strips headers over 16KB."
    index_agrees_with_files(shop)


def test_two_confirmations_on_two_branches_conflict_and_the_markers_are_reported(origin: Path):
    seed = clone(origin, "seed-clone")
    confirmed = remember(seed, "The gateway strips headers over 8KB.", "--kind", "pitfall", "--title", "Header limits")
    other = remember(seed, "Orders are written in one transaction.", "--kind", "convention")
    commit_all(seed, "two memories")
    git(seed, "push", "-q", "origin", "HEAD")
    alice, bob = clone(origin, "alice"), clone(origin, "bob")
    assert am(alice, "confirm", "Header limits", "--yes").exit_code == 0
    commit_all(alice, "confirm header limits")
    git(alice, "push", "-q", "origin", "HEAD")
    time.sleep(0.01)  # another confirmation time
    assert am(bob, "confirm", "Header limits", "--yes").exit_code == 0
    commit_all(bob, "confirm header limits too")

    git(bob, "fetch", "-q", "origin")
    merged = merge(bob, "origin/main")
    assert merged.returncode != 0 and "CONFLICT" in merged.stdout  # an ordinary git conflict
    path = memory_files(alice)[confirmed].relative_to(alice).as_posix()
    marker = next(i for i, line in enumerate((bob / path).read_text(encoding="utf-8").splitlines(), 1)
                  if line.startswith("<<<<<<<"))
    with Workspace.open(bob, env={}) as ws:
        ws.store  # noqa: B018
        assert [w.split(":")[:2] for w in ws.file_warnings] == [[path, str(marker)]]
        assert "conflict markers" in ws.file_warnings[0]
    assert recalled(bob, "gateway headers") == [confirmed]  # its last good version, meanwhile
    assert recalled(bob, "orders transaction") == [other]

    git(bob, "checkout", "--theirs", path)
    commit_all(bob, "merge: keep alice's confirmation")
    with Workspace.open(bob, env={}) as ws:
        ws.store  # noqa: B018
        assert ws.file_warnings == []
        assert ws.get_memory(confirmed).confirmations == 1
    index_agrees_with_files(bob)


@pytest.mark.parametrize("edit", ["changed", "deleted", "broken"])
def test_a_hand_edit_made_while_a_workspace_is_open_is_never_overwritten(shop: Path, edit: str):
    """A long-running process (the MCP server) read the files before a person edited one;
    its next write to that memory must not put the old version back."""
    from archmem.errors import ArchmemError

    with Workspace.open(shop, env={}) as ws:
        memory_id = ws.remember("The gateway strips headers over 8KB.", kind="pitfall", title="Header limits").id
        other = ws.remember("Orders are written in one transaction.", kind="convention").id
        path = memory_files(shop)[memory_id]
        edited = {
            "changed": path.read_text(encoding="utf-8").replace("8KB.", "8KB, and 16KB behind the proxy."),
            "deleted": None,
            "broken": path.read_text(encoding="utf-8").replace("title: Header limits", "title: Header: limits"),
        }[edit]
        if edited is None:
            path.unlink()
        else:
            path.write_text(edited, encoding="utf-8")
        for write in (lambda: ws.confirm(memory_id),
                      lambda: ws.remember("Since v2, 32KB.", kind="pitfall", title="Header limits",
                                          supersedes=memory_id)):
            with pytest.raises(ArchmemError) as refused:
                write()
            assert path.relative_to(shop).as_posix() in refused.value.message
            assert "nothing was written" in refused.value.message
        assert ws.confirm(other).confirmations == 1  # the other files take writes
    assert (path.read_text(encoding="utf-8") if path.exists() else None) == edited
    assert len(list((shop / MEMORIES).iterdir())) == (1 if edit == "deleted" else 2)  # no file from the supersede

    if edit == "broken":  # the next command knows the file is broken and says so
        refused = am(shop, "confirm", "Header limits", "--yes")
        assert refused.exit_code == 9
        assert f"{path.relative_to(shop).as_posix()} does not parse (line 4" in refused.output
        assert path.read_text(encoding="utf-8") == edited
    if edit == "changed":  # the next command reads the edit, then writes on top of it
        assert am_json(shop, "confirm", "Header limits", "--yes")["confirmations"] == 1
        assert listed(shop)[memory_id]["content"] == "The gateway strips headers over 8KB, and 16KB behind the proxy."
        index_agrees_with_files(shop)


BROKEN = """\
---
id: m-broken1
kind: pitfall
title: Payments: retries
created: 2026-03-01T10:00:00Z
---

Payment retries must carry the idempotency key.
"""


def test_a_file_with_broken_yaml_is_reported_with_its_line_and_the_rest_still_recall(shop: Path):
    good = remember(shop, "Payment callbacks can arrive twice; make them idempotent.", "--kind", "pitfall")
    broken = shop / MEMORIES / "payments-retries.m-broken1.md"
    broken.write_text(BROKEN, encoding="utf-8")

    with Workspace.open(shop, env={}) as ws:
        ws.store  # noqa: B018  (opening syncs)
        warnings = ws.file_warnings
    assert len(warnings) == 1
    assert warnings[0].startswith(".archmem/memories/payments-retries.m-broken1.md:4:")  # the `title:` line
    assert "not valid YAML" in warnings[0]
    assert recalled(shop, "payment idempotent retries") == [good]

    broken.write_text(BROKEN.replace("title: Payments: retries", 'title: "Payments: retries"'), encoding="utf-8")
    with Workspace.open(shop, env={}) as ws:
        ws.store  # noqa: B018
        assert ws.file_warnings == []
    assert set(recalled(shop, "payment idempotent retries")) == {good, "m-broken1"}


def test_a_file_broken_by_an_edit_keeps_its_last_good_version_until_fixed(shop: Path):
    memory_id = remember(shop, "The gateway strips headers over 8KB.", "--kind", "pitfall", "--title", "Header limits")
    path = memory_files(shop)[memory_id]
    good = path.read_text(encoding="utf-8")
    path.write_text(good.replace("title: Header limits", "title: Header: limits")
                    .replace("8KB", "16KB"), encoding="utf-8")

    with Workspace.open(shop, env={}) as ws:
        ws.store  # noqa: B018
        assert [w.split(":")[:2] for w in ws.file_warnings] == [[path.relative_to(shop).as_posix(), "4"]]
    assert recalled(shop, "gateway headers") == [memory_id]
    assert listed(shop)[memory_id]["content"] == "The gateway strips headers over 8KB."
    path.write_text(good.replace("8KB", "16KB"), encoding="utf-8")
    assert listed(shop)[memory_id]["content"] == "The gateway strips headers over 16KB."


# ---- the index is derived -------------------------------------------------------------

QUERIES = ["gateway headers", "checkout orders idempotent", "retry payment", "tokens", "payment callbacks twice"]


def _fill(shop: Path, clock: FrozenClock) -> None:
    """A store with kinds, elements, anchors, a chain, links (one pending), an archived memory."""
    with Workspace.open(shop, env={}, clock=clock) as ws:
        first = ws.remember("The gateway strips headers over 8KB.", kind="pitfall", title="Header limits",
                            elements=["gateway"], anchors=["services/gateway/router.go"])
        clock.advance(days=3)
        ws.remember("Since v2 the gateway drops headers over 16KB; see [[Token check]].", kind="pitfall",
                    title="Header limits", supersedes=first.id)
        clock.advance(days=1)
        ws.remember("Tokens are checked before routing, never after.", kind="convention", title="Token check",
                    elements=["ApiGateway"])
        clock.advance(hours=5)
        ws.remember("Checkout must be idempotent: payment callbacks arrive twice. [[Header limits]]",
                    kind="pitfall", elements=["orders"], author="claude-code/sarah")
        clock.advance(days=10)
        ws.remember("Payment retries back off from 50 ms to 5 s; see [[Retry budget]].", kind="note",
                    elements=["orders", "gateway"])
        clock.advance(minutes=1)
        ws.remember("The orders cache is warmed before deploys.", kind="note", title="Cache warm")
        ws.archive("Cache warm", "the cache is gone")
        clock.advance(days=2)
        ws.remember("Checkout sessions ended without incident.", kind="session_outcome", elements=["orders"])
        ws.confirm("Token check")


def _recall_all(shop: Path, clock: FrozenClock) -> list[list[dict[str, Any]]]:
    with Workspace.open(shop, env={}, clock=clock) as ws:
        return [ws.recall(query, limit=10, explain=True).to_dict()["results"] for query in QUERIES]


def _without_usage(memories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k not in ("exposures", "citations")} for m in memories]


def test_deleting_the_index_gives_identical_recall_and_list(shop: Path):
    clock = FrozenClock()
    _fill(shop, clock)
    clock.advance(days=30)
    before = _recall_all(shop, clock)
    assert all(before), "every query recalls something"
    with Workspace.open(shop, env={}, clock=clock) as ws:  # local usage: lost with the index, by design
        session = ws.start_session("checkout work", elements=["orders"])
        ws.recall("checkout orders", session_id=session.id)
        ws.end_session(session.id, used=["Token check"])
    listed_before = am_json(shop, "list", "--status", "all")
    assert any(m["exposures"] or m["citations"] for m in listed_before)

    for path in (shop / ".archmem").glob("archmem.db*"):
        path.unlink()
    after = _recall_all(shop, clock)
    listed_after = am_json(shop, "list", "--status", "all")

    assert [[r["id"] for r in rs] for rs in after] == [[r["id"] for r in rs] for rs in before]
    assert after == before
    def key(m: dict) -> str:
        return m["id"]

    assert sorted(_without_usage(listed_after), key=key) == sorted(_without_usage(listed_before), key=key)
    assert _without_usage(listed_after) == _without_usage(listed_before)
    index_agrees_with_files(shop)


# ---- a store from before files --------------------------------------------------------

OLD_MEMORIES = [
    # id, kind, title, content, created, confirmed, confirmations, supersedes, superseded_by, status, reason,
    # exposures, citations, author, session
    ("m-old0000001", "pitfall", "Header limits", "The gateway strips headers over 8KB.",
     "2026-01-05T10:00:00.123456Z", "2026-02-01T08:30:00.000001Z", 2, None, "m-new0000001", "superseded", None,
     4, 1, "claude-code/sarah", "s-0000000001"),
    ("m-new0000001", "pitfall", "Header limits", "Since v2 the gateway drops headers over 16KB.",
     "2026-03-01T09:00:00.000000Z", "2026-03-01T09:00:00.000000Z", 0, "m-old0000001", None, "active", None,
     7, 3, "codex/omar", None),
    ("m-note000001", "note", None, "Checkout retries carry the idempotency key; see [[Header limits]].",
     "2026-03-02T11:15:00.000000Z", None, 0, None, None, "active", None, 0, 0, None, None),
    ("m-pend000001", "convention", "Retry policy", "Retries back off as [[Retry budget]] says.",
     "2026-03-03T12:00:00.000000Z", "2026-04-01T12:00:00.000000Z", 1, None, None, "active", None, 2, 0, None, None),
    ("m-arch000001", "note", "Cache warm", "The orders cache is warmed before deploys.",
     "2026-03-04T13:00:00.000000Z", None, 0, None, None, "archived", "the cache is gone", 0, 0, None, None),
]
OLD_ELEMENTS = {"m-old0000001": ["gateway"], "m-new0000001": ["gateway"], "m-note000001": ["orders", "gateway"]}
OLD_ANCHORS = {"m-old0000001": ["services/gateway/router.go"]}


def _store_from_before_files(path: Path) -> None:
    """An index as archmem wrote it before memory files (schema 8), written row by row."""
    from archmem.memory.links import normalize_title
    from archmem.store.migrations import MIGRATIONS, MIGRATIONS_TABLE

    path.parent.mkdir(parents=True)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    db.execute(f"CREATE TABLE {MIGRATIONS_TABLE} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
               "applied_at TEXT NOT NULL)")
    for number, name, function in MIGRATIONS:
        if number > 8:
            break
        function(db)
        db.execute(f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?, 'then')", (number, name))
    for (memory_id, kind, title, content, created, confirmed, confirmations, supersedes, superseded_by, status,
         reason, exposures, citations, author, session) in OLD_MEMORIES:
        db.execute(
            "INSERT INTO memories (id, title, title_key, kind, content, content_hash, author, session_id, created_at, "
            "confirmed_at, confirmations, supersedes, superseded_by, status, status_reason, exposures, citations, "
            "search_title, search_body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (memory_id, title, normalize_title(title) if title else None, kind, content, memory_id + "-hash", author,
             session, created, confirmed, confirmations, supersedes, superseded_by, status, reason, exposures,
             citations, title or "", content),
        )
        for table, column, values in (("memory_elements", "element_id", OLD_ELEMENTS.get(memory_id, [])),
                                      ("memory_anchors", "anchor", OLD_ANCHORS.get(memory_id, []))):
            for position, value in enumerate(values):
                db.execute(f"INSERT INTO {table} (memory_id, {column}, position) VALUES (?, ?, ?)",
                           (memory_id, value, position))
    db.execute("INSERT INTO links VALUES ('m-note000001', 0, 'Header limits', 'header limits', NULL, 'memory', "
               "'m-new0000001')")
    db.execute("INSERT INTO links VALUES ('m-pend000001', 0, 'Retry budget', 'retry budget', NULL, NULL, NULL)")
    db.execute("INSERT INTO sessions (id, task, elements, started_at, ended_at) VALUES ('s-0000000001', 'headers', "
               "'[]', '2026-01-05T09:00:00.000000Z', '2026-01-05T11:00:00.000000Z')")
    db.execute("COMMIT")
    db.close()


def _snapshot(ws: Workspace) -> dict[str, dict[str, Any]]:
    return {m.id: m.to_json() for m in ws.store.list_memories(status=None)}


def test_a_store_from_before_files_moves_to_files_once_keeping_everything(shop: Path):
    _store_from_before_files(shop / ".archmem" / "archmem.db")

    with Workspace.open(shop, env={}) as ws:
        ws.store  # noqa: B018
        assert ws.last_sync.exported == len(OLD_MEMORIES)
        moved = _snapshot(ws)
        links = {(link.source_id, link.target_text): link.target_id for link in ws.store.links()}
        assert [m.id for m in ws.history("Header limits")] == ["m-old0000001", "m-new0000001"]
        assert ws.store.meta("files_export") is None
    files = memory_files(shop)
    assert set(files) == {row[0] for row in OLD_MEMORIES}
    for (memory_id, kind, title, content, created, confirmed, confirmations, supersedes, superseded_by, status,
         reason, exposures, citations, author, session) in OLD_MEMORIES:
        in_file = parse_memory(files[memory_id].read_text(encoding="utf-8")).memory
        indexed = moved[memory_id]
        for memory in (in_file.to_json(), indexed):
            assert (memory["kind"], memory["title"], memory["content"], memory["author"], memory["session_id"]) == (
                kind, title, content, author, session)
            assert memory["supersedes"] == supersedes and memory["confirmations"] == confirmations
            assert memory["elements"] == OLD_ELEMENTS.get(memory_id, [])
            assert memory["anchors"] == OLD_ANCHORS.get(memory_id, [])
        assert in_file.created_at == indexed_time(created) and in_file.confirmed_at == indexed_time(confirmed)
        assert in_file.status == ("archived" if status == "archived" else "active")  # superseded is derived
        assert (indexed["status"], indexed["superseded_by"]) == (status, superseded_by)
        assert indexed["status_reason"] == reason
        assert (indexed["exposures"], indexed["citations"]) == (exposures, citations)
    assert links == {("m-note000001", "Header limits"): "m-new0000001", ("m-pend000001", "Retry budget"): None}
    assert "status: superseded" not in files["m-old0000001"].read_text(encoding="utf-8")

    stamps = {path: path.stat().st_mtime_ns for path in files.values()}
    with Workspace.open(shop, env={}) as ws:  # once: the next open writes nothing
        ws.store  # noqa: B018
        assert ws.last_sync.exported == 0 and not ws.last_sync.changed
        assert _snapshot(ws) == moved
    assert {path: path.stat().st_mtime_ns for path in memory_files(shop).values()} == stamps

    for path in (shop / ".archmem").glob("archmem.db*"):
        path.unlink()
    with Workspace.open(shop, env={}) as ws:  # the files alone hold the chain, the links, the times
        rebuilt = _snapshot(ws)
        assert {(link.source_id, link.target_text): link.target_id for link in ws.store.links()} == links
    assert rebuilt == {i: {**m, "exposures": 0, "citations": 0} for i, m in moved.items()}


def indexed_time(text: str | None) -> Any:
    from archmem.clock import parse_time

    return parse_time(text) if text else None


# ---- crashes, failed writes, concurrent writers ---------------------------------------


def _env() -> dict[str, str]:
    """The environment for a child process: this checkout's archmem first on the path."""
    from .conftest import REPO_ROOT

    paths = [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


@pytest.mark.slow
def test_a_writer_killed_mid_batch_leaves_files_and_index_that_agree(shop: Path):
    proc = subprocess.Popen([sys.executable, str(WRITER), str(shop), "--batch"], stdout=subprocess.PIPE, text=True,
                            env=_env())
    written: list[str] = []
    deadline = time.monotonic() + 60
    while len(written) < 120 and time.monotonic() < deadline:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line:
            break
        written.append(line.strip())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(written) >= 120

    index_agrees_with_files(shop)
    files = memory_files(shop)
    assert set(written) <= set(files)
    assert len(files) - len(written) <= 1  # at most the one written but not yet printed


KILL_BEFORE_COMMIT = """
import os, signal, sys
from pathlib import Path
from archmem.store.connection import SQLiteConnection
from archmem.workspace import Workspace

commit = SQLiteConnection._commit

def die_once_files_are_written(self):
    if getattr(self, "_undo", None):  # a memory file is on disk (its undo is registered); the index has not committed
        os.kill(os.getpid(), signal.SIGKILL)
    commit(self)

SQLiteConnection._commit = die_once_files_are_written
with Workspace.open(Path(sys.argv[1]), env={}) as ws:
    if sys.argv[2] == "remember":
        ws.remember("Killed between the file and the commit.", kind="pitfall", title="Killed")
    elif sys.argv[2] == "confirm":
        ws.confirm(sys.argv[3])
    elif sys.argv[2] == "archive":
        ws.archive(sys.argv[3], "replaced by the outbox")
    elif sys.argv[2] == "purge":
        ws.purge(sys.argv[3], "written by mistake")
    else:
        ws.store
"""


def _kill_before_commit(repo: Path, *args: str) -> None:
    proc = subprocess.run([sys.executable, "-c", KILL_BEFORE_COMMIT, str(repo), *args], env=_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


@pytest.mark.parametrize("operation", ["remember", "confirm", "archive", "purge"])
def test_a_write_killed_between_its_file_and_its_commit_is_taken_from_the_file(shop: Path, operation: str):
    kept = remember(shop, "Orders are written in one transaction.", "--kind", "convention", "--title", "One tx")
    _kill_before_commit(shop, operation, kept)

    index_agrees_with_files(shop)
    files = memory_files(shop)
    memories = listed(shop, "--status", "all")
    assert set(memories) == set(files)
    if operation == "remember":
        assert len(files) == 2 and [m["title"] for m in memories.values()] == ["One tx", "Killed"]
    elif operation == "confirm":
        assert set(files) == {kept} and memories[kept]["confirmations"] == 1  # what the file says
    elif operation == "archive":
        assert set(files) == {kept} and memories[kept]["status"] == "archived"
    else:
        assert files == {} and memories == {}  # the file is gone: so is the memory


def test_moving_an_old_store_to_files_survives_a_kill_before_its_commit(shop: Path):
    _store_from_before_files(shop / ".archmem" / "archmem.db")
    _kill_before_commit(shop, "open")
    assert len(list((shop / MEMORIES).glob("*.md"))) == len(OLD_MEMORIES)  # written, not committed

    index_agrees_with_files(shop)
    assert set(memory_files(shop)) == {row[0] for row in OLD_MEMORIES}  # one file each, no copies
    with Workspace.open(shop, env={}) as ws:
        assert [m.id for m in ws.history("Header limits")] == ["m-old0000001", "m-new0000001"]
        assert ws.store.get_memory("m-new0000001").exposures == 7  # the usage the old store held


@pytest.fixture
def frozen_folder(shop: Path):
    """The memory folder made immutable (``chattr +i``: root writes through a mere chmod)."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed")
    folder = shop / MEMORIES
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"chattr +i is not possible here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_a_memory_file_that_cannot_be_written_leaves_no_file_and_no_index_row(
    shop: Path, request: pytest.FixtureRequest
):
    kept = remember(shop, "Orders are written in one transaction.", "--kind", "convention", "--title", "One tx")
    before = {path: path.read_bytes() for path in memory_files(shop).values()}
    request.getfixturevalue("frozen_folder")
    new = am(shop, "remember", "The gateway strips headers over 8KB.", "--kind", "pitfall")
    confirm = am(shop, "confirm", "One tx", "--yes")

    for result in (new, confirm):
        assert result.exit_code == 7, result.output  # StoreError
        assert "error: cannot write the memory file .archmem/memories/" in result.output
        assert "Traceback" not in result.output
    assert {path: path.read_bytes() for path in memory_files(shop).values()} == before
    assert sorted((shop / MEMORIES).iterdir()) == sorted(before)  # no temporary file left either
    memories = listed(shop, "--status", "all")
    assert set(memories) == {kept} and memories[kept]["confirmations"] == 0
    assert recalled(shop, "gateway headers") == []
    index_agrees_with_files(shop)


@pytest.mark.slow
def test_eight_processes_remembering_at_once_write_one_file_per_memory(shop: Path, tmp_path: Path):
    remember(shop, "Chain link zero.", "--kind", "note", "--title", "Chain")
    workers, ops = 8, 150
    results = [tmp_path / f"worker-{i}.json" for i in range(workers)]
    procs = [
        subprocess.Popen([sys.executable, str(WRITER), str(shop), str(i), str(ops), str(2000 + i), str(results[i])],
                         stderr=subprocess.PIPE, text=True, env=_env())
        for i in range(workers)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    reports = [json.loads(r.read_text()) for r in results]
    assert [e for r in reports for e in r["errors"]] == []

    files = memory_files(shop)  # raises on two files for one id
    index_agrees_with_files(shop)
    unique = [i for r in reports for i in r["unique"]]
    assert len(unique) == len(set(unique)) and set(unique) <= set(files)
    shared = {k: set() for k in range(10)}
    for r in reports:
        for k, memory_id in r["shared"]:
            shared[k].add(memory_id)
    assert all(len(ids) <= 1 for ids in shared.values()), shared  # a restatement confirms, never copies
    with Workspace.open(shop, env={}) as ws:
        chain = [m for m in ws.store.list_memories(status=None) if m.title == "Chain"]
        assert ws.store.forks() == {}
        assert len(chain) == 1 + sum(r["chain"] for r in reports)
        head = ws.get_memory("Chain")
        confirmations = sum(m.confirmations for m in chain)
        assert confirmations == sum(r["confirms"] for r in reports)
        in_files = sum(parse_memory(files[m.id].read_text(encoding="utf-8")).memory.confirmations for m in chain)
        assert in_files == confirmations and head.status == "active"

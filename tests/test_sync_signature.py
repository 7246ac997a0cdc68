"""Sync by signature: a large memory folder in git is known unchanged from what git says
differs from HEAD, without stat-ing every file; and every way a file can change still
reaches the index (an edit in place, a new file, a deletion, a staged change, a
checkout that brings files, a private file). Real git repositories and real files; the
size from which the signature is used is lowered so a few files exercise it."""

from __future__ import annotations

from pathlib import Path

import pytest

from archmem.memory import sync as sync_module
from archmem.store import files as files_module
from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, git, lines, signature_shop, write


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return signature_shop(tmp_path, monkeypatch)


def scanned_folders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders an open lists file by file (the real scan runs; it is only watched)."""
    seen: list[str] = []
    real = files_module._scan_folder

    def watched(folder, prefix, found):
        seen.append(prefix)
        real(folder, prefix, found)

    monkeypatch.setattr(files_module, "_scan_folder", watched)
    return seen


def contents(root: Path) -> dict[str, str]:
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        return {m.title or m.id: m.content for m in ws.store.list_memories()}


def memory_file(root: Path, title: str) -> Path:
    [found] = [p for p in (root / ".archmem/memories").rglob("*.md") if f"title: {title}" in p.read_text()]
    return found


def test_an_open_with_nothing_changed_lists_no_committed_file(shop: Path, monkeypatch: pytest.MonkeyPatch):
    contents(shop)  # the first open after the commit takes the signature
    seen = scanned_folders(monkeypatch)
    assert len(contents(shop)) == 3
    assert ".archmem/memories/" not in seen


def test_an_edit_in_place_of_a_committed_file_is_indexed(shop: Path):
    contents(shop)
    path = memory_file(shop, "Retries")
    text = path.read_text()
    with path.open("r+") as handle:  # same size, written in place: the folder's mtime does not move
        handle.write(text.replace("Retries are set", "Retries are cut"))
    assert contents(shop)["Retries"] == "Retries are cut in the gateway."


def test_new_deleted_and_staged_files_are_indexed(shop: Path):
    contents(shop)
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        ws.remember("Caches live for a minute.", kind="convention", title="Caches", elements=["ApiGateway"])
    assert "Caches" in contents(shop)
    memory_file(shop, "Timeouts").unlink()
    assert "Timeouts" not in contents(shop)
    path = memory_file(shop, "Headers")
    path.write_text(path.read_text().replace("Headers are set", "Headers are stripped"))
    git(shop, "add", "-A")
    assert contents(shop)["Headers"] == "Headers are stripped in the gateway."


def test_a_checkout_that_brings_files_is_indexed(shop: Path):
    git(shop, "checkout", "-q", "-b", "teammate")
    path = memory_file(shop, "Retries")
    path.write_text(path.read_text().replace("Retries are set", "Retries are capped"))
    commit(shop, "a teammate's change", "2026-01-03T00:00:00Z")
    git(shop, "checkout", "-q", "main")
    assert contents(shop)["Retries"] == "Retries are set in the gateway."
    git(shop, "merge", "-q", "--ff-only", "teammate")  # a pull, as far as the folder can tell
    assert contents(shop)["Retries"] == "Retries are capped in the gateway."


def test_a_private_memory_is_indexed(shop: Path):
    contents(shop)
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        ws.remember("My own note.", kind="note", title="Mine", private=True)
    assert contents(shop)["Mine"] == "My own note."
    [private] = [p for p in (shop / ".archmem").rglob("*.md") if "title: Mine" in p.read_text()]
    private.write_text(private.read_text().replace("My own note.", "My own note, edited."))
    assert contents(shop)["Mine"] == "My own note, edited."


def test_status_counts_the_files_from_the_index_without_listing_them(shop: Path, monkeypatch: pytest.MonkeyPatch):
    from archmem.status import workspace_status

    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        ws.remember("My own note.", kind="note", title="Mine", private=True)
    contents(shop)
    seen = scanned_folders(monkeypatch)
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        files = workspace_status(ws)["files"]
    assert (files["files"], files["private"]) == (3, 1)
    assert ".archmem/memories/" not in seen


def test_pulled_files_are_indexed_as_a_rebuild_indexes_them(shop: Path, monkeypatch: pytest.MonkeyPatch):
    """Files that arrive together (a pull) are indexed together: the model's link targets
    are worked out once for all their links, not once a link (what made a pulled file
    cost several times a rebuilt one); every link still resolves."""
    from archmem.memory import linking
    from archmem.memory.file_format import file_name, render_memory
    from archmem.memory.types import Memory

    contents(shop)
    folder = shop / ".archmem" / "memories"
    for number in range(12):
        memory = Memory(id=f"m-pulled{number:02d}", kind="note", title=f"Pulled {number}",
                        content=f"Pulled {number}: see [[Retries]], [[Pulled {(number + 1) % 12}]] and [[ApiGateway]].",
                        elements=["ApiGateway"], created_at=FrozenClock()())
        (folder / file_name(memory)).write_text(render_memory(memory), encoding="utf-8")
    commit(shop, "a teammate's memories", "2026-01-03T00:00:00Z")
    made = 0
    real = linking.link_targets

    def counted(model):
        nonlocal made
        made += 1
        return real(model)

    monkeypatch.setattr(linking, "link_targets", counted)
    monkeypatch.setattr(sync_module, "link_targets", counted, raising=False)
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        links = ws.store.links(pending=False)
        assert ws.last_sync is not None and len(ws.last_sync.added) == 12
        assert {(link.target_kind, link.target_text) for link in links if link.source_id == "m-pulled03"} == {
            ("memory", "Retries"), ("memory", "Pulled 4"), ("element", "ApiGateway")}
        assert not ws.store.links(pending=True)
    assert made == 1


def git_commands(trace: Path) -> list[str]:
    """The git commands a ``GIT_TRACE`` file records (one line each, as git ran them)."""
    return [line.partition("trace: built-in: ")[2] for line in trace.read_text().splitlines()
            if "trace: built-in: " in line]


def test_status_asks_git_of_the_memory_folder_once(shop: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """The open's signature and status's list of files not committed yet come from one
    ``git status`` of the memory folder."""
    from archmem.status import workspace_status

    contents(shop)
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        ws.remember("Caches live for a minute.", kind="convention", title="Caches", elements=["ApiGateway"])
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        files = workspace_status(ws)["files"]
    runs = [command for command in git_commands(trace) if " status " in f" {command} " and ".archmem/memories" in command]
    assert len(runs) == 1, runs
    [new] = files["uncommitted"]
    assert new.startswith(".archmem/memories/") and "caches" in new


def test_a_commit_that_does_not_touch_the_memories_lists_no_memory_file(shop: Path, monkeypatch: pytest.MonkeyPatch):
    contents(shop)
    write(shop, {"services/api/router.go": lines(12)})
    commit(shop, "code only", "2026-01-03T00:00:00Z")
    seen = scanned_folders(monkeypatch)
    assert len(contents(shop)) == 3
    assert ".archmem/memories/" not in seen


def test_a_pull_looks_only_at_the_files_it_brought(shop: Path, monkeypatch: pytest.MonkeyPatch):
    """git says which files a pull changed (the folder's trees before and after): the
    open reads those, lists no folder and compares no other file."""
    from archmem.memory.file_format import file_name, render_memory
    from archmem.memory.types import Memory
    from archmem.store.files import MemoryFolder

    contents(shop)
    git(shop, "checkout", "-q", "-b", "teammate")
    folder = shop / ".archmem" / "memories"
    for number in range(4):
        memory = Memory(id=f"m-pulled{number:02d}", kind="note", title=f"Pulled {number}",
                        content=f"Pulled {number}: see [[Retries]].", elements=["ApiGateway"],
                        created_at=FrozenClock()())
        (folder / file_name(memory)).write_text(render_memory(memory), encoding="utf-8")
    memory_file(shop, "Timeouts").unlink()
    path = memory_file(shop, "Retries")
    path.write_text(path.read_text().replace("Retries are set", "Retries are capped"))
    commit(shop, "a teammate's memories", "2026-01-03T00:00:00Z")
    git(shop, "checkout", "-q", "main")
    contents(shop)
    git(shop, "merge", "-q", "--ff-only", "teammate")  # a pull, as far as the folder can tell
    seen = scanned_folders(monkeypatch)
    read: list[str] = []
    real = MemoryFolder.read

    def watched(self: MemoryFolder, rel: str) -> bytes:
        read.append(rel)
        return real(self, rel)

    monkeypatch.setattr(MemoryFolder, "read", watched)
    found = contents(shop)
    assert found["Retries"] == "Retries are capped in the gateway." and "Timeouts" not in found
    assert {f"Pulled {n}" for n in range(4)} <= set(found) and len(found) == 6
    assert len(read) == 5 and ".archmem/memories/" not in seen


def test_a_pulled_copy_of_a_memory_is_reported_as_a_full_compare_reports_it(shop: Path):
    """A pull that brings a second file with an id the folder holds: the file it did not
    bring is looked up to choose the holder, as when every file is compared."""
    contents(shop)
    original = memory_file(shop, "Retries")
    copy = original.with_name("copy-of-retries.md")
    copy.write_text(original.read_text().replace("Retries are set", "Retries are copied"))
    commit(shop, "a copy", "2026-01-03T00:00:00Z")
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        assert ws.store.list_memories()  # the open's sync
        problems = [str(problem) for problem in ws.last_sync.problems] if ws.last_sync else []
    assert contents(shop)["Retries"] == "Retries are set in the gateway."
    assert len(problems) == 1 and "copy-of-retries.md" in problems[0] and "duplicate id" in problems[0]
    copy.unlink()
    commit(shop, "the copy goes", "2026-01-04T00:00:00Z")
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        assert ws.store.list_memories() and ws.last_sync is not None and not ws.last_sync.problems


def settle(root: Path) -> None:
    """Date the memory folders' mtimes an hour back, as a folder nobody wrote to lately."""
    import os
    import time

    past = time.time_ns() - 3_600_000_000_000
    for folder in [root / ".archmem" / "memories", *(root / ".archmem" / "memories").rglob("*")]:
        if folder.is_dir():
            os.utime(folder, ns=(past, past))


def memory_folder_commands(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The git commands one open runs about the committed memory folder."""
    trace = tmp_path / "trace.txt"
    trace.unlink(missing_ok=True)
    monkeypatch.setenv("GIT_TRACE", str(trace))
    contents(root)
    monkeypatch.delenv("GIT_TRACE")
    return [command for command in git_commands(trace) if ".archmem/memories" in command]


def test_an_open_with_nothing_new_asks_git_of_the_tracked_files_alone(
    shop: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """Once a full ``git status`` listed no untracked file and the folder's directories,
    HEAD and git's index have not moved since, git compares its tracked files only (a new
    file would have moved its directory) and the folder's tree is known: one process,
    half the work."""
    settle(shop)
    contents(shop)  # the full look, which finds nothing untracked
    [status] = memory_folder_commands(shop, tmp_path, monkeypatch)
    assert " status " in status and "--untracked-files=no" in status


def test_after_a_quiet_open_new_and_edited_files_are_still_seen(
    shop: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    from archmem.memory.file_format import file_name, render_memory
    from archmem.memory.types import Memory

    settle(shop)
    contents(shop)
    memory_folder_commands(shop, tmp_path, monkeypatch)
    path = memory_file(shop, "Retries")
    text = path.read_text()
    with path.open("r+") as handle:  # in place: the folder's mtime does not move
        handle.write(text.replace("Retries are set", "Retries are cut"))
    assert contents(shop)["Retries"] == "Retries are cut in the gateway."
    settle(shop)
    contents(shop)
    memory = Memory(id="m-byhand01", kind="note", title="By hand", content="Written by hand.",
                    elements=["ApiGateway"], created_at=FrozenClock()())
    (shop / ".archmem" / "memories" / file_name(memory)).write_text(render_memory(memory), encoding="utf-8")
    assert contents(shop)["By hand"] == "Written by hand."
    git(shop, "rm", "-q", "--cached", path.relative_to(shop).as_posix())  # untracked now, still there
    settle(shop)
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        from archmem.status import workspace_status

        assert workspace_status(ws)["files"]["uncommitted"]


def test_listing_the_code_walks_no_memory_file(shop: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """The repository's file list leaves the memory folder out before git walks it for
    untracked files (git's own count of the paths it visited), not after."""
    from archmem.git.repository import Repository

    def visited() -> int:
        trace = tmp_path / "trace2.txt"
        trace.unlink(missing_ok=True)
        monkeypatch.setenv("GIT_TRACE2_PERF", str(trace))
        Repository.at(shop).files()
        monkeypatch.delenv("GIT_TRACE2_PERF")
        return sum(int(line.rpartition("paths-visited:")[2]) for line in trace.read_text().splitlines()
                   if "paths-visited:" in line)

    before = visited()
    for number in range(20):
        (shop / ".archmem" / "memories" / f"untracked-{number}.md").write_text("not a memory yet\n")
    assert visited() == before


def test_a_memory_folder_removed_and_made_again_is_listed_in_full(shop: Path):
    """A folder that is not there has no mtime to vouch for it: the next open lists it."""
    import shutil

    from archmem.memory.file_format import file_name, render_memory
    from archmem.memory.types import Memory

    settle(shop)
    contents(shop)
    folder = shop / ".archmem" / "memories"
    shutil.rmtree(folder)
    assert contents(shop) == {}
    folder.mkdir()
    memory = Memory(id="m-byhand02", kind="note", title="Again", content="Written again.",
                    elements=["ApiGateway"], created_at=FrozenClock()())
    (folder / file_name(memory)).write_text(render_memory(memory), encoding="utf-8")
    assert contents(shop) == {"Again": "Written again."}


def test_status_leaves_gits_index_file_as_it_was(shop: Path):
    """A reading command does not rewrite git's index (a ``git status`` refreshes what it
    stats unless told not to): the open after it still finds the checkout as it left it."""
    import os

    from archmem.status import workspace_status

    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        ws.accept_drift("ApiGateway", reason="reviewed")
    commit(shop, "accepted", "2026-01-04T00:00:00Z")
    [accept] = (shop / ".archmem" / "accepts").rglob("*.yaml")
    later = accept.stat().st_mtime_ns + 5_000_000_000
    for touched in (accept, memory_file(shop, "Retries")):  # touched, not changed: git's stat cache is out of date
        os.utime(touched, ns=(later, later))
    index = shop / ".git" / "index"
    before = index.stat().st_mtime_ns
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        workspace_status(ws)
    assert index.stat().st_mtime_ns == before


def test_a_recall_reads_the_index_while_git_compares_the_memory_files(
    shop: Path, monkeypatch: pytest.MonkeyPatch
):
    """On the quiet path git's look at the tracked memory files is started with the open
    and waited for once the answer is worked out: the stat of every file overlaps the
    reading, in one git thread beside it."""
    from archmem.git import commands
    from archmem.recall import engine

    settle(shop)
    contents(shop)  # the full look, which finds nothing untracked
    events: list[str] = []
    real_recall, real_result = engine.recall, commands.StartedGit.result

    def ranked(*args, **kwargs):
        events.append("ranked")
        return real_recall(*args, **kwargs)

    def answered(self):
        done = real_result(self)
        if "status" in done.args:
            events.append("git answered")
            assert "core.preloadIndex=false" in done.args  # one thread beside the reader, not twenty
        return done

    monkeypatch.setattr(engine, "recall", ranked)
    monkeypatch.setattr(commands.StartedGit, "result", answered)
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        found = ws.recall("timeouts").results
    assert [r["title"] for r in found][:1] == ["Timeouts"]
    assert events == ["ranked", "git answered"]


def test_an_edit_in_place_made_before_a_quiet_recall_is_in_its_answer(shop: Path):
    """The recall that read the index before git answered reads it again once the edit
    is indexed: the answer is the file's."""
    settle(shop)
    contents(shop)
    path = memory_file(shop, "Retries")
    text = path.read_text()
    with path.open("r+") as handle:  # same size, in place: the folder's mtime does not move
        handle.write(text.replace("Retries are set", "Retries are cut"))
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        results = ws.recall("retries are cut").results
        assert [r["content"] for r in results if r["title"] == "Retries"] == ["Retries are cut in the gateway."]
        assert ws.last_sync is not None and len(ws.last_sync.updated) == 1
    assert contents(shop)["Retries"] == "Retries are cut in the gateway."  # and the index keeps it


def test_a_recall_lists_the_code_while_the_model_is_read(shop: Path, monkeypatch: pytest.MonkeyPatch):
    """git reads its whole index (every memory file's entry too) to list the code drift
    needs: a recall starts that listing with the open and takes it when drift asks, one
    ``git ls-files`` as before."""
    from archmem.git import commands, repository
    from archmem.workspace import core

    events: list[str] = []
    real_start, real_run, real_load = commands.StartedGit.__init__, repository.run_git, core.load_model

    def started(self, root, *args):
        events.append(f"started {args[0]}")
        real_start(self, root, *args)

    def ran(root, *args, **kwargs):
        events.append(f"ran {args[0]}")
        return real_run(root, *args, **kwargs)

    def loaded(*args, **kwargs):
        events.append("model read")
        return real_load(*args, **kwargs)

    monkeypatch.setattr(commands.StartedGit, "__init__", started)
    monkeypatch.setattr(repository, "run_git", ran)
    monkeypatch.setattr(core, "load_model", loaded)
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        assert ws.recall("timeouts").results
    assert events.index("started ls-files") < events.index("model read")
    assert [e for e in events if e.endswith("ls-files")] == ["started ls-files"]


def test_a_look_started_for_a_reader_is_waited_for_and_never_indexed_on_close(shop: Path, monkeypatch: pytest.MonkeyPatch):
    """A command that ends before it settles (an error on the way) leaves no git running
    and writes nothing for it: the edit git found is indexed by the next open instead."""
    from archmem.git import commands

    settle(shop)
    contents(shop)
    started: list[commands.StartedGit] = []
    real_start = commands.StartedGit.__init__

    def recorded(self, root, *args):
        real_start(self, root, *args)
        started.append(self)

    monkeypatch.setattr(commands.StartedGit, "__init__", recorded)
    path = memory_file(shop, "Retries")
    with path.open("r+") as handle:  # in place: the folder's mtime does not move
        handle.write(path.read_text().replace("Retries are set", "Retries are cut"))
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        ws.store_read_while_syncing()
        assert [m.content for m in ws.store.list_memories() if m.title == "Retries"] == [
            "Retries are set in the gateway."]  # the index as the last sync left it
    [status] = started
    assert status._process.returncode is not None  # waited for at close
    assert contents(shop)["Retries"] == "Retries are cut in the gateway."


def test_a_later_sync_settles_the_look_already_started(shop: Path):
    """A long-running reader (the MCP server) syncs before its next call: the look its
    open started is settled first (nothing stays pending), and the edit is indexed."""
    settle(shop)
    contents(shop)
    path = memory_file(shop, "Retries")
    with path.open("r+") as handle:
        handle.write(path.read_text().replace("Retries are set", "Retries are cut"))
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        ws.store_read_while_syncing()
        ws.sync_files()
        assert ws._pending_sync is None
        assert [m.content for m in ws.store.list_memories() if m.title == "Retries"] == [
            "Retries are cut in the gateway."]

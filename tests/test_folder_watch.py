"""The command server's watch of memory folders: every change below a watched folder
moves its token (real inotify, real files), a git look kept under a token answers only
while nothing moved, and a served open that the watch vouches for asks git nothing while
every way a file can change still reaches the index. A served worker is played here in
this process (the watch, its tokens and its request pipe, as the server hands them over);
the real server's part is in ``test_command_server.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from archmem import folder_watch
from archmem.folder_watch import IN_Q_OVERFLOW, Watch, Watcher
from archmem.memory.folder_signature import WATCHED, KeptState, vouched
from archmem.store import open_store
from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, git, signature_shop, write

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


@pytest.fixture
def watcher() -> Iterator[Watcher]:
    found = Watcher()
    yield found
    found.close()


def token_after(watcher: Watcher, folder: Path) -> str | None:
    watcher.drain()
    return watcher.tokens().get(os.path.realpath(folder))


def test_every_change_below_a_watched_folder_moves_its_token(tmp_path: Path, watcher: Watcher):
    folder = tmp_path / "memories"
    write(folder, {"a.md": "a\n", "b.md": "b\n", "deep/er/c.md": "c\n"})
    assert watcher.watch(str(folder))
    changes = {
        "a file added": lambda: (folder / "new.md").write_text("new\n"),
        "an edit in place": lambda: (folder / "a.md").open("a").write("more\n"),
        "a truncation": lambda: os.truncate(folder / "b.md", 0),
        "a mode": lambda: os.chmod(folder / "a.md", 0o600),
        "a time": lambda: os.utime(folder / "a.md", (1, 1)),
        "a rename": lambda: (folder / "new.md").rename(folder / "renamed.md"),
        "a deletion": lambda: (folder / "renamed.md").unlink(),
        "a file deep below": lambda: (folder / "deep/er/c.md").write_text("changed\n"),
        "a new folder": lambda: (folder / "fresh").mkdir(),
        "a file in the new folder": lambda: (folder / "fresh/d.md").write_text("d\n"),
        "a folder moved in": lambda: (tmp_path / "outside").mkdir() or (tmp_path / "outside").rename(folder / "in"),
        "a file in the moved folder": lambda: (folder / "in/e.md").write_text("e\n"),
    }
    before = token_after(watcher, folder)
    assert before is not None
    for what, change in changes.items():
        assert token_after(watcher, folder) == before, f"nothing changed before {what}"
        (folder / "a.md").read_text()  # a read is no change
        change()
        after = token_after(watcher, folder)
        assert after is not None and after != before, what
        before = after


def test_a_folder_that_goes_is_watched_anew(tmp_path: Path, watcher: Watcher):
    folder = tmp_path / "memories"
    write(folder, {"a.md": "a\n"})
    assert watcher.watch(str(folder))
    first = token_after(watcher, folder)
    for path in sorted(folder.rglob("*"), reverse=True):
        path.unlink()
    folder.rmdir()
    assert token_after(watcher, folder) is None
    write(folder, {"a.md": "a\n"})
    assert watcher.watch(str(folder))
    again = token_after(watcher, folder)
    assert again is not None and again != first


def test_an_overflow_moves_every_token(tmp_path: Path, watcher: Watcher):
    folders = [tmp_path / "one", tmp_path / "two"]
    for folder in folders:
        write(folder, {"a.md": "a\n"})
        assert watcher.watch(str(folder))
    before = [token_after(watcher, folder) for folder in folders]
    watcher._heard(-1, IN_Q_OVERFLOW, b"")  # what the kernel says when its queue ran over
    assert all(token_after(watcher, f) != b for f, b in zip(folders, before, strict=True))


def test_folders_a_watch_cannot_vouch_for_are_not_watched(
    tmp_path: Path, watcher: Watcher, monkeypatch: pytest.MonkeyPatch
):
    wide = tmp_path / "wide"
    write(wide, {"one/a.md": "a\n", "two/b.md": "b\n"})
    monkeypatch.setattr(folder_watch, "MAX_DIRECTORIES", 2)
    assert not watcher.watch(str(wide))  # three directories
    assert str(wide) in watcher.refused and str(wide) not in watcher.tokens()
    remote = tmp_path / "remote"
    remote.mkdir()
    monkeypatch.setattr(folder_watch, "file_system_type", lambda path, libc=None: 0x6969)  # NFS: unheard from elsewhere
    assert not watcher.watch(str(remote))
    assert not watcher.watch("relative/path") and not watcher.watch(str(tmp_path / "missing"))


def test_this_file_system_is_one_a_watch_vouches_for(tmp_path: Path):
    assert folder_watch.file_system_type(str(tmp_path)) is not None


class Looks:
    """A ``FolderSignatureLater`` that counts the looks git would make."""

    def __init__(self, untracked: bool = False) -> None:
        self.asked: list[tuple[str, bool, str | None]] = []
        self.untracked = untracked

    def __call__(self, folder: str, *, untracked: bool = True, tree: str | None = None):
        self.asked.append((folder, untracked, tree))
        state = KeptState(f"digest{len(self.asked)}", tree, ["x.md"], False, untracked and self.untracked)
        return lambda: state


def test_a_look_is_answered_again_only_for_the_same_question_token_and_checkout(tmp_path: Path):
    with open_store(tmp_path / "archmem.db") as store:
        stamp = ["HEAD1 100 5"]
        looks = Looks()

        def ask(token: str | None, *, untracked: bool = False, tree: str | None = "tree1") -> str:
            state = vouched(store, looks, token, lambda: stamp[0])(".archmem/memories", untracked=untracked, tree=tree)()
            assert state is not None
            return state.digest

        assert ask("n.1") == "digest1" and ask("n.1") == "digest1" and len(looks.asked) == 1
        assert ask("n.2") == "digest2"  # a change below the folder
        stamp[0] = "HEAD1 100 6"  # git's index written (a staging)
        assert ask("n.2") == "digest3"
        assert ask("n.2", tree="tree2") == "digest4"
        assert ask("n.2", untracked=True, tree=None) == "digest5" and ask("n.2", untracked=True, tree=None) == "digest5"
        assert ask(None) == "digest6" and ask(None) == "digest7"  # no watch: git each time
        assert len(looks.asked) == 7


def test_a_damaged_kept_look_is_asked_of_git_again(tmp_path: Path):
    with open_store(tmp_path / "archmem.db") as store:
        looks = Looks()
        look = vouched(store, looks, "n.1", lambda: "HEAD1 100 5")
        look(".archmem/memories", untracked=False, tree="t")()
        question = json.loads(store.meta(WATCHED) or "{}")["question"]
        for damaged in ("{not json", json.dumps({"question": question}), json.dumps({"question": question, "digest": 1,
                        "tree": None, "uncommitted": 5, "clean": True, "untracked": False})):
            store.set_meta(WATCHED, damaged)
            assert look(".archmem/memories", untracked=False, tree="t")() is not None
        assert len(looks.asked) == 4


def test_a_look_that_lists_files_git_does_not_track_is_not_kept(tmp_path: Path):
    """Which of them git ignores is the ignore rules' say, which no watch sees."""
    with open_store(tmp_path / "archmem.db") as store:
        looks = Looks(untracked=True)
        look = vouched(store, looks, "n.1", lambda: "HEAD1 100 5")
        look(".archmem/memories")()
        look(".archmem/memories")()
        assert len(looks.asked) == 2 and store.meta(WATCHED) is None


class PlayedServer:
    """The server's side of the watch, in this process: it hears changes and hands a
    worker its tokens as ``Server.answer`` does before each fork."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.watch = Watch.start()
        self.watcher = self.watch.watcher
        self.monkeypatch = monkeypatch

    def fork(self) -> None:
        self.watch.keep()
        self.monkeypatch.setattr(folder_watch, "served", self.watch.served())

    def close(self) -> None:
        self.watch.close()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[PlayedServer]:
    played = PlayedServer(monkeypatch)
    yield played
    played.close()


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return signature_shop(tmp_path, monkeypatch)


def git_statuses(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every ``git status`` started (the real one runs)."""
    from archmem.git import commands

    seen: list[list[str]] = []
    real = commands.StartedGit.__init__

    def counted(self, root, *args):  # type: ignore[no-untyped-def]
        if "status" in args:
            seen.append(list(args))
        real(self, root, *args)

    monkeypatch.setattr(commands.StartedGit, "__init__", counted)
    return seen


def served_open(root: Path, server: PlayedServer) -> dict[str, str]:
    """A served recall's open: the memories the index holds after it."""
    server.fork()
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        ws.recall("gateway")
        return {m.title or m.id: m.content for m in ws.store.list_memories()}


def memory_file(root: Path, title: str) -> Path:
    [found] = [p for p in (root / ".archmem/memories").rglob("*.md") if f"title: {title}" in p.read_text()]
    return found


def test_a_served_open_the_watch_vouches_for_asks_git_nothing_and_misses_no_change(
    shop: Path, server: PlayedServer, monkeypatch: pytest.MonkeyPatch
):
    statuses = git_statuses(monkeypatch)
    served_open(shop, server)  # asks the server to watch the folder, which it does before the next fork
    server.fork()
    assert os.path.realpath(shop / ".archmem/memories") in server.watcher.folders
    served_open(shop, server)  # the first look under the watch: kept
    asked = len(statuses)
    assert served_open(shop, server)["Retries"] == "Retries are set in the gateway."
    assert len(statuses) == asked  # vouched for: no git status of the memory folder

    path = memory_file(shop, "Retries")
    text = path.read_text()
    with path.open("r+") as handle:  # same size, in place: neither the folder's mtime nor HEAD moves
        handle.write(text.replace("Retries are set", "Retries are cut"))
    assert served_open(shop, server)["Retries"] == "Retries are cut in the gateway."
    assert len(statuses) > asked

    asked = len(statuses)
    served_open(shop, server)
    assert len(statuses) == asked  # vouched for again

    headers = memory_file(shop, "Headers")
    headers.write_text(headers.read_text().replace("Headers are set", "Headers are stripped"))
    git(shop, "add", "-A")  # staged: git's index moved too
    assert served_open(shop, server)["Headers"] == "Headers are stripped in the gateway."
    commit(shop, "edits", "2026-01-03T00:00:00Z")
    git(shop, "checkout", "-q", "-b", "teammate")
    timeouts = memory_file(shop, "Timeouts")
    timeouts.write_text(timeouts.read_text().replace("Timeouts are set", "Timeouts are capped"))
    commit(shop, "a teammate's change", "2026-01-04T00:00:00Z")
    git(shop, "checkout", "-q", "main")
    assert served_open(shop, server)["Timeouts"] == "Timeouts are set in the gateway."
    git(shop, "merge", "-q", "--ff-only", "teammate")  # a pull
    assert served_open(shop, server)["Timeouts"] == "Timeouts are capped in the gateway."


def test_an_open_outside_the_server_asks_git_as_before(shop: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(folder_watch, "served", None)
    statuses = git_statuses(monkeypatch)
    for _ in range(2):
        with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
            ws.recall("gateway")
    assert len(statuses) == 2
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        assert ws.store.meta(WATCHED) is None


def test_a_git_look_the_server_never_vouched_for_is_not_taken(shop: Path, server: PlayedServer):
    """A token is the server's: another server's (a restart) counts anew from another nonce."""
    served_open(shop, server)
    served_open(shop, server)
    path = os.path.realpath(shop / ".archmem/memories")
    other = Watcher()
    try:
        other.watch(path)
        other.drain()
        assert other.tokens()[path] != server.watcher.tokens()[path]
    finally:
        other.close()


def test_the_git_of_this_machine_reads_a_missing_index_as_empty(tmp_path: Path):
    """What ``Repository.linguist`` relies on, asked of the real git."""
    root = tmp_path / "r"
    write(root, {".gitattributes": "*.gen linguist-generated\n", "a.gen": "x\n"})
    git(root, "init", "-q")
    done = subprocess.run(["git", "check-attr", "linguist-generated", "--", "a.gen"], cwd=root, capture_output=True,
                          text=True, env={**os.environ, "GIT_INDEX_FILE": "/proc/self/fdinfo/archmem-no-index"},
                          check=True)
    assert done.stdout == "a.gen: linguist-generated: set\n"


def test_a_second_open_in_one_served_command_asks_git(shop: Path, server: PlayedServer):
    """The token holds as of the fork: an open later in the same command (after a
    change made meanwhile, by it or anyone) must not take a look kept under it."""
    for _ in range(3):
        served_open(shop, server)  # asked to watch, first look kept, vouched for
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:
        assert ws.store.get_memory  # the open the token went to
    path = memory_file(shop, "Retries")
    text = path.read_text()
    with path.open("r+") as handle:
        handle.write(text.replace("Retries are set", "Retries are cut"))
    with Workspace.open(shop, clock=FrozenClock(), env={}) as ws:  # no fork: the same command
        assert ws.store.get_memory(memory_id_of(ws, "Retries")).content == "Retries are cut in the gateway."


def memory_id_of(ws: Workspace, title: str) -> str:
    [found] = [m.id for m in ws.store.list_memories() if m.title == title]
    return found


def test_the_mcp_server_keeps_its_own_watch_of_the_memory_folder(shop: Path, monkeypatch: pytest.MonkeyPatch):
    """``archmem mcp`` lives for a session and syncs before every call: with its own watch
    a call after nothing changed asks git nothing, and an edit in place still reaches the
    next call."""
    from archmem.mcp.server import WorkspaceHost

    monkeypatch.setattr(folder_watch, "served", None)
    statuses = git_statuses(monkeypatch)
    host = WorkspaceHost(Workspace.open(shop, clock=FrozenClock(), env={}))
    assert host._watch is not None

    def retries() -> str:
        found = host._call(lambda ws: ws.get_memory("Retries").content, {})
        assert isinstance(found, str)
        return found

    try:
        host._warm()  # the first look under the watch: kept
        asked = len(statuses)
        assert retries() == "Retries are set in the gateway."
        assert retries() == "Retries are set in the gateway."
        assert len(statuses) == asked
        path = memory_file(shop, "Retries")
        text = path.read_text()
        with path.open("r+") as handle:
            handle.write(text.replace("Retries are set", "Retries are cut"))
        assert retries() == "Retries are cut in the gateway."
        assert len(statuses) > asked
    finally:
        host.shutdown()
    assert folder_watch.served is None


def test_a_folder_gone_before_its_watch_gets_no_token(tmp_path: Path, watcher: Watcher, monkeypatch: pytest.MonkeyPatch):
    """Asked about while it existed, gone when the server adds the watch: no token, or
    one would vouch for a folder nothing watches (made again later, its changes unheard)."""
    folder = tmp_path / "memories"
    folder.mkdir()
    real_add = watcher._add

    def vanishing(owner, directory):  # type: ignore[no-untyped-def]
        if directory == str(folder):
            folder.rmdir()
        return real_add(owner, directory)

    monkeypatch.setattr(watcher, "_add", vanishing)
    assert not watcher.watch(str(folder))
    assert str(folder) not in watcher.tokens() and str(folder) not in watcher.refused
    folder.mkdir()
    monkeypatch.setattr(watcher, "_add", real_add)
    assert watcher.watch(str(folder)) and token_after(watcher, folder) is not None


def test_a_folder_renamed_inside_keeps_its_nested_folders_heard(tmp_path: Path, watcher: Watcher):
    """A folder with folders below it renamed within the memory folder: a folder made
    later deep inside it, and a file in that, still move the token."""
    folder = tmp_path / "memories"
    write(folder, {"team/deep/a.md": "a\n"})
    assert watcher.watch(str(folder))
    before = token_after(watcher, folder)
    (folder / "team").rename(folder / "squad")
    after = token_after(watcher, folder)
    assert after != before
    (folder / "squad/deep/newer").mkdir()
    made = token_after(watcher, folder)
    assert made != after
    (folder / "squad/deep/newer/b.md").write_text("b\n")
    assert token_after(watcher, folder) != made

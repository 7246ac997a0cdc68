"""The git history reader and its per-commit cache, on real back-dated repositories.

Numbers are checked against what the test wrote (lines it counted) or against an
independent git command (``git diff --shortstat -w`` per commit).
"""

from __future__ import annotations

import dataclasses
import os
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from archmem.drift import scan as scan_module
from archmem.drift.scan import ScanResult, reader_for, scan_history
from archmem.errors import RepositoryError, StoreError
from archmem.git import history as history_module
from archmem.git.history import HistoryReader
from archmem.git.repository import Repository
from archmem.git.types import Commit, FileChange
from archmem.store import open_store
from archmem.store.commits import CommitCache
from archmem.store.sqlite import SQLiteStore

from .conftest import git, write

START = datetime(2024, 1, 1, 9, 0, tzinfo=UTC)
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # what a root commit is diffed against


class Repo:
    """A git repository in tmp_path whose commits are back-dated, one day apart by default."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        git(root, "init", "-q")
        self.clock = START

    def commit(self, files: dict[str, str] | None = None, *, message: str = "change", when: datetime | None = None,
               committer_when: datetime | None = None, remove: tuple[str, ...] = ()) -> str:
        if files:
            write(self.root, files)
        for name in remove:
            git(self.root, "rm", "-q", name)
        self.clock = when or self.clock + timedelta(days=1)
        env = {"GIT_AUTHOR_DATE": self.clock.isoformat(),
               "GIT_COMMITTER_DATE": (committer_when or self.clock).isoformat()}
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "--allow-empty", "-m", message, env=env)
        return self.head()

    def mv(self, old: str, new: str) -> None:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        git(self.root, "mv", old, new)

    def head(self) -> str:
        return git(self.root, "rev-parse", "HEAD").strip()

    def first_parent_shas(self) -> list[str]:
        return git(self.root, "rev-list", "--first-parent", "--reverse", "HEAD").split()


def lines(n: int, tag: str = "line") -> str:
    return "".join(f"{tag} {i}\n" for i in range(n))


def changes(commit: Commit) -> dict[str, tuple[int, int, str, str | None]]:
    return {c.path: (c.added, c.deleted, c.status, c.old_path) for c in commit.changes}


def shortstat(root: Path, commit: Commit) -> tuple[int, int]:
    """Lines added and deleted by a commit, from another git command than the reader's."""
    base = commit.parents[0] if commit.parents else EMPTY_TREE
    text = git(root, "diff", "--shortstat", "-w", "-M", base, commit.sha)
    found = {kind: int(n) for n, kind in re.findall(r"(\d+) (insertion|deletion)", text)}
    return found.get("insertion", 0), found.get("deletion", 0)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


@pytest.fixture
def store(tmp_path: Path):
    with open_store(tmp_path / "store" / "archmem.db") as opened:
        yield opened


# ---- reading ------------------------------------------------------------------------


def test_numbers_match_an_independent_count_for_every_commit(repo: Repo):
    repo.commit({"src/a.py": lines(30), "src/b.py": lines(5), "README.md": "hello\n"})
    repo.commit({"src/a.py": lines(30).replace("line 3\n", "changed 3\nadded\n")})
    repo.commit({"src/c.py": lines(12)}, remove=("src/b.py",))
    repo.commit({"README.md": "hello\nworld\n", "src/a.py": lines(10)})
    commits = list(HistoryReader(repo.root).read())
    assert [c.sha for c in commits] == repo.first_parent_shas()
    for commit in commits:
        added = sum(c.added for c in commit.changes)
        deleted = sum(c.deleted for c in commit.changes)
        assert (added, deleted) == shortstat(repo.root, commit), commit.sha
    assert changes(commits[0]) == {"src/a.py": (30, 0, "A", None), "src/b.py": (5, 0, "A", None),
                                   "README.md": (1, 0, "A", None)}
    assert changes(commits[1]) == {"src/a.py": (2, 1, "M", None)}
    assert changes(commits[2]) == {"src/b.py": (0, 5, "D", None), "src/c.py": (12, 0, "A", None)}
    # line 3 comes back, lines 10-29 and the two added ones go
    assert changes(commits[3]) == {"README.md": (1, 0, "M", None), "src/a.py": (1, 22, "M", None)}


def test_time_is_the_committer_time_in_utc_and_author_is_name_and_email(repo: Repo):
    authored = datetime(2023, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    landed = datetime(2023, 6, 9, 23, 30, tzinfo=timezone(timedelta(hours=-7)))
    repo.commit({"a.txt": "a\n"}, when=authored, committer_when=landed)
    [commit] = HistoryReader(repo.root).read()
    assert commit.time == landed and commit.time.tzinfo == UTC
    assert commit.time.isoformat() == "2023-06-10T06:30:00+00:00"
    assert commit.author == "Test Author <author@example.com>"
    assert commit.parents == ()


def test_slow_drift_across_many_small_commits(repo: Repo):
    text = lines(10)
    repo.commit({"core/engine.py": text})
    for day in range(40):
        text += f"tweak {day}\n"
        repo.commit({"core/engine.py": text})
    commits = list(HistoryReader(repo.root).read())
    assert len(commits) == 41
    assert all(changes(c) == {"core/engine.py": (1, 0, "M", None)} for c in commits[1:])
    assert [c.time for c in commits] == [START + timedelta(days=d + 1) for d in range(41)]
    assert sum(c.changes[0].churn for c in commits[1:]) == 40


def test_big_rewrite_counts_every_line(repo: Repo):
    repo.commit({"legacy.py": lines(200, "old")})
    repo.commit({"legacy.py": lines(150, "new")})
    assert changes(list(HistoryReader(repo.root).read())[-1]) == {"legacy.py": (150, 200, "M", None)}


def test_rename_out_of_a_folder_is_an_R_event_with_both_paths(repo: Repo):
    repo.commit({"billing/invoice.py": lines(40)})
    repo.mv("billing/invoice.py", "shared/invoice.py")
    repo.commit({"shared/invoice.py": lines(40) + "one more\n"})
    last = list(HistoryReader(repo.root).read())[-1]
    assert last.changes == (FileChange("shared/invoice.py", 1, 0, "R", "billing/invoice.py"),)


def test_deleted_file_counts_its_lines_and_a_D_event(repo: Repo):
    repo.commit({"a.py": lines(7), "b.py": "b\n"})
    repo.commit(remove=("a.py",))
    assert changes(list(HistoryReader(repo.root).read())[-1]) == {"a.py": (0, 7, "D", None)}


def test_whitespace_only_commit_counts_zero_lines(repo: Repo):
    code = "def f(x):\n    return x\n\nclass A:\n    pass\n"
    repo.commit({"m.py": code, "n.py": "a = 1\n"})
    reindented = code.replace("    ", "\t").replace("(x)", "( x )")
    repo.commit({"m.py": reindented})
    repo.commit({"m.py": reindented.replace("\tpass", "  pass  ") + "real = 2\n"})
    commits = list(HistoryReader(repo.root).read())
    assert changes(commits[1]) == {"m.py": (0, 0, "M", None)}
    assert changes(commits[2]) == {"m.py": (1, 0, "M", None)}
    assert shortstat(repo.root, commits[1]) == (0, 0)


def test_merge_counts_once_at_the_merge_and_feature_commits_are_not_listed(repo: Repo):
    base = repo.commit({"app.py": lines(10), "docs.md": "d\n"})
    git(repo.root, "checkout", "-q", "-b", "feature")
    f1 = repo.commit({"feature.py": lines(5)})
    f2 = repo.commit({"feature.py": lines(8), "app.py": lines(10) + "hook\n"})
    git(repo.root, "checkout", "-q", "main")
    m1 = repo.commit({"docs.md": "d\nmore\n"})
    merged_at = START + timedelta(days=30)
    env = {"GIT_AUTHOR_DATE": merged_at.isoformat(), "GIT_COMMITTER_DATE": merged_at.isoformat()}
    git(repo.root, "merge", "-q", "--no-ff", "feature", "-m", "merge feature", env=env)
    merge = repo.head()
    commits = list(HistoryReader(repo.root).read())
    assert [c.sha for c in commits] == [base, m1, merge]
    assert f1 not in {c.sha for c in commits} and f2 not in {c.sha for c in commits}
    assert commits[-1].parents == (m1, f2)
    assert commits[-1].time == merged_at
    # the branch's work, against the first parent: feature.py new (8 lines), app.py +1
    assert changes(commits[-1]) == {"app.py": (1, 0, "M", None), "feature.py": (8, 0, "A", None)}
    assert sum(c.churn for c in commits[-1].changes) == sum(shortstat(repo.root, commits[-1]))


def test_paths_with_spaces_quotes_tabs_and_unicode(repo: Repo):
    odd = ["dir with space/naïve файл.py", 'quote"and\ttab.txt', "日本/データ.md", "new\nline.txt"]
    repo.commit({name: lines(3) for name in odd})
    repo.mv(odd[0], "dir with space/renamed ünï.py")
    repo.commit()
    first, second = HistoryReader(repo.root).read()
    assert changes(first) == {name: (3, 0, "A", None) for name in odd}
    assert changes(second) == {"dir with space/renamed ünï.py": (0, 0, "R", odd[0])}
    assert set(changes(first)) <= set(Repository(repo.root, True).files()) | {odd[0]}


def test_binary_files_count_zero_lines_but_still_events(repo: Repo):
    (repo.root / "logo.png").write_bytes(b"\x89PNG\0\0binary" * 50)
    repo.commit({"a.txt": "a\n"})
    (repo.root / "logo.png").write_bytes(b"\x89PNG\0\0other" * 80)
    repo.commit()
    repo.mv("logo.png", "img/logo.png")
    repo.commit()
    repo.commit(remove=("img/logo.png",))
    commits = list(HistoryReader(repo.root).read())
    assert changes(commits[0])["logo.png"] == (0, 0, "A", None)
    assert changes(commits[1]) == {"logo.png": (0, 0, "M", None)}
    assert changes(commits[2]) == {"img/logo.png": (0, 0, "R", "logo.png")}
    assert changes(commits[3]) == {"img/logo.png": (0, 0, "D", None)}


def test_undecodable_file_names_survive_reading_and_the_cache(repo: Repo, store: SQLiteStore):
    name = b"caf\xe9.txt"
    with open(os.path.join(os.fsencode(repo.root), name), "wb") as handle:
        handle.write(b"x\ny\n")
    repo.commit()
    [commit] = HistoryReader(repo.root).read()
    path = commit.changes[0].path
    assert os.fsencode(path) == name and (repo.root / path).is_file()
    cache = CommitCache(store)
    cache.append([commit])
    assert cache.all() == [commit]


def test_subfolder_root_gives_paths_relative_to_it_and_drops_the_rest(repo: Repo):
    repo.commit({"svc/api/handler.py": lines(4), "svc/README": "r\n", "web/app.js": lines(9), "moved.py": lines(6)})
    repo.commit({"web/app.js": lines(2)})
    repo.mv("moved.py", "svc/moved.py")
    repo.mv("svc/README", "web/README")
    repo.commit({"svc/api/handler.py": lines(5)})
    repo.mv("svc/api/handler.py", "svc/api/routes.py")
    repo.commit()
    reader = reader_for(Repository.at(repo.root / "svc", exact=True))  # --repo svc
    assert reader.prefix == "svc/" and reader.top == repo.root.resolve()
    commits = list(reader.read())
    assert [c.sha for c in commits] == repo.first_parent_shas()
    assert changes(commits[0]) == {"api/handler.py": (4, 0, "A", None), "README": (1, 0, "A", None)}
    assert commits[1].changes == ()  # only web/ changed: listed, with nothing inside
    # renamed in → added; renamed out → deleted; renamed inside → R
    assert changes(commits[2]) == {"moved.py": (6, 0, "A", None), "README": (0, 1, "D", None),
                                   "api/handler.py": (1, 0, "M", None)}
    assert changes(commits[3]) == {"api/routes.py": (0, 0, "R", "api/handler.py")}


def test_a_folder_that_is_not_git_is_refused_with_a_reason(tmp_path: Path):
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(RepositoryError, match="not a git repository: drift needs its history"):
        HistoryReader(plain)
    with pytest.raises(RepositoryError, match="needs its history"):
        reader_for(Repository(plain, is_git=False))


def test_empty_repository_reads_nothing(repo: Repo, store: SQLiteStore):
    reader = HistoryReader(repo.root)
    assert reader.head() is None and list(reader.read()) == [] and reader.count() == 0
    assert scan_history(store, reader) == ScanResult([], 0, False, None)


def test_reader_reports_progress_and_stops_git_when_closed_early(repo: Repo, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(history_module, "_PROGRESS_EVERY", 10)
    for day in range(25):
        repo.commit({"f.txt": f"{day}\n"}) if day % 5 == 0 else repo.commit()
    seen: list[int] = []
    reader = HistoryReader(repo.root)
    assert reader.count() == 25 and reader.count(repo.first_parent_shas()[19]) == 5
    assert len(list(reader.read(progress=seen.append))) == 25
    assert seen == [10, 20, 25]
    stream = reader.read()
    next(stream)
    linux = Path("/proc/self/task").exists()
    # git may have written everything and exited already (a zombie has no command line)
    assert not linux or any(" log " in command or command == "" for command in _child_commands())
    stream.close()  # ends the git process instead of leaving it blocked on a full pipe
    assert _child_commands() == []  # ended and reaped


def _child_commands() -> list[str]:
    """Command lines of this process's children (Linux /proc; empty elsewhere)."""
    found = []
    for children in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                found.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
            except OSError:
                pass
    return found


def test_is_ancestor(repo: Repo):
    a = repo.commit({"a": "1\n"})
    b = repo.commit({"a": "2\n"})
    reader = HistoryReader(repo.root)
    assert reader.is_ancestor(a, b) and not reader.is_ancestor(b, a)
    assert not reader.is_ancestor("0" * 40, b)


# ---- the cache and incremental scans --------------------------------------------------


def test_cache_round_trip_in_order_with_changes(repo: Repo, store: SQLiteStore):
    repo.commit({"a.py": lines(3), "b.py": lines(2)})
    repo.mv("a.py", "lib/a.py")
    repo.commit(remove=("b.py",))
    repo.commit()
    commits = list(HistoryReader(repo.root).read())
    cache = CommitCache(store)
    assert cache.head() is None and cache.count() == 0 and cache.all() == []
    assert cache.append(commits[:2]) == 2 and cache.append(commits) == 1  # known ones skipped
    loaded = cache.all()
    assert loaded == commits and cache.count() == 3 and cache.head() == commits[-1].sha
    # values built by the fast loader behave like constructed ones
    assert hash(loaded[1]) == hash(commits[1]) and loaded[1].changes[0].churn == commits[1].changes[0].churn
    assert dataclasses.replace(loaded[0], author="x") == dataclasses.replace(commits[0], author="x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        loaded[0].changes[0].added = 5  # type: ignore[misc]
    assert cache.truncate(commits[0].sha) == 2 and cache.all() == commits[:1]
    assert cache.truncate("f" * 40) is None
    cache.clear()
    assert cache.count() == 0 and cache.head() is None


def test_cache_refuses_a_commit_that_does_not_follow_its_head(store: SQLiteStore):
    t = START
    cache = CommitCache(store)
    cache.append([Commit("a" * 40, t, "x <x@y>"), Commit("b" * 40, t, "x <x@y>", ("a" * 40,))])
    with pytest.raises(StoreError, match="changed during the scan"):
        cache.append([Commit("c" * 40, t, "x <x@y>", ("a" * 40,))])
    assert cache.count() == 2


def test_full_scan_then_nothing_to_read_then_exactly_one_new_commit(repo: Repo, store: SQLiteStore,
                                                                     monkeypatch: pytest.MonkeyPatch):
    for day in range(5):
        repo.commit({f"m{day}.py": lines(day + 1)})
    reader = HistoryReader(repo.root)
    first = scan_history(store, reader)
    assert (first.new, first.rescanned, len(first.commits)) == (5, False, 5)
    assert CommitCache(store).meta()["branch"] == "main"

    reads: list[str | None] = []
    real_read = HistoryReader.read

    def counting_read(self, since_sha=None, **kwargs):
        for commit in real_read(self, since_sha, **kwargs):
            reads.append(commit.sha)
            yield commit

    monkeypatch.setattr(HistoryReader, "read", counting_read)
    again = scan_history(store, reader)
    assert (again.new, again.rescanned, reads) == (0, False, [])
    assert again.commits == first.commits

    newest = repo.commit({"m0.py": lines(1) + "x\n"})
    third = scan_history(store, reader)
    assert reads == [newest]
    assert (third.new, third.rescanned, third.head) == (1, False, newest)
    assert third.commits == list(real_read(reader)) == CommitCache(store).all()


def test_head_moved_back_along_the_cached_line_reads_nothing(repo: Repo, store: SQLiteStore,
                                                              monkeypatch: pytest.MonkeyPatch):
    shas = [repo.commit({"a.py": lines(n + 1)}) for n in range(4)]
    reader = HistoryReader(repo.root)
    scan_history(store, reader)
    git(repo.root, "reset", "-q", "--hard", shas[1])
    monkeypatch.setattr(HistoryReader, "read", lambda *a, **k: pytest.fail("nothing should be read"))
    result = scan_history(store, reader)
    assert [c.sha for c in result.commits] == shas[:2] and (result.new, result.rescanned) == (0, False)
    assert CommitCache(store).head() == shas[1]


def test_amended_commit_is_detected_and_rescanned(repo: Repo, store: SQLiteStore):
    repo.commit({"a.py": lines(3)})
    old = repo.commit({"a.py": lines(5)})
    reader = HistoryReader(repo.root)
    scan_history(store, reader)
    write(repo.root, {"a.py": lines(9)})
    git(repo.root, "commit", "-q", "-a", "--amend", "-m", "amended")
    result = scan_history(store, reader)
    assert result.rescanned and result.new == 2
    assert old not in {c.sha for c in result.commits}
    assert changes(result.commits[-1]) == {"a.py": (6, 0, "M", None)}
    assert CommitCache(store).all() == result.commits == list(reader.read())


def test_force_rewritten_history_is_rescanned(repo: Repo, store: SQLiteStore):
    base = repo.commit({"a.py": lines(3)})
    repo.commit({"a.py": lines(4)})
    repo.commit({"a.py": lines(5)})
    reader = HistoryReader(repo.root)
    scan_history(store, reader)
    git(repo.root, "reset", "-q", "--hard", base)
    repo.commit({"b.py": lines(2)})
    result = scan_history(store, reader)
    assert result.rescanned and [c.sha for c in result.commits] == repo.first_parent_shas()
    assert CommitCache(store).count() == 2


def test_cache_written_on_a_merged_branch_is_not_extended_on_main(repo: Repo, store: SQLiteStore):
    repo.commit({"a.py": lines(3)})
    git(repo.root, "checkout", "-q", "-b", "feature")
    repo.commit({"f.py": lines(4)})
    reader = HistoryReader(repo.root)
    scan_history(store, reader)  # cached on the feature branch
    git(repo.root, "checkout", "-q", "main")
    repo.commit({"a.py": lines(5)})
    git(repo.root, "merge", "-q", "--no-ff", "feature", "-m", "merge")
    # the cached head is an ancestor of HEAD, but not on its first-parent line
    result = scan_history(store, reader)
    assert result.rescanned
    assert [c.sha for c in result.commits] == repo.first_parent_shas()
    assert CommitCache(store).meta()["branch"] == "main"


def test_subfolder_never_reuses_the_cache_of_another_root(repo: Repo, store: SQLiteStore):
    repo.commit({"svc/a.py": lines(3), "web/b.js": lines(2)})
    whole = scan_history(store, HistoryReader(repo.root))
    assert {c.path for c in whole.commits[0].changes} == {"svc/a.py", "web/b.js"}
    sub = scan_history(store, HistoryReader(repo.root / "svc"))
    assert sub.rescanned and changes(sub.commits[0]) == {"a.py": (3, 0, "A", None)}
    assert CommitCache(store).all() == sub.commits


def test_interrupted_scan_resumes_from_the_last_chunk(repo: Repo, store: SQLiteStore,
                                                      monkeypatch: pytest.MonkeyPatch):
    for day in range(12):
        repo.commit({"a.txt": f"{day}\n"})
    monkeypatch.setattr(scan_module, "CHUNK", 5)
    reader = HistoryReader(repo.root)
    real_read = HistoryReader.read

    def failing_read(self, since_sha=None, **kwargs):
        for n, commit in enumerate(real_read(self, since_sha, **kwargs)):
            if n == 7:
                raise KeyboardInterrupt
            yield commit

    monkeypatch.setattr(HistoryReader, "read", failing_read)
    with pytest.raises(KeyboardInterrupt):
        scan_history(store, reader)
    assert CommitCache(store).count() == 5  # one whole chunk, committed
    monkeypatch.setattr(HistoryReader, "read", real_read)
    result = scan_history(store, reader)
    assert (result.new, result.rescanned, len(result.commits)) == (7, False, 12)
    assert result.commits == list(reader.read())


def test_shallow_clone_gets_a_clear_error_and_deepen_fixes_it(tmp_path: Path, store: SQLiteStore):
    origin = Repo(tmp_path / "origin")
    for day in range(4):
        origin.commit({"a.py": lines(day + 1)})
    git(tmp_path, "clone", "-q", "--depth", "1", (origin.root).as_uri(), "clone")
    reader = HistoryReader(tmp_path / "clone")
    assert reader.is_shallow()
    with pytest.raises(RepositoryError) as error:
        scan_history(store, reader)
    assert "shallow clone" in str(error.value) and "fetch-depth: 0" in str(error.value)
    result = scan_history(store, reader, deepen=True)
    assert not reader.is_shallow()
    assert [c.sha for c in result.commits] == origin.first_parent_shas()


def test_deepen_without_a_reachable_remote_says_so(tmp_path: Path):
    origin = Repo(tmp_path / "origin")
    origin.commit({"a": "1\n"})
    origin.commit({"a": "2\n"})
    git(tmp_path, "clone", "-q", "--depth", "1", origin.root.as_uri(), "clone")
    git(tmp_path / "clone", "remote", "set-url", "origin", (tmp_path / "gone").as_uri())
    with pytest.raises(RepositoryError, match="could not fetch the full history"):
        HistoryReader(tmp_path / "clone").deepen()

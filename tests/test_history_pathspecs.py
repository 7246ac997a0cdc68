"""The history scan asks git only for what can count: ignored files (lock files, minified
and generated code) are left out by pathspecs, not dropped after git diffed them; and
what drift answers is the same as from a full read, on real back-dated repositories
with renames and merges."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from archmem.config import DriftConfig
from archmem.drift.index import DriftIndex
from archmem.drift.scan import history_exclusions, history_inclusions, reader_for, scan_history
from archmem.git.history import HistoryReader
from archmem.git.repository import Repository
from archmem.store.commits import CommitCache
from archmem.workspace import Workspace

from .conftest import DRIFT_MODEL, FrozenClock, commit, git, lines, spy, write

ELEMENTS = {"api": ["services/api/**"], "orders": ["services/orders/**"], "legacy": ["legacy/**"]}
DEFAULT_IGNORE = DriftConfig().ignore


def lock(n: int) -> str:
    return "".join(f'"dep-{i}": "{n}.{i}.0",\n' for i in range(300))


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """Code, a lock file and a minified bundle changing together; renames inside an
    element, across elements and out of the model; a feature branch merged with --no-ff."""
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": DRIFT_MODEL, "services/api/router.go": lines(40), "services/orders/app.py": lines(40),
                 "legacy/old.py": lines(10), "package-lock.json": lock(0), "web/app.min.js": "a();\n" * 50})
    commit(root, "initial", "2026-01-01T00:00:00Z")
    for day in range(2, 6):
        write(root, {"services/api/router.go": lines(40 + 10 * day), "package-lock.json": lock(day),
                     "web/app.min.js": f"b{day}();\n" * 60})
        commit(root, f"api {day}", f"2026-01-0{day}T00:00:00Z")
    git(root, "mv", "services/api/router.go", "services/api/routes.go")  # inside an element
    git(root, "mv", "legacy/old.py", "services/orders/old.py")  # from one element into another
    commit(root, "renames", "2026-01-06T00:00:00Z")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, {"services/orders/app.py": lines(90, "order"), "package-lock.json": lock(7)})
    commit(root, "feature: orders", "2026-01-07T00:00:00Z")
    (root / "tools").mkdir()
    git(root, "mv", "services/orders/old.py", "tools/old.py")  # out of the model
    commit(root, "feature: move out", "2026-01-08T00:00:00Z")
    git(root, "checkout", "-q", "main")
    write(root, {"services/api/routes.go": lines(20), "docs/notes.md": "notes\n"})
    commit(root, "api shrinks", "2026-01-09T00:00:00Z")
    git(root, "merge", "-q", "--no-ff", "-m", "merge feature", "feature",
        env={"GIT_AUTHOR_DATE": "2026-01-10T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-10T00:00:00Z"})
    write(root, {"package-lock.json": lock(11)})
    commit(root, "lock only", "2026-01-11T00:00:00Z")
    return root


def test_the_scan_never_asks_git_for_ignored_files(history: Path):
    with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
        ws.drift_report()
        cached = CommitCache(ws.store).all()
    first_parent = git(history, "rev-list", "--first-parent", "--reverse", "HEAD").split()
    assert [c.sha for c in cached] == first_parent  # every commit listed, also the lock-only one
    paths = {p for c in cached for change in c.changes for p in (change.path, change.old_path) if p}
    assert "package-lock.json" not in paths and "web/app.min.js" not in paths
    assert {"services/api/routes.go", "services/orders/app.py"} <= paths
    assert "docs/notes.md" not in paths  # no element owns it and no memory anchors it: git never diffs it


def test_drift_from_the_narrow_read_is_the_drift_from_a_full_read(history: Path):
    full = list(HistoryReader(history).read())
    narrow = list(HistoryReader(history, exclude=history_exclusions(DEFAULT_IGNORE, [])).read())
    assert [c.sha for c in narrow] == [c.sha for c in full]
    old = DriftIndex.build(full, ELEMENTS, ignore=DEFAULT_IGNORE)
    new = DriftIndex.build(narrow, ELEMENTS, ignore=DEFAULT_IGNORE)
    for element in ELEMENTS:
        assert new.touched(element) == old.touched(element)
        assert new.missing(element) == old.missing(element)
        assert_same_crossings(old, new, element, len(full))
    read = {p for c in narrow for change in c.changes for p in (change.path, change.old_path) if p}
    assert {"services/api/routes.go", "services/orders/old.py", "tools/old.py", "docs/notes.md"} <= read
    for path in [*read, "services", "services/api", "legacy"]:
        for moment in (None, datetime(2026, 1, 4, tzinfo=UTC), datetime(2026, 1, 9, tzinfo=UTC)):
            assert new.file_changes(path, moment) == old.file_changes(path, moment), path


def assert_same_crossings(old: DriftIndex, new: DriftIndex, element: str, commits: int) -> None:
    """Both indexes put the element's drift at the same commit and stamp, whatever the bars."""
    for position in range(commits + 1):
        for limits in ((1, 1), (20, 1), (50, 2), (10_000, 1), (1, 10_000)):
            found = old.crossing(element, position, *limits)
            assert new.crossing(element, position, *limits) == found
            if found is not None:
                assert new.stamp(element, *found) == old.stamp(element, *found)


def test_drift_from_the_elements_paths_alone_is_the_drift_from_a_full_read(history: Path):
    globs = [glob for element in ELEMENTS.values() for glob in element]
    full = list(HistoryReader(history).read())
    reader = HistoryReader(history, exclude=history_exclusions(DEFAULT_IGNORE, []),
                           include=history_inclusions(globs, ["docs/notes.md#Notes"]))
    assert reader.pathspecs()[:4] == [":(glob)legacy/**", ":(glob)services/api/**", ":(glob)services/orders/**",
                                      ":(literal)docs/notes.md"]
    narrow = list(reader.read())
    assert [c.sha for c in narrow] == [c.sha for c in full]
    old = DriftIndex.build(full, ELEMENTS, ignore=DEFAULT_IGNORE)
    new = DriftIndex.build(narrow, ELEMENTS, ignore=DEFAULT_IGNORE)
    for element in ELEMENTS:
        assert new.touched(element) == old.touched(element)
    for element in ("api", "legacy"):  # no file of theirs left the model
        assert_same_crossings(old, new, element, len(full))
    # a file moved out of every element's paths leaves as a delete, as across an excluded
    # glob or a sub-folder root: its lines count for the element it left
    moved = {c.sha: c for c in full}
    out = next(c for c in narrow if any(ch.path == "services/orders/old.py" and ch.status == "D" for ch in c.changes))
    assert any(ch.status == "R" and ch.path == "tools/old.py" for ch in moved[out.sha].changes)
    read = {p for c in narrow for change in c.changes for p in (change.path, change.old_path) if p}
    assert "tools/old.py" not in read and "workspace.dsl" not in read
    for path in ["services/api/routes.go", "services/orders/app.py", "docs/notes.md", "services/api", "legacy"]:
        for moment in (None, datetime(2026, 1, 4, tzinfo=UTC), datetime(2026, 1, 9, tzinfo=UTC)):
            assert new.file_changes(path, moment) == old.file_changes(path, moment), path


def test_element_globs_become_pathspecs_unless_git_would_read_them_otherwise():
    assert history_inclusions(["src/**", "!src/gen/**", "lib", "*.py"], ["README.md#Intro", "src/a.py"]) == [
        ":(glob)*.py", ":(glob)src/**", ":(literal)README.md", ":(literal)lib", ":(literal)src/a.py"]
    assert history_inclusions(["src/**", "**"], []) == []  # everything
    assert history_inclusions(["src/[ab].py"], []) == []  # a class git reads its own way
    assert history_inclusions([], []) == []


def test_a_cache_read_for_more_paths_serves_fewer_and_more_rescans(history: Path):
    with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
        wide = reader_for(ws.repository, include=history_inclusions(["services/**", "legacy/**"], []))
        scan_history(ws.store, wide)
        narrow = reader_for(ws.repository, include=history_inclusions(["services/**"], []))
        write(history, {"services/api/routes.go": lines(33), "legacy/new.py": lines(3)})
        commit(history, "both", "2026-01-12T00:00:00Z")
        step = scan_history(ws.store, narrow)
        assert (step.new, step.rescanned) == (1, False)  # the wider cache serves, and appends the narrower read
        assert [c.path for c in step.commits[-1].changes] == ["services/api/routes.go"]
        assert CommitCache(ws.store).scope() == narrow.scope  # it now holds no more than that
        again = scan_history(ws.store, wide)
        assert again.rescanned and "legacy/new.py" in {c.path for c in again.commits[-1].changes}


def test_an_incremental_scan_reads_new_commits_with_the_same_pathspecs(history: Path):
    with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
        reader = reader_for(ws.repository, exclude=history_exclusions(DEFAULT_IGNORE, []))
        scan_history(ws.store, reader)
        write(history, {"package-lock.json": lock(12), "services/api/routes.go": lines(30)})
        commit(history, "api and lock", "2026-01-12T00:00:00Z")
        again = scan_history(ws.store, reader)
        assert again.new == 1 and not again.rescanned
        assert [(c.path, c.status) for c in again.commits[-1].changes] == [("services/api/routes.go", "M")]
        assert "exclude=" in (CommitCache(ws.store).scope() or "")


def test_an_anchor_on_an_ignored_file_keeps_that_file_read(history: Path):
    """An anchor names its file on purpose: the glob that would leave it out is not
    passed to git, and the cache read without it is rescanned."""
    kept = history_exclusions(DEFAULT_IGNORE, ["package-lock.json#dep-1", "services/api"])
    assert "**/package-lock.json" not in kept and "**/*.min.js" in kept
    clock = FrozenClock()
    clock.now = datetime(2026, 1, 10, 12, tzinfo=UTC)
    with Workspace.open(history, clock=clock, env={}) as ws:
        ws.drift_report()
        written = ws.remember("Pin dep-1: 2.x breaks the build.", kind="pitfall", anchors=["package-lock.json"])
    with Workspace.open(history, clock=clock, env={}) as ws:
        reason = ws.staleness(ws.get_memory(written.id))
        assert reason is not None and reason.startswith("package-lock.json changed since this was")
        assert "**/package-lock.json" not in (CommitCache(ws.store).scope() or "")


def test_globs_git_could_read_otherwise_are_filtered_afterwards_instead():
    assert history_exclusions(["**/*.lock", "./x/**", "a\\b", "../out/**", ""], []) == ["**/*.lock"]


def test_a_subfolder_root_excludes_relative_to_itself(history: Path):
    write(history, {"services/api/yarn.lock": lock(1)})
    commit(history, "a lock inside", "2026-01-12T00:00:00Z")
    reader = reader_for(Repository.at(history / "services", exact=True), exclude=["**/*.lock"])
    assert reader.pathspecs() == ["services/", ":(exclude,glob)services/**/*.lock"]
    last = list(reader.read())[-1]
    assert last.changes == ()


def test_the_pathspecs_are_worked_out_again_only_when_what_they_come_from_changes(
    history: Path, monkeypatch: pytest.MonkeyPatch
):
    """Every command needs the scan's pathspecs; each anchored file goes through every
    ignore glob to make them, so they are kept with a digest of the globs and anchors
    and made again only when those change (a memory anchors a new file)."""
    from archmem.drift import scan as scan_module

    made = spy(monkeypatch, scan_module, "history_inclusions")
    with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
        ws.remember("Orders round per line.", kind="convention", title="Rounding", elements=["Orders"])
    for _ in range(3):
        with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
            ws.drift_report()
    assert [list(anchors) for _, anchors in made] == [[]]
    with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
        ws.remember("The old code stays.", kind="convention", title="Legacy", anchors=["legacy/old.py"])
    for _ in range(2):
        with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
            ws.drift_report()
    assert [list(anchors) for _, anchors in made] == [[], ["legacy/old.py"]]


def test_a_recall_reads_no_anchor_while_no_anchor_row_changed(history: Path, monkeypatch: pytest.MonkeyPatch):
    """The pathspecs are kept under the store's anchors generation too: a recall that
    finds it unchanged reads no anchor at all (thousands of them at 50,000 memories)."""
    from archmem.drift import scan as scan_module
    from archmem.store.sqlite import SQLiteStore

    with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
        ws.remember("The old code stays.", kind="convention", title="Legacy", anchors=["legacy/old.py"])
    read = spy(monkeypatch, SQLiteStore, "anchor_paths")
    for _ in range(3):
        with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
            ws.recall("legacy code")
    assert len(read) == 1  # the first, after the remember moved the generation
    with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
        ws.remember("Orders round per line.", kind="convention", title="Rounding", anchors=["services/orders/app.py"])
    with Workspace.open(history, clock=FrozenClock(), env={}) as ws:
        ws.recall("legacy code")
        assert len(read) == 2
        kept = json.loads(ws.store.meta(scan_module.PATHSPECS) or "{}")
    assert ":(literal)services/orders/app.py" in kept["include"]

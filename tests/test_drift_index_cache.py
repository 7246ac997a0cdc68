"""The drift index kept beside the store: a kept index answers exactly as a built one,
is used only for the history, paths and ignores it was built from, and a damaged or
foreign file is rebuilt, never trusted."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from archmem.drift import index_cache
from archmem.drift.index import DriftIndex
from archmem.drift.scan import CachedCommits
from archmem.drift.types import Baseline, ElementSize, Thresholds
from archmem.git.types import Commit, FileChange
from archmem.workspace import Workspace

from .conftest import commit, drift_again, git, lines, spy, write

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PATHS = {"api": ["services/api/**"], "shared": ["services/shared/**", "!services/shared/gen/**"], "gone": ["old/**"]}


def random_history(seed: int) -> list[Commit]:
    """Commits of adds, edits, deletes and renames over a few folders, some of them
    dated before their parent (a skewed clock), with offsets other than UTC."""
    rng = random.Random(seed)
    folders = ["services/api", "services/shared", "services/shared/gen", "old", "docs"]
    live: list[str] = []
    commits = []
    moment = T0
    for n in range(120):
        moment += timedelta(hours=rng.choice([-2, 1, 3, 7]))
        changes: list[FileChange] = []
        for _ in range(rng.randint(1, 4)):
            roll = rng.random()
            if roll < 0.3 or not live:
                path = f"{rng.choice(folders)}/f{rng.randint(0, 30)}.py"
                live.append(path)
                changes.append(FileChange(path, rng.randint(1, 90), 0, "A"))
            elif roll < 0.75:
                changes.append(FileChange(rng.choice(live), rng.randint(0, 40), rng.randint(0, 40), "M"))
            elif roll < 0.9:
                old = live.pop(rng.randrange(len(live)))
                new = f"{rng.choice(folders)}/r{n}.py"
                live.append(new)
                changes.append(FileChange(new, rng.randint(0, 5), rng.randint(0, 5), "R", old_path=old))
            else:
                changes.append(FileChange(live.pop(rng.randrange(len(live))), 0, rng.randint(1, 30), "D"))
        offset = timedelta(hours=rng.choice([0, 2, -5]))
        commits.append(Commit(sha=f"{n:040x}", time=moment.astimezone(__import__("datetime").timezone(offset)),
                              author="dev", changes=tuple(changes)))
    return commits


def answers(index: DriftIndex, commits: list[Commit]) -> list[object]:
    """Every question recall, drift and staleness ask of an index, over the whole history."""
    found: list[object] = [len(index), index.shas, index.times]
    size, thresholds = ElementSize(files=3, lines=120), Thresholds()
    paths = sorted({c.path for commit in commits for c in commit.changes} | {"services/api", "services/shared", "old"})
    for position in range(len(index) + 1):
        for element in [*PATHS, "nobody"]:
            crossing = index.crossing(element, position, 20, 1)
            found.append((element, position, crossing))
            if crossing is not None:
                found.append(index.stamp(element, *crossing))
        found.extend(index.activity(path, position) for path in paths)
    for element in [*PATHS, "nobody"]:
        found += [index.missing(element), index.touched(element)]
        found.append(index.drift(element, None, size, thresholds))
        found.append(index.drift(element, Baseline(commits[40].sha, commits[40].time), size, thresholds))
    for commit_ in commits[::7]:
        found += [index.ordinal(commit_.sha), index.commit_at(commit_.time), index.position(commit_.time),
                  index.position_at(commit_.time.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"))]
        found += [index.elements_of(c.path) for c in commit_.changes]
        found.append(index.commit_touches(index.ordinal(commit_.sha) or 0, list(PATHS), paths[:5]))
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_kept_index_answers_every_question_as_the_built_one(tmp_path: Path, seed: int):
    commits = random_history(seed)
    ignore, generated = ["**/*.lock"], {"services/shared/f3.py"}
    built = DriftIndex.build(commits, PATHS, ignore=ignore, ignore_files=generated)
    expected = answers(built, commits)
    key = index_cache.index_key(head=commits[-1].sha, commits=len(commits), scope="s", element_paths=PATHS,
                                ignore=ignore, ignore_files=generated)
    index_cache.save(tmp_path / "index.db-drift", key, built.to_data())
    kept = DriftIndex.from_data(index_cache.load(tmp_path / "index.db-drift", key), PATHS, ignore=ignore,
                                ignore_files=generated)
    assert kept is not None
    assert answers(kept, commits) == expected


def test_the_key_follows_everything_the_index_is_built_from():
    base = {"head": "a" * 40, "commits": 10, "scope": "s", "element_paths": PATHS, "ignore": ["x"],
            "ignore_files": ["gen.py"]}
    key = index_cache.index_key(**base)  # type: ignore[arg-type]
    for name, other in [("head", "b" * 40), ("commits", 11), ("scope", "t"), ("element_paths", {"api": ["a/**"]}),
                        ("ignore", ["y"]), ("ignore_files", ["gen.py", "more.py"])]:
        assert index_cache.index_key(**{**base, name: other}) != key, name  # type: ignore[arg-type]
    assert index_cache.index_key(**{**base, "ignore_files": {"gen.py"}}) == key  # type: ignore[arg-type]


def test_a_damaged_or_foreign_file_is_never_trusted(tmp_path: Path):
    path = tmp_path / "index.db-drift"
    index_cache.save(path, "k" * 64, (1, ["a"], [1.0], ["2026-01-01T00:00:00+00:00"], {}, {}))
    assert index_cache.load(path, "k" * 64) is not None
    assert index_cache.load(path, "j" * 64) is None  # another key
    raw = path.read_bytes()
    path.write_bytes(raw[:-3] + bytes(3))  # a bit flipped, a write cut short
    assert index_cache.load(path, "k" * 64) is None
    path.write_bytes(b"not an index at all")
    assert index_cache.load(path, "k" * 64) is None
    assert DriftIndex.from_data((99, [], [], [], {}, {}), PATHS) is None  # another version's data


def history_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    write(root, {"workspace.dsl": MODEL, "services/api/app.py": lines(40), "services/shared/db.py": lines(40)})
    commit(root, "initial", "2026-01-01T00:00:00Z")
    for day in range(2, 9):
        write(root, {"services/api/app.py": lines(40 + day * 10), f"services/shared/m{day}.py": lines(day)})
        commit(root, f"day {day}", f"2026-01-{day:02d}T00:00:00Z")
    (root / ".archmem").mkdir()  # as after `archmem init`: reads keep the index in a file
    return root


MODEL = """\
workspace "Shop" {
    model {
        shop = softwareSystem "Shop" {
            api = container "Api" {
                properties {
                    "archmem.paths" "services/api/**"
                }
            }
            shared = container "Shared" {
                properties {
                    "archmem.paths" "services/shared/**"
                }
            }
        }
    }
}
"""


def test_the_next_command_reads_the_kept_index_and_no_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = history_repo(tmp_path / "repo")
    builds = spy(monkeypatch, DriftIndex, "build")
    _, reads = drift_again(root, monkeypatch, CachedCommits, "_read")
    assert index_cache.cache_path(root / ".archmem" / "archmem.db").is_file()
    assert len(builds) == 1 and reads == []  # built by the first open only


def test_a_new_commit_or_a_changed_model_builds_the_index_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = history_repo(tmp_path / "repo")
    with Workspace.open(root) as ws:
        ws.drift_report()
    write(root, {"services/api/app.py": lines(400)})
    commit(root, "a big change", "2026-01-20T00:00:00Z")
    builds = spy(monkeypatch, DriftIndex, "build")
    with Workspace.open(root) as ws:
        report = ws.drift_report().to_dict()
    assert len(builds) == 1
    assert next(e for e in report["elements"] if e["id"].endswith("api"))["status"] == "drifted"
    write(root, {"workspace.dsl": MODEL.replace("services/shared/**", "services/**")})
    with Workspace.open(root) as ws:
        ws.drift_report()
    assert len(builds) == 2

"""The drift index and memory staleness, on hand-built histories with known numbers."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from archmem.drift.index import DriftIndex, _PathOwners
from archmem.drift.staleness import memory_verify, stale_memories
from archmem.drift.types import ElementSize, Thresholds
from archmem.git.types import Commit, FileChange
from archmem.memory.types import Memory
from archmem.model.paths import compile_globs
from archmem.model.types import ArchitectureModel, Element

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = T0 + timedelta(days=10)
SMALL = ElementSize(files=2, lines=40)
"""Small enough that the floors decide: churn ≥ 20 lines, or ≥ 1 file event."""
TH = Thresholds()


def at(hour: float) -> datetime:
    return T0 + timedelta(hours=hour)


def sha(n: int) -> str:
    return f"a{n:06d}" + "f" * 33


def commit(n: int, *changes: FileChange, hour: float | None = None) -> Commit:
    """Commit number ``n`` at hour ``n`` (unless told), with short sha ``a00000n``."""
    return Commit(sha=sha(n), time=at(n if hour is None else hour), author="dev", changes=changes)


def mod(path: str, added: int, deleted: int = 0) -> FileChange:
    return FileChange(path, added, deleted, "M")


def add(path: str, added: int = 0) -> FileChange:
    return FileChange(path, added, 0, "A")


def delete(path: str, deleted: int = 0) -> FileChange:
    return FileChange(path, 0, deleted, "D")


def rename(old: str, new: str, added: int = 0, deleted: int = 0) -> FileChange:
    return FileChange(new, added, deleted, "R", old_path=old)


API = {"api": ["services/api/**"], "shared": ["services/shared/**"]}


# ---- drift ----------------------------------------------------------------------------


def test_slow_drift_crosses_exactly_at_twenty_lines():
    commits = [commit(i, mod("services/api/h.go", 3, 1)) for i in range(1, 26)]  # 4 lines each
    index = DriftIndex.build(commits, API)
    stamp = index.drift("api", None, SMALL, TH)
    assert stamp is not None
    assert (stamp.commit, stamp.time) == (sha(5), at(5))  # 5 × 4 = 20 ≥ 20
    assert (stamp.lines, stamp.commits, stamp.files, stamp.file_events) == (20, 5, 1, 0)

    later = index.drift("api", at(3), SMALL, TH)  # counted from commit 4 on
    assert later is not None and later.commit == sha(8) and later.lines == 20 and later.commits == 5
    assert later.since == at(3)


def test_nineteen_lines_do_not_drift():
    commits = [commit(1, mod("services/api/h.go", 10)), commit(2, mod("services/api/h.go", 5, 4))]
    assert DriftIndex.build(commits, API).drift("api", None, SMALL, TH) is None


def test_one_commit_rewrite():
    commits = [commit(1, mod("services/api/h.go", 2)), commit(2, mod("services/api/h.go", 300, 280))]
    stamp = DriftIndex.build(commits, API).drift("api", at(1), SMALL, TH)
    assert stamp is not None and stamp.commit == sha(2) and stamp.lines == 580 and stamp.commits == 1


def test_rename_out_and_in_are_file_events():
    commits = [commit(1, rename("services/api/x.go", "services/shared/x.go"))]
    index = DriftIndex.build(commits, API)
    out, into = index.drift("api", None, SMALL, TH), index.drift("shared", None, SMALL, TH)
    assert out is not None and out.file_events == 1 and out.lines == 0 and out.commit == sha(1)
    assert into is not None and into.file_events == 1


def test_rename_within_is_no_event_but_its_lines_count():
    commits = [
        commit(1, rename("services/api/a.go", "services/api/b.go")),
        commit(2, rename("services/api/b.go", "services/api/c.go", 8, 4)),
    ]
    index = DriftIndex.build(commits, API)
    assert index.drift("api", None, SMALL, TH) is None
    big_enough = index.drift("api", None, SMALL, Thresholds(min_lines=12))
    assert big_enough is not None and big_enough.file_events == 0 and big_enough.lines == 12
    assert big_enough.commits == 2


def test_added_and_deleted_files_are_events():
    index = DriftIndex.build([commit(1, mod("services/api/a.go", 1)), commit(2, delete("services/api/b.go", 3))], API)
    stamp = index.drift("api", None, SMALL, TH)
    assert stamp is not None and stamp.commit == sha(2) and stamp.file_events == 1 and stamp.lines == 4


def test_ignore_globs_are_not_counted():
    commits = [
        commit(1, mod("services/api/package-lock.json", 5000), add("services/api/gen/api_pb.go", 900)),
        commit(2, mod("services/api/gen/api_pb.go", 400, 300), mod("services/api/h.go", 5)),
    ]
    index = DriftIndex.build(commits, API, ignore=["**/package-lock.json", "services/api/gen/**"])
    assert index.drift("api", None, SMALL, TH) is None
    assert index.touched("api") == 1
    assert index.elements_of("services/api/package-lock.json") == ()


def test_since_equal_to_a_commit_time_excludes_that_commit():
    commits = [commit(1, mod("services/api/h.go", 50)), commit(2, mod("services/api/h.go", 10))]
    index = DriftIndex.build(commits, API)
    assert index.drift("api", at(1), SMALL, TH) is None
    stamp = index.drift("api", at(1) - timedelta(microseconds=1), SMALL, TH)
    assert stamp is not None and stamp.commit == sha(1)
    assert index.drift("api", at(2), SMALL, TH) is None


def test_an_element_without_paths_owns_its_childrens_code():
    model = ArchitectureModel(
        elements=[
            Element(id="shop", name="Shop", kind="softwareSystem"),
            Element(id="api", name="API", kind="container", parent="shop", paths=["services/api/**"]),
            Element(id="web", name="Web", kind="container", parent="shop", paths=["web/src/**"]),
        ]
    )
    paths = {e.id: model.effective_paths(e.id) for e in model.elements}
    commits = [commit(1, mod("services/api/h.go", 15)), commit(2, mod("web/src/app.ts", 15))]
    index = DriftIndex.build(commits, paths)
    assert index.elements_of("web/src/app.ts") == ("shop", "web")
    shop = index.drift("shop", None, SMALL, TH)
    assert shop is not None and shop.commit == sha(2) and shop.lines == 30 and shop.files == 2
    assert index.drift("api", None, SMALL, TH) is None


def test_ratio_thresholds_for_a_big_element():
    big = ElementSize(files=20, lines=800)  # churn ≥ 200 lines, events ≥ 4
    commits = [commit(i, mod(f"services/api/f{i}.go", 60, 40)) for i in range(1, 5)]
    stamp = DriftIndex.build(commits, API).drift("api", None, big, TH)
    assert stamp is not None and stamp.commit == sha(2) and stamp.lines == 200  # 200 ≥ 0.25 × 800
    bigger = DriftIndex.build(commits, API).drift("api", None, ElementSize(20, 1000), TH)
    assert bigger is not None and bigger.commit == sha(3) and bigger.files == 3

    adds = [commit(i, add(f"services/api/new{i}.go")) for i in range(1, 6)]
    by_events = DriftIndex.build(adds, API).drift("api", None, big, TH)
    assert by_events is not None and by_events.commit == sha(4) and by_events.file_events == 4


def test_distinct_files_count_each_file_once():
    commits = [
        commit(1, mod("services/api/a.go", 2)),
        commit(2, mod("services/api/b.go", 2), mod("services/api/a.go", 2)),
        commit(3, mod("services/api/a.go", 20)),
    ]
    stamp = DriftIndex.build(commits, API).drift("api", None, SMALL, TH)
    assert stamp is not None and stamp.files == 2 and stamp.commits == 3 and stamp.lines == 26


def test_a_clock_skewed_commit_takes_its_parents_time():
    commits = [commit(1, mod("services/api/a.go", 2)), commit(2, mod("services/api/a.go", 30), hour=0.5)]
    index = DriftIndex.build(commits, API)
    stamp = index.drift("api", at(0.75), SMALL, TH)
    assert stamp is not None and stamp.commit == sha(2) and stamp.time == at(1)


def test_unknown_or_untouched_element_has_no_drift():
    index = DriftIndex.build([commit(1, mod("other/x.go", 100))], API)
    assert index.drift("api", None, SMALL, TH) is None
    assert index.drift("nobody", None, SMALL, TH) is None
    assert index.missing("api") is None


# ---- missing code ---------------------------------------------------------------------


def test_missing_element_is_stamped_where_its_last_file_went():
    commits = [
        commit(1, add("services/api/a.go", 10), add("services/api/b.go", 10)),
        commit(2, delete("services/api/a.go", 10)),
        commit(3, add("services/api/c.go", 5)),
        commit(4, delete("services/api/c.go", 5)),
        commit(5, rename("services/api/b.go", "services/shared/b.go")),
        commit(6, mod("services/shared/b.go", 3)),
    ]
    stamp = DriftIndex.build(commits, API).missing("api")
    assert stamp is not None and stamp.commit == sha(5) and stamp.time == at(5)
    assert stamp.file_events == 1 and stamp.commits == 1


# ---- files (anchors) and bases ----------------------------------------------------------


def test_file_changes_after_a_time_for_files_folders_and_renames():
    commits = [
        commit(1, add("services/api/router.go", 40)),
        commit(2, mod("services/api/router.go", 3, 1)),
        commit(3, mod("services/api/auth/token.go", 2), mod("services/api/router.go", 1)),
        commit(4, rename("services/api/router.go", "services/api/routes.go")),
        commit(5, mod("services/apix/other.go", 1)),
    ]
    index = DriftIndex.build(commits, API)
    count, last, when, *_ = index.file_changes("services/api/router.go", at(1))
    assert (count, last, when) == (3, sha(4), at(4))
    assert index.file_changes("services/api/router.go", at(1)).lines == 5
    assert index.file_changes("services/api/routes.go", None).commits == 1
    assert index.file_changes("services/api", at(2)).commits == 2  # a folder: every file under it
    assert tuple(index.file_changes("services/api/router.go", at(4))) == (0, None, None, 0)
    assert index.file_changes("nowhere.go", None).commits == 0
    assert index.commit_at(at(2.5)) == sha(2) and index.commit_at(at(0)) is None


# ---- the prefix filter agrees with matching every glob ---------------------------------


def test_path_owners_agree_with_compile_globs_on_every_element():
    element_paths = {
        "api": ["services/api/**"],
        "api_go": ["services/api/*.go"],
        "any_sql": ["**/*.sql"],
        "literal": ["services/api"],
        "file": ["services/api/main.go"],
        "star": ["services/a*"],
        "mixed": ["web/src/**", "db/*/schema.sql"],
        "none": [],
    }
    paths = [
        "services/api/main.go", "services/api/x/y.go", "services/apix/a.go", "services/api",
        "db/main/schema.sql", "db/main/x/schema.sql", "web/src/a/b.ts", "x.sql", "services/a",
    ]  # fmt: skip
    owners = _PathOwners(element_paths, ["services/api/x/**"])
    ignored = compile_globs(["services/api/x/**"])
    for path in paths:
        expected = {e for e, globs in element_paths.items() if compile_globs(globs)(path) and not ignored(path)}
        assert set(owners(path)) == expected, path


# ---- the index agrees with re-summing the commits after `since` ------------------------


def naive_drift(commits, globs, ignore, since, size, th):
    inside_globs, ignored = compile_globs(globs), compile_globs(ignore)

    def inside(path):
        return path is not None and inside_globs(path) and not ignored(path)

    churn = events = count = 0
    files: set[str] = set()
    for c in commits:
        if since is not None and c.time <= since:
            continue
        touched = False
        for ch in c.changes:
            if ch.status == "R" and ch.old_path and ch.old_path != ch.path:
                now_in, before_in = inside(ch.path), inside(ch.old_path)
                if now_in or before_in:
                    touched = True
                    churn += ch.churn
                    events += now_in != before_in
                    files.add(ch.path if now_in else ch.old_path)
            elif inside(ch.path):
                touched = True
                churn += ch.churn
                events += ch.status in ("A", "D")
                files.add(ch.path)
        count += touched
        if touched and (churn >= th.churn_limit(size) or events >= th.events_limit(size)):
            return c.sha, churn, len(files), count, events
    return None


@pytest.mark.parametrize("seed", range(6))
def test_index_agrees_with_naive_resumming(seed):
    rng = random.Random(seed)
    files = [f"src/m{m}/f{f}.py" for m in range(4) for f in range(60)] + ["src/m0/poetry.lock"]
    commits = []
    for n in range(400):
        changes = []
        for path in rng.sample(files, rng.randint(1, 4)):
            kind = rng.random()
            if kind < 0.05:
                changes.append(add(path, rng.randint(0, 30)))
            elif kind < 0.08:
                changes.append(delete(path, rng.randint(0, 30)))
            elif kind < 0.12:
                changes.append(rename(path, rng.choice(files), rng.randint(0, 5)))
            else:
                changes.append(mod(path, rng.randint(0, 12), rng.randint(0, 12)))
        commits.append(commit(n, *changes))
    element_paths = {"m0": ["src/m0/**"], "m1": ["src/m1/**"], "m01": ["src/m0/**", "src/m1/**"], "all": ["src/**"]}
    ignore = ["**/*.lock"]
    index = DriftIndex.build(commits, element_paths, ignore=ignore)
    sizes = [ElementSize(60, 2000), ElementSize(120, 40_000), ElementSize(3, 10)]
    for element_id, globs in element_paths.items():
        for since in [None, *(at(h) for h in rng.sample(range(400), 12))]:
            for size in sizes:
                got = index.drift(element_id, since, size, TH)
                want = naive_drift(commits, globs, ignore, since, size, TH)
                assert (got and (got.commit, got.lines, got.files, got.commits, got.file_events)) == want


# ---- memory staleness -------------------------------------------------------------------

MODEL = ArchitectureModel(
    elements=[
        Element(id="api", name="ApiGateway", kind="container", paths=["services/api/**"]),
        Element(id="shared", name="Shared", kind="container", paths=["services/shared/**"]),
    ]
)


def memory(**fields) -> Memory:
    return Memory(**{"id": "m1", "kind": "pitfall", "content": "c", "created_at": at(0.5), **fields})


def verify(mem: Memory, commits: list[Commit], **kw) -> str | None:
    index = DriftIndex.build(commits, API)
    sizes = {"api": SMALL, "shared": SMALL}
    return memory_verify(mem, index=index, model=MODEL, sizes=sizes, thresholds=TH, now=NOW, **kw)


HISTORY = [
    commit(1, mod("services/api/h.go", 300, 100)),
    *(commit(i, mod("services/api/h.go", 1, 1)) for i in range(2, 10)),
    commit(48, mod("services/api/router.go", 5, 2), mod("services/shared/util.go", 30)),
]


def test_a_memory_is_verify_when_its_element_drifted_after_it():
    reason = verify(memory(elements=["api"]), HISTORY[:1])
    assert reason == "ApiGateway drifted since this was written: 400 lines in 1 commit, last 9 days ago (a000001)"
    confirmed = memory(elements=["api"], created_at=at(-50), confirmed_at=at(0))
    assert verify(confirmed, HISTORY[:1]).startswith("ApiGateway drifted since this was confirmed: 400 lines")


def test_confirming_after_the_stamp_clears_the_flag():
    assert verify(memory(elements=["api"], confirmed_at=at(1)), HISTORY[:9]) is None
    assert verify(memory(elements=["api"], confirmed_at=at(9)), HISTORY[:9]) is None


def test_file_events_are_named_when_they_crossed():
    reason = verify(memory(elements=["api"]), [commit(1, add("services/api/new.go", 3))])
    assert reason == (
        "ApiGateway drifted since this was written: 1 file added, removed or moved, "
        "3 lines in 1 commit, last 9 days ago (a000001)"
    )


def test_a_missing_element_says_its_code_is_gone():
    commits = [commit(0, add("services/api/a.go", 9), hour=-5), commit(24, delete("services/api/a.go", 9))]
    reason = verify(memory(elements=["api"]), commits, missing={"api"})
    assert reason == "ApiGateway's code is gone: its last file was removed 9 days ago (a000024)"
    assert verify(memory(elements=["api"], confirmed_at=at(25)), commits, missing={"api"}) is None


def test_plain_anchors_change_with_any_commit():
    mem = memory(anchors=["services/api/router.go"], created_at=at(20))
    reason = verify(mem, HISTORY)
    assert reason == "services/api/router.go changed since this was written: 1 commit, last 8 days ago (a000048)"
    assert verify(memory(anchors=["services/api/other.go"], created_at=at(20)), HISTORY) is None


def test_several_causes_tell_the_first_element_and_count_the_rest():
    mem = memory(elements=["shared", "api"], anchors=["services/api/router.go"], created_at=at(20))
    reason = verify(mem, HISTORY)
    assert reason == (
        "Shared drifted since this was written: 30 lines in 1 commit, last 8 days ago (a000048) (and 1 more)"
    )
    assert "\n" not in reason


def test_stale_memories_in_a_batch_return_reason_and_stamp():
    index = DriftIndex.build(HISTORY, API)
    memories = [
        memory(id="old", elements=["api"]),
        memory(id="fresh", elements=["api"], confirmed_at=at(49)),
        memory(id="global"),
    ]
    stale = stale_memories(
        memories, index=index, model=MODEL, sizes={"api": SMALL}, thresholds=TH, now=NOW
    )
    assert list(stale) == ["old"]
    reason, stamp = stale["old"]
    assert stamp.commit == sha(1) and reason.startswith("ApiGateway drifted")


def test_an_element_unknown_to_the_model_is_named_by_its_id():
    mem = memory(elements=["api"])
    index = DriftIndex.build(HISTORY[:1], API)
    reason = memory_verify(mem, index=index, model=None, sizes={}, thresholds=TH, now=NOW)
    assert reason is not None and reason.startswith("api drifted since this was written: 400 lines")


def test_the_speed_bench_runs_and_agrees_with_the_naive_way(capsys):
    """No timing here (bench/drift_index_speed.py measures); only that it runs, small."""
    import importlib.util

    from .conftest import REPO_ROOT

    spec = importlib.util.spec_from_file_location("drift_index_speed", REPO_ROOT / "bench" / "drift_index_speed.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--commits", "400", "--questions", "300", "--naive-sample", "100", "--repeat", "1"]) == 0
    assert "answers agree: True" in capsys.readouterr().out

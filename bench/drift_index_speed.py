"""How fast is the drift index? Build it over a synthetic history and ask it 10,000 questions.

Generates a model of about 2,000 elements (10 systems × 10 containers × 19 components;
only components have paths, systems and containers own their children's code), about
4,000 files and 20,000 commits of 1–6 file changes (mostly edits; adds, deletes, renames,
lock files that the ``ignore`` globs drop), and measures in the same run:

- ``DriftIndex.build`` (best of a few repeats), path matching included;
- 10,000 ``drift(element, since)`` questions, and ``stale_memories`` over 10,000
  memories attached to one or two elements (a third with a plain anchor);
- the naive way: for each question, re-sum the commits after ``since`` until the
  threshold is crossed (paths already matched, so only the summing is compared). It is
  slow, so it runs on a sample and is extrapolated to 10,000; its answers are checked
  against the index's.

Run: ``python bench/drift_index_speed.py [--commits N] [--questions N] [--naive-sample N]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from bisect import bisect_right
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from archmem.drift.index import DriftIndex
from archmem.drift.staleness import stale_memories
from archmem.drift.types import DriftStamp, ElementSize, Thresholds
from archmem.git.types import Commit, FileChange
from archmem.memory.types import Memory
from archmem.model.types import ArchitectureModel, Element

T0 = datetime(2024, 1, 1, tzinfo=UTC)
IGNORE = ["**/package-lock.json"]


def generate_model() -> tuple[ArchitectureModel, list[str]]:
    """The model and the files of its components (two or three each)."""
    elements: list[Element] = []
    files: list[str] = []
    for s in range(10):
        elements.append(Element(id=f"s{s}", name=f"System {s}", kind="softwareSystem"))
        for c in range(10):
            cid = f"s{s}.c{c}"
            elements.append(Element(id=cid, name=f"Container {s}.{c}", kind="container", parent=f"s{s}"))
            files.append(f"src/s{s}/c{c}/package-lock.json")
            for k in range(19):
                folder = f"src/s{s}/c{c}/k{k}"
                globs = [f"{folder}/**"] if k % 4 else [f"{folder}/*.py", f"{folder}/sql/*.sql"]
                elements.append(Element(id=f"{cid}.k{k}", name=f"Component {s}.{c}.{k}", kind="component",
                                        parent=cid, paths=globs))  # fmt: skip
                files.extend([f"{folder}/main.py", f"{folder}/util.py"] + ([f"{folder}/sql/q.sql"] if k % 3 else []))
    return ArchitectureModel(elements=elements), files


def generate_history(files: list[str], commits: int, rng: random.Random) -> list[Commit]:
    live = list(files)
    history: list[Commit] = []
    for n in range(commits):
        changes: list[FileChange] = []
        for _ in range(rng.randint(1, 6)):
            roll = rng.random()
            path = rng.choice(live)
            if roll < 0.02:
                new = path.rsplit("/", 1)[0] + f"/new{n}.py"
                live.append(new)
                changes.append(FileChange(new, rng.randint(5, 200), 0, "A"))
            elif roll < 0.03 and len(live) > 100:
                live.remove(path)
                changes.append(FileChange(path, 0, rng.randint(5, 200), "D"))
            elif roll < 0.04:
                new = rng.choice(files).rsplit("/", 1)[0] + f"/moved{n}.py"
                live.remove(path)
                live.append(new)
                changes.append(FileChange(new, rng.randint(0, 10), rng.randint(0, 10), "R", old_path=path))
            else:
                changes.append(FileChange(path, rng.randint(0, 25), rng.randint(0, 25), "M"))
        history.append(Commit(f"{n:040x}", T0 + timedelta(minutes=30 * n), "dev", changes=tuple(changes)))
    return history


def element_sizes(model: ArchitectureModel, rng: random.Random) -> dict[str, ElementSize]:
    sizes: dict[str, ElementSize] = {}
    for element in reversed(model.elements):  # children come after their parent
        children = [sizes[c.id] for c in model.children(element.id)]
        if children:
            sizes[element.id] = ElementSize(sum(c.files for c in children), sum(c.lines for c in children))
        else:
            sizes[element.id] = ElementSize(rng.randint(2, 4), rng.randint(100, 3000))
    return sizes


def naive_drift(
    commits: list[Commit],
    times: list[float],
    owners: Callable[[str], tuple[str, ...]],
    element_id: str,
    since: datetime,
    size: ElementSize,
    thresholds: Thresholds,
) -> tuple[str, int, int] | None:
    """Re-sum the commits after ``since`` until the threshold is crossed."""
    churn_limit, events_limit = thresholds.churn_limit(size), thresholds.events_limit(size)
    churn = events = count = 0
    for commit in commits[bisect_right(times, since.timestamp()) :]:
        touched = False
        for change in commit.changes:
            now_in = element_id in owners(change.path)
            before_in = change.status == "R" and change.old_path is not None and element_id in owners(change.old_path)
            if not (now_in or before_in):
                continue
            touched = True
            churn += change.churn
            if change.status == "R":
                events += now_in != before_in
            elif change.status in ("A", "D"):
                events += 1
        count += touched
        if touched and (churn >= churn_limit or events >= events_limit):
            return commit.sha, churn, count
    return None


def _spin() -> int:
    total = 0
    for i in range(2_000_000):
        total += i
    return total


def best_of(repeat: int, action: Callable[[], object]) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--commits", type=int, default=20_000)
    options.add_argument("--questions", type=int, default=10_000)
    options.add_argument("--naive-sample", type=int, default=300)
    options.add_argument("--repeat", type=int, default=3)
    options.add_argument("--seed", type=int, default=7)
    args = options.parse_args(argv)
    rng = random.Random(args.seed)

    model, files = generate_model()
    commits = generate_history(files, args.commits, rng)
    sizes = element_sizes(model, rng)
    element_paths = {e.id: model.effective_paths(e.id) for e in model.elements}
    thresholds = Thresholds()
    end = commits[-1].time
    now = end + timedelta(days=1)
    paths = {c.path for commit in commits for c in commit.changes}

    build, index = best_of(args.repeat, lambda: DriftIndex.build(commits, element_paths, ignore=IGNORE))
    assert isinstance(index, DriftIndex)
    ids = [e.id for e in model.elements]
    span = (end - T0).total_seconds()
    questions = [(rng.choice(ids), T0 + timedelta(seconds=rng.random() * span)) for _ in range(args.questions)]

    def ask() -> list[DriftStamp | None]:
        return [index.drift(e, since, sizes[e], thresholds) for e, since in questions]

    asked, answers = best_of(args.repeat, ask)
    memories = [
        Memory(
            id=f"m{i}",
            kind="note",
            content="c",
            elements=[e] + ([rng.choice(ids)] if i % 2 else []),
            anchors=[rng.choice(files)] if i % 3 == 0 else [],
            created_at=since,
        )
        for i, (e, since) in enumerate(questions)
    ]
    staleness, stale = best_of(
        args.repeat,
        lambda: stale_memories(memories, index=index, model=model, sizes=sizes, thresholds=thresholds, now=now),
    )
    assert isinstance(stale, dict) and isinstance(answers, list)

    sample = questions[: args.naive_sample]
    start = time.perf_counter()
    naive = [naive_drift(commits, index.times, index.owners, e, since, sizes[e], thresholds) for e, since in sample]
    per_naive = (time.perf_counter() - start) / len(sample)
    agree = all(
        (a and (a.commit, a.lines, a.commits)) == n for a, n in zip(answers[: len(sample)], naive, strict=True)
    )
    per_index = asked / len(questions)

    element_questions = sum(len(m.elements) for m in memories)
    anchor_questions = sum(len(m.anchors) for m in memories)
    loop = best_of(args.repeat, _spin)[0]

    print(
        f"history: {len(commits)} commits, {len(paths)} distinct paths, {len(model.elements)} elements, "
        f"{sum(len(c.changes) for c in commits)} file changes"
    )
    print(f"build (each path matched once):     {build * 1000:9.1f} ms")
    print(f"{len(questions)} drift questions:          {asked * 1000:9.1f} ms  ({per_index * 1e6:.1f} µs each)")
    print(
        f"stale_memories, {len(memories)} memories:  {staleness * 1000:9.1f} ms  ({element_questions} element and "
        f"{anchor_questions} anchor questions, {len(stale)} VERIFY reasons in words)"
    )
    print(
        f"naive re-summing, {len(sample)} sampled:     {per_naive * 1e3:9.2f} ms each "
        f"→ {per_naive * len(questions):.1f} s for {len(questions)} (answers agree: {agree})"
    )
    print(f"ratio naive / index per question:   {per_naive / per_index:9.0f}x")
    print(f"budget 0.2 s for {len(questions)} drift questions: {'within' if asked < 0.2 else 'OVER'}")
    print(f"(for scale: a pure-Python loop adding 2,000,000 numbers takes {loop * 1000:.0f} ms on this machine)")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())

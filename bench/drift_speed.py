"""Drift benchmark, history part: reading and caching git history.

    python bench/drift_speed.py [--commits 20000] [--files 2000] [--keep DIR]
    python bench/drift_speed.py --repo CHECKOUT --paths api,emails,privaterelay [--repeat 3]

A repository of N back-dated commits over F files is generated with ``git fast-import``
(seconds, not N ``git commit`` calls): each commit touches 1–5 files with small edits
(insert, delete, replace a few lines; now and then a rewrite), and files are added,
deleted and renamed along the way. It is generated once per run in a temporary folder
(or kept in ``--keep DIR`` and reused across runs). Reported:

Now and then a commit also rewrites a ``package-lock.json`` by thousands of lines, as
real JavaScript projects do. ``--repo`` measures an existing checkout instead (a clone of
mozilla/fx-private-relay, say; one commit is added to it and reset afterwards), with
``--paths`` the folders its elements own. The reader is the one ``archmem drift`` uses:
git diffs the elements' paths only, the default ignores left out, both by pathspecs.

* floor: ``git log --raw --numstat -M -- <paths> ':!*lock*'`` (``--paths``; the whole
  tree without them), output discarded (best of ``--repeat``);
* bare reader log: the reader's exact command, output discarded; and the same over
  every path but the ignored ones (what the reader ran before the elements' paths);
* full scan: ``scan_history`` into an empty store (read + parse + cache write), and its
  ratio to the floor (aim ≤ 1.5×); the parse-only time shows where the rest goes;
* incremental scan after one new commit (aim <= 0.2 s; its CPU too, archmem's and
  git's, which a loaded machine does not inflate), and a scan with nothing new; both
  include loading the whole cached history (``CommitCache.all``).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from archmem.config import DriftConfig
from archmem.drift.scan import ScanResult, history_exclusions, history_inclusions, scan_history
from archmem.git.history import HistoryReader
from archmem.store import open_store
from archmem.store.commits import CommitCache

T = TypeVar("T")
START = 1_546_300_800  # 2019-01-01T00:00:00Z
AUTHORS = [f"Dev {i} <dev{i}@example.com>" for i in range(25)]
WORDS = ("return value config request handler cache user token item index parse load save "
         "retry timeout error result client server session query schema event").split()
GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.com"}


def code_line(rng: random.Random) -> str:
    indent = "    " * rng.randint(0, 3)
    return indent + " ".join(rng.choices(WORDS, k=rng.randint(2, 7))) + "\n"


def line_pool(rng: random.Random, size: int = 20_000) -> Callable[[], str]:
    """Random code lines drawn from a pool: as varied for diffs, much faster to make."""
    pool = [code_line(rng) for _ in range(size)]
    return lambda: pool[int(rng.random() * size)]


def edit(rng: random.Random, line: Callable[[], str], text: list[str]) -> None:
    """One realistic edit: mostly a few lines inserted, deleted or replaced."""
    roll = rng.random()
    at = rng.randint(0, len(text))
    if roll < 0.01:
        text[:] = [line() for _ in range(rng.randint(20, 120))]
    elif roll < 0.45:
        text[at:at] = [line() for _ in range(rng.randint(1, 12))]
    elif roll < 0.65 and len(text) > 8:
        del text[at:at + rng.randint(1, 5)]
    else:
        n = rng.randint(1, 8)
        text[at:at + n] = [line() for _ in range(n)]


def generate(root: Path, commits: int, files: int, seed: int = 7) -> None:
    """A repository of ``commits`` first-parent commits over about ``files`` files."""
    rng = random.Random(seed)
    line = line_pool(rng)
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True, env=GIT_ENV)
    importer = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=root, stdin=subprocess.PIPE, env=GIT_ENV)
    assert importer.stdin is not None
    out = importer.stdin
    contents: dict[str, list[str]] = {}
    live: list[str] = []
    made = 0

    def new_path() -> str:
        nonlocal made
        made += 1
        return f"src/pkg{made % 60:02d}/module_{made:05d}.py"

    stamp = START
    for number in range(1, commits + 1):
        stamp += rng.randint(600, 36_000)
        ops: list[bytes] = []
        if number == 1:
            touched = [new_path() for _ in range(min(files, 200))]
            ops.append(b"M 100644 inline package-lock.json\n" + _lock(rng, number))
        else:
            if rng.random() < 0.03:
                ops.append(b"M 100644 inline package-lock.json\n" + _lock(rng, number))
            touched = []
            for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4, 5))):
                if len(live) < files and rng.random() < 0.12:
                    touched.append(new_path())
                else:
                    touched.append(rng.choice(live))
            roll = rng.random()
            if roll < 0.004 and len(live) > 10:
                gone = rng.choice(live)
                live.remove(gone)
                contents.pop(gone)
                touched = [p for p in touched if p != gone]
                ops.append(b"D " + gone.encode() + b"\n")
            elif roll < 0.008 and len(live) > 10:
                old = rng.choice(live)
                new = new_path()
                live[live.index(old)] = new
                contents[new] = contents.pop(old)
                touched = [new if p == old else p for p in touched]
                ops.append(f"R {old} {new}\n".encode())
        for path in dict.fromkeys(touched):
            if path not in contents:
                contents[path] = [line() for _ in range(rng.randint(10, 80))]
                live.append(path)
            else:
                edit(rng, line, contents[path])
            data = "".join(contents[path]).encode()
            ops.append(b"M 100644 inline " + path.encode() + b"\ndata %d\n" % len(data) + data + b"\n")
        who = AUTHORS[rng.randrange(len(AUTHORS))]
        message = f"change {number}".encode()  # each commit continues the branch: no "from" needed
        out.write(
            b"commit refs/heads/main\nmark :%d\n" % number
            + f"author {who} {stamp} +0000\ncommitter {who} {stamp} +0000\n".encode()
            + b"data %d\n" % len(message) + message + b"\n" + b"".join(ops) + b"\n"
        )
    out.close()
    if importer.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True, env=GIT_ENV)


def _lock(rng: random.Random, number: int) -> bytes:
    """A fast-import ``data`` block: a lock file of 3,000 pinned versions, a fifth of them
    bumped since the last one."""
    text = "".join(f'    "dep-{i}": "{i % 7}.{(number + i) // 5 if rng.random() < 0.2 else i}.0",\n'
                   for i in range(3000)).encode()
    return b"data %d\n" % len(text) + text + b"\n"


def add_commit(root: Path, number: int) -> None:
    """One more commit, back-dated after the generated history, the way a person makes one."""
    target = root / "archmem-bench-extra.txt"
    with target.open("a") as handle:
        handle.write(f"extra line {number}\nanother {number}\n")
    when = f"@{START + 10 * 365 * 86400 + number} +0000"
    env = {**GIT_ENV, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "add", target.name], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", f"one more {number}"], cwd=root, check=True, env=env)


def timed(function: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def bare_log(reader: HistoryReader) -> int:
    """The reader's exact git command, its output read from a pipe and thrown away."""
    return drained(reader.log_command(), reader.top)


def floor_command(paths: list[str]) -> list[str]:
    """What git pays at least: log with renames and line counts over the elements' paths,
    lock files left out."""
    return ["git", "log", "--raw", "--numstat", "-M", "--", *(paths or ["."]), ":!*lock*"]


def drained(command: list[str], cwd: Path) -> int:
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, env=GIT_ENV)
    assert process.stdout is not None
    size = 0
    while chunk := process.stdout.read(1 << 18):
        size += len(chunk)
    if process.wait() != 0:
        raise SystemExit("git log failed")
    return size


def timed_scan(store_path: Path, reader: HistoryReader, cpu: list[tuple[float, float]] | None = None,
               ) -> tuple[float, ScanResult]:
    """One scan as a fresh ``archmem drift`` process would run it: open the store, scan.
    Earlier results are freed first, so the heap holds one history, as in real use.
    ``cpu`` collects (archmem's own CPU seconds, git's CPU seconds)."""
    gc.collect()
    own, children = time.process_time(), _children_cpu()
    start = time.perf_counter()
    with open_store(store_path) as store:
        result = scan_history(store, reader)
    seconds = time.perf_counter() - start
    if cpu is not None:
        cpu.append((time.process_time() - own, _children_cpu() - children))
    return seconds, result


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(root: Path, repeat: int, work: Path, paths: list[str]) -> None:
    exclude = history_exclusions(DriftConfig().ignore, [])
    reader = HistoryReader(root, exclude=exclude, include=history_inclusions(paths, []))
    unfiltered = HistoryReader(root, exclude=exclude)  # every path less the ignored: before the elements' paths
    floors, bare, before, parse, full, cpu = [], [], [], [], [], []  # type: ignore[var-annotated]
    for attempt in range(repeat):  # interleaved, so a slower minute of the machine hits all of them
        floors.append(timed(lambda: drained(floor_command(paths), root))[0])
        before.append(timed(lambda: bare_log(unfiltered))[0])
        seconds, size = timed(lambda: bare_log(reader))
        bare.append(seconds)
        seconds, commits = timed(lambda: sum(1 for _ in reader.read()))
        parse.append(seconds)
        seconds, result = timed_scan(work / f"full{attempt}.db", reader, cpu)
        full.append(seconds)
        changes = sum(len(c.changes) for c in result.commits)
        del result
    incremental, idle, incremental_cpu = [], [], []  # type: ignore[var-annotated]
    store_path = work / f"full{repeat - 1}.db"
    for number in range(5):
        add_commit(root, number)
        seconds, step = timed_scan(store_path, reader, incremental_cpu)
        assert step.new == 1 and not step.rescanned, step
        incremental.append(seconds)
        del step
        seconds, step = timed_scan(store_path, reader)
        assert step.new == 0
        idle.append(seconds)
        del step
    with open_store(store_path) as store:
        load_s = min(timed(CommitCache(store).all)[0] for _ in range(3))
    floor, scan, parse_s = min(floors), min(full), min(parse)
    print(f"history: {commits:,} commits, {changes:,} file changes, git log output {size / 1e6:.1f} MB")
    print(f"  floor: {' '.join(floor_command(paths))}")
    print(f"         {floor:.2f} s   (runs: {', '.join(f'{s:.2f}' for s in floors)})")
    print(f"  reader's git log, output discarded:          {min(bare):.2f} s   ({min(bare) / floor:.2f}x floor)")
    print(f"    the same over every path but the ignored:  {min(before):.2f} s   ({min(before) / floor:.2f}x floor)")
    print(f"  read + parse (HistoryReader.read):           {parse_s:.2f} s   ({parse_s / floor:.2f}x floor)")
    print(f"  full scan (read + cache write):              {scan:.2f} s   ({scan / floor:.2f}x floor; aim <= 1.5x; "
          f"runs: {', '.join(f'{s:.2f}' for s in full)})")
    own, child = min(cpu)
    print(f"    CPU of the best-CPU run: archmem {own:.2f} s (parse + cache write), git {child:.2f} s "
          f"(on one core the ratio would be about {(own + child) / child:.2f}x)")
    print(f"  incremental scan, one new commit:            {statistics.median(incremental):.3f} s median "
          f"(max {max(incremental):.3f}; aim <= 0.2 s)")
    own_cpu = statistics.median(own for own, _ in incremental_cpu)
    git_cpu = statistics.median(child for _, child in incremental_cpu)
    print(f"    its CPU, median: archmem {own_cpu:.3f} s, git {git_cpu:.3f} s (what a loaded machine's wall "
          f"clock adds to is waiting)")
    print(f"  scan with nothing new:                       {statistics.median(idle):.3f} s median")
    print(f"    of which loading the cache (all()):        {load_s:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--files", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the bare log and the full scan (best of each is kept)")
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this folder instead of a temporary one")
    parser.add_argument("--repo", type=Path, help="measure this git checkout instead of a generated one")
    parser.add_argument("--paths", default="", help="comma-separated folders the elements own (the floor's pathspecs)")
    args = parser.parse_args()
    paths = [p for p in args.paths.split(",") if p]
    if args.repo:
        tip = subprocess.run(["git", "rev-parse", "HEAD"], cwd=args.repo, capture_output=True, text=True,
                             check=True).stdout.strip()
        with tempfile.TemporaryDirectory(prefix="archmem-drift-") as tmp:
            try:
                run(args.repo, max(1, args.repeat), Path(tmp), paths)
            finally:
                subprocess.run(["git", "reset", "-q", "--hard", tip], cwd=args.repo, check=True, env=GIT_ENV)
        return
    with tempfile.TemporaryDirectory(prefix="archmem-drift-") as tmp:
        root = args.keep or Path(tmp) / f"repo-{args.commits}x{args.files}"
        marker = root / ".git" / "archmem-bench"
        expected = f"{args.commits} {args.files} lock"
        if marker.exists() and marker.read_text().startswith(expected + " "):
            tip = marker.read_text().split()[-1]  # drop the commits an earlier run added
            subprocess.run(["git", "reset", "-q", "--hard", tip], cwd=root, check=True, env=GIT_ENV)
            print(f"reusing {root}")
        else:
            if root.exists() and any(root.iterdir()):
                raise SystemExit(f"{root} exists and is not a repository this benchmark generated")
            seconds, _ = timed(lambda: generate(root, args.commits, args.files))
            tip = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout
            marker.write_text(f"{expected} {tip.strip()}")
            print(f"generated {args.commits:,} commits over {args.files:,} files in {seconds:.1f} s ({root})")
        run(root, max(1, args.repeat), Path(tmp), paths or ["src"])


if __name__ == "__main__":
    main()

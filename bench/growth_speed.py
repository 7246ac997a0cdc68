"""Growth: ``archmem recall`` and ``archmem status`` as new processes at 1,000 memories and
at N, on the real path.

    python bench/growth_speed.py [--sizes 1000,50000] [--runs 7]

Each store is a git repository as a team's is: a 40-container model, code under each
container's folder, memory files committed (``files_speed``'s realistic memories:
elements, anchors, wikilinks, supersede chains), a back-dated history of code commits,
the index built from the files and the history scanned once (``archmem drift``). Then,
measured in the same run: the median of ``--runs`` cold ``archmem recall`` and
``archmem status --json`` processes, against two floors: a bare ``python -c pass`` and
the raw FTS5 query recall asks (its ranked terms ``MATCH``-ed, ``ORDER BY bm25 LIMIT 100``
on the same index, from a new connection). Printed: each command against its floors, and
the largest size against the smallest, as a ratio and in ms (aims: recall ≤ 1.5×, status
≤ 2×). The commands are answered by the warm command server, as on a Linux desk (it gets
a folder of its own and is stopped at the end), or each in its own process with
``--own-process``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from files_speed import ELEMENTS, make_repo, open_workspace

from archmem.memory import text as textrules

TASK = "retry the payment handler timeout in Service7 and Service12"
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.com", "GIT_CONFIG_NOSYSTEM": "1"}


def build(root: Path, size: int) -> None:
    """The repository, its index and its history cache (see the module doc)."""
    root.mkdir(parents=True)
    for element in range(ELEMENTS):
        folder = root / "services" / f"s{element}"
        folder.mkdir(parents=True)
        for handler in range(5):
            (folder / f"handler_{handler}.py").write_text(f"def handle_{handler}():\n    return {element}\n")
    make_repo(root, size)  # git init, the memory files and the code in one commit
    for day in range(1, 60):
        target = root / "services" / f"s{day % ELEMENTS}" / f"handler_{day % 5}.py"
        with target.open("a") as handle:
            handle.write("".join(f"    step_{day}_{n} = {n}\n" for n in range(day % 30 + 1)))
        when = f"@{1_767_225_600 + day * 86_400} +0000"  # from 2026-01-01, a day apart
        env = {**GIT_ENV, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        subprocess.run(["git", "commit", "-q", "-am", f"change {day}"], cwd=root, check=True, env=env)
    open_workspace(root).close()  # the index, from the files
    subprocess.run([archmem_command(), "drift", "--repo", str(root)], check=True, capture_output=True, env=GIT_ENV)
    settle(root / ".archmem" / "memories")


def settle(folder: Path) -> None:
    """Wait until the memory folder's directories are older than the sync trusts a
    directory's mtime to be (``SETTLED_NS``): for two seconds after files come or go, an
    open asks git about every file there, untracked ones too (what a pull costs the
    commands right after it), and runs timed then would measure that, not the steady state."""
    from archmem.memory.folder_signature import SETTLED_NS

    newest = max(os.stat(path).st_mtime_ns for path in [folder, *(p for p in folder.rglob("*") if p.is_dir())])
    time.sleep(max(0.0, (newest + SETTLED_NS - time.time_ns()) / 1e9 + 0.1))


def archmem_command() -> str:
    """The ``archmem`` script beside this interpreter (a version manager's shim would add
    its own start-up to every run)."""
    script = Path(sys.executable).parent / "archmem"
    return str(script) if script.exists() else shutil.which("archmem") or "archmem"


def median_run(command: list[str], runs: int) -> float:
    subprocess.run(command, check=True, capture_output=True, env=GIT_ENV)  # warm the page cache
    if command[0] != sys.executable and GIT_ENV.get("ARCHMEM_SERVER") != "off":  # and wait for the warm server
        subprocess.run([command[0], "server", "start"], check=True, capture_output=True, env=GIT_ENV)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=GIT_ENV)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def ranked_query(root: Path) -> tuple[str, int]:
    """The FTS5 ``MATCH`` recall asks for ``TASK`` (the terms it ranks by, as its lexical
    step picks them: a term most memories hold is left out, here ``service``, which every
    memory's indexed body holds through its elements' names), and how many memories it
    matches."""
    from archmem.config import RecallConfig
    from archmem.recall.engine import RANKED_TERMS
    from archmem.recall.score import terms_worth_ranking
    from archmem.recall.types import WordQuery
    from archmem.store import open_store
    from archmem.store.sqlite import fts5_match

    config = RecallConfig()
    with open_store(root / ".archmem" / "archmem.db") as store:
        tokens = textrules.query_tokens(TASK)[:textrules.MAX_QUERY_TERMS]
        forms = store.index_forms(tokens)
        first_of_form: dict[str, str] = {}
        for token in tokens:
            first_of_form.setdefault(forms[token], token)
        terms = list(first_of_form.values())
        ranked = terms_worth_ranking(store.term_document_counts(terms), store.memory_total(),
                                     min_relevance=config.min_relevance, exponent=config.lexical_exponent,
                                     cap=RANKED_TERMS)
        match = fts5_match(WordQuery(tuple(ranked)))
        rows = store.db.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (match,)).fetchone()[0]
    return match, int(rows)


def raw_fts(root: Path, runs: int, match: str) -> float:
    """The median of ``runs`` raw FTS5 queries (a new connection each, as a new process
    has): the best rows by BM25, weighted as recall weighs the columns."""
    samples = []
    for _ in range(runs + 1):
        db = sqlite3.connect(root / ".archmem" / "archmem.db")
        start = time.perf_counter()
        db.execute("SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25(memory_fts, 2.0, 1.0, 0.75) "
                   "LIMIT 100", (match,)).fetchall()
        samples.append(time.perf_counter() - start)
        db.close()
    return statistics.median(samples[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,50000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--own-process", action="store_true",
                        help="Run each command in its own process (ARCHMEM_SERVER=off), not in the warm server.")
    args = parser.parse_args()
    archmem = archmem_command()
    results: dict[int, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="archmem-growth-") as tmp:
        run_folder = Path(tmp) / "run"
        run_folder.mkdir(mode=0o700)
        GIT_ENV.update(ARCHMEM_RUNTIME_DIR=str(run_folder), ARCHMEM_SERVER="off" if args.own_process else "on")
        print("commands run", "each in its own process" if args.own_process else "by the warm command server")
        try:
            _measure(args, archmem, tmp, results)
        finally:
            subprocess.run([archmem, "server", "stop"], capture_output=True, env=GIT_ENV)
    sizes = sorted(results)
    if len(sizes) > 1:
        small, large = results[sizes[0]], results[sizes[-1]]
        print(f"{sizes[-1]:,} against {sizes[0]:,}: recall {large[0] / small[0]:.2f}x (aim <= 1.5x), "
              f"{(large[0] - small[0]) * 1000:+.0f} ms; status {large[1] / small[1]:.2f}x (aim <= 2x), "
              f"{(large[1] - small[1]) * 1000:+.0f} ms")


def _measure(args: argparse.Namespace, archmem: str, tmp: str, results: dict[int, tuple[float, float]]) -> None:
    """Build each size, time its floors and the two commands, print them."""
    for size in [int(s) for s in args.sizes.split(",")]:
        root = Path(tmp) / f"repo-{size}"
        start = time.perf_counter()
        build(root, size)
        built = time.perf_counter() - start
        python = median_run([sys.executable, "-c", "pass"], args.runs)
        match, matched = ranked_query(root)
        fts = raw_fts(root, args.runs, match)
        recall = median_run([archmem, "recall", TASK, "--repo", str(root), "--json"], args.runs)
        status = median_run([archmem, "status", "--repo", str(root), "--json"], args.runs)
        results[size] = (recall, status)
        print(f"{size:,} memories (built in {built:.0f} s): floors python -c pass {python * 1000:.0f} ms, "
              f"raw FTS5 query {fts * 1000:.1f} ms ({match}: {matched:,} memories)")
        print(f"  archmem recall {recall * 1000:.0f} ms ({recall / python:.1f}x bare python; "
              f"{(recall - python) * 1000:.0f} ms above it, the FTS5 query {fts * 1000:.1f} ms of that)")
        print(f"  archmem status {status * 1000:.0f} ms ({status / python:.1f}x bare python)")
        shutil.rmtree(root)


if __name__ == "__main__":
    main()

"""A separate writer process for the concurrency and crash tests (run as a script).

    python writer_process.py REPO WORKER OPS SEED RESULT_FILE   mixed writes, a JSON report
    python writer_process.py REPO --batch                        remember forever, print each id
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from archmem.errors import ArchmemError, ConflictError
from archmem.workspace import Workspace

SHARED_FACTS = 10


def mixed(repo: Path, worker: int, ops: int, seed: int, result_file: Path) -> None:
    rng = random.Random(seed)
    report = {"unique": [], "shared": [], "chain": 0, "conflicts": 0, "confirms": 0, "sessions": 0, "errors": []}
    with Workspace.open(repo, env={}) as ws:
        for op in range(ops):
            choice = rng.random()
            try:
                if choice < 0.35:
                    r = ws.remember(
                        f"Worker {worker} learned fact {op}: queue {worker}-{op} drains in order {rng.randint(0, 10**6)}.",
                        kind="note", elements=["orders"],
                    )
                    report["unique"].append(r.id)
                elif choice < 0.55:
                    k = rng.randrange(SHARED_FACTS)
                    r = ws.remember(f"Shared fact {k}: the cache for region {k} must be warmed before deploys.", kind="pitfall")
                    report["shared"].append([k, r.id])
                elif choice < 0.70:
                    try:
                        ws.remember(f"Chain link by worker {worker} at op {op}.", kind="note", title="Chain", supersedes="Chain")
                        report["chain"] += 1
                    except ConflictError:
                        report["conflicts"] += 1
                elif choice < 0.85:
                    ws.confirm("Chain")
                    report["confirms"] += 1
                else:
                    session = ws.start_session(f"task {worker}-{op}", elements=["gateway"])
                    ws.end_session(session.id, used=["Chain"], outcome=f"Worker {worker} closed session {op} cleanly.")
                    report["sessions"] += 1
            except ArchmemError as exc:
                report["errors"].append(f"{type(exc).__name__}: {exc}")
    result_file.write_text(json.dumps(report))


def batch(repo: Path) -> None:
    with Workspace.open(repo, env={}) as ws:
        n = 0
        while True:
            r = ws.remember(f"Batch memory number {n} about partition {n * 7919 % 1000}.", kind="note",
                            elements=["orders", "gateway"], title=f"Batch {n}")
            print(r.id, flush=True)
            n += 1


if __name__ == "__main__":
    if sys.argv[2] == "--batch":
        batch(Path(sys.argv[1]))
    else:
        mixed(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5]))

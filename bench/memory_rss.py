"""Peak memory of ``archmem import``, ``check`` and ``map`` as new processes, at a few sizes.

    python bench/memory_rss.py [--sizes 1000,50000] [--commands import,check,map]

Each size gets its own repository (``files_speed``'s 40-container model and realistic
memories) and a JSON Lines file of its memories. ``import`` reads that file into an empty
index (the files are then written, as a team's are); ``check`` and ``map`` run on the
result. Printed: each command's peak resident set (``ru_maxrss`` of the child) per
size, and a bare ``python -c pass`` for the floor (aim: import ≤ 100 MB at 50,000,
and flat in n).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from files_speed import memories, model_dsl

from archmem.memory.transfer import memory_to_json

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.com", "GIT_CONFIG_NOSYSTEM": "1",
           "ARCHMEM_SERVER": "off"}
"""``ARCHMEM_SERVER=off``: the peak measured is the process doing the work, not a command
server's client."""
COMMANDS = {
    "import": lambda lines: ["import", str(lines)],
    "check": lambda lines: ["check"],
    "map": lambda lines: ["map", "--out", str(lines.parent / "map.html")],
}


def peak_mb(args: list[str], cwd: Path) -> tuple[float, float]:
    """Peak RSS (MB) and seconds of one child process (run alone, so the maximum is its own)."""
    code = ("import resource, subprocess, sys, time; start = time.perf_counter(); "
            "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
            "took = time.perf_counter() - start; "
            "sys.exit(done.stderr.decode()[-2000:] or done.returncode) if done.returncode > 1 else None; "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, took)")
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, env=GIT_ENV)
    if out.returncode:
        raise SystemExit(f"{args}: {out.stderr}")
    kilobytes, seconds = out.stdout.split()
    return int(kilobytes) / 1024, float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,50000")
    parser.add_argument("--commands", default="import,check,map")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    wanted = args.commands.split(",")
    floor, _ = peak_mb([sys.executable, "-c", "pass"], Path.cwd())
    print(f"python -c pass: {floor:.0f} MB")
    print(f"{'memories':>9} " + " ".join(f"{name + ' MB':>10} {'s':>6}" for name in wanted))
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "repo"
            root.mkdir()
            (root / "workspace.dsl").write_text(model_dsl(), encoding="utf-8")
            lines = Path(folder) / "memories.jsonl"
            with lines.open("w", encoding="utf-8") as handle:
                for memory in memories(size):
                    handle.write(memory_to_json(memory) + "\n")
            for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "model"]):
                subprocess.run(["git", *command], cwd=root, check=True, env=GIT_ENV)
            row = []
            for name in wanted:
                mb, seconds = peak_mb([sys.executable, "-m", "archmem", *COMMANDS[name](lines)], root)
                row.append(f"{mb:10.0f} {seconds:6.1f}")
            print(f"{size:>9} " + " ".join(row), flush=True)


if __name__ == "__main__":
    main()

"""Start-up: ``archmem --version`` and ``archmem recall`` on the demo as new processes,
against a bare ``python -c pass`` measured in the same run.

    python bench/startup_speed.py [--runs 21] [--task "tax rounding"]

The demo (``archmem demo``: a DSL model, committed memory files, 320 days of history)
is built in a temporary folder and warmed once (index built, history scanned, byte code
written), so what is timed is what a user or an agent's hook pays on every call. The
three commands are run in turn, ``--runs`` times each, interleaved so a busy machine
slows them alike; printed are the minimum and the median of each and the ratios of the
medians to bare Python (aim: recall ≤ 5×, goal 3×), in wall time and in processor time
(the command's own and that of the git processes it waits for). Recall is timed twice: run in
its own process (``ARCHMEM_SERVER=off``), and answered by the warm command server (the
default on Linux), whose processor time adds the server's (its worker and the worker's git)
to the caller's. Another command times the floor of a recall run in its own process: a
Python that imports the standard modules and click that one recall imports, and nothing of
archmem's. ``--imports`` adds the slowest imports of one recall in its own process
(``python -X importtime``), summed per top-level package.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

from archmem.demo import TASK, run_demo

ENV = {key: value for key, value in os.environ.items()
       if key != "PYTHONDONTWRITEBYTECODE" and not key.startswith("ARCHMEM_")} | {"ARCHMEM_SERVER": "off"}
"""Byte code is written and read as in an installed archmem (the bench must not compile
every module on every run because the caller's shell forbids writing it)."""

SERVED = "archmem recall, warm server"


def timed(command: list[str], cwd: Path, env: dict[str, str] = ENV, server: int | None = None) -> tuple[float, float]:
    """Seconds of wall time and of processor time (the command's and its git's, and the
    server's when one answers): on a shared machine the second varies less, as others'
    work mostly delays, not adds."""
    start, used = time.perf_counter(), _children_cpu() + _server_cpu(server)
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start, _children_cpu() + _server_cpu(server) - used


def _server_cpu(pid: int | None) -> float:
    """Seconds of processor time of the server and its finished workers (it reaps them)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def start_server(root: Path, command: list[str], env: dict[str, str]) -> tuple[str, int]:
    """Start the command server (as the first call does) and wait until it answers; its
    socket and process id."""
    from archmem.command_client import socket_path
    from archmem.command_server import request_info

    path = socket_path(env)
    assert path is not None, "no private folder for the server's socket"
    subprocess.run(command, cwd=root, env={**env, "ARCHMEM_SERVER": "on"}, stdout=subprocess.DEVNULL, check=True)
    deadline = time.monotonic() + 60
    while (info := request_info(path)) is None:
        if time.monotonic() > deadline:
            raise SystemExit("the command server did not start (see its log beside the socket)")
        time.sleep(0.1)
    pid = info["pid"]
    assert isinstance(pid, int)
    return path, pid


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def import_shares(arguments: list[str], cwd: Path, top: int = 12) -> list[tuple[str, float]]:
    """Milliseconds of import per package (archmem's per module) in one run of
    ``archmem ARGUMENTS`` in its own process."""
    found = subprocess.run([sys.executable, "-X", "importtime", "-m", "archmem", *arguments], cwd=cwd, env=ENV,
                           capture_output=True, text=True, check=True).stderr
    spent: dict[str, float] = defaultdict(float)
    for line in found.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if match:
            name = match.group(2)
            spent[name if name.startswith("archmem") else name.split(".")[0]] += int(match.group(1)) / 1000
    return sorted(spent.items(), key=lambda item: -item[1])[:top]


def imported_outside_archmem(arguments: list[str], cwd: Path) -> list[str]:
    """The modules besides archmem's that ``archmem ARGUMENTS`` in its own process leaves
    imported and a bare interpreter does not: what any command doing its job imports."""
    probe = ("import runpy, sys; before = set(sys.modules); sys.argv = ['archmem', *sys.argv[1:]]\n"
             "try:\n    runpy.run_module('archmem', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "sys.stderr.write('\\n' + ' '.join(sorted(set(sys.modules) - before)))")
    found = subprocess.run([sys.executable, "-c", probe, *arguments], cwd=cwd, env=ENV,
                           capture_output=True, text=True, check=True).stderr
    names = found.strip().splitlines()[-1].split()
    return [name for name in names if name.split(".")[0] not in ("archmem", "runpy")
            and not name.startswith("typing.")]  # typing.io and typing.re: typing's aliases, not modules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--task", default="tax rounding")
    parser.add_argument("--imports", action="store_true", help="Also show where one recall's imports go.")
    args = parser.parse_args()
    python = sys.executable
    script = Path(python).with_name("archmem")  # what a user runs: pip's console script
    archmem = [str(script)] if script.is_file() else [python, "-m", "archmem"]
    print(f"archmem run as: {' '.join(archmem)}")
    commands = {
        "python -c pass": [python, "-c", "pass"],
        "archmem --version": [*archmem, "--version"],
        f"archmem recall {args.task!r}": [*archmem, "recall", args.task],
    }
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "demo"
        served_env = {**ENV, "ARCHMEM_SERVER": "require", "ARCHMEM_RUNTIME_DIR": str(Path(folder) / "run")}
        run_demo(root, now=datetime.now(UTC))
        print(f"demo in {root} (task of the demo: {TASK!r})")
        for command in commands.values():  # warm: index, history cache, byte code
            timed(command, root)
        needed = imported_outside_archmem(["recall", args.task], root)
        recall = commands[f"archmem recall {args.task!r}"]
        commands = {**dict(list(commands.items())[:2]),
                    "its modules, not archmem's": [python, "-c", "import " + ", ".join(needed)],
                    f"archmem recall {args.task!r}": recall, SERVED: recall}
        path, server = start_server(root, recall, served_env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        try:
            for _ in range(args.runs):
                for name, command in commands.items():
                    served = name == SERVED
                    wall, used = timed(command, root, served_env if served else ENV, server if served else None)
                    times[name].append(wall)
                    cpu[name].append(used)
        finally:
            from archmem.command_server import request_info

            request_info(path, b"stop")
        floor = statistics.median(times["python -c pass"])
        cpu_floor = statistics.median(cpu["python -c pass"])
        print(f"{'':32} {'min ms':>8} {'median ms':>10} {'× python':>9} {'cpu ms':>8} {'× python':>9}")
        for name, values in times.items():
            median, used = statistics.median(values), statistics.median(cpu[name])
            print(f"{name:32} {min(values) * 1000:8.1f} {median * 1000:10.1f} {median / floor:9.1f} "
                  f"{used * 1000:8.1f} {used / cpu_floor:9.1f}")
        for last in (SERVED, f"archmem recall {args.task!r}"):
            ratio = statistics.median(times[last]) / floor
            print(f"{last} against bare python: {ratio:.1f}× wall, "
                  f"{statistics.median(cpu[last]) / cpu_floor:.1f}× processor time (aim ≤ 5×, goal 3×)")
        needs = statistics.median(times["its modules, not archmem's"])
        print(f"recall in its own process against a python importing the {len(needed)} standard and click modules "
              f"it uses: {statistics.median(times[last]) / needs:.1f}× wall (those alone: {needs / floor:.1f}× bare python)")
        if args.imports:
            print("imports of one recall in its own process, ms (self time, per package; archmem per module):")
            for name, spent in import_shares(["recall", args.task], root):
                print(f"  {spent:7.1f}  {name}")


if __name__ == "__main__":
    main()

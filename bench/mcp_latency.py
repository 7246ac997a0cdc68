"""``archmem mcp`` latency: recall through stdio against Workspace.recall in process.

    python bench/mcp_latency.py [--sizes 10000] [--queries 100] [--starts 5] [--quick]

For each size (the example shop, a git repository, with N memories, lexical): p50/p95
of ``Workspace.recall`` in process, of the ``recall`` tool through the SDK's in-memory
transport and through a real ``python -m archmem mcp`` subprocess over stdio (the SDK's
stdio client, initialize handshake as today's clients do), and the stdio/in-process
ratio. Then start-up: spawn → initialize answered → tools listed → first recall
answered, the median of several fresh servers. Aims: stdio p50 under 50 ms at 10k
memories; start-up to the first answer under 1 s.

Last, where the time to ``initialize`` goes, in CPU milliseconds (robust on a busy
machine, where wall times of fresh processes swing by hundreds of milliseconds): Python
itself, the MCP SDK's own imports (``mcp.server``, its stdio transport, anyio: the
floor no server built on the SDK goes below), and the rest, which is archmem's (its
imports beyond the SDK's, the config, the server set-up). Each is a fresh process killed
once ready, so interpreter teardown is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import memory_text, texts
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from archmem.mcp.server import build_server
from archmem.memory import text as textrules
from archmem.memory.lifecycle import content_hash
from archmem.memory.types import Memory
from archmem.store import open_store
from archmem.workspace import Workspace

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "shop"


def search_columns(text: str) -> dict[str, str]:
    """The search text the domain would index for a memory without title or elements."""
    body, parts = textrules.search_columns(text)
    return {"search_body": body, "search_parts": parts}


NOW = datetime(2026, 11, 1, tzinfo=UTC)
ELEMENTS = ["shop.storefront", "shop.gateway", "shop.gateway.router", "shop.gateway.auth", "shop.orders.checkout",
            "shop.orders.pricing", "shop.payments", "shop.database"]


def build(root: Path, size: int) -> None:
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("demo"))
    git = ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "user.name=bench",
           "-c", "user.email=bench@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "shop"]):
        subprocess.run([*git, *args], cwd=root, check=True, capture_output=True)
    rng = random.Random(size)
    store = open_store(root / ".archmem" / "archmem.db")
    corpus = texts(size, seed=11)
    for start in range(0, size, 2000):
        with store.transaction():
            for i, text in enumerate(corpus[start : start + 2000], start=start):
                memory = Memory(id=f"m-{i:07d}", kind=rng.choice(["pitfall", "convention", "note"]), content=text,
                                created_at=NOW, elements=[rng.choice(ELEMENTS)])
                store.insert_memory(memory, title_key=None, content_hash=content_hash(text), search_title="",
                                    **search_columns(text))
    store.close()


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000


def stdio(root: Path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "archmem", "mcp"], cwd=str(root),
                                   env={"PYTHONPATH": str(ROOT)})
    return stdio_client(params)


async def start_up(root: Path, query: str) -> tuple[float, float, float]:
    """Seconds from spawn to: initialize answered, tools listed, first recall answered."""
    start = time.perf_counter()
    async with Client(stdio(root), mode="legacy") as client:
        initialized = time.perf_counter() - start
        await client.list_tools()
        listed = time.perf_counter() - start
        result = await client.call_tool("recall", {"query": query})
        assert not result.is_error, result.content[0].text
        answered = time.perf_counter() - start
    return initialized, listed, answered


async def measure(root: Path, queries: list[str], starts: int) -> dict[str, object]:
    """The three ways in turn for every query (so a busy machine slows them alike)."""
    with Workspace.open(root, env={}) as ws:
        async with Client(build_server(Workspace.open(root, env={})), mode="legacy") as in_memory, \
                Client(stdio(root), mode="legacy") as over_stdio:

            async def direct(query: str) -> None:
                ws.recall(query)

            def tool(client: Client) -> Callable[[str], Awaitable[None]]:
                async def call(query: str) -> None:
                    result = await client.call_tool("recall", {"query": query})
                    assert not result.is_error, result.content[0].text
                return call

            ways = {"in_process": direct, "in_memory": tool(in_memory), "stdio": tool(over_stdio)}
            samples: dict[str, list[float]] = {name: [] for name in ways}
            for way in ways.values():
                await way(queries[0])  # warm caches
            for query in queries:
                for name, way in ways.items():
                    start = time.perf_counter()
                    await way(query)
                    samples[name].append(time.perf_counter() - start)
    runs = [await start_up(root, queries[i % len(queries)]) for i in range(starts)]
    boot = tuple(statistics.median(run[k] for run in runs) * 1000 for k in range(3))
    return {**{name: percentiles(values) for name, values in samples.items()}, "start": boot}


def _children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _cpu_until_ready(args: list[str], cwd: Path, send: bytes | None = None) -> float:
    """CPU milliseconds of a fresh process until its first line of output (killed then)."""
    before = _children_cpu_ms()
    process = subprocess.Popen([sys.executable, *args], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdin is not None and process.stdout is not None
    if send:
        process.stdin.write(send)
        process.stdin.flush()
    process.stdout.readline()
    process.kill()
    process.wait()
    return _children_cpu_ms() - before


def initialize_cpu(root: Path, runs: int) -> dict[str, float]:
    """Median CPU ms of: bare Python, the SDK's imports, the server to its initialize answer."""
    ready = "\nimport sys; print('ready', flush=True); sys.stdin.readline()"
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    samples: dict[str, list[float]] = {"python": [], "sdk": [], "server": []}
    for _ in range(runs):
        samples["python"].append(_cpu_until_ready(["-c", "pass" + ready], root))
        samples["sdk"].append(_cpu_until_ready(["-c", "import mcp.server, mcp.server.stdio, anyio" + ready], root))
        samples["server"].append(_cpu_until_ready(["-m", "archmem", "mcp"], root, (initialize + "\n").encode()))
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--starts", type=int, default=5, help="Fresh servers started to time start-up.")
    parser.add_argument("--quick", action="store_true", help="1,000 memories, 30 queries, 3 starts.")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.queries, args.starts = "1000", 30, 3
    rng = random.Random(5)
    queries = [memory_text(rng, 10**7 + i).rsplit("(", 1)[0] for i in range(args.queries)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            root = Path(tmp) / f"shop-{size}"
            build(root, size)
            rows.append((size, asyncio.run(measure(root, queries, args.starts))))
            if size == max(int(s) for s in args.sizes.split(",")):
                cpu = initialize_cpu(root, max(args.starts, 5))
            shutil.rmtree(root)
    print(f"recall, {args.queries} queries (ms, p50/p95)")
    print(f"{'memories':>9} {'in process':>13} {'MCP in memory':>14} {'MCP stdio':>13} {'stdio / in process':>19}")
    for size, m in rows:
        a, b, c = m["in_process"], m["in_memory"], m["stdio"]
        print(f"{size:>9,} {a[0]:>6.1f}/{a[1]:<6.1f} {b[0]:>7.1f}/{b[1]:<6.1f} {c[0]:>6.1f}/{c[1]:<6.1f} "
              f"{c[0] / a[0]:>13.2f}x (+{c[0] - a[0]:.1f} ms)")
    print(f"\nstart-up, median of {args.starts} fresh servers (ms from spawn)")
    print(f"{'memories':>9} {'initialized':>12} {'tools listed':>13} {'first recall':>13}")
    for size, m in rows:
        s = m["start"]
        print(f"{size:>9,} {s[0]:>12.0f} {s[1]:>13.0f} {s[2]:>13.0f}")
    print(f"\nto the initialize answer, median CPU ms of {max(args.starts, 5)} fresh processes")
    print(f"  Python itself                {cpu['python']:>5.0f}")
    print(f"  the MCP SDK's imports        {cpu['sdk'] - cpu['python']:>5.0f}   (the floor: mcp.server, its stdio, anyio)")
    print(f"  archmem                      {cpu['server'] - cpu['sdk']:>5.0f}   (its imports beyond the SDK's, config, "
          "server; the tools and the warm-up wait for tools/list)")
    print(f"  total                        {cpu['server']:>5.0f}")


if __name__ == "__main__":
    main()

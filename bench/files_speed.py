"""Memory files → index: what the sync on every open costs at 10,000 memory files.

    python bench/files_speed.py [--count 10000] [--repeat 15] [--profile]

The files are rendered by archmem's own ``render_memory`` (the write path's format) from
varied content: Zipfian text with identifiers and paths, titles on half of them, 1-3 of
40 elements, anchors, four kinds, authors, confirmations, supersede chains, wikilinks
and archived memories. All measured in one run:

The files are committed in a git repository, as a team's are.

(a) an open with nothing changed: ``Workspace.store`` (open the index and sync) against
    ``open_store`` on the same index without the folder; the difference is what the
    sync adds to every command (aim < 50 ms); once by git's signature of the folder
    (what an open does from ``SIGNATURE_FROM`` files) and once by a stat of every file;
(b) a full rebuild (the index deleted) from the files, against a floor that reads the
    same files, parses their front matter with yaml's C loader and inserts their text into
    a bare SQLite FTS5 table with one executemany (aim ≤ 2x the floor);
(c) 100 of the files changed by hand (content and a confirmation), then an open.

``--profile`` prints the top of cProfile for (a) and (b).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import ZipfCorpus

from archmem.memory import sync as sync_module
from archmem.memory.file_format import file_name, render_memory
from archmem.memory.types import MEMORY_KINDS, Memory
from archmem.store import open_store
from archmem.workspace import Workspace

START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
ELEMENTS = 40
MEMORIES = Path(".archmem/memories")


def model_dsl() -> str:
    """A Structurizr DSL model: a system of 40 containers, each owning its code folder."""
    blocks = "\n".join(
        f'            c{i} = container "Service{i}" "Handles part {i} of the shop" {{\n'
        f'                properties {{\n                    "archmem.paths" "services/s{i}/**"\n'
        "                }\n            }"
        for i in range(ELEMENTS)
    )
    head = 'workspace "Bench" {\n    model {\n        shop = softwareSystem "Shop" {\n'
    return f"{head}{blocks}\n        }}\n    }}\n}}\n"


def memories(count: int, seed: int = 5) -> list[Memory]:
    """Varied, realistic memories (deterministic for a seed)."""
    rng = random.Random(seed)
    corpus = ZipfCorpus(seed=seed)
    out: list[Memory] = []
    titled: list[str] = []
    for i in range(count):
        words = corpus.memory().rstrip(".")
        element = rng.randrange(ELEMENTS)
        extras = [f"`services/s{element}/handler_{i % 97}.py`"] if rng.random() < 0.3 else []
        if titled and rng.random() < 0.15:
            extras.append(f"see [[{rng.choice(titled)}]]")
        content = f"{words} in Service{element}" + (" " + " ".join(extras) if extras else "") + "."
        if rng.random() < 0.1:
            content += "\n\n" + corpus.memory() + "\n\n- " + corpus.memory() + "\n- " + corpus.memory()
        created = START + timedelta(minutes=37 * i + rng.randrange(30))
        title = None
        if rng.random() < 0.5:
            title = " ".join(words.split()[:rng.randint(2, 5)]).capitalize() + f" {i}"
            titled.append(title)
        supersedes = None
        if out and rng.random() < 0.05:
            older = out[rng.randrange(max(0, len(out) - 200), len(out))]
            if not any(m.supersedes == older.id for m in out[-200:]):
                supersedes = older.id
        confirmations = rng.choice([0, 0, 0, 1, 2, 5])
        out.append(Memory(
            id=f"m-{rng.getrandbits(40):010x}", kind=rng.choice(MEMORY_KINDS), title=title, content=content,
            elements=[f"c{e}" for e in dict.fromkeys([element, *rng.sample(range(ELEMENTS), rng.randint(0, 2))])],
            anchors=[f"services/s{element}/handler_{i % 97}.py"] if extras and extras[0].startswith("`") else [],
            author=rng.choice(["claude-code/sarah", "codex/omar", "cursor/li", None]),
            created_at=created,
            confirmed_at=created + timedelta(days=rng.randrange(60)) if confirmations else created,
            confirmations=confirmations, supersedes=supersedes,
            status="archived" if rng.random() < 0.03 else "active",
            status_reason="no longer true" if rng.random() < 0.03 else None,
        ))
    return out


def make_repo(root: Path, count: int) -> list[Path]:
    (root / "workspace.dsl").write_text(model_dsl(), encoding="utf-8")
    folder = root / MEMORIES
    folder.mkdir(parents=True)
    paths = []
    for memory in memories(count):
        path = folder / file_name(memory)
        path.write_text(render_memory(memory), encoding="utf-8")
        paths.append(path)
    env = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "Bench",
           "GIT_COMMITTER_EMAIL": "b@example.com", "PATH": os.environ.get("PATH", "")}
    (root / ".gitignore").write_text(".archmem/archmem.db*\nbaseline.db*\n", encoding="utf-8")
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "memories"]):
        subprocess.run(["git", *command], cwd=root, check=True, env=env)
    return paths


def index_path(root: Path) -> Path:
    return root / ".archmem" / "archmem.db"


def delete_index(root: Path) -> None:
    for path in (root / ".archmem").glob("archmem.db*"):
        path.unlink()


def open_workspace(root: Path) -> Workspace:
    """Open and sync, starting as cold as a new process (no word's tokens cached)."""
    from archmem.memory.text import _chunk_tokens

    _chunk_tokens.cache_clear()
    ws = Workspace.open(root, env={})
    ws.store  # noqa: B018  (open and sync)
    return ws


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    result = action()
    elapsed = time.perf_counter() - start
    close = getattr(result, "close", None)
    if close is not None:
        close()
    return elapsed


def median_ms(action: Callable[[], object], repeat: int) -> float:
    return statistics.median(timed(action) for _ in range(repeat)) * 1000


def profile(title: str, action: Callable[[], object]) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    result = action()
    profiler.disable()
    close = getattr(result, "close", None)
    if close is not None:
        close()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
    print(f"--- profile: {title}\n{out.getvalue()}")


def baseline_rebuild(root: Path, paths: list[Path]) -> float:
    """The plainest fast rebuild: read every file, parse its front matter with yaml's C
    loader, and insert the files' text into a bare FTS5 table with one executemany, in
    one transaction."""
    import yaml

    def rows() -> Iterator[tuple[str, str]]:
        for path in paths:
            text = path.read_text(encoding="utf-8")
            yaml.load(text[4:].partition("\n---\n")[0], Loader=yaml.CSafeLoader)  # noqa: S506 - the C safe loader
            yield path.name, text

    db_path = root / "baseline.db"
    start = time.perf_counter()
    db = sqlite3.connect(db_path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE VIRTUAL TABLE m USING fts5(path, body)")
    db.execute("BEGIN")
    db.executemany("INSERT INTO m(path, body) VALUES (?, ?)", rows())
    db.execute("COMMIT")
    db.close()
    elapsed = time.perf_counter() - start
    for leftover in root.glob("baseline.db*"):
        leftover.unlink()
    return elapsed


def edit(paths: list[Path], count: int, rng: random.Random) -> None:
    """A hand edit of ``count`` files: a new sentence, and one more confirmation."""
    for path in rng.sample(paths, count):
        text = path.read_text(encoding="utf-8")
        if "\nconfirmations: " in text:
            head, _, rest = text.partition("\nconfirmations: ")
            number, _, rest = rest.partition("\n")
            text = f"{head}\nconfirmations: {int(number) + 1}\n{rest}"
        path.write_text(text.rstrip("\n") + " Checked again by hand.\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=10_000, help="memory files (default 10,000)")
    parser.add_argument("--repeat", type=int, default=15, help="opens timed for (a) and the index-only open")
    parser.add_argument("--profile", action="store_true", help="cProfile (a) and (b)")
    args = parser.parse_args()
    count = args.count

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        paths = make_repo(root, count)
        size = sum(path.stat().st_size for path in paths)
        print(f"{count:,} memory files ({size / 1e6:.1f} MB) written in {time.perf_counter() - start:.1f} s")

        # (b) first: it builds the index the other two open
        baseline_s = min(baseline_rebuild(root, paths) for _ in range(3))
        rebuild_s = []
        for _ in range(3):
            delete_index(root)
            rebuild_s.append(timed(lambda: open_workspace(root)))
        rebuild = min(rebuild_s)
        with Workspace.open(root, env={}) as ws:
            indexed = ws.store.count_memories(status=None)
            problems = len(ws.file_warnings)
        assert indexed == count and problems == 0, (indexed, problems)
        print(f"(b) full rebuild of the index from {count:,} files: {rebuild:.2f} s (best of 3; aim ≤ 2x the floor); "
              f"floor read + CSafeLoader + bare FTS5 executemany {baseline_s:.2f} s; ratio {rebuild / baseline_s:.2f}x")
        if args.profile:
            delete_index(root)
            profile("(b) full rebuild", lambda: open_workspace(root))

        # (a) nothing changed
        bare_ms = median_ms(lambda: open_store(index_path(root)), args.repeat)
        synced_ms = median_ms(lambda: open_workspace(root), args.repeat)
        from_signature = sync_module.SIGNATURE_FROM
        sync_module.SIGNATURE_FROM = count + 1  # the stat of every file, as below that size
        stat_ms = median_ms(lambda: open_workspace(root), args.repeat)
        sync_module.SIGNATURE_FROM = from_signature
        print(f"(a) open with nothing changed: {synced_ms:.1f} ms (Workspace.store, median of {args.repeat}); "
              f"index alone {bare_ms:.1f} ms; the sync adds {synced_ms - bare_ms:.1f} ms (aim < 50 ms); "
              f"ratio {synced_ms / bare_ms:.1f}x")
        print(f"    by a stat of every file instead of git's signature: {stat_ms:.1f} ms "
              f"(the sync adds {stat_ms - bare_ms:.1f} ms)")
        if args.profile:
            profile("(a) open, nothing changed", lambda: open_workspace(root))

        # (c) 100 files changed by hand
        rng = random.Random(11)
        changed_ms = []
        for _ in range(5):
            edit(paths, 100, rng)
            changed_ms.append(timed(lambda: open_workspace(root)) * 1000)
        changed = statistics.median(changed_ms)
        with Workspace.open(root, env={}) as ws:
            assert ws.store.count_memories(status=None) == count and not ws.file_warnings
        print(f"(c) open after 100 of {count:,} files changed: {changed:.0f} ms (median of 5); "
              f"{changed / synced_ms:.1f}x the unchanged open, {changed / 1000 / rebuild:.2f}x the full rebuild")


if __name__ == "__main__":
    main()

"""How fast is ``archmem check`` over 10,000 memory files? (issue 11: < 3 s)

    python bench/check_speed.py [--files N] [--repeat N]

Writes N memory files with the real ``render_memory`` and ``file_name`` into a
temporary repository with a 60-element model: titles on most, elements, anchors,
authors, confirmations, ``[[links]]`` to titles, elements and nothing, and supersede
chains. Then measures, best of a few repeats (files in the OS cache, as in CI after
checkout):

- the baseline: list the folder, read every file, ``yaml.safe_load`` its front matter
  (what a hand-written validator would do at the least), and the same with the C loader;
- ``Workspace.check()`` end to end: scan, read, parse, every rule, model loaded.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import texts

from archmem.memory.file_format import file_name, render_memory
from archmem.memory.types import Memory
from archmem.workspace import Workspace

START = datetime(2026, 1, 1, tzinfo=UTC)
ELEMENTS = 60
FOLDER = ".archmem/memories"


def model_yaml() -> str:
    lines = ["name: Bench", "elements:"]
    for s in range(ELEMENTS // 6):
        lines += [f"  - id: s{s}", "    kind: softwareSystem", f"    name: System {s}", "    elements:"]
        for c in range(5):
            lines += [f"      - id: s{s}c{c}", "        kind: container", f"        name: Service{s}x{c}",
                      f"        paths: [src/s{s}/c{c}/**]"]
    return "\n".join(lines) + "\n"


def generate(root: Path, count: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    folder = root / FOLDER
    folder.mkdir(parents=True)
    (root / "archmem.yaml").write_text(model_yaml(), encoding="utf-8")
    elements = [f"s{s}c{c}" for s in range(ELEMENTS // 6) for c in range(5)]
    titles: list[str] = []
    superseded: set[str] = set()
    ids: dict[str, str] = {}
    for i, text in enumerate(texts(count, seed=seed)):
        title = f"Lesson {i}" if rng.random() < 0.7 else None
        content = text
        if titles and rng.random() < 0.3:
            content += f" See [[{rng.choice(titles)}]]."
        if rng.random() < 0.1:
            content += f" Owned by [[Service{rng.randrange(ELEMENTS // 6)}x{rng.randrange(5)}]]."
        if rng.random() < 0.02:
            content += " Compare [[A page nobody wrote]]."
        created = START + timedelta(minutes=i)
        supersedes = None
        if title and titles and rng.random() < 0.05:
            old = titles[-rng.randint(1, len(titles))]
            if old not in superseded:  # a chain; a fork is an error, rare in a real store
                superseded.add(old)
                supersedes = ids[old]
                title = old  # a new version keeps the title
        memory = Memory(
            id=f"m-{i:010x}", kind=rng.choice(["pitfall", "convention", "note", "session_outcome"]), title=title,
            content=content, elements=rng.sample(elements, rng.randint(0, 2)),
            anchors=[f"src/s{rng.randrange(10)}/c{rng.randrange(5)}/mod{rng.randrange(50)}.py"] * rng.randint(0, 1),
            author=f"claude-code/dev{rng.randrange(20)}", created_at=created,
            confirmed_at=created + timedelta(days=rng.randint(0, 90)), confirmations=rng.randint(0, 4),
            supersedes=supersedes,
        )
        if title and not supersedes:
            titles.append(title)
        if title:
            ids[title] = memory.id
        (folder / file_name(memory)).write_text(render_memory(memory), encoding="utf-8")


def baseline(root: Path, loader: object) -> int:
    import yaml

    count = 0
    for entry in os.scandir(root / FOLDER):
        if entry.name.endswith(".md"):
            with open(entry.path, encoding="utf-8") as handle:
                text = handle.read()
            front = text.split("\n---\n", 1)[0][4:]
            yaml.load(front, Loader=loader)  # noqa: S506 - a safe loader is passed in
            count += 1
    return count


def best(run: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import yaml

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()  # a repository root; check reads no history
        generate(root, args.files)
        safe_s, n = best(lambda: baseline(root, yaml.SafeLoader), args.repeat)
        c_s, _ = best(lambda: baseline(root, yaml.CSafeLoader), args.repeat)

        def check() -> object:
            return Workspace.open(root, env={}).check()

        check_s, report = best(check, args.repeat)
    print(f"archmem check over {n:,} memory files: {check_s:.2f} s "
          f"({check_s / n * 1e6:.0f} µs a file; {report.errors} errors, {report.warnings} warnings)")
    print(f"  baseline read + yaml.safe_load of the front matter: {safe_s:.2f} s; ratio {check_s / safe_s:.2f}x")
    print(f"  baseline read + yaml CSafeLoader:                   {c_s:.2f} s; ratio {check_s / c_s:.2f}x "
          "(check also parses every field, scans for secrets and resolves elements and links)")


if __name__ == "__main__":
    main()

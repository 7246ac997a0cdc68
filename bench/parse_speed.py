"""How fast is the Structurizr DSL parser? Parse a generated workspace and compare.

Generates a workspace of 5,000 elements (people, software systems, containers and
components, some in groups, with properties and blocks) and 10,000 relationships in a
temporary folder, then measures, best of a few repeats in the same run:

- the baseline: reading the file and splitting it into tokens with one simple regex;
- ``parse_dsl``: the whole parse into an ``ArchitectureModel``.

Run: ``python bench/parse_speed.py [--elements N] [--relationships N] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from archmem.model.dsl import parse_dsl

_SIMPLE_TOKEN = re.compile(r'"[^"]*"|\S+')


def generate(elements: int, relationships: int, seed: int = 7) -> str:
    """A workspace with ``elements`` elements and ``relationships`` relationships."""
    rng = random.Random(seed)
    lines = [
        'workspace "Benchmark" "Generated for bench/parse_speed.py" {',
        "    !identifiers hierarchical",
        "    model {",
    ]
    ids: list[str] = []
    people = max(1, elements // 50)
    for i in range(people):
        lines.append(f'        p{i} = person "Person {i}" "A user of the systems." "User"')
        ids.append(f"p{i}")
    remaining = elements - people
    system = 0
    while remaining > 0:
        sid = f"s{system}"
        grouped = system % 3 == 0
        indent = "            " if grouped else "        "
        if grouped:
            lines.append(f'        group "Domain {system // 3}" {{')
        lines.append(f'{indent}{sid} = softwareSystem "System {system}" "Does things." {{')
        ids.append(sid)
        remaining -= 1
        for c in range(4):
            if remaining <= 0:
                break
            cid = f"{sid}.c{c}"
            lines.append(f'{indent}    c{c} = container "Container {system}.{c}" "Runs." "Python" {{')
            lines.append(f"{indent}        properties {{")
            lines.append(f'{indent}            "archmem.paths" "src/s{system}/c{c}/**"')
            lines.append(f"{indent}        }}")
            ids.append(cid)
            remaining -= 1
            for k in range(5):
                if remaining <= 0:
                    break
                lines.append(f'{indent}        k{k} = component "Component {system}.{c}.{k}" "Part." "Module" "Core"')
                ids.append(f"{cid}.k{k}")
                remaining -= 1
            lines.append(f"{indent}    }}")
        lines.append(f"{indent}}}")
        if grouped:
            lines.append("        }")
        system += 1
    seen: set[tuple[str, str]] = set()
    made = 0
    while made < relationships:
        a, b = rng.choice(ids), rng.choice(ids)
        if a == b or a.startswith(b + ".") or b.startswith(a + ".") or (a, b) in seen:
            continue
        seen.add((a, b))
        lines.append(f'        {a} -> {b} "Calls {made}" "HTTPS"')
        made += 1
    lines.append("    }")
    lines.append("    views {")
    lines.append("        systemLandscape {")
    lines.append("            include *")
    lines.append("        }")
    lines.append("    }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def best_of(repeat: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def baseline(path: Path) -> int:
    """Read the file and split every line into tokens with one regex."""
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        count += len(_SIMPLE_TOKEN.findall(line))
    return count


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--elements", type=int, default=5000)
    options.add_argument("--relationships", type=int, default=10000)
    options.add_argument("--repeat", type=int, default=5)
    args = options.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "workspace.dsl"
        path.write_text(generate(args.elements, args.relationships), encoding="utf-8")
        model = parse_dsl(path, env={})
        counts = model.counts()
        elements = sum(counts[k] for k in ("people", "softwareSystems", "containers", "components"))
        size = path.stat().st_size
        lines = path.read_text(encoding="utf-8").count("\n")
        base = best_of(args.repeat, lambda: baseline(path))
        parse = best_of(args.repeat, lambda: parse_dsl(path, env={}))
    print(
        f"workspace: {elements} elements, {len(model.relationships)} relationships, "
        f"{lines} lines, {size / 1024:.0f} KiB"
    )
    print(f"baseline (read + regex split): {base * 1000:8.1f} ms")
    print(f"parse_dsl:                     {parse * 1000:8.1f} ms")
    print(f"ratio parse / baseline:        {parse / base:8.1f}x")
    print(f"budget 1 s:                    {'within' if parse < 1.0 else 'OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

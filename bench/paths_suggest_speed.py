"""How fast (and how right) is ``archmem paths suggest`` on a mid-sized repository?

Generates, in memory, a repository of 5,000 files and a model of 300 elements: 40
containers under ``services/`` (folders named in every style teams use: ``orders``,
``order-service``, ``OrderService``, ``order_svc``, ``orderservice``), 6 components in
each (a file or a sub-folder), 9 people and 10 external systems, with tests, docs,
scripts and vendored code around them. Then measures, best of a few repeats:

- the naive baseline: every element name against every path by plain substring (the
  name lower-cased, spaces dropped; else its longest word), the shortest matching path;
- ``suggest_paths``: the whole suggestion (index, names, manifests, assignment).

and how many elements each puts at the right place. Nothing touches the disk or git.

Run: ``python bench/paths_suggest_speed.py [--files N] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from archmem.model.types import ArchitectureModel, Element
from archmem.onboarding.suggest import suggest_paths

NOUNS = """order invoice payment customer account catalog product price cart checkout shipment delivery warehouse
inventory stock supplier review rating search recommendation notification email message report audit ledger
billing subscription coupon discount tax refund return loyalty session token identity profile address geo
route schedule""".split()
COMPONENTS = """controller repository validator mapper scheduler importer exporter calculator publisher listener
resolver cache client gateway formatter parser builder tracker""".split()


def _styles(a: str, b: str) -> list[str]:
    return [f"{a}s", f"{a}-{b}", f"{a.title()}{b.title()}", f"{a}_{b}", f"{a}{b}"]


def generate(files: int, seed: int = 7) -> tuple[ArchitectureModel, list[str], dict[str, str]]:
    """(model, file paths, element id → the right glob)."""
    rng = random.Random(seed)
    elements = [Element(id="main", name="Commerce Platform", kind="softwareSystem")]
    paths: list[str] = []
    truth: dict[str, str] = {}
    nouns = rng.sample(NOUNS, 40)
    for n, noun in enumerate(nouns):
        kind_word = rng.choice(["service", "api", "worker", "service"])
        folder = f"services/{rng.choice(_styles(noun, kind_word))}"
        cid = f"c{n}"
        name = f"{noun.title()} {kind_word.title()}" if rng.random() < 0.7 else noun.title()
        elements.append(Element(id=cid, name=name, kind="container", parent="main", technology="Python"))
        truth[cid] = f"{folder}/**"
        paths += [f"{folder}/Dockerfile", f"{folder}/README.md", f"{folder}/tests/test_{noun}.py"]
        for m, part in enumerate(rng.sample(COMPONENTS, 6)):
            pid = f"{cid}.k{m}"
            elements.append(Element(id=pid, name=f"{noun.title()} {part.title()}", kind="component", parent=cid))
            if rng.random() < 0.5:
                target = f"{folder}/{noun}_{part}.py"
                paths.append(target)
                truth[pid] = target
            else:
                target = f"{folder}/{part}s"
                paths += [f"{target}/__init__.py", f"{target}/{part}.py", f"{target}/helpers.py"]
                truth[pid] = f"{target}/**"
    for n in range(10):
        if n:
            elements.append(Element(id=f"p{n}", name=f"User {n}", kind="person"))
        elements.append(Element(id=f"x{n}", name=f"Partner {NOUNS[n].title()} System", kind="softwareSystem",
                                tags=["External"]))
    folders = sorted({p.rsplit("/", 1)[0] for p in paths if p.startswith("services/")})
    filler = ["docs/guide", "scripts", "vendor/github.com/lib", "tools/ci", "libs/common"]
    while len(paths) < files:
        where = rng.choice(folders + filler)
        paths.append(f"{where}/module_{len(paths)}.{rng.choice(['py', 'py', 'md', 'yaml', 'go'])}")
    return ArchitectureModel(name="Commerce", elements=elements), sorted(set(paths)), truth


def naive(model: ArchitectureModel, files: list[str]) -> dict[str, list[str]]:
    """Every element against every path by plain substring; the shortest match wins."""
    found = {}
    lowered = [(f, f.lower()) for f in files]
    for element in model.elements:
        whole = element.name.lower().replace(" ", "")
        longest = max(element.name.lower().split(), key=len)
        hits = [f for f, low in lowered if whole in low] or [f for f, low in lowered if longest in low]
        if hits:
            found[element.id] = [min(hits, key=len)]
    return found


def archmem_suggest(model: ArchitectureModel, files: list[str]) -> dict[str, list[str]]:
    result = suggest_paths(model, files, read=lambda path: None)
    return {s.element: s.paths for s in result.suggestions}


def right(found: dict[str, list[str]], truth: dict[str, str]) -> int:
    """Elements whose first suggested place is the right one (a file inside the right
    folder counts for a folder-owning component only when it is that file)."""
    return sum(1 for element, glob in truth.items() if found.get(element, [None])[0] == glob)


def best_of(repeat: int, run: Callable[[], dict[str, list[str]]]) -> tuple[float, dict[str, list[str]]]:
    best, result = float("inf"), {}
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    model, files, truth = generate(args.files)
    external = sum(1 for e in model.elements if e.kind == "person" or e.tags)
    print(f"{len(files):,} files, {len(model.elements)} elements ({len(truth)} own code, {external} external)")
    for label, run in (("naive substring", lambda: naive(model, files)),
                       ("archmem paths suggest", lambda: archmem_suggest(model, files))):
        seconds, found = best_of(args.repeat, run)
        wrong_external = sum(1 for e in model.elements if (e.kind == "person" or e.tags) and e.id in found)
        print(f"  {label:<22} {seconds * 1000:8.1f} ms   right {right(found, truth):>3} of {len(truth)}"
              f"   suggested for external elements: {wrong_external}")


if __name__ == "__main__":
    main()

"""How fast is ``archmem conformance``? A generated repository, a full run, and a run
after one file changed, against a naive baseline.

Generates a git repository of N source files (default 5,000: 40 % Python, 30 %
TypeScript, 20 % Go, 10 % Java, ~80 lines each) owned by 10 containers × 5 components,
each file importing three files of its own component, one of the container below
(declared in the model), and a third-party package; ``--undeclared`` files also import
the container above, which the model does not draw. Then, each time through
``Workspace.conformance()`` on a fresh ``Workspace`` (model, ownership, hashes, cache,
resolution, graph and comparison included):

- full: an empty cache, every file read and parsed;
- unchanged: nothing to read;
- incremental: one file changed (best of ``--repeat``);
- naive: read every file and regex-match its import lines, no cache, no comment or
  string handling, no resolution: the floor of any approach that reads every file;
- grimp (when installed: ``pip install grimp``): grimp's import graph of the generated
  Python package, without its cache, the floor of a tool built for one job that reads
  Python only. ``--languages python`` generates Python alone, so archmem's full run and
  grimp read the same files and their ratio is a like-for-like one.

It checks that the undeclared dependencies found are exactly the planted ones.
Run: ``python bench/conformance_speed.py [--files N] [--repeat N] [--languages python,go] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from archmem.workspace import Workspace

CONTAINERS, COMPONENTS = 10, 5
LANGUAGES = [("python", 0.4), ("typescript", 0.3), ("go", 0.2), ("java", 0.1)]
NAIVE = re.compile(r"""^\s*(?:import|from|export|using|package)\b.*$""", re.M)


def _body(language: str, n: int) -> str:
    if language == "python":
        return "".join(f"\n\ndef f{i}(x):\n    # step {i}\n    return x * {i} + len('import nothing')\n" for i in range(n))
    if language == "typescript":
        return "".join(f"\nexport function f{i}(x: number): number {{\n  // step {i}\n  return x * {i};\n}}\n" for i in range(n))
    if language == "go":
        return "".join(f"\nfunc F{i}(x int) int {{\n\t// step {i}\n\treturn x * {i}\n}}\n" for i in range(n))
    return "public class X {\n" + "".join(f"  int f{i}(int x) {{ return x * {i}; }} // step {i}\n" for i in range(n)) + "}\n"


def generate(root: Path, files: int, undeclared: int, rng: random.Random,
             languages: list[tuple[str, float]] = LANGUAGES) -> set[tuple[str, str]]:
    """Write the repository; return the planted undeclared dependencies (element ids)."""
    layout: dict[tuple[int, int], list[tuple[str, str]]] = {}  # (container, component) → [(language, stem)]
    weights = [w for _, w in languages]
    for n in range(files):
        key = (n % CONTAINERS, (n // CONTAINERS) % COMPONENTS)
        language = rng.choices([name for name, _ in languages], weights)[0]
        layout.setdefault(key, []).append((language, f"m{n}"))

    def path(c: int, k: int, language: str, stem: str) -> str:
        folder = {"python": f"pyapp/c{c}/k{k}", "typescript": f"ts/c{c}/k{k}", "go": f"go/c{c}/k{k}/p{stem}",
                  "java": f"java/com/bench/c{c}/k{k}"}[language]
        ext = {"python": ".py", "typescript": ".ts", "go": ".go", "java": ".java"}[language]
        return f"{folder}/{stem.capitalize() if language == 'java' else stem}{ext}"

    def spec(language: str, importer: str, c: int, k: int, stem: str) -> str:
        if language == "python":
            return f"from pyapp.c{c}.k{k}.{stem} import f0"
        if language == "typescript":
            target = path(c, k, language, stem)[:-3]
            return f'import {{ f0 as {stem}_f0 }} from "{os.path.relpath(target, os.path.dirname(importer))}";'
        if language == "go":
            return f'\t"example.com/bench/go/c{c}/k{k}/p{stem}"'
        return f"import com.bench.c{c}.k{k}.{stem.capitalize()};"

    planted: set[tuple[str, str]] = set()
    undeclared_files = set(rng.sample(range(files), undeclared))
    count = 0
    (root / "go.mod").parent.mkdir(parents=True, exist_ok=True)
    (root / "go.mod").write_text("module example.com/bench\n\ngo 1.22\n", encoding="utf-8")
    for (c, k), members in layout.items():
        for language, stem in members:
            me = path(c, k, language, stem)
            same = [m for m in members if m[0] == language and m[1] != stem]
            targets = [(c, k, s) for _, s in rng.sample(same, min(3, len(same)))]
            below = [m for m in layout.get(((c - 1) % CONTAINERS, k), []) if m[0] == language]
            if c > 0 and below:
                targets.append((c - 1, k, rng.choice(below)[1]))
            above = [m for m in layout.get(((c + 1) % CONTAINERS, k), []) if m[0] == language]
            if count in undeclared_files and c + 1 < CONTAINERS and above:
                targets.append((c + 1, k, rng.choice(above)[1]))
                planted.add((f"bench.c{c}.k{k}", f"bench.c{c + 1}.k{k}"))
            count += 1
            lines = [spec(language, me, tc, tk, ts) for tc, tk, ts in targets]
            if language == "python":
                text = "import os\nimport requests\n" + "\n".join(lines) + "\n" + _body(language, 18)
            elif language == "typescript":
                text = 'import express from "express";\n' + "\n".join(lines) + "\n" + _body(language, 18)
            elif language == "go":
                text = (f"package p{stem}\n\nimport (\n\t\"fmt\"\n\t\"github.com/google/uuid\"\n" + "\n".join(lines)
                        + "\n)\n" + _body(language, 18))
            else:
                text = (f"package com.bench.c{c}.k{k};\n\nimport java.util.List;\n" + "\n".join(lines) + "\n"
                        + _body(language, 40))
            target = root / me
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    for c in range(CONTAINERS):  # packages for Python's absolute imports
        for k in range(COMPONENTS):
            for folder in ("pyapp", f"pyapp/c{c}", f"pyapp/c{c}/k{k}"):
                (root / folder).mkdir(parents=True, exist_ok=True)
                (root / folder / "__init__.py").touch()
    components = "\n".join(
        f'            c{c} = container "Container {c}" {{\n' + "".join(
            f'                k{k} = component "Component {c}.{k}" {{\n                    properties {{\n'
            f'                        "archmem.paths" "pyapp/c{c}/k{k}/**, ts/c{c}/k{k}/**, go/c{c}/k{k}/**, '
            f'java/com/bench/c{c}/k{k}/**"\n                    }}\n                }}\n'
            for k in range(COMPONENTS)) + "            }"
        for c in range(CONTAINERS))
    relationships = "\n".join(f"        bench.c{c} -> bench.c{c - 1} \"Uses\"" for c in range(1, CONTAINERS))
    (root / "workspace.dsl").write_text(
        'workspace "Bench" {\n    !identifiers hierarchical\n    model {\n        bench = softwareSystem "Bench" {\n'
        f"{components}\n        }}\n{relationships}\n    }}\n}}\n", encoding="utf-8")
    return planted


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.com", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=root, env=env,
                   check=True, capture_output=True)


def run(root: Path) -> tuple[float, object]:
    env = {"ARCHMEM_STORE_PATH": str(root / ".archmem" / "archmem.db")}
    start = time.perf_counter()
    with Workspace.open(root, env=env) as ws:
        report = ws.conformance()
    return time.perf_counter() - start, report


def naive(root: Path, files: list[str]) -> float:
    start = time.perf_counter()
    found = 0
    for path in files:
        found += len(NAIVE.findall((root / path).read_text(encoding="utf-8")))
    assert found
    return time.perf_counter() - start


def grimp_floor(root: Path) -> float | None:
    """Seconds grimp takes to build the import graph of the package ``pyapp`` (no cache), or
    None when grimp is not installed or there is no Python."""
    try:
        import grimp  # type: ignore[import-not-found]
    except ImportError:
        return None
    if not (root / "pyapp" / "__init__.py").exists():
        return None
    sys.path.insert(0, str(root))
    try:
        start = time.perf_counter()
        graph = grimp.build_graph("pyapp", cache_dir=None)
        took = time.perf_counter() - start
    finally:
        sys.path.remove(str(root))
    assert graph.modules
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--undeclared", type=int, default=25)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="generate here and keep it")
    parser.add_argument("--languages", default=",".join(name for name, _ in LANGUAGES),
                        help="the languages to generate (python alone: a like-for-like ratio against grimp)")
    args = parser.parse_args(argv)
    chosen = [(name, weight) for name, weight in LANGUAGES if name in args.languages.split(",")]
    if not chosen:
        parser.error(f"--languages: none of {args.languages!r} is one of {', '.join(n for n, _ in LANGUAGES)}")
    rng = random.Random(14)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="archmem-conformance-"))
    root = folder / "repo"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    try:
        planted = generate(root, args.files, args.undeclared, rng, chosen)
        git(root, "init", "-q")
        (root / ".gitignore").write_text(".archmem/\n", encoding="utf-8")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "generated")
        (root / ".archmem").mkdir()  # archmem in use: the import cache persists between runs
        sources = [p.relative_to(root).as_posix() for p in root.rglob("*")
                   if p.suffix in (".py", ".ts", ".go", ".java") and ".git" not in p.parts]
        print(f"repository: {len(sources)} source files ({args.files} generated + Python __init__ files), "
              f"{CONTAINERS * COMPONENTS} components in {CONTAINERS} containers")

        full, report = run(root)
        counts = report.counts  # type: ignore[attr-defined]
        found = {(d.source, d.target) for d in report.undeclared}  # type: ignore[attr-defined]
        print(f"full run:        {full:6.2f} s  ({counts.read} files read, {counts.imports} imports, "
              f"{counts.internal} resolved in the repository, {counts.external} outside, {counts.unresolved} unresolved)")
        unchanged, again = run(root)
        print(f"unchanged:       {unchanged:6.2f} s  ({again.counts.read} files read)")  # type: ignore[attr-defined]
        times = []
        for n in range(args.repeat):
            victim = root / sources[(n * 7919) % len(sources)]
            with victim.open("a", encoding="utf-8") as handle:
                handle.write(f"\n// edit {n}\n" if victim.suffix != ".py" else f"\n# edit {n}\n")
            took, changed = run(root)
            assert changed.counts.read == 1, changed.counts  # type: ignore[attr-defined]
            times.append(took)
        incremental = min(times)
        print(f"one file changed:{incremental:6.2f} s  (best of {args.repeat}; 1 file read)")
        baseline = naive(root, sources)
        print(f"naive baseline:  {baseline:6.2f} s  (read every file, regex its import lines; no cache, "
              "no comments or strings handled, no resolution)")
        print(f"ratios: full / naive {full / baseline:.1f}x, one file changed / naive {incremental / baseline:.2f}x")
        floor = grimp_floor(root)
        if floor is None:
            print("grimp floor:      not measured (pip install grimp; it needs Python files)")
        elif [name for name, _ in chosen] == ["python"]:
            print(f"grimp floor:     {floor:6.2f} s  (grimp's import graph, no cache); full / grimp {full / floor:.1f}x")
        else:
            print(f"grimp floor:     {floor:6.2f} s  for the Python files only (run --languages python for a "
                  "like-for-like ratio)")
        print(f"undeclared dependencies found: {len(found)}, planted: {len(planted)}; agree: {found == planted}")
        print(f"aims: full < 10 s: {full < 10}; one file changed < 1 s: {incremental < 1}")
        return 0 if found == planted else 1
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

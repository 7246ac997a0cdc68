"""How fast is the LikeC4 reader? A real 157-element workspace, and a generated large one.

Measures, best of a few repeats:

- ``parse_likec4`` on tests/data/likec4/archi2likec4/reference-model (157 elements in 47
  files, with deployment and views): the floor is 1 s (the exit status says);
- ``archmem model --json`` on a copy of it, as a user runs it (a fresh process);
- ``parse_likec4`` on a generated workspace of ``--elements`` elements (default 5,000);
- beside each, when ``.ci/likec4`` holds the official CLI (``.ci/run`` installs it), the
  same model read by ``likec4 export json``, LikeC4's own parser, in the same run: the
  ratio says how archmem's reader compares with the tool built for the job.

Run: ``python bench/likec4_speed.py [--elements N] [--repeat N]``; exits 1 above the floor.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from archmem.model.likec4 import parse_likec4

REAL = Path(__file__).resolve().parents[1] / "tests" / "data" / "likec4" / "archi2likec4" / "reference-model"
FLOOR_SECONDS = 1.0
LIKEC4 = Path(__file__).resolve().parents[1] / ".ci" / "likec4" / "node_modules" / ".bin" / "likec4"


def official(folder: Path, out: Path, repeat: int) -> float | None:
    """Seconds ``likec4 export json`` takes on ``folder`` (best of ``repeat``), or None
    without the CLI or node."""
    if not LIKEC4.exists() or shutil.which("node") is None:
        return None
    command = [str(LIKEC4), "export", "json", "--no-use-dot", "-o", str(out), str(folder)]
    return best(lambda: subprocess.run(command, capture_output=True, check=True), repeat)


def compared(ours: float, theirs: float | None) -> str:
    if theirs is None:
        return "likec4 CLI: not installed (bash .ci/run installs it)"
    return f"likec4 export json: {theirs * 1000:.0f} ms ({ours / theirs:.2f}x)"


def generate(folder: Path, elements: int) -> None:
    """``elements`` elements in systems of containers of components, a relationship each."""
    (folder / "spec.c4").write_text("specification {\n element system\n element container\n element component\n}\n")
    lines = ["model {"]
    made, system = 0, 0
    while made < elements:
        lines.append(f"  s{system} = system 'System {system}' {{")
        made += 1
        for c in range(4):
            lines.append(f"    c{c} = container 'Container {c}' 'Runs' 'Python' {{")
            lines.append(f"      metadata {{ archmem_paths 'src/s{system}/c{c}/**' }}")
            made += 1
            for k in range(5):
                lines.append(f"      k{k} = component 'Component {k}' {{ -> s{system}.c{(c + 1) % 4} 'calls' }}")
                made += 1
            lines.append("    }")
        lines.append("  }")
        system += 1
    lines.append("}")
    (folder / "model.c4").write_text("\n".join(lines) + "\n")


def best(run, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    model = parse_likec4(REAL, root=REAL)
    real = best(lambda: parse_likec4(REAL, root=REAL), args.repeat)
    print(f"reference-model: {len(model.elements)} elements, {len(model.relationships)} relationships, "
          f"{len(model.files)} files: parse_likec4 {real * 1000:.1f} ms (floor {FLOOR_SECONDS:.0f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(REAL, repo / "architecture")
        command = [sys.executable, "-m", "archmem", "model", "--json", "--repo", str(repo)]
        cli = best(lambda: subprocess.run(command, capture_output=True, check=True), max(1, args.repeat // 2))
        theirs = official(repo / "architecture", Path(tmp) / "ref.json", max(1, args.repeat // 2))
        print(f"reference-model: archmem model --json, a fresh process: {cli * 1000:.0f} ms; "
              + compared(cli, theirs))
        big = Path(tmp) / "big"
        big.mkdir()
        generate(big, args.elements)
        large = parse_likec4(big, root=big)
        seconds = best(lambda: parse_likec4(big, root=big), max(1, args.repeat // 2))
        print(f"generated: {len(large.elements)} elements, {len(large.relationships)} relationships: "
              f"parse_likec4 {seconds * 1000:.0f} ms")
        big_command = [sys.executable, "-m", "archmem", "model", "--json", "--model", str(big), "--repo", str(big)]
        big_cli = best(lambda: subprocess.run(big_command, capture_output=True, check=True), 1)
        print(f"generated: archmem model --json, a fresh process: {big_cli * 1000:.0f} ms; "
              + compared(big_cli, official(big, Path(tmp) / "big.json", 1)))
    return 0 if real <= FLOOR_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())

"""How right is ``archmem paths suggest`` on real repositories? File-level precision,
recall and F1 against blind hand mappings.

    python bench/paths_quality.py                   # the development repositories
    python bench/paths_quality.py --held-out        # and the held-out one (rules fixed first)
    python bench/paths_quality.py --repo boutique   # one (repeatable)
    python bench/paths_quality.py --show            # also each element's proposal and score
    python bench/paths_quality.py --leave-one-out   # threshold chosen on three, scored on the fourth
    python bench/paths_quality.py --copy-manifests boutique MIRROR_GIT_DIR

Each ``bench/paths_data/<repo>/`` holds ``files.txt`` (``git ls-tree`` at a pinned
commit), ``workspace.dsl`` (no paths), ``mapping.json`` (per element: built or not, the
exact ``files`` that are its key, a representative file) and ``SOURCE.md``; and
``manifests/<path>``: the real content of the files a repository declares itself in
(package.json, pyproject.toml, go.mod, *.csproj, Dockerfiles, compose files, Kubernetes
manifests, Django settings), copied from the pinned commit with ``--copy-manifests`` —
manifests only, never application code. The repository is rebuilt in a temporary folder
(one placeholder line per file, the manifests' real text, the model), ``archmem paths
suggest --json`` runs in it as a user would run it, and each element's proposal (or,
for an element with none, the union of its descendants', as ``effective_paths`` does) is
expanded over files.txt.

Reported per repository, over the elements the repository builds:

- micro P/R/F1: over all (element, file) pairs pooled; the headline;
- macro F1: the mean of the elements' F1 (an element with no proposal scores 0);
- representative files covered: built elements whose representative file is proposed;
- anything proposed for an element that is not built (must be none).

Every rule, weight and threshold was chosen on ``fx-private-relay``, ``chap-core`` and
``boutique``; ``eshop`` (dotnet/eShop) is held out. ``--leave-one-out`` scores each
repository with the thresholds chosen on the other three (``MIN_CONFIDENCE`` from a
small grid).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from archmem.model.paths import compile_globs

DATA = Path(__file__).resolve().parent / "paths_data"
HELD_OUT = ("eshop",)
_MANIFEST_NAMES = frozenset({
    "package.json", "pyproject.toml", "setup.py", "setup.cfg", "go.mod", "pom.xml", "build.gradle",
    "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "cargo.toml", "procfile", "chart.yaml",
    "manage.py", "settings.py", "skaffold.yaml", "kustomization.yaml", ".gitmodules",
})


def is_manifest(path: str, text: str) -> bool:
    """Does this file declare something about the repository (a build, a package, a
    deployment), rather than being application code?"""
    name = PurePosixPath(path).name.lower()
    if name in _MANIFEST_NAMES or name.endswith((".csproj", ".fsproj", ".vbproj", ".sln", ".slnx")):
        return True
    if name == "dockerfile" or name.startswith("dockerfile.") or name.endswith(".dockerfile"):
        return True
    if name.startswith(("docker-compose", "compose")) and name.endswith((".yml", ".yaml")):
        return True
    if "/settings/" in f"/{path}" and name.endswith(".py"):
        return True  # a Django settings package (settings/base.py …)
    return name.endswith((".yml", ".yaml")) and "apiVersion:" in text and "kind:" in text  # a Kubernetes resource


def copy_manifests(repo: str, git_dir: str) -> list[str]:
    """Copy the manifests of ``repo`` at its pinned commit from a git mirror into
    ``paths_data/<repo>/manifests/``; returns their paths."""
    folder = DATA / repo
    commit = _commit_of(folder)
    files = (folder / "files.txt").read_text().splitlines()
    target = folder / "manifests"
    shutil.rmtree(target, ignore_errors=True)
    copied = []
    for path in files:
        name = PurePosixPath(path).name.lower()
        if not (name in _MANIFEST_NAMES or "." not in name or name.endswith(
                (".csproj", ".fsproj", ".vbproj", ".sln", ".slnx", ".yml", ".yaml", ".py", ".dockerfile"))):
            continue
        if name.endswith(".py") and name not in ("setup.py", "manage.py", "settings.py") and "/settings/" not in f"/{path}":
            continue
        shown = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], capture_output=True)
        if shown.returncode != 0 or len(shown.stdout) > 200_000:
            continue
        text = shown.stdout.decode("utf-8", errors="replace")
        if not is_manifest(path, text):
            continue
        out = target / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(shown.stdout)
        copied.append(path)
    return copied


def _commit_of(folder: Path) -> str:
    for line in (folder / "SOURCE.md").read_text().splitlines():
        if "Commit:" in line and "`" in line:
            return line.split("`")[1]
    raise SystemExit(f"{folder}/SOURCE.md names no commit")


def build(folder: Path, root: Path) -> list[str]:
    """The repository of ``folder`` rebuilt under ``root``: placeholders, manifests, model."""
    files = [f for f in (folder / "files.txt").read_text().splitlines() if f]
    manifests = folder / "manifests"
    for path in files:
        out = root / path
        out.parent.mkdir(parents=True, exist_ok=True)
        real = manifests / path
        if real.is_file():
            shutil.copyfile(real, out)
        elif not out.exists():
            out.write_text(f"placeholder for {path}\n")
    model = ".bench/workspace.dsl"
    (root / ".bench").mkdir(exist_ok=True)
    shutil.copyfile(folder / "workspace.dsl", root / model)
    (root / "archmem.toml").write_text(f'model = "{model}"\n')
    return files


def run_suggest(root: Path) -> tuple[dict, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "archmem", "paths", "suggest", "--json"], cwd=root, capture_output=True, text=True,
        env={**os.environ, "ARCHMEM_EMBEDDINGS_PROVIDER": "none"},
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"paths suggest failed in {root}:\n{done.stderr}")
    return json.loads(done.stdout), took


def score(repo: str, data: dict, files: list[str], parents: dict[str, str | None]) -> dict:
    mapping = json.loads((DATA / repo / "mapping.json").read_text())["elements"]
    own = {s["element"]: s["paths"] for s in data["suggestions"]}
    children: dict[str, list[str]] = {}
    for element, parent in parents.items():
        if parent:
            children.setdefault(parent, []).append(element)

    def effective(element: str) -> list[str]:
        if own.get(element):
            return own[element]
        lists = [effective(child) for child in children.get(element, [])]
        lists.sort(key=lambda globs: not any(g.startswith("!") for g in globs))  # as effective_paths orders them
        return [g for globs in lists for g in globs]

    tp = fp = fn = 0
    per: dict[str, dict] = {}
    represented = built = 0
    wrong: list[str] = []
    f1s = []
    for element, truth in mapping.items():
        globs = effective(element)
        match = compile_globs(globs)
        got = {f for f in files if match(f)} if globs else set()
        if not truth["built"]:
            if globs:
                wrong.append(f"{element}: {', '.join(globs)}")
            continue
        built += 1
        want = set(truth["files"])
        hit = len(got & want)
        tp, fp, fn = tp + hit, fp + len(got - want), fn + len(want - got)
        p = hit / len(got) if got else 0.0
        r = hit / len(want) if want else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        f1s.append(f1)
        covered = bool(truth.get("representative")) and truth["representative"] in got
        represented += covered
        per[element] = {"globs": globs, "own": element in own, "p": p, "r": r, "f1": f1, "rep": covered}
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return {
        "repo": repo, "precision": precision, "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "macro_f1": sum(f1s) / len(f1s) if f1s else 0.0,
        "representative": represented, "built": built, "not_built_proposed": wrong, "elements": per,
    }


def parents_of(root: Path) -> dict[str, str | None]:
    done = subprocess.run([sys.executable, "-m", "archmem", "model", "--json"], cwd=root, capture_output=True,
                          text=True)
    model = json.loads(done.stdout)
    return {e["id"]: e.get("parent") for e in model["elements"]}


def evaluate(repo: str, *, show: bool) -> dict:
    folder = DATA / repo
    with tempfile.TemporaryDirectory(prefix=f"paths-{repo}-") as tmp:
        root = Path(tmp)
        files = build(folder, root)
        data, took = run_suggest(root)
        parents = parents_of(root)
    result = score(repo, data, files, parents)
    result["seconds"] = took
    if show:
        for element, item in result["elements"].items():
            print(f"  {element:38} F1 {item['f1']:.2f} P {item['p']:.2f} R {item['r']:.2f} "
                  f"{'rep' if item['rep'] else '   '} {'' if item['own'] else '(children) '}{', '.join(item['globs'])[:90]}")
        for line in result["not_built_proposed"]:
            print(f"  NOT BUILT, proposed: {line}")
    return result


GRID = (0.45, 0.5, 0.55, 0.6, 0.65)
"""``MIN_CONFIDENCE`` values tried by ``--leave-one-out``."""


def leave_one_out(repos: list[str]) -> None:
    """Each repository scored with the ``MIN_CONFIDENCE`` that is best on the others
    (rules fixed; only the threshold is chosen), suggest run in-process."""
    from archmem.onboarding import suggest as module
    from archmem.workspace import Workspace

    f1: dict[tuple[str, float], float] = {}
    default = module.MIN_CONFIDENCE
    for repo in repos:
        with tempfile.TemporaryDirectory(prefix=f"paths-{repo}-") as tmp:
            root = Path(tmp)
            files = build(DATA / repo, root)
            parents = parents_of(root)
            for threshold in GRID:
                module.MIN_CONFIDENCE = threshold
                with Workspace.open(root, env={}) as ws:
                    data = ws.suggest_paths().to_dict()
                f1[repo, threshold] = score(repo, data, files, parents)["f1"]
    module.MIN_CONFIDENCE = default
    print(f"{'held out':18} {'chosen':>6} {'F1':>5}   (MIN_CONFIDENCE grid {', '.join(map(str, GRID))})")
    for held in repos:
        rest = [r for r in repos if r != held]
        chosen = max(GRID, key=lambda t: (sum(f1[r, t] for r in rest), -abs(t - default)))
        print(f"{held:18} {chosen:6.2f} {f1[held, chosen]:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", action="append", help="a folder of bench/paths_data (repeatable)")
    parser.add_argument("--show", action="store_true", help="each element's proposal and score")
    parser.add_argument("--leave-one-out", action="store_true",
                        help="each repository (held out included) with the threshold chosen on the others")
    parser.add_argument("--held-out", action="store_true",
                        help="also score the held-out repositories (only once the rules are fixed)")
    parser.add_argument("--copy-manifests", nargs=2, metavar=("REPO", "GIT_DIR"),
                        help="copy REPO's manifests at its pinned commit from a git mirror")
    args = parser.parse_args()
    if args.copy_manifests:
        repo, git_dir = args.copy_manifests
        for path in copy_manifests(repo, git_dir):
            print(path)
        return
    if args.leave_one_out:
        leave_one_out(args.repo or sorted(p.name for p in DATA.iterdir() if (p / "files.txt").exists()))
        return
    repos = args.repo or sorted(
        p.name for p in DATA.iterdir() if (p / "files.txt").exists() and (args.held_out or p.name not in HELD_OUT))
    print(f"{'repository':18} {'P':>5} {'R':>5} {'F1':>5} {'macroF1':>7} {'rep':>6} {'not built':>9} {'s':>5}")
    for repo in repos:
        if args.show:
            print(repo)
        r = evaluate(repo, show=args.show)
        label = repo + (" (held out)" if repo in HELD_OUT else "")
        print(f"{label:18} {r['precision']:5.2f} {r['recall']:5.2f} {r['f1']:5.2f} {r['macro_f1']:7.2f} "
              f"{r['representative']:>2}/{r['built']:<3} {len(r['not_built_proposed']):9} {r['seconds']:5.1f}")


if __name__ == "__main__":
    main()

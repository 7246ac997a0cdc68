"""The labelled recall sets and the repositories they are measured in.

Six sets. Defaults are chosen on the first five (each written by a different hand, the
last three of them blind to the recall code); the sixth, ``mealie``, is never tuned on:

- ``shop``: ``bench/recall_data/`` on the bundled example (``examples/shop``), copied into
  a temporary folder;
- ``boutique``: ``bench/recall_data/boutique/``, grounded in a real public repository
  (GoogleCloudPlatform/microservices-demo, "Online Boutique", at the commit named in its
  ``SOURCE.md``). Its model and memories are our own prose; the repository's code is not
  copied. The repository is rebuilt from ``files.txt`` (the file names at that commit),
  each file holding one placeholder line: recall needs which element owns a file and how
  much of the tree each owns, not the code.
- ``miniflux``: ``bench/recall_data/miniflux/``, grounded in miniflux/v2 (a feed reader: a
  domain unlike the two shops), rebuilt from ``files.txt`` in the same way. Written blind;
  it was the held-out set until it had been run, and is a tuning set since.
- ``healthchecks``: ``bench/recall_data/healthchecks/``, grounded in healthchecks/healthchecks
  (a cron-job monitor in Django), rebuilt from ``files.txt`` the same way; also written blind.
- ``umami``: ``bench/recall_data/umami/``, grounded in umami-software/umami (web analytics in
  TypeScript), rebuilt from ``files.txt`` in the same way. Written blind as a held-out
  set; run once as such, and a tuning set since.
- ``mealie``: ``bench/recall_data/mealie/``, grounded in mealie-recipes/mealie (a self-hosted
  recipe manager in Python/FastAPI and Nuxt), rebuilt from ``files.txt`` in the same way.
  Written blind by an independent labeller as the held-out set: run once after the
  defaults were fixed, never tuned on.

Each repository is committed once with a fixed date, so two runs are identical.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "recall_data"
EXAMPLE = ROOT / "examples" / "shop"
COMMIT_DATE = "2026-01-01T00:00:00+00:00"


@dataclass(frozen=True)
class LabelledSet:
    """A labelled set: its memories (an ``archmem export``), tasks, and repository."""

    name: str
    folder: Path
    lay_out: Callable[[Path], None]
    """Fills an empty folder with the set's repository (model included)."""

    def memories(self) -> list[dict[str, Any]]:
        text = (self.folder / "memories.jsonl").read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def tasks(self) -> list[dict[str, Any]]:
        data = json.loads((self.folder / "tasks.json").read_text(encoding="utf-8"))
        return data["tasks"] if isinstance(data, dict) else data

    @contextmanager
    def repository(self, config: str) -> Iterator[Path]:
        """A fresh copy of the set's repository with ``config`` as its archmem.toml."""
        with tempfile.TemporaryDirectory(prefix=f"archmem-recall-{self.name}-") as tmp:
            root = Path(tmp) / self.name
            self.lay_out(root)
            (root / "archmem.toml").write_text(config, encoding="utf-8")
            _git_commit(root)
            yield root


def _copy_shop(root: Path) -> None:
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".archmem", "archmem.toml", ".git"))


def _files_tree(folder: Path) -> Callable[[Path], None]:
    """Lays out a set's repository from its ``files.txt`` and ``workspace.dsl``."""
    return lambda root: _placeholder_tree(folder, root)


def _placeholder_tree(folder: Path, root: Path) -> None:
    root.mkdir(parents=True)
    for name in (folder / "files.txt").read_text(encoding="utf-8").splitlines():
        if not name.strip():
            continue
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        # archmem reads a root pyproject.toml as configuration: its placeholder must be valid TOML
        path.write_text("# placeholder\n" if name == "pyproject.toml" else "placeholder\n", encoding="utf-8")
    shutil.copyfile(folder / "workspace.dsl", root / "workspace.dsl")


SETS: dict[str, LabelledSet] = {
    "shop": LabelledSet("shop", DATA, _copy_shop),
    "boutique": LabelledSet("boutique", DATA / "boutique", _files_tree(DATA / "boutique")),
    "miniflux": LabelledSet("miniflux", DATA / "miniflux", _files_tree(DATA / "miniflux")),
    "healthchecks": LabelledSet("healthchecks", DATA / "healthchecks", _files_tree(DATA / "healthchecks")),
    "umami": LabelledSet("umami", DATA / "umami", _files_tree(DATA / "umami")),
    "mealie": LabelledSet("mealie", DATA / "mealie", _files_tree(DATA / "mealie")),
    "signal": LabelledSet("signal", DATA / "signal", _files_tree(DATA / "signal")),
    "vaultwarden": LabelledSet("vaultwarden", DATA / "vaultwarden", _files_tree(DATA / "vaultwarden")),
    "feast": LabelledSet("feast", DATA / "feast", _files_tree(DATA / "feast")),
    "kavita": LabelledSet("kavita", DATA / "kavita", _files_tree(DATA / "kavita")),
}


def _git_commit(root: Path) -> None:
    if shutil.which("git") is None:
        return
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
        "GIT_AUTHOR_DATE": COMMIT_DATE, "GIT_COMMITTER_DATE": COMMIT_DATE,
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "recall bench repository"]):
        subprocess.run(
            ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
            cwd=root, env=env, check=True, capture_output=True,
        )

"""``archmem init``: the files a repository needs, written once and never over the user's."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from archmem.config import CONFIG_FILE
from archmem.confinement import repository_path
from archmem.values import Record

GITIGNORE_LINES = (".archmem/archmem.db", ".archmem/archmem.db-*", ".archmem/private/")
"""The local index and private memories stay on this machine; ``.archmem/memories/`` is
committed."""


LOCAL_IGNORE = """\
# archmem: this clone's local index and private memories stay out of git
# (memories/ and accepts/ are committed). This file ignores itself: every clone writes its own.
.gitignore
archmem.db
archmem.db-*
private/
"""


def ignore_local_state(state: Path) -> bool:
    """Write ``.archmem/.gitignore`` (once) so the index and private memories never show
    in ``git status``, even in a repository where nobody ran ``archmem init``."""
    ignore = state / ".gitignore"
    if ignore.exists() or ignore.is_symlink() or not state.is_dir():
        return False  # a symlink (even a dangling one) is never written through
    try:
        ignore.write_text(LOCAL_IGNORE, encoding="utf-8")
    except OSError:
        return False  # a read-only checkout: the root .gitignore lines are the fallback
    return True


@dataclass(repr=False, eq=False)
class InitResult(Record):
    """What ``archmem init`` wrote and found."""

    root: Path
    config_path: Path
    config_written: bool
    gitignore_updated: bool
    model: str | None
    created: list[str] = field(default_factory=list)
    starter_model: bool = False
    """A draft workspace.dsl was written from the repository's manifests."""


def init_repository(root: Path, *, model: str | None, memories_folder: str = ".archmem/memories") -> InitResult:
    """A commented archmem.toml naming ``model`` when one was found (never over an
    existing file), ``.archmem/``, and the database kept out of git. Safe to run twice."""
    created: list[str] = []
    config_path = repository_path(root, CONFIG_FILE)
    gitignore = repository_path(root, ".gitignore")
    written = False
    if not config_path.exists():
        from archmem.config_template import CONFIG_TEMPLATE  # text only init needs, not every command

        text = CONFIG_TEMPLATE
        if model:
            text = text.replace('# model = "workspace.dsl"', f'model = "{model}"')
        config_path.write_text(text, encoding="utf-8")
        written = True
        created.append(CONFIG_FILE)
    state = repository_path(root, ".archmem")
    if not state.exists():
        state.mkdir()
        created.append(".archmem/")
    ignore_local_state(state)
    memories = root / memories_folder
    if not memories.exists():
        memories.mkdir(parents=True)
        created.append(f"{memories_folder}/")
    text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    existing = {line.strip() for line in text.splitlines()}
    missing = [line for line in GITIGNORE_LINES if line not in existing]
    if missing:
        prefix = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        with gitignore.open("a", encoding="utf-8") as handle:
            handle.write(prefix + "# archmem: the local index and private memories (memories/ is committed)\n"
                         + "\n".join(missing) + "\n")
    return InitResult(root, config_path, written, bool(missing), model, created)

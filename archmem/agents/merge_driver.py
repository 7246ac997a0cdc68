"""``archmem install merge-driver``: the ``.gitattributes`` line that sends memory files
to ``archmem merge-file``, and the ``git config`` entries that define that driver.

The line is committed, so every clone merges memory files the same way once it has the
driver; the driver itself lives in git config, which git never shares, so each clone
(or the user, with ``--global``) installs it once. As with the agent targets: plan
first (nothing written), an entry that differs is a conflict that only ``force``
replaces, and a second run changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from archmem.agents.install import FileChange, plan_files
from archmem.errors import ConfigError, ConflictError, RepositoryError
from archmem.values import Record

DRIVER = "archmem"
ATTRIBUTE = f"merge={DRIVER}"
GITATTRIBUTES = ".gitattributes"
DRIVER_NAME = "archmem memory files: merges confirmations, elements and anchors"
DRIVER_COMMAND = "archmem merge-file %O %A %B %P"
"""git runs it with the base, ours (where the result goes), theirs and the path."""
COMMENT = "# archmem: merge memory files as memories (archmem install merge-driver)"


@dataclass(repr=False, eq=False)
class GitSetting(Record):
    """One ``git config`` entry install sets: its value now (None: unset) and after."""

    key: str
    value: str
    current: str | None
    scope: str
    conflicts: list[str] = field(default_factory=list)

    @property
    def action(self) -> str:
        if self.current is None:
            return "created"
        return "unchanged" if self.current == self.value else "updated"

    @property
    def command(self) -> str:
        return f"git config --{self.scope} {self.key} {_shell_quote(self.value)}"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "current": self.current, "scope": self.scope,
                "action": self.action, "conflicts": self.conflicts}


def attributes_line(root: Path, memories: str) -> str:
    """``<folder>/**/*.md merge=archmem`` for the memory folder, relative to the root."""
    folder = Path(memories)
    if folder.is_absolute():
        try:
            folder = folder.resolve().relative_to(root.resolve())
        except ValueError:
            raise ConfigError(
                f"the memory folder {memories} is outside the repository {root}; .gitattributes cannot name it"
            ) from None
    rel = folder.as_posix().strip("/")
    if rel in ("", ".") or rel.startswith("../"):
        raise ConfigError(f"the memory folder {memories!r} is not a folder inside the repository")
    pattern = f"{rel}/**/*.md"
    if re.search(r'[\s"\\]', pattern):
        pattern = '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{pattern} {ATTRIBUTE}"


def merge_gitattributes(text: str | None, name: str, *, line: str) -> tuple[str, list[str]]:
    """``text`` with the archmem line appended (kept as is when it is there already);
    the same pattern with another merge driver is a conflict."""
    pattern = line.rsplit(" ", 1)[0]
    existing = (text or "").splitlines()
    conflicts = []
    for number, raw in enumerate(existing, start=1):
        tokens = raw.split()
        if not tokens or tokens[0].startswith("#") or tokens[0] != pattern:
            continue
        if ATTRIBUTE in tokens[1:]:
            return text or "", []
        other = [t for t in tokens[1:] if t.startswith(("merge", "-merge", "!merge"))]
        if other:
            conflicts.append(f"line {number} gives {pattern} {' '.join(other)}")
    body = text or ""
    if body and not body.endswith("\n"):
        body += "\n"
    return body + f"{COMMENT}\n{line}\n", conflicts


def plan_merge_driver(root: Path, memories: str, *, global_: bool = False) -> tuple[list[FileChange], list[GitSetting]]:
    """What install would change: ``.gitattributes`` and two git config entries."""
    from archmem.git.config import config_get

    scope = "global" if global_ else "local"
    if not global_ and not (root / ".git").exists():
        raise RepositoryError(
            f"{root} is not a git repository: the merge driver is set in its git config",
            hint="run git init first, or install the driver for every repository with --global",
        )
    line = attributes_line(root, memories)
    changes = plan_files([(root / GITATTRIBUTES, GITATTRIBUTES, lambda text, name: merge_gitattributes(
        text, name, line=line))])
    settings = []
    for key, value in ((f"merge.{DRIVER}.name", DRIVER_NAME), (f"merge.{DRIVER}.driver", DRIVER_COMMAND)):
        current = config_get(key, cwd=root, global_=global_)
        setting = GitSetting(key, value, current, scope)
        if setting.action == "updated":
            setting.conflicts.append(f"{key} is {current!r}")
        settings.append(setting)
    return changes, settings


def check_conflicts(changes: list[FileChange], settings: list[GitSetting]) -> None:
    found = [f"{c.name}: {text}" for c in changes for text in c.conflicts]
    found += [f"git config ({s.scope}): {text}" for s in settings for text in s.conflicts]
    if found:
        raise ConflictError(
            "a merge driver for memory files is already set and differs from archmem's; nothing was written\n  "
            + "\n  ".join(found),
            hint="see the change with --dry-run, then run again with --force to replace it",
        )


def apply_merge_driver(
    root: Path, changes: list[FileChange], settings: list[GitSetting], *, force: bool = False
) -> None:
    """Write ``.gitattributes`` and set the git config entries; refuse conflicts unless ``force``."""
    from archmem.agents.install import apply_changes
    from archmem.git.config import config_set

    if not force:
        check_conflicts(changes, settings)
    apply_changes(changes, force=True)
    for setting in settings:
        if setting.action != "unchanged":
            config_set(setting.key, setting.value, cwd=root, global_=setting.scope == "global")


def snippet(root: Path, memories: str) -> str:
    """What install writes, for ``--print``."""
    return (f"# {GITATTRIBUTES} (committed)\n{COMMENT}\n{attributes_line(root, memories)}\n\n"
            f"# git config (each clone, or --global once)\n"
            f"git config merge.{DRIVER}.name {_shell_quote(DRIVER_NAME)}\n"
            f"git config merge.{DRIVER}.driver {_shell_quote(DRIVER_COMMAND)}\n")


def _shell_quote(value: str) -> str:
    import shlex

    return shlex.quote(value)

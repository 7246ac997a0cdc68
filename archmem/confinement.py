"""What a path may reach: the one rule, and the paths configuration names.

archmem reads repositories it may not trust: a committed ``archmem.toml`` can say
``[store] memories = "../../outside"`` and a committed symlink can stand in place of
``.archmem/memories``. So every path is resolved (symlinks followed, ``..`` applied) and
must stay at or below its boundary (``resolve_within``): the model's directives
(``archmem.model.confine``), and each path a setting names, read or written
(``configured_path``: the model file, the memory folders, the accepts folder, the index)
and archmem's own files and folders (``repository_path``: ``.archmem``, its ``templates``). A
refused setting is a ``ConfigError`` that names the setting, and the file and line that
give it.

The environment is the user's own, like ``--model``: an absolute path given there
(``ARCHMEM_STORE_PATH=/mnt/fast/archmem.db``) is taken as given. Every other path, the
defaults included, is resolved through the repository, whose symlinks anyone may commit.
"""

from __future__ import annotations

import os
from pathlib import Path

from archmem.config import Config, where_given
from archmem.errors import ConfigError

PATH_SETTINGS = ("model", "store.memories", "store.private_memories", "store.accepts", "store.path")
STATE_FOLDER = ".archmem"


class OutsideBoundary(ValueError):
    """A path that leads outside its boundary; ``through`` is the symlink (relative to
    the boundary) it leads out by, when one inside does."""

    def __init__(self, through: str | None) -> None:
        super().__init__("outside the boundary" + (f" through the symlink {through}" if through else ""))
        self.through = through


def resolve_within(target: str | Path, *, base: Path, within: Path) -> Path:
    """``target`` (relative to ``base``), resolved, when it stays at or below ``within``.

    Raises ``OutsideBoundary`` when it leaves, and ``OSError``, ``RuntimeError`` or
    ``ValueError`` when it cannot be resolved (a symlink loop, a name the file system
    refuses). Nothing outside ``within`` is opened or tested for existence.
    """
    folder = within.resolve()
    resolved = (base / target).resolve()
    if resolved.is_relative_to(folder):
        return resolved
    raise OutsideBoundary(_symlink_out(base / target, within, folder))


def _symlink_out(path: Path, within: Path, folder: Path) -> str | None:
    """The first symlink on ``path`` (written inside ``within``) that leads outside."""
    lexical = Path(os.path.normpath(path))
    try:
        parts = lexical.relative_to(Path(os.path.normpath(within))).parts
    except ValueError:
        return None  # written outside: no symlink needed to leave
    current = within
    for part in parts:
        current = current / part
        if current.is_symlink():
            try:
                inside = current.resolve().is_relative_to(folder)
            except (OSError, RuntimeError):
                inside = False
            if not inside:
                return current.relative_to(within).as_posix()
    return None


def configured_path(config: Config, setting: str, root: Path) -> Path:
    """The path ``setting`` (one of ``PATH_SETTINGS``) names, absolute, once checked to
    stay in the repository ``root``; a ``ConfigError`` naming the setting otherwise.

    The path is returned as written (``root / value``), not resolved, so the paths archmem
    records (memory files in the index) stay the ones the repository uses."""
    if setting not in PATH_SETTINGS:
        raise ValueError(f"{setting} names no path")
    section, _, key = setting.rpartition(".")
    written = str(getattr(config.store, key) if section else config.model)
    if setting in config.env_settings and Path(written).is_absolute():
        return Path(written)
    try:
        resolve_within(written, base=root, within=root)
    except OutsideBoundary as exc:
        raise _refused(config, setting, written, root, exc.through) from None
    except (OSError, RuntimeError, ValueError) as exc:
        raise ConfigError(f"{_where(config, setting, root)}{_shown(setting, written)} cannot be resolved ({exc})") \
            from None
    path = Path(written)
    return path if path.is_absolute() else root / path


def state_folder(root: Path) -> Path:
    """``.archmem``, archmem's own folder, once checked not to lead out of ``root``."""
    return repository_path(root, STATE_FOLDER)


def repository_path(root: Path, rel: str) -> Path:
    """``root / rel``, a file or folder archmem reads or writes by its fixed name
    (``.archmem``, ``.archmem/templates``, ``archmem.toml`` and ``.gitignore`` for
    ``init``), once checked not to lead out of ``root``."""
    try:
        resolve_within(rel, base=root, within=root)
    except OutsideBoundary as exc:
        through = exc.through or rel
        raise ConfigError(
            f"{rel} in {root} leads through the symlink {through} outside the repository: archmem neither reads "
            "nor writes there",
            hint=f"replace the symlink {through} with a real file or folder",
        ) from None
    except (OSError, RuntimeError, ValueError) as exc:
        raise ConfigError(f"{rel} in {root} cannot be resolved ({exc})") from None
    return root / rel


def _refused(config: Config, setting: str, written: str, root: Path, through: str | None) -> ConfigError:
    env_name = "ARCHMEM_" + setting.replace(".", "_").upper()
    how = f"through the symlink {through} " if through else ""
    where = _where(config, setting, root)
    default = "" if where else " (the default)"
    return ConfigError(
        f"{where}{_shown(setting, written)}{default} leads {how}outside the repository ({root}): "
        "archmem reads and writes only inside it",
        hint=(f"replace the symlink {through} with a folder" if through else "give a path inside the repository")
        + f"; a path outside it can only come from your environment, absolute ({env_name}=/absolute/path)",
    )


def _where(config: Config, setting: str, root: Path) -> str:
    """``file:line: `` of the file giving ``setting``, or the variable setting it."""
    if setting in config.env_settings:
        return "ARCHMEM_" + setting.replace(".", "_").upper() + ": "
    section, _, key = setting.rpartition(".")
    found = where_given(root, [section] if section else [], key)
    return f"{found}: " if found else ""


def _shown(setting: str, written: str) -> str:
    section, _, key = setting.rpartition(".")
    name = f"[{section}] {key}" if section else key
    return f'{name} = "{written}"'

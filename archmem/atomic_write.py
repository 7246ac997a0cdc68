"""One way to replace a file: write a hidden temporary file beside it, then rename it
over the old one, so a reader sees the old file or the new one and never half of one.

Memory files, accept files, the agents' config files and archmem.toml all go through
``write_atomic``. The temporary name starts with a dot, so a scan of a folder that runs
meanwhile (the memory index's sync) never takes it for a file of its own.
"""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: str | bytes, *, follow_symlinks: bool = False, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8, line endings as given).

    ``follow_symlinks`` writes through a symlink to its target (a CLAUDE.md that points at
    AGENTS.md stays a link); otherwise the link itself is replaced by the file, so a link
    planted in a committed folder never sends a write outside the repository. The file's
    mode is kept. ``durable`` flushes the data to disk before the rename (a crash then
    leaves the old file or the whole new one); the memory index leaves it off for speed,
    as its own commit already orders the writes."""
    import secrets  # here, not at import: reading commands never write, and its imports cost start-up

    target = path.resolve() if follow_symlinks and path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.archmem-{os.getpid()}-{secrets.token_hex(4)}.tmp")
    mode = target.stat().st_mode & 0o7777 if target.exists() and not target.is_symlink() else None
    payload = data.encode("utf-8") if isinstance(data, str) else data
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(payload)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise

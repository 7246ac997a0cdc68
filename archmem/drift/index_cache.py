"""The drift index kept beside the store, so a recall does not rebuild it from every commit.

Building the index walks the whole first-parent history and matches every changed path
against the elements' globs: on a repository with 6,000 commits that, and loading the
commits to walk, was most of a recall. The index depends only on the history the scan
holds (its head, its length and the pathspecs it was read with), the elements' paths,
the ignore globs and the generated files; their digest is the key. A file whose key,
format or checksum is not the one asked for is ignored and written anew.

The file sits beside the index (``archmem.db-drift``, which the ignore rules ``archmem
init`` writes already cover) and is written atomically; it is a cache: deleting it only
costs the next command one build. ``marshal`` keeps it fast to read (a few ms for 6,000
commits, against 15 for JSON); it is written and read by the same Python only (its
version is in the key), and the checksum is checked before anything is unmarshalled.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

MAGIC = b"archmem drift index 1\n"


def index_key(
    *, head: str, commits: int, scope: str | None, element_paths: Mapping[str, Sequence[str]],
    ignore: Sequence[str], ignore_files: Collection[str],
) -> str:
    """The digest of everything a built index depends on."""
    digest = hashlib.sha256()
    for part in (sys.version, head, str(commits), scope or "", repr(sorted(element_paths.items())),
                 repr(list(ignore)), "\n".join(sorted(ignore_files))):
        digest.update(part.encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
    return digest.hexdigest()


def cache_path(store_path: Path) -> Path:
    """Where the kept index of the store at ``store_path`` lives."""
    return store_path.with_name(store_path.name + "-drift")


def load(path: Path, key: str) -> object | None:
    """The data kept under ``key`` at ``path``, or None (no file, another key, damaged)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    header_end = len(MAGIC) + 64 + 1 + 64 + 1
    if not raw.startswith(MAGIC) or len(raw) < header_end:
        return None
    kept_key = raw[len(MAGIC):len(MAGIC) + 64].decode("ascii", "replace")
    checksum = raw[len(MAGIC) + 65:header_end - 1].decode("ascii", "replace")
    payload = raw[header_end:]
    if kept_key != key or hashlib.sha256(payload).hexdigest() != checksum:
        return None
    try:
        return marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None


def save(path: Path, key: str, data: Any) -> None:
    """Keep ``data`` under ``key`` (atomically; a failure to write only loses the cache)."""
    from archmem.atomic_write import write_atomic

    payload = marshal.dumps(data)
    header = MAGIC + key.encode("ascii") + b"\n" + hashlib.sha256(payload).hexdigest().encode("ascii") + b"\n"
    try:
        write_atomic(path, header + payload, durable=False)
    except OSError:
        pass

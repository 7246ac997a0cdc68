"""The memories to VERIFY, kept in the index under a digest of everything their verdicts
depend on, so counting them is not redone over every memory by every ``status``.

A verdict (``StalenessChecker.stale_ids``) depends on the memories' rows, which follow
their files (the folder's signature, ``memory/sync.py``: every memory write writes its
file, so the next open's signature moves); on the history (HEAD and its commits), the
model's element paths, the drift settings and ownership (each element's size, the
elements whose code is gone, generated files); and on the text of anchored files that
changed in history (a ``path#Symbol`` is looked for in the file as it is now). When the
digest of all of these is the one kept, the kept ids are the answer; otherwise they are
worked out and kept. Without a signature (a small folder, no git) nothing is kept.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

KEY = "verify_ids"
"""``store_meta`` row: the digest, a newline, and the ids one a line."""


class Meta(Protocol):
    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str | None) -> None: ...


def verdict_digest(
    *, files_signature: str, head: str, commits: int, settings: str, element_paths: Mapping[str, Sequence[str]],
    sizes: Mapping[str, object], missing: Iterable[str], generated: Iterable[str], root: Path,
    anchored: Iterable[str],
) -> str:
    """The digest of what the verdicts depend on (see the module doc); ``anchored``: the
    anchored paths history shows changes to, whose files are stat-ed as they are now."""
    digest = hashlib.sha256()
    for part in (files_signature, head, str(commits), settings,
                 repr(sorted((element, list(paths)) for element, paths in element_paths.items())),
                 repr(sorted((element, repr(size)) for element, size in sizes.items())),
                 repr(sorted(missing)), repr(sorted(generated))):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    for path in sorted(anchored):
        try:
            info = os.stat(root / path)
            stamp = f"{info.st_size} {info.st_mtime_ns}"
        except OSError:
            stamp = "-"
        digest.update(f"{path}\0{stamp}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def kept_ids(store: Meta, digest: str) -> list[str] | None:
    """The ids kept under ``digest``, or None when none are."""
    kept = store.meta(KEY)
    if kept is None or not kept.startswith(digest + "\n"):
        return None
    listed = kept[len(digest) + 1:]
    return listed.split("\n") if listed else []


def keep_ids(store: Meta, digest: str, ids: Sequence[str]) -> None:
    store.set_meta(KEY, digest + "\n" + "\n".join(ids))

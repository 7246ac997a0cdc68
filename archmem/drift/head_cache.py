"""What drift asks git that depends only on HEAD, kept in the index per HEAD sha.

A recall asked git for the commit that last changed each memory (and accept) file and
for each anchored file's diff since a memory's baseline: a ``git log`` and a ``git diff``
per anchor, every time, for answers that change only when HEAD does. They are kept in
``store_meta`` under the HEAD sha they were read at; a new HEAD asks git again. Paths are
kept as digests, never as text: a purged memory's file name (its title) must leave no byte
in the index.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any, Protocol

from archmem.drift.symbols import Hunk, parse_unified_zero
from archmem.errors import RepositoryError
from archmem.git.revisions import Revisions

KEPT_DIFF_CHARS = 1 << 20
"""At most this much diff text is kept; beyond it git is asked each time."""


class Meta(Protocol):
    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str | None) -> None: ...


def path_key(path: str) -> str:
    """What a path is kept under: a digest, so no file name is written to the index."""
    return hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


class HeadCache:
    """Last commits per file of a folder, and anchored diffs, for one HEAD."""

    def __init__(self, store: Meta, root: Path, head: str | None) -> None:
        self.store, self.root, self.head = store, root, head
        self._diffs: dict[str, list[list[Any]]] | None = None

    def last_commits(self, folder: str, revisions: Revisions) -> dict[str, str]:
        """``path_key(file)`` → the newest first-parent commit of HEAD that changed the
        file below ``folder`` (``Revisions.last_commits``)."""
        if self.head is None:
            return {}
        key = f"last_commits:{folder}"
        kept = self._read(key)
        if kept.get("head") == self.head and isinstance(kept.get("files"), dict):
            return dict(kept["files"])
        found = {path_key(path): sha for path, sha in revisions.last_commits(folder, head=self.head).items()}
        self.store.set_meta(key, json.dumps({"head": self.head, "files": found}, separators=(",", ":")))
        return found

    def anchor_hunks(self, path: str, base: str) -> list[Hunk]:
        """The zero-context, whitespace-blind diff of ``path`` from ``base`` to HEAD; a file
        changed without text to judge (binary, mode, rename) is one hunk that is never cosmetic."""
        key = f"{base}:{path_key(path)}"
        diffs = self._kept_diffs()
        if key in diffs:
            return [Hunk(old_start, old_count, new_start, new_count, removed=removed, added=added)
                    for old_start, old_count, new_start, new_count, removed, added in diffs[key]]
        result = subprocess.run(
            ["git", "diff", "-U0", "-w", "--relative", base, self.head or "HEAD", "--", path],
            cwd=self.root, capture_output=True, check=False,
        )
        if result.returncode != 0:
            raise RepositoryError(f"git diff failed for {path}: {result.stderr.decode(errors='replace').strip()}")
        parsed = parse_unified_zero(result.stdout.decode("utf-8", errors="replace"))
        hunks = parsed.get(path, [])
        found = hunks if hunks or path not in parsed else [Hunk(0, 0, 0, 0)]
        self._keep_diff(key, found)
        return found

    def _kept_diffs(self) -> dict[str, list[list[Any]]]:
        if self._diffs is None:
            kept = self._read("anchor_hunks")
            diffs = kept.get("diffs") if kept.get("head") == self.head else None
            self._diffs = diffs if isinstance(diffs, dict) else {}
        return self._diffs

    def _keep_diff(self, key: str, hunks: list[Hunk]) -> None:
        if self.head is None:
            return
        entry = [[h.old_start, h.old_count, h.new_start, h.new_count, h.removed, h.added] for h in hunks]
        diffs = {**self._kept_diffs(), key: entry}
        text = json.dumps({"head": self.head, "diffs": diffs}, separators=(",", ":"))
        if len(text) <= KEPT_DIFF_CHARS:
            self._kept_diffs()[key] = entry
            self.store.set_meta("anchor_hunks", text)

    def _read(self, key: str) -> dict[str, Any]:
        try:
            kept = json.loads(self.store.meta(key) or "{}")
        except ValueError:
            return {}
        return kept if isinstance(kept, dict) else {}

"""The memory folder's signature: how an open knows, by asking git, that the committed
memory folder did not change, or moved only by commits (``memory/sync.py`` keeps the
signature the last open saw, and reads only what it says changed).

The committed folder's state is git's (``Repository.folder_state``): its tree in HEAD and
the files that differ from it. Where git last listed no untracked file there and HEAD,
git's index file and the folder's directories have not moved since, git is asked about
its tracked files alone (``QUIET``). When only commits moved the folder, git names the
files that differ between its trees then and now (``pulled_paths``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from archmem.store.base import Store
from archmem.store.files import MemoryFolder, directories_unchanged
from archmem.values import Value


class FolderState(Protocol):
    """What git says of the committed folder (``Repository.folder_state``)."""

    @property
    def digest(self) -> str:
        """Changes whenever a file below the folder may have."""

    @property
    def tree(self) -> str | None:
        """The folder's tree in HEAD."""

    @property
    def uncommitted(self) -> list[str]:
        """Its files that are new or changed against HEAD."""

    @property
    def clean(self) -> bool:
        """Every file below it is as its tree holds it."""

    @property
    def untracked(self) -> bool:
        """git listed a file below it that it does not track (new, or ignored)."""


class FolderSignature(Protocol):
    """A repository folder → its state, None when git cannot say (``Repository.folder_state``):
    without ``untracked``, of the files git tracks alone; ``tree``, the folder's tree in
    HEAD when the caller knows it."""

    def __call__(self, folder: str, *, untracked: bool = True, tree: str | None = None) -> FolderState | None: ...


class FolderSignatureLater(Protocol):
    """``FolderSignature`` with git started now, its answer waited for when asked
    (``Repository.folder_state_later``)."""

    def __call__(
        self, folder: str, *, untracked: bool = True, tree: str | None = None
    ) -> Callable[[], FolderState | None]: ...


CheckoutStamp = Callable[[], "str | None"]
"""HEAD and git's index file as they are now (``Repository.checkout_stamp``), None when unknown."""
TreeChanges = Callable[[str, str], "list[str] | None"]
"""Two trees → the paths inside them that differ, None when git cannot say."""
TREE = "files_tree"
"""The committed folder's tree at the last sync, when git listed nothing else there."""
PRIVATE = "files_private"
QUIET = "files_quiet"
"""The last full ``git status`` of the committed folder that listed no file git does not
track: the checkout's stamp then, the folder's directories with their mtimes (taken before
git looked) and its tree. While all three hold, no file came or went there and no commit
or staging happened, so git is asked about its tracked files alone (an edit in place is
still seen: git stats each of them) and not for the tree."""
SETTLED_NS = 2_000_000_000
"""A directory changed this recently is not trusted to show the next change in its mtime
(a file system's clock ticks coarser than nanoseconds): its folder is listed in full."""


@dataclass(frozen=True, repr=False, eq=False)
class Signature(Value):
    """Both folders as an open found them: what the index keeps to know the next open's
    folders unchanged, or moved only by commits."""

    digest: str
    tree: str | None
    """The committed folder's tree, when it holds every file there (git lists no other)."""
    private: str


def shared_state(
    store: Store, folder: MemoryFolder, signature: FolderSignature, stamp: str | None
) -> FolderState | None:
    """git's state of the committed folder: of its tracked files alone while nothing else
    can be there (``QUIET``), else in full (and then, when git listed no other file, what
    lets the next open ask less)."""
    rel = folder.relative(folder.shared)
    tree = quiet_tree(store, folder, stamp)
    if tree is not None:
        return signature(rel, untracked=False, tree=tree)
    kept = store.meta(QUIET)
    before = time.time_ns() - SETTLED_NS
    dirs = folder.directory_stamps() if stamp is not None else {}
    shared = signature(rel)
    quiet = None
    if (shared is not None and stamp is not None and shared.tree is not None and not shared.untracked
            and rel in dirs and all(mtime < before for mtime in dirs.values())):
        quiet = json.dumps({"checkout": stamp, "dirs": dirs, "tree": shared.tree}, separators=(",", ":"))
    if quiet is not None or kept is not None:
        store.set_meta(QUIET, quiet)
    return shared


def quiet_tree(store: Store, folder: MemoryFolder, stamp: str | None) -> str | None:
    """The committed folder's tree the last full look kept, while ``QUIET`` holds (then
    git need only compare its tracked files there); None when git must look in full."""
    try:
        kept = json.loads(store.meta(QUIET) or "null")
    except ValueError:
        return None
    if (stamp is not None and isinstance(kept, dict) and kept.get("checkout") == stamp
            and isinstance(kept.get("dirs"), dict) and directories_unchanged(folder.root, kept["dirs"])):
        return str(kept["tree"])
    return None


def answered_by(
    taken: Callable[[], FolderState | None], taken_tree: str, signature: FolderSignature
) -> FolderSignature:
    """``signature``, except that the quiet look at ``tree`` is the one already started
    (``taken``): a sync finishing an open that read the index meanwhile asks git nothing
    twice."""

    def state(folder: str, *, untracked: bool = True, tree: str | None = None) -> FolderState | None:
        if not untracked and tree == taken_tree:
            return taken()
        return signature(folder, untracked=untracked, tree=tree)

    return state


WATCHED = "files_watched"
"""The last git look at the committed folder that a folder watch can vouch for (see
``vouched``): the look's question, the watch's token and the checkout's stamp before git
looked, and git's answer."""
KEPT_UNCOMMITTED = 1000
"""A look that lists more files not committed yet is not kept (its answer would outweigh the look)."""


class KeptState:
    """A ``FolderState`` as an earlier look found it (a plain class: a dataclass would
    compile its methods while every command imports this module, for a served one's use)."""

    __slots__ = ("clean", "digest", "tree", "uncommitted", "untracked")

    def __init__(self, digest: str, tree: str | None, uncommitted: list[str], clean: bool, untracked: bool) -> None:
        self.digest, self.tree, self.uncommitted, self.clean, self.untracked = (
            digest, tree, uncommitted, clean, untracked)


def vouched(
    store: Store, later: FolderSignatureLater, token: str | None, checkout_stamp: CheckoutStamp
) -> FolderSignatureLater:
    """``later``, except that a look asked before is answered as it was while the folder
    watch (``archmem.folder_watch``) vouches that no file below the folder changed since
    (the same ``token``) and HEAD and git's index did not move (the same stamp): git then
    need not stat every file there. A look is kept only where nothing else decides git's
    answer: of the tracked files alone, or listing no file git does not track (which file
    is ignored is the ignore rules', which no watch sees)."""
    if token is None:
        return later

    def look(folder: str, *, untracked: bool = True, tree: str | None = None) -> Callable[[], FolderState | None]:
        stamp = checkout_stamp()  # before git looks: a commit or staging meanwhile makes the kept look another's
        if stamp is None:
            return later(folder, untracked=untracked, tree=tree)
        question = [token, stamp, folder, untracked, tree]
        kept = _kept_look(store, question)
        if kept is not None:
            return lambda: kept
        started = later(folder, untracked=untracked, tree=tree)

        def answer() -> FolderState | None:
            state = started()
            if state is not None and not (untracked and state.untracked) \
                    and len(state.uncommitted) <= KEPT_UNCOMMITTED:
                store.set_meta(WATCHED, json.dumps({
                    "question": question, "digest": state.digest, "tree": state.tree,
                    "uncommitted": state.uncommitted, "clean": state.clean, "untracked": state.untracked,
                }, separators=(",", ":")))
            return state

        return answer

    return look


def _kept_look(store: Store, question: list[object]) -> KeptState | None:
    try:
        kept = json.loads(store.meta(WATCHED) or "null")
    except ValueError:
        return None
    if not isinstance(kept, dict) or kept.get("question") != question:
        return None
    try:
        return KeptState(str(kept["digest"]), kept["tree"], [str(p) for p in kept["uncommitted"]],
                         bool(kept["clean"]), bool(kept["untracked"]))
    except (KeyError, TypeError):
        return None


def pulled_paths(
    store: Store, folder: MemoryFolder, seen: Signature, tree_changes: TreeChanges | None
) -> set[str] | None:
    """The files to look at when only commits moved the committed folder (a pull, a
    checkout): what git says differs between its tree then and now, and the files that
    failed before (their duplicate may be gone); None when anything else may have
    changed (then every file is compared)."""
    then = store.meta(TREE)
    if tree_changes is None or then is None or seen.tree is None or store.meta(PRIVATE) != seen.private:
        return None
    changed = tree_changes(then, seen.tree)
    if changed is None:
        return None
    prefix = folder.relative(folder.shared).rstrip("/") + "/"
    return {prefix + path for path in changed} | {row.path for row in store.file_problems()}

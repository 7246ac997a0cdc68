"""The repository adapter: where the repo is, which files it holds now, and their sizes.

Works in a git checkout (tracked plus untracked-but-not-ignored files, as ``git
ls-files`` sees them) and in a plain folder (a file-system walk that skips the usual
build and tool folders), so ``archmem model`` is useful before ``git init``.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from archmem.errors import RepositoryError
from archmem.git.commands import StartedGit, run_git
from archmem.git.types import BlamedCommit
from archmem.values import Record, Value

SKIPPED_FOLDERS = frozenset(
    {".git", ".archmem", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
     ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis",
     "dist", "build", "target", ".idea", ".vscode"}
)


def find_root(start: Path) -> tuple[Path, bool]:
    """(repository root, is it a git checkout) for a folder.

    The git top level above ``start`` when there is one (a ``.git`` folder, or a
    ``.git`` file for worktrees and submodules), else ``start`` itself.
    """
    start = start.resolve()
    if not start.exists():
        raise RepositoryError(f"no such folder: {start}")
    if not start.is_dir():
        raise RepositoryError(f"not a folder: {start}", hint="--repo takes the repository's folder")
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder, True
    return start, False


_STAGED = re.compile(r"[0-7]{6} [0-9a-f]{40}(?:[0-9a-f]{24})? [0-3]\t.")
"""A tracked file's line of ``git ls-files -s``: mode, blob id, stage, a tab, the path."""


@dataclass(frozen=True, repr=False, eq=False)
class FolderState(Value):
    """A folder as one ``git status`` sees it: a digest that changes whenever a file below
    it may have, its tree in HEAD, and its files not committed yet (top-level relative)."""

    digest: str
    tree: str | None
    uncommitted: list[str]
    clean: bool
    """git lists nothing below the folder: every file there is as the tree holds it."""
    untracked: bool = False
    """git listed a file there that it does not track (new, or ignored)."""


@dataclass(repr=False, eq=False)
class Repository(Record):
    """A working tree on disk; ``is_git`` says whether history can be read."""

    root: Path
    is_git: bool
    _files: list[str] | None = field(default=None, repr=False)
    _lines: dict[str, int] = field(default_factory=dict, repr=False)
    _listed: subprocess.CompletedProcess[bytes] | None = field(default=None, repr=False)
    _listing_started: StartedGit | None = field(default=None, repr=False)

    @classmethod
    def at(cls, start: Path, *, exact: bool = False) -> Repository:
        """The repository holding ``start``; with ``exact``, ``start`` itself is the root
        (``--repo DIR`` names the folder, even a sub-folder of a larger checkout)."""
        root, is_git = find_root(start)
        if exact:
            return cls(root=start.resolve(), is_git=is_git)
        return cls(root=root, is_git=is_git)

    def files(self) -> list[str]:
        """Repo-relative posix paths of the files there now, sorted."""
        if self._files is None:
            self._files = sorted(self._git_files() if self.is_git else self._walk_files())
        return self._files

    def exists(self, path: str) -> bool:
        return (self.root / path).exists()

    def lines(self, path: str) -> int:
        """Line count of one file (0 for binary or unreadable files)."""
        if path not in self._lines:
            self._lines[path] = count_lines(self.root / path)
        return self._lines[path]

    def read_bytes(self, path: str, *, limit: int = 2 << 20) -> bytes | None:
        """A file's bytes, or None when it cannot be read or is larger than ``limit``."""
        try:
            full = self.root / path
            if full.stat().st_size > limit:
                return None
            return full.read_bytes()
        except OSError:
            return None

    def content_hashes(self, paths: Sequence[str]) -> dict[str, str]:
        """Git's blob id of each file's content now, for caching what is read from it.

        A tracked file git sees unchanged comes from the index without being read; a
        changed, untracked or non-git file is read and hashed the way git would.
        """
        known: dict[str, str] = {}
        if self.is_git:
            staged = self._git("ls-files", "-s", "-z", check=False)
            dirty = self._git("diff-files", "--name-only", "--relative", "-z", check=False)
            if staged.returncode == 0 and dirty.returncode == 0:
                changed = set(dirty.stdout.decode("utf-8", errors="surrogateescape").split("\0"))
                for entry in staged.stdout.decode("utf-8", errors="surrogateescape").split("\0"):
                    meta, _, path = entry.partition("\t")
                    fields = meta.split()
                    if len(fields) == 3 and fields[2] == "0" and fields[0] != "120000" and path not in changed:
                        known[path] = fields[1]
        result = {}
        for path in paths:
            if path in known:
                result[path] = known[path]
                continue
            data = self.read_bytes(path)
            if data is not None:
                result[path] = blob_id(data)
        return result

    def read_small(self, path: str, limit: int = 256 * 1024) -> str | None:
        """The text of a small file (a manifest), or None when it is missing, larger
        than ``limit`` bytes, binary or unreadable."""
        try:
            target = self.root / path
            if target.stat().st_size > limit:
                return None
            data = target.read_bytes()
        except OSError:
            return None
        if b"\0" in data[:8192]:
            return None
        return data.decode("utf-8", errors="replace")

    def linguist(self, files: Sequence[str]) -> dict[str, str]:
        """Path → ``linguist-generated`` or ``linguist-vendored`` for the files
        ``.gitattributes`` marks so (one ``git check-attr --stdin``; nothing outside git)."""
        if not self.is_git or not files:
            return {}
        env = {**os.environ, "GIT_INDEX_FILE": NO_INDEX} if self._attributes_checked_out() else None
        try:
            done = subprocess.run(
                ["git", "check-attr", "-z", "--stdin", "linguist-generated", "linguist-vendored"],
                cwd=self.root, input="\0".join(files).encode("utf-8", "surrogateescape") + b"\0",
                capture_output=True, check=False, env=env,
            )
        except FileNotFoundError:
            return {}
        if done.returncode != 0:
            return {}
        fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        marked: dict[str, str] = {}
        for index in range(0, len(fields) - 2, 3):
            path, attribute, value = fields[index : index + 3]
            if value in ("set", "true") and path not in marked:
                marked[path] = attribute
        return marked

    def _attributes_checked_out(self) -> bool:
        """Whether every ``.gitattributes`` git's index holds is a readable file in the
        working tree. git reads a folder's attributes from its file there, and from the
        index only when that file is missing (a sparse checkout), so then ``check-attr``
        needs no index: given none (``NO_INDEX``) it answers the same without reading
        the index, whose size grows with the memory files it tracks (11 ms of git's 11.3
        at 50,000 against 2.4 with none)."""
        result = self._listing()
        if result.returncode != 0:
            return False
        for match in re.finditer(_TRACKED_ATTRIBUTES, result.stdout):
            full = os.path.join(self.root, os.fsdecode(match[1]))
            if not os.path.isfile(full) or not os.access(full, os.R_OK):
                return False
        return True

    def blob_ids(self) -> dict[str, str]:
        """Path → the blob id git has for it in the index (``git ls-files -s``): what a
        per-file fact is cached under."""
        if not self.is_git:
            return {}
        result = self._listing()
        if result.returncode != 0:
            return {}
        found = {}
        for entry in result.stdout.decode("utf-8", "surrogateescape").split("\0"):
            if _STAGED.match(entry):
                head, _, path = entry.partition("\t")
                found[path] = head.split()[1]
        return found

    def read_head(self, path: str, size: int = 1024) -> str | None:
        """The first ``size`` bytes of a file as text (None when unreadable or binary)."""
        try:
            with (self.root / path).open("rb") as handle:
                data = handle.read(size)
        except OSError:
            return None
        return None if b"\0" in data else data.decode("utf-8", errors="replace")

    def recent_changes(self, limit: int = 500) -> list[list[str]]:
        """The files of each of the last ``limit`` first-parent commits (one ``git log
        --name-only``; nothing outside git or without commits): which places are alive."""
        if not self.is_git:
            return []
        result = self._git(
            "log", "--first-parent", f"-n{limit}", "--no-renames", "--name-only", "--relative", "-z",
            "--format=%x1e", check=False,
        )
        if result.returncode != 0:
            return []
        text = result.stdout.decode("utf-8", errors="surrogateescape")
        return [[p.strip("\n") for p in chunk.split("\0") if p.strip("\n")] for chunk in text.split("\x1e") if chunk.strip()]

    def changed_files(self) -> list[str]:
        """Files changed in the working tree or the index against HEAD, plus new
        untracked ones: what ``--changed`` means (repo-relative)."""
        if not self.is_git:
            raise RepositoryError(f"{self.root} is not a git repository: --changed needs git")
        changed: list[str] = []
        has_head = self._git("rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode == 0
        diff = ["diff", "--name-only", "--relative", "-z"] + (["HEAD"] if has_head else ["--cached"])
        for args in (diff, ["ls-files", "-z", "--others", "--exclude-standard"]):
            out = self._git(*args).stdout.decode("utf-8", errors="surrogateescape")
            changed += [p for p in out.split("\0") if p and not _is_state(p)]
        return list(dict.fromkeys(changed))

    def commits_touching(self, path: str) -> list[str]:
        """Every commit (any branch) that added or changed ``path``, newest first: where a
        purged file's text still lives."""
        if not self.is_git:
            return []
        result = self._git("log", "--all", "--format=%H", "--", path, check=False)
        return result.stdout.decode().split() if result.returncode == 0 else []

    def uncommitted(self, folder: str) -> list[str]:
        """Files below ``folder`` that are new or changed against HEAD (not yet shared).
        git is told not to write its refreshed index back: a reading command leaves the
        checkout as it found it (and git's index file, which sync's quiet look watches)."""
        return self.uncommitted_later(folder)()

    def uncommitted_later(self, folder: str) -> Callable[[], list[str]]:
        """``uncommitted`` with git started now, waited for when asked (git reads its whole
        index for it, which grows with the memory files it tracks)."""
        if not self.is_git:
            return list
        started = StartedGit(self.root, "--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=all",
                             "--", folder)

        def paths() -> list[str]:
            result = started.result()
            if result.returncode != 0:
                return []
            entries = result.stdout.decode("utf-8", errors="surrogateescape").split("\0")
            return [entry[3:] for entry in entries if len(entry) > 3]

        return paths

    def folder_state(self, folder: str, *, untracked: bool = True, tree: str | None = None) -> FolderState | None:
        """What changed below ``folder``, from one ``git status`` (see ``FolderState``);
        None outside git or when git fails.

        The digest holds the folder's tree in HEAD (a commit that does not touch the
        folder leaves it as it was) and each path git lists as differing from it there
        (staged, changed, deleted, untracked, ignored) with its size and mtime. git tells
        the other files unchanged from its index's stat cache, in C (and its fsmonitor
        where one is set up), so nothing here stats them. Without ``untracked`` git looks
        only at the files it tracks (the caller knows no other file is there: the same
        listing, for half the work); ``tree``, when the caller knows it for HEAD, spares
        asking git for it."""
        return self.folder_state_later(folder, untracked=untracked, tree=tree, threads=True)()

    def folder_state_later(
        self, folder: str, *, untracked: bool = True, tree: str | None = None, threads: bool = False
    ) -> Callable[[], FolderState | None]:
        """``folder_state`` with its ``git status`` started now: the returned function
        waits for git and reads its answer (git stats every tracked file there, which the
        caller need not wait for while it reads the index). Without ``threads`` git stats
        them in one thread (``core.preloadIndex`` off): beside a caller that works
        meanwhile, the twenty threads git starts for 50,000 files crowd the caller off a
        small machine's cores."""
        if not self.is_git:
            return lambda: None
        listing = ("--untracked-files=all", "--ignored=traditional") if untracked else ("--untracked-files=no",)
        preload = () if threads else ("-c", "core.preloadIndex=false")
        started = StartedGit(
            self.root, "--no-optional-locks", "-c", "core.quotePath=false", *preload, "status", "--porcelain=v2",
            "-z", *listing, "--", folder,
        )
        return lambda: self._folder_state(folder, started.result(), tree=tree)

    def _folder_state(
        self, folder: str, result: subprocess.CompletedProcess[bytes], *, tree: str | None
    ) -> FolderState | None:
        if result.returncode != 0:
            return None
        output = result.stdout
        if tree is None:
            tree = self.folder_tree(folder)
        top = os.fsencode(_top_level(self.root))
        digest = hashlib.sha256(b"%s\0" % (tree or "-").encode())
        digest.update(output)
        uncommitted: list[str] = []
        for kind, path in _status_paths(output):
            try:
                info = os.lstat(top + b"/" + path)
                digest.update(b"%d %d\0" % (info.st_size, info.st_mtime_ns))
            except OSError:
                digest.update(b"-\0")
            if kind is not None:
                uncommitted.append(path.decode("utf-8", errors="surrogateescape"))
        listed_untracked = any(record[:1] in (b"?", b"!") for record in output.split(b"\0"))
        return FolderState(digest.hexdigest(), tree, uncommitted, not output, listed_untracked)

    def checkout_stamp(self) -> str | None:
        """HEAD's commit and the size and mtime of git's index file, read from the
        ``.git`` files without starting git: while it holds, no commit, checkout, pull or
        staging happened (None outside git, or where git must be asked)."""
        if not self.is_git:
            return None
        from archmem.git.checkout import index_file, read

        found, index = read(self.root), index_file(self.root)
        if found is None or index is None:
            return None
        try:
            info = os.stat(index)
        except OSError:
            return None
        return f"{found.head} {info.st_size} {info.st_mtime_ns}"

    def folder_tree(self, folder: str) -> str | None:
        """The id of ``folder``'s tree in HEAD (None without commits, or when HEAD has no
        such folder): what every committed file below it holds, in one value."""
        result = self._git("rev-parse", "--verify", "--quiet", f"HEAD:./{folder}", check=False)
        return result.stdout.decode().strip() or None if result.returncode == 0 else None

    def tree_changes(self, old: str, new: str) -> list[str] | None:
        """The paths (inside the trees) that differ between two trees, e.g. a folder's
        before and after a pull (one ``git diff-tree``); None when git cannot say."""
        if not self.is_git:
            return None
        result = self._git("diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new, check=False)
        if result.returncode != 0:
            return None
        return [path for path in result.stdout.decode("utf-8", errors="surrogateescape").split("\0") if path]

    def user_name(self) -> str | None:
        """Who works in this clone: ``git config user.name``, else the local part of
        ``user.email`` (None outside git or when neither is set)."""
        if not self.is_git:
            return None
        for key, part in (("user.name", None), ("user.email", "@")):
            result = self._git("config", "--get", key, check=False)
            value = result.stdout.decode("utf-8", errors="replace").strip() if result.returncode == 0 else ""
            if part:
                value = value.partition(part)[0]
            if value:
                return value
        return None

    def revision(self, ref: str) -> BlamedCommit:
        """The commit a revision names, with its committer time (``--since REF``)."""
        if not self.is_git:
            raise RepositoryError(f"{self.root} is not a git repository: --since needs git")
        result = self._git("show", "-s", "--format=%H %ct", f"{ref}^{{commit}}", "--", check=False)
        if result.returncode != 0:
            raise RepositoryError(f"unknown revision {ref!r}", hint="give a commit, tag or branch (git rev-parse REF)")
        sha, seconds = result.stdout.decode().strip().splitlines()[0].split()
        return BlamedCommit(sha, datetime.fromtimestamp(int(seconds), tz=UTC))

    def _git(self, *args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        return run_git(self.root, *args, check=check, cwd=cwd)

    def start_listing(self) -> None:
        """Start the listing of the files (``files``, ``blob_ids``) now, for a caller that
        will ask for it after other work (git reads its whole index for it, which grows
        with the memory files it tracks)."""
        if self.is_git and self._listed is None and self._listing_started is None:
            self._listing_started = StartedGit(self.root, *_LISTING)

    def _listing(self) -> subprocess.CompletedProcess[bytes]:
        """One ``git ls-files -s`` of the tracked files (with their blob ids) and the
        untracked ones git does not ignore (bare paths): the file list and the blob ids
        each cost a process before."""
        if self._listed is None:
            started, self._listing_started = self._listing_started, None
            self._listed = started.result() if started is not None else self._git(*_LISTING, check=False)
        return self._listed

    def _git_files(self) -> list[str]:
        result = self._listing()
        if result.returncode != 0:
            message = result.stderr.decode(errors="replace").strip()
            raise RepositoryError(f"git ls-files failed in {self.root}: {message}")
        entries = result.stdout.decode("utf-8", errors="surrogateescape").split("\0")
        paths = [entry.partition("\t")[2] if _STAGED.match(entry) else entry for entry in entries if entry]
        # a tracked file deleted in the working tree is not there "now"
        return [p for p in dict.fromkeys(paths) if not _is_state(p) and (self.root / p).is_file()]

    def _walk_files(self) -> list[str]:
        found: list[str] = []
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = [d for d in dirs if d not in SKIPPED_FOLDERS and not d.endswith(".egg-info")]
            rel = Path(folder).relative_to(self.root)
            for name in names:
                found.append((rel / name).as_posix())
        return found


_TRACKED_ATTRIBUTES = (rb"(?:^|\0)[0-7]{6} [0-9a-f]{40}(?:[0-9a-f]{24})? [0-3]\t((?:[^\0]*/)?\.gitattributes)(?=\0)")
"""A tracked ``.gitattributes`` in ``git ls-files -s -z`` output (the path is group 1);
compiled when first used (``re`` keeps it), not at import."""
NO_INDEX = "/proc/self/fdinfo/archmem-no-index"
"""An index file that cannot exist (that folder holds only numbers; without /proc, no
such folder): git takes a missing index as an empty one."""

_STATE = ".archmem"
_NOT_STATE = ("--", ".", f":(exclude){_STATE}")
"""Pathspecs that leave archmem's own folder out of a listing: its thousands of memory
files are no one's code, and listing them made every command grow with the memories.
(A pathspec filters what git found; the listing's ``--exclude`` of the same folder keeps
git from walking it for untracked files at all.)"""
_LISTING = ("ls-files", "-s", "-z", "--cached", "--others", "--exclude-standard", f"--exclude=/{_STATE}/", *_NOT_STATE)


def _is_state(path: str) -> bool:
    """archmem's own store, even where .gitignore does not list it yet."""
    return path == ".archmem" or path.startswith(".archmem/")


def blob_id(data: bytes) -> str:
    """The id git gives a blob of these bytes (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def count_lines(path: Path) -> int:
    """Lines in a text file; a file with a NUL byte in its first 8 KiB counts as binary."""
    try:
        with path.open("rb") as handle:
            head = handle.read(8192)
            if b"\0" in head:
                return 0
            count = head.count(b"\n")
            last = head[-1:] if head else b""
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                count += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError:
        return 0
    if last and last != b"\n":
        count += 1
    return count


def _top_level(root: Path) -> Path:
    """The git top level holding ``root`` (a ``.git`` folder or file), without asking git."""
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            return folder
    return root


_FIELDS_BEFORE_PATH = {b"1": 8, b"2": 9, b"u": 10}


def _status_paths(output: bytes) -> list[tuple[str | None, bytes]]:
    """(kind, path) of the records of ``git status --porcelain=v2 -z`` (top-level
    relative): the kind for a file not committed as it is (changed, renamed, unmerged,
    untracked), None for an ignored file and a rename's old path."""
    paths: list[tuple[str | None, bytes]] = []
    records = iter(output.split(b"\0"))
    for record in records:
        kind = record[:1]
        if kind in _FIELDS_BEFORE_PATH:
            paths.append((kind.decode(), record.split(b" ", _FIELDS_BEFORE_PATH[kind])[-1]))
            if kind == b"2":
                paths.append((None, next(records, b"")))
        elif kind == b"?":
            paths.append(("?", record[2:]))
        elif kind == b"!":
            paths.append((None, record[2:]))
    return paths

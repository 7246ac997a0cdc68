"""The git history adapter: one streamed ``git log`` pass, parsed into ``Commit`` values.

Everything drift knows about the past comes through ``HistoryReader.read``, which starts
a single ``git log`` and parses its stdout as it arrives, so 20k commits never sit in
memory as text and no process is started per commit. What a scan needs to know about
HEAD first (its commit, its branch, a shallow clone) is one ``git rev-parse``
(``HistoryReader.state``). The choices, and why:

* **First-parent history.** ``--first-parent --diff-merges=first-parent``: the branch's
  own line of commits, with a merge diffed against its first parent. A merged feature
  branch counts once, at the merge, with the merge's committer time — the moment the
  change reached the branch — and its individual commits are not listed (needs git
  2.31+ for ``--diff-merges``).
* **Whitespace ignored.** ``-w``: ``--numstat`` honours it (git 2.39 checked); a
  whitespace-only change counts 0 lines. Git then omits the file from the numstat part,
  so line counts default to 0 and the file is still listed from the raw part (status M).
* **Status from ``--raw``.** Numstat alone cannot say added/deleted, so the same pass
  prints ``--raw`` (full ids, no abbreviation lookups) before ``--numstat``; the two are
  joined per commit by (old path, new path). Copies are reported as added files;
  type changes and anything else as modified.
* **Renames.** ``-M`` (whatever ``diff.renames`` says); status R with ``old_path``.
* **NUL-separated.** ``-z`` everywhere: paths with spaces, tabs, newlines, quotes and
  non-ASCII characters come through verbatim (undecodable bytes as surrogate escapes,
  as ``Repository.files`` reads them).
* **Binary files** (``-\t-``) count 0 lines; adding/deleting/renaming one is still an event.
* **Time and author.** The committer time (``%ct``, UTC-aware): when the change landed.
  The author as ``Name <email>`` *without* mailmap, so a cached commit never depends
  on a file that may change later.
* **A sub-folder as root.** When ``repo_root`` is below the git top level, ``--relative``
  makes paths relative to it and drops files outside it; a rename across the boundary
  becomes an add or a delete. Commits that touch nothing inside are still listed (with
  no changes) so the newest commit read is always the tip and incremental reads chain.
* **Ignored files are never diffed.** The default ignores (lock files, minified and
  generated code) count for no element, and diffing them is most of a scan's time (a
  ``package-lock.json`` changes by thousands of lines), so they go to git as exclude
  pathspecs rather than being dropped afterwards. ``--full-history --sparse`` keeps
  every first-parent commit listed, as without pathspecs; a rename between an excluded
  and a read path then shows as an add or a delete, as across a sub-folder root. The
  exclusions are part of ``scope``: a cache read with others is rescanned.
* **Only what is asked for is diffed.** With ``include`` (the elements' paths and the
  anchored files), git diffs only those paths, as the floor ``git log -- <paths>`` does;
  every commit is still listed. A cache read with a wider ``include`` still serves a
  narrower reader (``served_by``), and is then narrowed to it, since the commits it
  appends hold no more.
* **Determinism.** Options a user's git config could change are pinned on the command
  line (colours, textconv, external diff, diff algorithm, signatures, output encoding),
  because the output is cached and compared across runs.
"""

from __future__ import annotations

import os
import subprocess
import weakref
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from archmem.errors import RepositoryError
from archmem.git.checkout import read as read_checkout
from archmem.git.types import ChangeStatus, Commit, FileChange, HeadState

HISTORY_FORMAT = "1"
"""Bump when the options or the parsing change: a cache written with another format is rescanned."""

SHALLOW_HINT = (
    "fetch the full history (git fetch --unshallow; in GitHub Actions: actions/checkout with "
    "fetch-depth: 0), or pass --deepen to let archmem fetch it"
)
_HEADER = "\x1e"
_FORMAT = "--format=%x1e%H%x1f%P%x1f%ct%x1f%an <%ae>"
_LOG_OPTIONS = (
    "-c", "log.showSignature=false",
    "log", _FORMAT, "--reverse", "--first-parent", "--diff-merges=first-parent", "--root",
    "-w", "-M", "--raw", "--no-abbrev", "--numstat", "-z", "--no-color", "--no-textconv",
    "--no-ext-diff", "--diff-algorithm=myers", "--encoding=UTF-8", "--full-history", "--sparse",
)
_STATUS: dict[str, ChangeStatus] = {"A": "A", "D": "D", "M": "M", "R": "R", "C": "A"}
_READ_SIZE = 1 << 18
_PIPE_SIZE = 1 << 20
_PROGRESS_EVERY = 256


class HistoryReader:
    """Reads the first-parent history of the git checkout holding ``repo_root``.

    Raises ``RepositoryError`` when ``repo_root`` is not inside a git repository:
    drift is computed from history and cannot be guessed without it.
    """

    def __init__(self, repo_root: Path, *, exclude: Sequence[str] = (), include: Sequence[str] = ()) -> None:
        self.root = Path(repo_root).resolve()
        self.exclude = tuple(sorted(set(exclude)))
        """Globs (relative to ``repo_root``) whose files git leaves out of every diff."""
        self.include = tuple(sorted(set(include)))
        """Git pathspecs (``:(glob)`` or ``:(literal)``, relative to ``repo_root``) of the
        only files git diffs; empty: every file."""
        if not self.root.is_dir():
            raise RepositoryError(f"{self.root} is not a git repository: drift needs its history",
                                  hint="run archmem in a git checkout (or git init and commit)")
        checkout = read_checkout(self.root)
        if checkout is not None:
            lines = ["false", str(checkout.top)]
        else:
            status, out, _ = self._status("rev-parse", "--is-bare-repository", "--show-toplevel", cwd=self.root)
            lines = out.splitlines() if status == 0 else out.splitlines()[:1]
        if len(lines) < 2:
            if lines[:1] == ["true"]:
                raise RepositoryError(f"{self.root} is a bare git repository: drift needs a checkout")
            raise RepositoryError(
                f"{self.root} is not a git repository: drift needs its history",
                hint="run archmem in a git checkout (or git init and commit)",
            )
        self.top = Path(lines[1]).resolve()
        try:
            prefix = self.root.relative_to(self.top).as_posix()
        except ValueError:
            prefix = "."
        self.prefix = "" if prefix == "." else prefix + "/"

    @property
    def scope(self) -> str:
        """What a cache of this reader's output depends on: the sub-folder, the format and
        the excluded globs."""
        return self._base_scope + (_INCLUDE + "\x1f".join(self.include) if self.include else "")

    @property
    def _base_scope(self) -> str:
        scope = f"format={HISTORY_FORMAT};prefix={self.prefix}"
        return scope + (";exclude=" + "\x1f".join(self.exclude) if self.exclude else "")

    def served_by(self, scope: str | None) -> bool:
        """Does a cache written with ``scope`` hold all this reader reads: the same
        format, root and exclusions, and every path included here included there?"""
        if scope is None:
            return False
        base, marker, included = scope.partition(_INCLUDE)
        if base != self._base_scope:
            return False
        if not marker:
            return True  # that cache read every file
        return bool(self.include) and set(self.include) <= set(included.split("\x1f"))

    def pathspecs(self) -> list[str]:
        """What git reads: the included paths (or the root: a sub-folder, or everything)
        less the excluded globs."""
        if not self.exclude and not self.include:
            return []
        roots = [_with_prefix(spec, self.prefix) for spec in self.include] or [self.prefix or "."]
        return [*roots, *[f":(exclude,glob){self.prefix}{glob}" for glob in self.exclude]]

    # ---- questions ------------------------------------------------------------------

    def state(self) -> HeadState:
        """HEAD's commit and branch and whether the clone is shallow, in one process (none
        when the ``.git`` files say it, ``archmem.git.checkout``): what a scan asks before
        anything else."""
        checkout = read_checkout(self.top)
        if checkout is not None:
            return HeadState(checkout.head, checkout.branch if checkout.head else None, checkout.shallow)
        status, out, err = self._status("rev-parse", "--is-shallow-repository", "HEAD", "--symbolic-full-name",
                                        "HEAD")
        lines = out.splitlines()
        if not lines or lines[0] not in ("true", "false"):
            raise RepositoryError(f"git rev-parse failed in {self.top}: {err.strip()}")
        if status != 0 or len(lines) < 3:  # no commits yet: HEAD names nothing
            return HeadState(None, None, lines[0] == "true")
        ref = lines[2]
        branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/") else None
        return HeadState(lines[1], branch, lines[0] == "true")

    def is_shallow(self) -> bool:
        checkout = read_checkout(self.top)
        if checkout is not None:
            return checkout.shallow
        return self._run("rev-parse", "--is-shallow-repository").strip() == "true"

    def head(self) -> str | None:
        """The sha HEAD points at, or None in a repository without commits."""
        checkout = read_checkout(self.top)
        if checkout is not None:
            return checkout.head
        status, out, _ = self._status("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
        return out.strip() if status == 0 and out.strip() else None

    def is_ancestor(self, a: str, b: str) -> bool:
        """Is commit ``a`` an ancestor of (or equal to) ``b``? False when ``a`` is unknown
        (a rewritten history whose old commits were pruned)."""
        status, _, _ = self._status("merge-base", "--is-ancestor", a, b)
        return status == 0

    def count(self, since_sha: str | None = None, until: str = "HEAD") -> int:
        """How many commits ``read`` would yield (cheap: no diffs), for progress bars."""
        if until == "HEAD" and self.head() is None:
            return 0
        spec = f"{since_sha}..{until}" if since_sha else until
        return int(self._run("rev-list", "--count", "--first-parent", spec).strip() or 0)

    # ---- reading --------------------------------------------------------------------

    def log_command(self, since_sha: str | None = None, until: str = "HEAD") -> list[str]:
        """The exact ``git log`` command ``read`` runs (the benchmark times it bare)."""
        relative = [f"--relative={self.prefix}"] if self.prefix else []
        spec = f"{since_sha}..{until}" if since_sha else until
        return [_git_executable(), *_LOG_OPTIONS, *relative, spec, "--", *self.pathspecs()]

    def read(
        self,
        since_sha: str | None = None,
        *,
        until: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> Generator[Commit, None, None]:
        """Commits after ``since_sha`` (all when None) up to ``until`` (HEAD), oldest first.

        git starts at once, so a caller can do other work (load its cache) while git
        computes diffs; the commits stream from the running process as they are
        iterated. Stop iterating (or close the iterator) and the process is ended.
        ``progress`` is called with the number of commits read so far.
        """
        tip = until or self.head()
        if tip is None:
            return _nothing()
        import tempfile  # only when git log runs: a recall on a cached history needs none

        errors = tempfile.TemporaryFile()  # a file, not a pipe: git never blocks on what it says there
        try:
            process = subprocess.Popen(self.log_command(since_sha, tip), cwd=self.top, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=errors, env=_c_locale())
        except FileNotFoundError:
            errors.close()
            raise RepositoryError("git is not installed, but drift needs it to read history") from None
        _widen(process.stdout)
        stream = self._stream(process, errors, progress)
        weakref.finalize(stream, _stop, process)  # dropped before its first commit: git is ended all the same
        return stream

    def _stream(
        self, process: subprocess.Popen[bytes], errors: IO[bytes], progress: Callable[[int], None] | None
    ) -> Generator[Commit, None, None]:
        finished = False
        try:
            assert process.stdout is not None
            count = 0
            for commit in parse_log(_tokens(process.stdout)):
                count += 1
                if progress and count % _PROGRESS_EVERY == 0:
                    progress(count)
                yield commit
            if process.wait() != 0:
                errors.seek(0)
                message = errors.read().decode("utf-8", "replace").strip()
                raise RepositoryError(
                    f"git log failed in {self.top}: {message}",
                    hint="archmem needs git 2.31 or newer" if "diff-merges" in message else None,
                )
            finished = True
            if progress:
                progress(count)
        finally:
            if not finished:
                _stop(process)
            errors.close()

    def deepen(self) -> None:
        """Turn a shallow clone into a full one (``git fetch --unshallow``)."""
        if not self.is_shallow():
            return
        status, _, err = self._status("fetch", "--quiet", "--unshallow")
        if status != 0:
            raise RepositoryError(
                f"could not fetch the full history of {self.top}: {err.strip()}",
                hint="check the remote (git remote -v) and your access to it, or fetch it yourself",
            )

    # ---- plumbing -------------------------------------------------------------------

    def _status(self, *args: str, cwd: Path | None = None) -> tuple[int, str, str]:
        try:
            done = subprocess.run(
                [_git_executable(), *args], cwd=cwd or self.top, capture_output=True, check=False,
                stdin=subprocess.DEVNULL,
            )
        except FileNotFoundError:
            raise RepositoryError("git is not installed, but drift needs it to read history") from None
        decode = lambda data: data.decode("utf-8", "surrogateescape").rstrip("\n")  # noqa: E731
        return done.returncode, decode(done.stdout), decode(done.stderr)

    def _run(self, *args: str) -> str:
        status, out, err = self._status(*args)
        if status != 0:
            raise RepositoryError(f"git {args[0]} failed in {self.top}: {err.strip()}")
        return out


_INCLUDE = "\x1einclude="


def _with_prefix(spec: str, prefix: str) -> str:
    """A ``:(magic)path`` pathspec relative to the reader's root, made relative to the git
    top level (where git runs)."""
    magic, _, path = spec.partition(")")
    return f"{magic}){prefix}{path}"


def _c_locale() -> dict[str, str]:
    """The environment with git's own messages in English, as the hints match them."""
    return {**os.environ, "LC_ALL": "C", "LANGUAGE": "C"}


def _git_executable() -> str:
    """The git to run: ``GIT_PYTHON_GIT_EXECUTABLE`` when set (the variable archmem
    honoured when it ran git through GitPython, kept for setups that name their git with
    it), else ``git`` on PATH."""
    return os.environ.get("GIT_PYTHON_GIT_EXECUTABLE") or "git"


def _nothing() -> Generator[Commit, None, None]:
    yield from ()


def _widen(pipe: IO[bytes] | None) -> None:
    """Let git run ahead while the caller writes a chunk to the cache: a 1 MiB pipe
    instead of 64 KiB (Linux; elsewhere the default stays, and git waits a little)."""
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_SIZE)  # type: ignore[union-attr, attr-defined]
    except (ImportError, AttributeError, OSError, ValueError):
        pass


def _tokens(stream: IO[bytes]) -> Iterator[str]:
    """NUL-separated fields of a byte stream, decoded; never splits a UTF-8 character
    (a NUL byte is never part of one)."""
    rest = b""
    read = getattr(stream, "read1", stream.read)
    while chunk := read(_READ_SIZE):
        data = rest + chunk if rest else chunk
        cut = data.rfind(b"\0")
        if cut < 0:
            rest = data
            continue
        rest = data[cut + 1:]
        yield from data[:cut].decode("utf-8", "surrogateescape").split("\0")
    if rest:
        yield rest.decode("utf-8", "surrogateescape")


def parse_log(tokens: Iterable[str]) -> Iterator[Commit]:
    """Commits from the NUL-separated fields of ``git log --raw --numstat -z`` with
    archmem's format. Per commit: a header field, raw records (``:modes ids STATUS``
    then one or two paths), numstat records (``added\\tdeleted\\tpath``, or with an empty
    path then old and new path)."""
    fields = iter(tokens)
    header: str | None = None
    raw: list[tuple[str, str | None, str]] = []
    counts: dict[tuple[str | None, str], tuple[int, int]] = {}
    for field in fields:
        if not field:
            continue
        if field[0] == "\n":
            field = field[1:]
            if not field:
                continue
        first = field[0]
        if first == _HEADER:
            if header is not None:
                yield _commit(header, raw, counts)
            header, raw, counts = field[1:], [], {}
        elif first == ":":
            letter = field[field.rindex(" ") + 1]
            if letter in "RC":
                old, path = next(fields), next(fields)
                raw.append((letter, old, path))
            else:
                raw.append((letter, None, next(fields)))
        else:
            added, deleted, path = field.split("\t", 2)
            old = None
            if not path:
                old, path = next(fields), next(fields)
            counts[(old, path)] = (
                int(added) if added != "-" else 0,
                int(deleted) if deleted != "-" else 0,
            )
    if header is not None:
        yield _commit(header, raw, counts)


def _commit(
    header: str, raw: list[tuple[str, str | None, str]], counts: dict[tuple[str | None, str], tuple[int, int]]
) -> Commit:
    sha, parents, stamp, author = header.split("\x1f", 3)
    if not author.isascii():
        # a name git could not re-encode (bytes without an encoding header): readable, storable
        author = author.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    changes = []
    for letter, old, path in raw:
        added, deleted = counts.get((old, path), (0, 0))
        status = _STATUS.get(letter, "M")
        changes.append(FileChange(path, added, deleted, status, old if status == "R" else None))
    return Commit(
        sha=sha,
        time=datetime.fromtimestamp(int(stamp), timezone.utc),
        author=author,
        parents=tuple(parents.split()),
        changes=tuple(changes),
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End a ``git log`` whose output is no longer wanted (the reader was closed early)."""
    if process.poll() is None:
        process.kill()
    if process.stdout:
        process.stdout.close()
    process.wait()

"""Running one git command: to read (``run_git``, git's words in the error) or to change a
repository as a named author at a given time (``run_as``: how the demo builds its
back-dated history without the user's git identity, signing or default branch leaking in)."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime
from pathlib import Path

from archmem.errors import RepositoryError


def run_git(root: Path, *args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``cwd`` (default ``root``), its output as bytes; with ``check`` a
    failure is a ``RepositoryError`` with git's words."""
    try:
        result = subprocess.run(["git", *args], cwd=cwd or root, capture_output=True, check=False)
    except FileNotFoundError:
        raise RepositoryError("git is not installed, but this folder is a git checkout") from None
    if check and result.returncode != 0:
        message = result.stderr.decode(errors="replace").strip()
        raise RepositoryError(f"git {args[0]} failed in {root}: {message}")
    return result


class StartedGit:
    """A git command started now and waited for when its output is asked: the caller
    works meanwhile (a recall reads the index while git compares the memory files)."""

    def __init__(self, root: Path, *args: str) -> None:
        try:
            self._process = subprocess.Popen(["git", *args], cwd=root, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE)
        except FileNotFoundError:
            raise RepositoryError("git is not installed, but this folder is a git checkout") from None
        self._done: subprocess.CompletedProcess[bytes] | None = None

    def result(self) -> subprocess.CompletedProcess[bytes]:
        """git's exit code and output, once it ended (asked again, the same)."""
        if self._done is None:
            out, err = self._process.communicate()
            self._done = subprocess.CompletedProcess(self._process.args, self._process.returncode, out, err)
        return self._done


def run_as(root: Path, *args: str, author: tuple[str, str], when: datetime | None = None) -> None:
    """``git ARGS`` in ``root`` by ``author`` (name, email), dated ``when`` (UTC) when given;
    a failure is a ``RepositoryError`` with git's words."""
    name, email = author
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
           "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    if when is not None:
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S+00:00")
        env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    try:
        result = subprocess.run(
            ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
            cwd=root, env=env, capture_output=True, text=True, check=False,
        )
    except FileNotFoundError:
        raise RepositoryError("git is not installed") from None
    if result.returncode != 0:
        raise RepositoryError(f"git {args[0]} failed in {root}: {result.stderr.strip()}")

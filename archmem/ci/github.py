"""GitHub Actions as a CI provider: where the change is (the pull request event), the one
comment through the REST API, the files a step reports through (the job summary and the
step outputs), and an error the run stops on shown as an ``::error`` annotation.

A step output is ``key=value`` on one line. A value that holds a line break (an
``html_url`` a server made up, a name from a file) would end that line and forge the
next, so it is written in GitHub's multi-line form, ``key<<DELIMITER``, value,
``DELIMITER``, with a random delimiter the value does not contain.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from archmem.ci.types import Identity
from archmem.errors import ArchmemError, InvalidInputError
from archmem.escape import workflow_command as escape
from archmem.json_input import load_json

if TYPE_CHECKING:
    from archmem.config import GitHubConfig
    from archmem.review.publish import CommentsApi
    from archmem.review.pull_request import PullRequestRef

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class GitHubActions:
    """The CI provider of a GitHub Actions run (and of a run outside any CI: a
    ``GITHUB_EVENT_PATH`` given by hand is read the same way)."""

    comment_noun = "pull request comment"
    no_change = "no pull request to comment on: run on a pull_request event (GITHUB_EVENT_PATH)"

    def __init__(self, env: Mapping[str, str], settings: GitHubConfig) -> None:
        self.env = env
        self.settings = settings

    def change(self) -> PullRequestRef | None:
        return pull_request_from_event(read_event(self.env))

    def link_base(self, head: str) -> str | None:
        return link_base(self.env, head)

    def comment_api(self) -> tuple[CommentsApi, Identity]:
        """The REST API client, and the configured login ``GITHUB_TOKEN`` writes as
        (that token cannot ask who it is)."""
        from archmem.ci.github_api import GitHubClient

        client = GitHubClient.from_env(self.env, timeout=self.settings.timeout,
                                       max_answer_bytes=self.settings.max_answer_bytes)
        return client, Identity(self.settings.comment_author)


def read_event(env: Mapping[str, str]) -> dict[str, Any] | None:
    """The webhook payload of the run (``GITHUB_EVENT_PATH``), or None outside Actions."""
    name = env.get("GITHUB_EVENT_PATH")
    if not name:
        return None
    try:
        data = load_json(Path(name).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInputError(f"cannot read GITHUB_EVENT_PATH {name}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"GITHUB_EVENT_PATH {name}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") \
            from None
    except ValueError as exc:
        raise InvalidInputError(f"GITHUB_EVENT_PATH {name} is not JSON: {exc}") from None
    return data if isinstance(data, dict) else None


def pull_request_from_event(event: Mapping[str, Any] | None) -> PullRequestRef | None:
    """Base and head of the pull request an event is about (None for other events)."""
    pr = event.get("pull_request") if event else None
    if not isinstance(pr, dict):
        return None
    base, head = pr.get("base") or {}, pr.get("head") or {}
    base_sha, head_sha = str(base.get("sha") or ""), str(head.get("sha") or "")
    if not (_SHA.fullmatch(base_sha) and _SHA.fullmatch(head_sha)):
        raise InvalidInputError("the pull_request event has no base and head commit (pull_request.base.sha, "
                                "pull_request.head.sha)")
    number = pr.get("number", event.get("number") if event else None)
    from archmem.review.pull_request import PullRequestRef

    return PullRequestRef(
        base=base_sha, head=head_sha, number=number if isinstance(number, int) else None,
        title=str(pr.get("title") or "") or None, url=str(pr.get("html_url") or "") or None,
        base_ref=str(base.get("ref") or "") or None, head_ref=str(head.get("ref") or "") or None,
    )


def link_base(env: Mapping[str, str], head: str) -> str | None:
    """Where files at head are shown on GitHub (``{server}/{owner}/{repo}/blob/{sha}/``)."""
    repository = env.get("GITHUB_REPOSITORY", "").strip()
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
        return None
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    return f"{server}/{repository}/blob/{head}/"


@contextmanager
def errors_as_annotations(enabled: bool, title: str) -> Iterator[None]:
    """Print an ``ArchmemError`` as ``::error title=…::message (hint)`` before it ends
    the command (which still prints it on stderr and exits with its code), so it is
    seen on the run's page and not only in its log (a shallow clone, with the fix)."""
    try:
        yield
    except ArchmemError as exc:
        if enabled:
            click.echo(f"::error title={title}::{escape(str(exc))}")
        raise


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def append_step_files(env: Mapping[str, str], summary_markdown: str, step_outputs: Mapping[str, str]) -> None:
    """Append to the job summary and the step outputs, where the run names those files
    (``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``); outside Actions, nothing."""
    summary_file = env.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(summary_markdown + "\n")
    output_file = env.get("GITHUB_OUTPUT")
    if output_file:
        text = "".join(step_output(key, value) for key, value in step_outputs.items())
        with open(output_file, "a", encoding="utf-8") as handle:
            handle.write(text)


def step_output(key: str, value: str) -> str:
    """One output as ``GITHUB_OUTPUT`` reads it: ``key=value``, or the delimited form for
    a value with a line break in it."""
    if not _KEY.fullmatch(key):
        raise InvalidInputError(f"{key!r} is not a step output name")
    if "\n" not in value and "\r" not in value:
        return f"{key}={value}\n"
    delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    while delimiter in value:  # pragma: no cover - 128 random bits
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    return f"{key}<<{delimiter}\n{value}\n{delimiter}\n"

"""The GitHub REST API: the issue comments of a pull request (list, create, update), with
``GITHUB_TOKEN``, against ``GITHUB_API_URL`` (GitHub Enterprise too), through the shared
hardened client (``archmem.ci.transport``). Every field archmem uses is checked for its
type (``"id": true`` is no comment).
"""

from __future__ import annotations

import re
import urllib.error
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from email.message import Message
from typing import Any

from archmem.ci.transport import (
    MAX_ANSWER_BYTES,
    TIMEOUT_SECONDS,
    ApiError,
    JsonTransport,
    clean_url,
    error_message,
    path_of,
    short,
)
from archmem.ci.types import Comment

API_VERSION = "2022-11-28"
DEFAULT_API_URL = "https://api.github.com"

class GitHubApiError(ApiError):
    """A call to the GitHub API failed; ``status`` is the HTTP status (0: no answer)."""

    kind = "github_api_error"


class GitHubClient:
    """Issue comments of one repository (``owner/name``) through the REST API."""

    def __init__(self, *, token: str, repository: str, api_url: str = DEFAULT_API_URL,
                 timeout: float = TIMEOUT_SECONDS, max_answer_bytes: int = MAX_ANSWER_BYTES) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository or ""):
            raise GitHubApiError(f"GITHUB_REPOSITORY must be owner/name, not {repository!r}")
        self.transport = JsonTransport(
            api_url=api_url,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
                     "X-GitHub-Api-Version": API_VERSION},
            error=GitHubApiError, http_error=_http_error, url_setting="GITHUB_API_URL",
            timeout_setting="[github] timeout (ARCHMEM_GITHUB_TIMEOUT)", timeout=timeout,
            max_answer_bytes=max_answer_bytes,
        )
        self.repository = repository
        self.api_url = self.transport.api_url

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, timeout: float = TIMEOUT_SECONDS,
                 max_answer_bytes: int = MAX_ANSWER_BYTES) -> GitHubClient:
        """The client GitHub Actions sets up: ``GITHUB_TOKEN``, ``GITHUB_REPOSITORY``,
        ``GITHUB_API_URL`` (default api.github.com)."""
        token = env.get("GITHUB_TOKEN", "").strip()
        if not token:
            raise GitHubApiError(
                "GITHUB_TOKEN is not set, so no comment can be posted",
                hint="in the workflow: env: GITHUB_TOKEN: ${{ github.token }} (with permissions: pull-requests: write)",
            )
        repository = env.get("GITHUB_REPOSITORY", "").strip()
        if not repository:
            raise GitHubApiError("GITHUB_REPOSITORY is not set (owner/name), so no comment can be posted")
        return cls(token=token, repository=repository, api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL,
                   timeout=timeout, max_answer_bytes=max_answer_bytes)

    def comments(self, number: int) -> Iterator[Comment]:
        """The pull request's issue comments, oldest first, page after page."""
        url = f"{self.api_url}/repos/{self.repository}/issues/{int(number)}/comments?per_page=100"
        for page, where in self.transport.pages(url, "comments"):
            for item in page:
                yield _comment(item, where)

    def create_comment(self, number: int, body: str) -> Comment:
        url = f"{self.api_url}/repos/{self.repository}/issues/{int(number)}/comments"
        data, _ = self.transport.request("POST", url, {"body": body})
        return _comment(data, f"POST {path_of(url)}")

    def update_comment(self, number: int, comment_id: int, body: str) -> Comment:
        """Rewrite comment ``comment_id`` (``number``, its pull request, is not in GitHub's path)."""
        url = f"{self.api_url}/repos/{self.repository}/issues/comments/{int(comment_id)}"
        data, _ = self.transport.request("PATCH", url, {"body": body})
        return _comment(data, f"PATCH {path_of(url)}")


def _comment(data: Any, where: str) -> Comment:
    """A comment of the API's answer, each field checked for its type."""
    comment_id = data.get("id") if isinstance(data, dict) else None
    if type(comment_id) is not int or comment_id <= 0:
        raise GitHubApiError(f"{where}: the API answered without a comment id (id {short(comment_id)})")
    body = data.get("body")
    if body is not None and not isinstance(body, str):
        raise GitHubApiError(f"{where}: comment {comment_id} has a body that is not text")
    user = data.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    kind = user.get("type") if isinstance(user, dict) else None
    return Comment(comment_id, body or "", clean_url(data.get("html_url")),
                   login if isinstance(login, str) else None, kind if isinstance(kind, str) else None)


def _http_error(method: str, url: str, exc: urllib.error.HTTPError) -> GitHubApiError:
    """The API's own message, and what to do about it."""
    status = exc.code
    message = error_message(exc, "message")
    headers: Message | dict[str, str] = exc.headers or {}
    where = f"{method} {path_of(url)}: {status} {message}"
    if status in (403, 429) and (headers.get("x-ratelimit-remaining") == "0" or headers.get("retry-after")):
        reset = headers.get("x-ratelimit-reset")
        if reset and reset.isdigit():
            at = datetime.fromtimestamp(int(reset), tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
            when = f"it resets at {at}"
        else:
            when = f"retry after {headers.get('retry-after')} seconds"
        return GitHubApiError(f"{where} (rate limit reached; {when})", status=status,
                              hint="run the job again after that")
    hints = {
        401: "the token is missing, expired or wrong: pass GITHUB_TOKEN: ${{ github.token }}",
        403: "the token may not write comments: give the job permissions: pull-requests: write; a pull request "
             "from a fork gets a read-only token, so its review stays in the job summary",
        404: "no such repository or pull request for this token (check GITHUB_REPOSITORY and that the token "
             "can read the repository)",
    }
    if method == "PATCH" and status in (403, 404):
        hints[status] = ("this token may not edit that comment, though its author is the identity archmem takes for "
                         "its own: set [github] comment_author (the action's comment-author input, "
                         "ARCHMEM_GITHUB_COMMENT_AUTHOR) to the login of the token's identity")
    return GitHubApiError(where, status=status, hint=hints.get(status))

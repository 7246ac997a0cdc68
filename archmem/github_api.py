"""The GitHub REST API adapter: the issue comments of a pull request (list, create,
update), with ``GITHUB_TOKEN``, against ``GITHUB_API_URL`` (GitHub Enterprise too).

Standard library only (``urllib.request``): three calls per run do not justify a
dependency, and nothing is imported until ``archmem pr --comment`` needs it. Every
failure (HTTP status, network, a body that is not JSON) is a ``GitHubApiError`` that
says what to do; the caller decides whether that fails the job.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from archmem import __version__
from archmem.errors import ArchmemError

API_VERSION = "2022-11-28"
DEFAULT_API_URL = "https://api.github.com"
TIMEOUT_SECONDS = 30
MAX_PAGES = 50
"""100 comments a page: a pull request with more than 5,000 comments is not searched further."""
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class GitHubApiError(ArchmemError):
    """A call to the GitHub API failed; ``status`` is the HTTP status (0: no answer)."""

    exit_code = 12
    kind = "github_api_error"

    def __init__(self, message: str, *, status: int = 0, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        data["status"] = self.status
        return data


@dataclass(frozen=True)
class Comment:
    id: int
    body: str
    url: str | None = None


class GitHubClient:
    """Issue comments of one repository (``owner/name``) through the REST API."""

    def __init__(self, *, token: str, repository: str, api_url: str = DEFAULT_API_URL,
                 timeout: float = TIMEOUT_SECONDS) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository or ""):
            raise GitHubApiError(f"GITHUB_REPOSITORY must be owner/name, not {repository!r}")
        if urlsplit(api_url).scheme not in ("http", "https"):
            raise GitHubApiError(f"GITHUB_API_URL must be an http(s) URL, not {api_url!r}")
        self.token = token
        self.repository = repository
        self.api_url = api_url.rstrip("/")
        self.timeout = timeout

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> GitHubClient:
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
        return cls(token=token, repository=repository, api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL)

    # ---- the calls ---------------------------------------------------------------------

    def comments(self, number: int) -> Iterator[Comment]:
        """The pull request's issue comments, oldest first, page after page."""
        url: str | None = f"{self.api_url}/repos/{self.repository}/issues/{int(number)}/comments?per_page=100"
        pages = 0
        while url is not None and pages < MAX_PAGES:
            data, headers = self._request("GET", url)
            pages += 1
            if not isinstance(data, list):
                raise GitHubApiError(f"GET {_path(url)}: expected a list of comments")
            for item in data:
                if isinstance(item, dict) and isinstance(item.get("id"), int):
                    yield Comment(item["id"], str(item.get("body") or ""), item.get("html_url"))
            url = _next_page(headers.get("Link", ""), self.api_url)

    def create_comment(self, number: int, body: str) -> Comment:
        data, _ = self._request("POST", f"{self.api_url}/repos/{self.repository}/issues/{int(number)}/comments",
                                {"body": body})
        return _comment(data)

    def update_comment(self, comment_id: int, body: str) -> Comment:
        data, _ = self._request("PATCH", f"{self.api_url}/repos/{self.repository}/issues/comments/{int(comment_id)}",
                                {"body": body})
        return _comment(data)

    # ---- HTTP --------------------------------------------------------------------------

    def _request(self, method: str, url: str, body: dict[str, Any] | None = None) -> tuple[Any, Mapping[str, str]]:
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"archmem/{__version__}",
        }
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with _OPENER.open(request, timeout=self.timeout) as response:
                raw = response.read()
                answer_headers = response.headers
        except urllib.error.HTTPError as exc:
            raise _http_error(method, url, exc) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise GitHubApiError(f"{method} {_path(url)}: no answer from {self.api_url} ({reason})") from None
        try:
            return (json.loads(raw) if raw.strip() else None), answer_headers
        except ValueError:
            raise GitHubApiError(f"{method} {_path(url)}: the answer is not JSON") from None


class _SameHostRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect on the same host only: the token travels with every request."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        if urlsplit(newurl).netloc != urlsplit(req.full_url).netloc:
            return None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameHostRedirects)
"""No proxy settings are dropped: ``build_opener`` keeps the environment's proxies."""


def _comment(data: Any) -> Comment:
    if not isinstance(data, dict) or not isinstance(data.get("id"), int):
        raise GitHubApiError("the API answered without a comment id")
    return Comment(data["id"], str(data.get("body") or ""), data.get("html_url"))


def _path(url: str) -> str:
    return urlsplit(url).path


def _next_page(link: str, api_url: str) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, only when it stays on the API host
    (the token goes with every request)."""
    match = _NEXT.search(link or "")
    if match is None:
        return None
    url = match.group(1)
    return url if urlsplit(url).netloc == urlsplit(api_url).netloc else None


def _http_error(method: str, url: str, exc: urllib.error.HTTPError) -> GitHubApiError:
    """The API's own message, and what to do about it."""
    status = exc.code
    try:
        message = str(json.loads(exc.read() or b"{}").get("message") or exc.reason)
    except (ValueError, AttributeError, OSError):
        message = str(exc.reason)
    headers = exc.headers or {}
    where = f"{method} {_path(url)}: {status} {message}"
    if status in (403, 429) and (headers.get("x-ratelimit-remaining") == "0" or headers.get("retry-after")):
        reset = headers.get("x-ratelimit-reset")
        if reset and reset.isdigit():
            at = datetime.fromtimestamp(int(reset), tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
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
    return GitHubApiError(where, status=status, hint=hints.get(status))

"""The GitHub REST API adapter: the issue comments of a pull request (list, create,
update), with ``GITHUB_TOKEN``, against ``GITHUB_API_URL`` (GitHub Enterprise too).

Standard library only (``urllib.request``): three calls per run do not justify a
dependency, and nothing is imported until ``archmem pr --comment`` needs it. Every
failure (HTTP status, network, a body that is not JSON) is a ``GitHubApiError`` that
says what to do; the caller decides whether that fails the job.

The server is not trusted further than the token must be: each request has a total
deadline (``_Deadline``; a server trickling a byte at a time is cut there, not at a
per-read timeout), an answer larger than the cap is not read on, the token goes only
to the API's own scheme and host, over https (http only to a loopback address, for
tests), on the first request, a redirect and a next page alike (``_may_carry_token``),
and every field archmem uses is checked for its type (``"id": true`` is no comment).
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from archmem import __version__
from archmem.errors import ArchmemError
from archmem.escape import one_line
from archmem.json_input import load_json

API_VERSION = "2022-11-28"
DEFAULT_API_URL = "https://api.github.com"
TIMEOUT_SECONDS = 30.0
"""The whole of one request (connecting, sending, every byte of the answer), not one read."""
MAX_ANSWER_BYTES = 32 << 20
"""A page of 100 comments of GitHub's largest size (65,536 characters) fits."""
MAX_ERROR_BYTES = 64 << 10
"""Of an error answer only its message is read."""
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
    """An issue comment; ``author`` and ``author_type`` are its ``user.login`` and
    ``user.type`` (``Bot`` or ``User``), None when the API did not say."""

    id: int
    body: str
    url: str | None = None
    author: str | None = None
    author_type: str | None = None


class GitHubClient:
    """Issue comments of one repository (``owner/name``) through the REST API."""

    def __init__(self, *, token: str, repository: str, api_url: str = DEFAULT_API_URL,
                 timeout: float = TIMEOUT_SECONDS, max_answer_bytes: int = MAX_ANSWER_BYTES) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository or ""):
            raise GitHubApiError(f"GITHUB_REPOSITORY must be owner/name, not {repository!r}")
        api_url = (api_url or "").rstrip("/")
        if not _may_carry_token(api_url, api_url):
            raise GitHubApiError(
                f"GITHUB_API_URL must be an https URL (http only to a loopback address), not {api_url!r}",
                hint="the token goes with every request, so it never travels in clear",
            )
        self.token = token
        self.repository = repository
        self.api_url = api_url
        self.timeout = timeout
        self.max_answer_bytes = max_answer_bytes
        self._opener = _opener()

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

    # ---- the calls ---------------------------------------------------------------------

    def comments(self, number: int) -> Iterator[Comment]:
        """The pull request's issue comments, oldest first, page after page."""
        url: str | None = f"{self.api_url}/repos/{self.repository}/issues/{int(number)}/comments?per_page=100"
        pages = 0
        while url is not None and pages < MAX_PAGES:
            data, headers = self._request("GET", url)
            pages += 1
            where = f"GET {_path(url)}"
            if not isinstance(data, list):
                raise GitHubApiError(f"{where}: expected a list of comments")
            for item in data:
                yield _comment(item, where)
            url = self._next_page(headers.get("Link", ""), where)

    def create_comment(self, number: int, body: str) -> Comment:
        url = f"{self.api_url}/repos/{self.repository}/issues/{int(number)}/comments"
        data, _ = self._request("POST", url, {"body": body})
        return _comment(data, f"POST {_path(url)}")

    def update_comment(self, comment_id: int, body: str) -> Comment:
        url = f"{self.api_url}/repos/{self.repository}/issues/comments/{int(comment_id)}"
        data, _ = self._request("PATCH", url, {"body": body})
        return _comment(data, f"PATCH {_path(url)}")

    def _next_page(self, link: str, where: str) -> str | None:
        """The ``rel="next"`` URL of a ``Link`` header; one that would carry the token
        elsewhere or in clear is refused."""
        match = _NEXT.search(link or "")
        if match is None:
            return None
        url = match.group(1)
        if not _may_carry_token(url, self.api_url):
            raise GitHubApiError(f"{where}: the next page is at {_origin(url)}, not followed: the token goes only to "
                                 f"{_origin(self.api_url)}")
        return url

    # ---- HTTP --------------------------------------------------------------------------

    def _request(self, method: str, url: str, body: dict[str, Any] | None = None) -> tuple[Any, Mapping[str, str]]:
        where = f"{method} {_path(url)}"
        if not _may_carry_token(url, self.api_url):
            raise GitHubApiError(f"{where}: {_origin(url)} is not the API ({_origin(self.api_url)}): not called")
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
        deadline = _Deadline(self.timeout)
        request.archmem_deadline = deadline  # type: ignore[attr-defined]  # read by the handlers below
        request.archmem_api_url = self.api_url  # type: ignore[attr-defined]
        try:
            with deadline:
                try:
                    with self._opener.open(request, timeout=self.timeout) as response:
                        raw = _read_capped(response, self.max_answer_bytes, where)
                        answer_headers = response.headers
                except urllib.error.HTTPError as exc:
                    with exc:
                        raise _http_error(method, url, exc) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            if deadline.expired:
                raise self._too_slow(where) from None
            reason = getattr(exc, "reason", None) or exc
            raise GitHubApiError(f"{where}: no answer from {self.api_url} ({reason})") from None
        if deadline.expired:
            raise self._too_slow(where)
        try:
            return (load_json(raw) if raw.strip() else None), answer_headers
        except ValueError:
            raise GitHubApiError(f"{where}: the answer is not JSON") from None

    def _too_slow(self, where: str) -> GitHubApiError:
        return GitHubApiError(
            f"{where}: no complete answer from {self.api_url} within {self.timeout:g} s",
            hint="the server stalled or answers too slowly; if it is only slow, raise [github] timeout "
                 "(ARCHMEM_GITHUB_TIMEOUT)",
        )


class _Deadline:
    """One request's total time. Each socket the request opens (a redirect opens
    another) is registered; when the time is up they are shut down, so a read blocked
    on a server that trickles bytes returns at once, whatever the per-read timeout."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> _Deadline:
        self._timer = threading.Timer(self.seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def track(self, sock: socket.socket) -> None:
        with self._lock:
            if self.expired:
                sock.close()
                raise TimeoutError("the request's deadline passed")
            self._sockets.append(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def connection(self, http_class: Callable[..., http.client.HTTPConnection]) -> Callable[..., Any]:
        """``http_class`` whose sockets this deadline watches."""

        def make(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
            connection = http_class(*args, **kwargs)
            create = connection._create_connection  # type: ignore[attr-defined]

            def create_tracked(*a: Any, **k: Any) -> socket.socket:
                sock = create(*a, **k)
                self.track(sock)
                return sock

            connection._create_connection = create_tracked  # type: ignore[attr-defined]
            return connection

        return make


class _Watched:
    """A handler whose connections the request's ``_Deadline`` watches."""

    def do_open(self, http_class: Any, req: urllib.request.Request, **kwargs: Any) -> Any:
        deadline = getattr(req, "archmem_deadline", None)
        if deadline is not None:
            http_class = deadline.connection(http_class)
        return super().do_open(http_class, req, **kwargs)  # type: ignore[misc]


class _WatchedHTTP(_Watched, urllib.request.HTTPHandler):
    pass


class _WatchedHTTPS(_Watched, urllib.request.HTTPSHandler):
    pass


class _TokenRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only where the token may go (``_may_carry_token``): the
    token travels with every request."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        api_url = getattr(req, "archmem_api_url", req.full_url)
        if not _may_carry_token(newurl, api_url):
            raise GitHubApiError(f"{req.get_method()} {_path(req.full_url)}: redirected ({code}) to {_origin(newurl)}, "
                                 f"not followed: the token goes only to {_origin(api_url)}")
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            for name in ("archmem_deadline", "archmem_api_url"):
                if hasattr(req, name):
                    setattr(new, name, getattr(req, name))
        return new


def _opener() -> urllib.request.OpenerDirector:
    """Made per client, so it reads the environment's proxies and certificate settings
    (``SSL_CERT_FILE``) when the client is made; ``build_opener`` keeps the proxies."""
    return urllib.request.build_opener(_TokenRedirects, _WatchedHTTP, _WatchedHTTPS)


def _may_carry_token(url: str, api_url: str) -> bool:
    """Whether a request to ``url`` may carry the token: the API's own scheme and host,
    over https, or over http to a loopback address (a test's server)."""
    try:
        target, api = urlsplit(url), urlsplit(api_url)
        where = (target.scheme, target.hostname, target.port or _DEFAULT_PORTS.get(target.scheme))
        allowed = (api.scheme, api.hostname, api.port or _DEFAULT_PORTS.get(api.scheme))
    except ValueError:
        return False
    host = where[1]
    if not host or where != allowed:
        return False
    return target.scheme == "https" or (target.scheme == "http" and _is_loopback(host))


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _origin(url: str) -> str:
    """``scheme://host:port`` of a URL a server named, for a message (one line)."""
    try:
        parts = urlsplit(url)
        return one_line(f"{parts.scheme}://{parts.netloc}"[:200]) if parts.scheme and parts.netloc else repr(url[:100])
    except ValueError:
        return repr(url[:100])


def _read_capped(response: Any, limit: int, where: str) -> bytes:
    """The answer's body, refused once it grows past ``limit`` bytes."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        raise GitHubApiError(f"{where}: the answer is {int(declared):,} bytes, more than the {limit:,} archmem reads")
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read(min(1 << 16, limit + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise GitHubApiError(f"{where}: the answer is larger than the {limit:,} bytes archmem reads; not read on")
    return b"".join(chunks)


def _comment(data: Any, where: str) -> Comment:
    """A comment of the API's answer, each field checked for its type."""
    comment_id = data.get("id") if isinstance(data, dict) else None
    if type(comment_id) is not int or comment_id <= 0:
        raise GitHubApiError(f"{where}: the API answered without a comment id (id {_short(comment_id)})")
    body = data.get("body")
    if body is not None and not isinstance(body, str):
        raise GitHubApiError(f"{where}: comment {comment_id} has a body that is not text")
    user = data.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    kind = user.get("type") if isinstance(user, dict) else None
    return Comment(comment_id, body or "", _clean_url(data.get("html_url")),
                   login if isinstance(login, str) else None, kind if isinstance(kind, str) else None)


def _clean_url(value: Any) -> str | None:
    """An http(s) URL to show, or None: nothing that could break a line or a link."""
    if not isinstance(value, str) or len(value) > 2000 or not re.fullmatch(r"https?://[!-~]+", value):
        return None
    return value


def _short(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (bool, int, float, str, type(None))) else type(value).__name__
    return text[:40]


def _path(url: str) -> str:
    return one_line(urlsplit(url).path)


def _http_error(method: str, url: str, exc: urllib.error.HTTPError) -> GitHubApiError:
    """The API's own message, and what to do about it."""
    status = exc.code
    try:
        message = str(load_json(exc.read(MAX_ERROR_BYTES) or b"{}").get("message") or exc.reason)
    except (ValueError, AttributeError, OSError, http.client.HTTPException):
        message = str(exc.reason)
    message = one_line(message[:300])
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
    if method == "PATCH" and status in (403, 404):
        hints[status] = ("this token may not edit that comment, though its author is the identity archmem takes for "
                         "its own: set [github] comment_author (the action's comment-author input, "
                         "ARCHMEM_GITHUB_COMMENT_AUTHOR) to the login of the token's identity")
    return GitHubApiError(where, status=status, hint=hints.get(status))

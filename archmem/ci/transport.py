"""The one HTTP client every CI provider's API goes through (GitHub's REST API, GitLab's
API v4): JSON in and out, with the token kept where it belongs.

Standard library only (``urllib.request``): a few calls per run do not justify a
dependency, and nothing is imported until ``archmem pr --comment`` needs it. Every
failure (HTTP status, network, a body that is not JSON) is an ``ApiError`` of the
provider's own kind that says what to do; the caller decides whether that fails the job.

The server is not trusted further than the token must be: each request has a total
deadline (``_Deadline``; a server trickling a byte at a time is cut there, not at a
per-read timeout), an answer larger than the cap is not read on, the token goes only
to the API's own scheme and host, over https (http only to a loopback address, for
tests), on the first request, a redirect and a next page alike (``may_carry_token``).
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import re
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from archmem import __version__
from archmem.errors import ArchmemError
from archmem.escape import one_line
from archmem.json_input import load_json

TIMEOUT_SECONDS = 30.0
"""The whole of one request (connecting, sending, every byte of the answer), not one read."""
MAX_ANSWER_BYTES = 32 << 20
"""A page of 100 comments of GitHub's largest size (65,536 characters) fits."""
MAX_ERROR_BYTES = 64 << 10
"""Of an error answer only its message is read."""
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


MAX_PAGES = 50
"""100 a page: a pull or merge request with more than 5,000 comments is not searched further."""


class ApiError(ArchmemError):
    """A call to a CI provider's API failed; ``status`` is the HTTP status (0: no answer)."""

    exit_code = 12
    kind = "ci_api_error"

    def __init__(self, message: str, *, status: int = 0, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        data["status"] = self.status
        return data


HttpErrorReader = Callable[[str, str, urllib.error.HTTPError], ApiError]
"""``(method, url, error)`` → the provider's error with its own hints."""


class JsonTransport:
    """JSON requests to one API root with fixed headers (the token among them)."""

    def __init__(self, *, api_url: str, headers: Mapping[str, str], error: type[ApiError], http_error: HttpErrorReader,
                 url_setting: str, timeout_setting: str, timeout: float = TIMEOUT_SECONDS,
                 max_answer_bytes: int = MAX_ANSWER_BYTES) -> None:
        api_url = (api_url or "").rstrip("/")
        if not may_carry_token(api_url, api_url):
            raise error(
                f"{url_setting} must be an https URL (http only to a loopback address), not {api_url!r}",
                hint="the token goes with every request, so it never travels in clear",
            )
        for name, value in headers.items():
            if not re.fullmatch(r"[ -~]*", value):  # never shown: the value may be the token
                raise error(f"the {name} header holds a line break or another character no HTTP header may carry",
                            hint="check the variable that holds the token for a pasted line break")
        self.api_url = api_url
        self.headers = {**headers, "User-Agent": f"archmem/{__version__}"}
        self.error = error
        self.http_error = http_error
        self.timeout_setting = timeout_setting
        self.timeout = timeout
        self.max_answer_bytes = max_answer_bytes
        self._opener = _opener()

    def request(self, method: str, url: str, body: dict[str, Any] | None = None) -> tuple[Any, Mapping[str, str]]:
        """The answer's JSON (None for an empty body) and its headers."""
        where = f"{method} {path_of(url)}"
        if not may_carry_token(url, self.api_url):
            raise self.error(f"{where}: {origin(url)} is not the API ({origin(self.api_url)}): not called")
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        deadline = _Deadline(self.timeout)
        request.archmem_deadline = deadline  # type: ignore[attr-defined]  # read by the handlers below
        request.archmem_api_url = self.api_url  # type: ignore[attr-defined]  # ditto
        request.archmem_error = self.error  # type: ignore[attr-defined]  # ditto
        try:
            with deadline:
                try:
                    with self._opener.open(request, timeout=self.timeout) as response:
                        raw = self._read_capped(response, where)
                        answer_headers = response.headers
                except urllib.error.HTTPError as exc:
                    with exc:
                        raise self.http_error(method, url, exc) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            if deadline.expired:
                raise self._too_slow(where) from None
            reason = getattr(exc, "reason", None) or exc
            raise self.error(f"{where}: no answer from {self.api_url} ({reason})") from None
        if deadline.expired:
            raise self._too_slow(where)
        try:
            return (load_json(raw) if raw.strip() else None), answer_headers
        except ValueError:
            raise self.error(f"{where}: the answer is not JSON") from None

    def pages(self, url: str, what: str, *, max_pages: int = MAX_PAGES) -> Iterator[tuple[list[Any], str]]:
        """Each page of a list the API answers page after page (``Link: rel="next"``), with
        where it came from, at most ``max_pages``; an answer that is not a list is an error."""
        next_url: str | None = url
        for _ in range(max_pages):
            if next_url is None:
                return
            data, headers = self.request("GET", next_url)
            where = f"GET {path_of(next_url)}"
            if not isinstance(data, list):
                raise self.error(f"{where}: expected a list of {what}")
            yield data, where
            next_url = self.next_page(headers.get("Link", ""), where)

    def next_page(self, link: str, where: str) -> str | None:
        """The ``rel="next"`` URL of a ``Link`` header; one that would carry the token
        elsewhere or in clear is refused."""
        match = _NEXT.search(link or "")
        if match is None:
            return None
        url = match.group(1)
        if not may_carry_token(url, self.api_url):
            raise self.error(f"{where}: the next page is at {origin(url)}, not followed: the token goes only to "
                             f"{origin(self.api_url)}")
        return url

    def _too_slow(self, where: str) -> ApiError:
        return self.error(
            f"{where}: no complete answer from {self.api_url} within {self.timeout:g} s",
            hint=f"the server stalled or answers too slowly; if it is only slow, raise {self.timeout_setting}",
        )

    def _read_capped(self, response: Any, where: str) -> bytes:
        """The answer's body, refused once it grows past the cap."""
        limit = self.max_answer_bytes
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > limit:
            raise self.error(f"{where}: the answer is {int(declared):,} bytes, more than the {limit:,} archmem reads")
        chunks: list[bytes] = []
        size = 0
        while chunk := response.read(min(1 << 16, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise self.error(f"{where}: the answer is larger than the {limit:,} bytes archmem reads; not read on")
        return b"".join(chunks)


def error_message(exc: urllib.error.HTTPError, *keys: str) -> str:
    """The first of ``keys`` an error answer's JSON holds as text, else the HTTP reason;
    on one line and short."""
    try:
        data = load_json(exc.read(MAX_ERROR_BYTES) or b"{}")
        found = next((data[k] for k in keys if isinstance(data, dict) and data.get(k)), None)
        message = str(found if found is not None else exc.reason)
    except (ValueError, AttributeError, OSError, http.client.HTTPException):
        message = str(exc.reason)
    return one_line(message[:300])


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
            create = connection._create_connection  # type: ignore[attr-defined]  # private hook

            def create_tracked(*a: Any, **k: Any) -> socket.socket:
                sock = create(*a, **k)
                self.track(sock)
                return sock

            connection._create_connection = create_tracked  # type: ignore[attr-defined]  # private hook
            return connection

        return make


class _Watched:
    """A handler whose connections the request's ``_Deadline`` watches."""

    def do_open(self, http_class: Any, req: urllib.request.Request, **kwargs: Any) -> Any:
        deadline = getattr(req, "archmem_deadline", None)
        if deadline is not None:
            http_class = deadline.connection(http_class)
        return super().do_open(http_class, req, **kwargs)  # type: ignore[misc]  # wrapped class


class _WatchedHTTP(_Watched, urllib.request.HTTPHandler):
    pass


class _WatchedHTTPS(_Watched, urllib.request.HTTPSHandler):
    pass


class _TokenRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only where the token may go (``may_carry_token``): the
    token travels with every request."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        api_url = getattr(req, "archmem_api_url", req.full_url)
        if not may_carry_token(newurl, api_url):
            error = getattr(req, "archmem_error", ApiError)
            raise error(f"{req.get_method()} {path_of(req.full_url)}: redirected ({code}) to {origin(newurl)}, "
                        f"not followed: the token goes only to {origin(api_url)}")
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            for name in ("archmem_deadline", "archmem_api_url", "archmem_error"):
                if hasattr(req, name):
                    setattr(new, name, getattr(req, name))
        return new


def _opener() -> urllib.request.OpenerDirector:
    """Made per client, so it reads the environment's proxies and certificate settings
    (``SSL_CERT_FILE``) when the client is made; ``build_opener`` keeps the proxies."""
    return urllib.request.build_opener(_TokenRedirects, _WatchedHTTP, _WatchedHTTPS)


def may_carry_token(url: str, api_url: str) -> bool:
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


def origin(url: str) -> str:
    """``scheme://host:port`` of a URL a server named, for a message (one line)."""
    try:
        parts = urlsplit(url)
        return one_line(f"{parts.scheme}://{parts.netloc}"[:200]) if parts.scheme and parts.netloc else repr(url[:100])
    except ValueError:
        return repr(url[:100])


def path_of(url: str) -> str:
    return one_line(urlsplit(url).path)


def clean_url(value: Any) -> str | None:
    """An http(s) URL to show, or None: nothing that could break a line or a link."""
    if not isinstance(value, str) or len(value) > 2000 or not re.fullmatch(r"https?://[!-~]+", value):
        return None
    return value


def short(value: Any) -> str:
    """A value a server sent, for a message: JSON scalars as JSON, else their type."""
    text = json.dumps(value) if isinstance(value, (bool, int, float, str, type(None))) else type(value).__name__
    return text[:40]

"""A small GitHub REST API on 127.0.0.1 for the pull request comment tests: it keeps the
issue comments of pull requests in memory, pages them (Link: rel="next"), checks every
request's method, path, headers and body, and can be told to answer with an error.

For the hostile-server tests it can also serve TLS (``tls``: on the same port as plain
http, told apart by the first byte, so ``https://127.0.0.1:N`` and ``http://127.0.0.1:N``
are one host), alter its JSON answers (``tamper``) or answer a request itself, raw
(``raw``: trickle, send without end, redirect)."""

from __future__ import annotations

import json
import socket
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

TOKEN = "ghs_loopbacktoken"
REPOSITORY = "shop-team/shop"


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    tls: bool = False


class ServedOnLoopback:
    """A fake API served on 127.0.0.1 from a thread while the ``with`` block runs."""

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@dataclass
class FakeGitHub(ServedOnLoopback):
    """``url`` is the API root; ``comments`` per pull request number; ``fail`` an
    (status, headers, message) every request answers with instead."""

    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    fail: tuple[int, dict[str, str], str] | None = None
    page_size: int = 2
    next_id: int = 1000
    tls: ssl.SSLContext | None = None
    tamper: Callable[[Seen, Any], Any] | None = None
    """Given each request and the JSON answer, returns the answer to send instead."""
    raw: Callable[[BaseHTTPRequestHandler, Seen], bool] | None = None
    """Answers a request itself (True) or leaves it to the fake (False)."""

    def __post_init__(self) -> None:
        self.serve(type("Handler", (_Handler,), {"github": self}))

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}"

    @property
    def host(self) -> str:
        host, port = self.server.server_address[:2]
        return f"{host}:{port}"


    def add_comment(self, number: int, body: str, user: str = "someone", user_type: str | None = None) -> dict[str, Any]:
        """A comment by ``user``: a ``Bot`` when the login ends in ``[bot]``, as on GitHub."""
        self.next_id += 1
        kind = user_type or ("Bot" if user.endswith("[bot]") else "User")
        comment = {"id": self.next_id, "body": body, "user": {"login": user, "type": kind},
                   "html_url": f"https://github.example/{REPOSITORY}/pull/{number}#issuecomment-{self.next_id}"}
        self.comments.setdefault(number, []).append(comment)
        return comment

    def writes(self) -> list[Seen]:
        return [r for r in self.requests if r.method != "GET"]


class JsonHandler(BaseHTTPRequestHandler):
    """What a fake JSON API's handler shares (this one and ``loopback_gitlab``'s): quiet
    logs, each request read as a ``Seen``, JSON answers."""

    tls = False
    content_type = "application/json"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _read(self) -> tuple[Seen, Any]:
        """The request as seen, and its URL's parts."""
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        return Seen(self.command, parts.path, parse_qs(parts.query), {k.lower(): v for k, v in self.headers.items()},
                    body, self.tls), parts

    def _send_json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(raw)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)


class _Handler(JsonHandler):
    github: FakeGitHub
    content_type = "application/json; charset=utf-8"

    def setup(self) -> None:
        """TLS when the client starts a handshake (first byte 0x16), plain http otherwise."""
        self.tls = False
        context = self.github.tls
        if context is not None:
            self.request.settimeout(10)
            if self.request.recv(1, socket.MSG_PEEK) == b"\x16":
                self.request = context.wrap_socket(self.request, server_side=True)
                self.tls = True
            self.request.settimeout(None)
        super().setup()

    def _answer(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        if self.github.tamper is not None:
            data = self.github.tamper(self.seen, data)
        self._send_json(status, data, headers)

    def _handle(self) -> None:
        github = self.github
        seen, parts = self._read()
        body = seen.body
        self.seen = seen
        github.requests.append(seen)
        if github.raw is not None and github.raw(self, seen):
            return None
        expected = {"authorization": f"Bearer {TOKEN}", "accept": "application/vnd.github+json",
                    "x-github-api-version": "2022-11-28"}
        for key, value in expected.items():
            if seen.headers.get(key) != value:
                github.problems.append(f"{self.command} {parts.path}: header {key} is {seen.headers.get(key)!r}")
        if not seen.headers.get("user-agent", "").startswith("archmem/"):
            github.problems.append(f"{self.command} {parts.path}: user-agent {seen.headers.get('user-agent')!r}")
        if seen.headers.get("authorization") != f"Bearer {TOKEN}":
            return self._answer(401, {"message": "Bad credentials"})
        if github.fail is not None:
            status, headers, message = github.fail
            return self._answer(status, {"message": message}, headers)
        prefix = f"/repos/{REPOSITORY}/issues/"
        if not parts.path.startswith(prefix):
            return self._answer(404, {"message": "Not Found"})
        rest = parts.path[len(prefix):].split("/")
        if self.command in ("POST", "PATCH") and (
                seen.headers.get("content-type") != "application/json" or not isinstance(body, dict)
                or set(body) != {"body"} or not isinstance(body["body"], str)):
                github.problems.append(f"{self.command} {parts.path}: body {body!r}")
                return self._answer(422, {"message": "Validation Failed"})
        if len(rest) == 2 and rest[0].isdigit() and rest[1] == "comments":
            number = int(rest[0])
            if self.command == "GET":
                page = int(seen.query.get("page", ["1"])[0])
                if seen.query.get("per_page") != ["100"]:
                    github.problems.append(f"GET {parts.path}: per_page {seen.query.get('per_page')}")
                items = github.comments.get(number, [])
                size = github.page_size
                chunk = items[(page - 1) * size : page * size]
                headers = {}
                if page * size < len(items):
                    headers["Link"] = f'<{github.url}{parts.path}?per_page=100&page={page + 1}>; rel="next"'
                return self._answer(200, chunk, headers)
            if self.command == "POST":
                return self._answer(201, github.add_comment(number, body["body"], user="github-actions[bot]"))
        if len(rest) == 2 and rest[0] == "comments" and rest[1].isdigit() and self.command == "PATCH":
            for items in github.comments.values():
                for comment in items:
                    if comment["id"] == int(rest[1]):
                        comment["body"] = body["body"]
                        return self._answer(200, comment)
        return self._answer(404, {"message": "Not Found"})

    do_GET = do_POST = do_PATCH = _handle

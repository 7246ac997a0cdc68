"""A small GitLab API v4 on 127.0.0.1 for the merge request note tests: it keeps the notes
of merge requests in memory, pages them (``Link: rel="next"``, as GitLab does), answers
``GET /user`` for the token, checks every request's method, path, headers and body, and
can be told to answer with an error. Modelled on ``loopback_github.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .loopback_github import JsonHandler, Seen, ServedOnLoopback

TOKEN = "glpat-loopbacktoken"
PROJECT = "4242"
BOT = {"id": 77, "username": "project_4242_bot_archmem", "name": "archmem"}
"""The project access token's user: the identity archmem's notes are written by."""


@dataclass
class FakeGitLab(ServedOnLoopback):
    """``url`` is the API root (``CI_API_V4_URL``); ``notes`` per merge request iid;
    ``fail`` a (status, headers, message) every request answers with instead."""

    notes: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    fail: tuple[int, dict[str, str], str] | None = None
    page_size: int = 2
    next_id: int = 5000
    user: dict[str, Any] = field(default_factory=lambda: dict(BOT))

    def __post_init__(self) -> None:
        self.serve(type("Handler", (_Handler,), {"gitlab": self}))

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/api/v4"


    def add_note(self, iid: int, body: str, author: dict[str, Any] | None = None, *,
                 system: bool = False) -> dict[str, Any]:
        """A note by ``author`` (someone else unless told)."""
        self.next_id += 1
        note = {"id": self.next_id, "body": body, "system": system, "noteable_iid": iid,
                "author": author or {"id": 12, "username": "someone", "name": "Some One"}}
        self.notes.setdefault(iid, []).append(note)
        return note

    def writes(self) -> list[Seen]:
        return [r for r in self.requests if r.method != "GET"]


class _Handler(JsonHandler):
    gitlab: FakeGitLab

    def _answer(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        self._send_json(status, data, headers)

    def _handle(self) -> None:
        gitlab = self.gitlab
        seen, parts = self._read()
        body = seen.body
        gitlab.requests.append(seen)
        where = f"{self.command} {parts.path}"
        if "authorization" in seen.headers or "job-token" in seen.headers:
            gitlab.problems.append(f"{where}: a token in another header than PRIVATE-TOKEN")
        if not seen.headers.get("user-agent", "").startswith("archmem/"):
            gitlab.problems.append(f"{where}: user-agent {seen.headers.get('user-agent')!r}")
        if seen.headers.get("private-token") != TOKEN:
            return self._answer(401, {"message": "401 Unauthorized"})
        if gitlab.fail is not None:
            status, headers, message = gitlab.fail
            return self._answer(status, {"message": message}, headers)
        if parts.path == "/api/v4/user" and self.command == "GET":
            return self._answer(200, gitlab.user)
        prefix = f"/api/v4/projects/{PROJECT}/merge_requests/"
        if not parts.path.startswith(prefix):
            return self._answer(404, {"message": "404 Project Not Found"})
        rest = parts.path[len(prefix):].split("/")
        if self.command in ("POST", "PUT") and (
                seen.headers.get("content-type") != "application/json" or not isinstance(body, dict)
                or set(body) != {"body"} or not isinstance(body["body"], str)):
                gitlab.problems.append(f"{where}: body {body!r}")
                return self._answer(400, {"message": "400 Bad request - body is missing"})
        if len(rest) < 2 or not rest[0].isdigit() or rest[1] != "notes":
            return self._answer(404, {"message": "404 Not found"})
        iid = int(rest[0])
        if len(rest) == 2 and self.command == "GET":
            expected = {"sort": ["asc"], "order_by": ["created_at"], "per_page": ["100"]}
            for key, value in expected.items():
                if seen.query.get(key) != value:
                    gitlab.problems.append(f"{where}: {key} {seen.query.get(key)}")
            page = int(seen.query.get("page", ["1"])[0])
            items = gitlab.notes.get(iid, [])
            size = gitlab.page_size
            headers = {"X-Page": str(page)}
            if page * size < len(items):
                headers["Link"] = (f'<{gitlab.url}/projects/{PROJECT}/merge_requests/{iid}/notes?sort=asc&'
                                   f'order_by=created_at&per_page=100&page={page + 1}>; rel="next"')
            return self._answer(200, items[(page - 1) * size : page * size], headers)
        if len(rest) == 2 and self.command == "POST":
            return self._answer(201, gitlab.add_note(iid, body["body"], dict(gitlab.user)))
        if len(rest) == 3 and rest[2].isdigit() and self.command == "PUT":
            for note in gitlab.notes.get(iid, []):
                if note["id"] == int(rest[2]):
                    if note["author"].get("id") != gitlab.user.get("id"):
                        return self._answer(403, {"message": "403 Forbidden"})
                    note["body"] = body["body"]
                    return self._answer(200, note)
        return self._answer(404, {"message": "404 Not found"})

    do_GET = do_POST = do_PUT = do_PATCH = _handle

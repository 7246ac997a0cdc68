"""The GitLab API v4: the notes of a merge request (list, create, update) and the token's
own user, against ``CI_API_V4_URL`` (gitlab.com or a self-managed instance), through
the shared hardened client (``archmem.ci.transport``).

The token is an access token (personal, project or group, with the ``api`` scope) sent
as ``PRIVATE-TOKEN``. GitLab's job token (``CI_JOB_TOKEN``, the ``JOB-TOKEN`` header)
reaches only a short list of endpoints, and merge request notes are not among them, so
it is refused here with the fix instead of failing at the first call. Every field
archmem uses is checked for its type.
"""

from __future__ import annotations

import re
import urllib.error
from collections.abc import Iterator
from email.message import Message

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
from archmem.ci.types import Comment, Identity

TOKEN_HINT = ("create a project access token with the api scope and the Reporter role, and store it as a masked "
              "CI/CD variable named as [gitlab] token_variable says (GITLAB_TOKEN by default)")


class GitLabApiError(ApiError):
    """A call to the GitLab API failed; ``status`` is the HTTP status (0: no answer)."""

    kind = "gitlab_api_error"


class GitLabClient:
    """Notes of one project's merge requests (``project`` is ``CI_PROJECT_ID``).
    ``web_url`` is the project's page, for a link to each note."""

    def __init__(self, *, token: str, project: str, api_url: str, web_url: str | None = None,
                 timeout: float = TIMEOUT_SECONDS, max_answer_bytes: int = MAX_ANSWER_BYTES) -> None:
        if not re.fullmatch(r"[1-9][0-9]{0,18}", project or ""):
            raise GitLabApiError(f"CI_PROJECT_ID must be the project's number, not {project!r}")
        if not token.strip():
            raise GitLabApiError("no GitLab token, so no note can be posted", hint=TOKEN_HINT)
        self.transport = JsonTransport(
            api_url=api_url, headers={"PRIVATE-TOKEN": token.strip(), "Accept": "application/json"},
            error=GitLabApiError, http_error=_http_error, url_setting="CI_API_V4_URL",
            timeout_setting="[gitlab] timeout (ARCHMEM_GITLAB_TIMEOUT)", timeout=timeout,
            max_answer_bytes=max_answer_bytes,
        )
        self.project = project
        self.api_url = self.transport.api_url
        self.web_url = clean_url((web_url or "").rstrip("/"))

    def identity(self) -> Identity:
        """Who the token writes as (``GET /user``): the notes archmem may rewrite are its."""
        url = f"{self.api_url}/user"
        data, _ = self.transport.request("GET", url)
        user_id = data.get("id") if isinstance(data, dict) else None
        username = data.get("username") if isinstance(data, dict) else None
        if type(user_id) is not int or user_id <= 0 or not isinstance(username, str) or not username:
            raise GitLabApiError(f"GET {path_of(url)}: the API answered without the token's user (id "
                                 f"{short(user_id)}, username {short(username)})")
        return Identity(username, user_id)

    def comments(self, number: int) -> Iterator[Comment]:
        """The merge request's notes, oldest first, page after page; GitLab's own system
        notes ("added 1 commit") are not comments anyone wrote."""
        url = f"{self._notes(number)}?sort=asc&order_by=created_at&per_page=100"
        for page, where in self.transport.pages(url, "notes"):
            for item in page:
                if not (isinstance(item, dict) and item.get("system") is True):
                    yield self._note(item, number, where)

    def create_comment(self, number: int, body: str) -> Comment:
        url = self._notes(number)
        data, _ = self.transport.request("POST", url, {"body": body})
        return self._note(data, number, f"POST {path_of(url)}")

    def update_comment(self, number: int, comment_id: int, body: str) -> Comment:
        url = f"{self._notes(number)}/{int(comment_id)}"
        data, _ = self.transport.request("PUT", url, {"body": body})
        return self._note(data, number, f"PUT {path_of(url)}")

    def _notes(self, number: int) -> str:
        return f"{self.api_url}/projects/{self.project}/merge_requests/{int(number)}/notes"

    def _note(self, data: object, number: int, where: str) -> Comment:
        """A note of the API's answer, each field checked for its type."""
        note_id = data.get("id") if isinstance(data, dict) else None
        if not isinstance(data, dict) or type(note_id) is not int or note_id <= 0:
            raise GitLabApiError(f"{where}: the API answered without a note id (id {short(note_id)})")
        body = data.get("body")
        if body is not None and not isinstance(body, str):
            raise GitLabApiError(f"{where}: note {note_id} has a body that is not text")
        author = data.get("author")
        username = author.get("username") if isinstance(author, dict) else None
        author_id = author.get("id") if isinstance(author, dict) else None
        url = f"{self.web_url}/-/merge_requests/{int(number)}#note_{note_id}" if self.web_url else None
        return Comment(note_id, body or "", url, username if isinstance(username, str) else None, None,
                       author_id if type(author_id) is int else None)


def _http_error(method: str, url: str, exc: urllib.error.HTTPError) -> GitLabApiError:
    """The API's own message, and what to do about it."""
    status = exc.code
    where = f"{method} {path_of(url)}: {status} {error_message(exc, 'message', 'error_description', 'error')}"
    headers: Message | dict[str, str] = exc.headers or {}
    if status == 429:
        reset = headers.get("RateLimit-ResetTime") or (f"in {headers.get('Retry-After')} seconds"
                                                       if headers.get("Retry-After") else "later")
        return GitLabApiError(f"{where} (rate limit reached; it resets {reset})", status=status,
                              hint="run the job again after that")
    hints = {
        401: f"the token is missing, expired or revoked: {TOKEN_HINT}",
        403: "the token may not write notes on this merge request: it needs the api scope and at least the "
             "Reporter role in the project",
        404: "no such project or merge request for this token (check CI_PROJECT_ID and that the token can read "
             "the project)",
    }
    if method == "PUT" and status in (403, 404):
        hints[status] = ("this token may not edit that note, though GitLab names the token's own user as its "
                         "author: check the token's role in the project")
    return GitLabApiError(where, status=status, hint=hints.get(status))

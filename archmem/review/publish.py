"""One comment per pull request (a note per merge request on GitLab), updated in place: find it by its hidden marker and its
author, create it the first time there is something to say, rewrite it on later pushes,
and turn it into "nothing to check any more" rather than leave a stale warning behind.

Anyone can write the marker into a comment, so a comment is archmem's only when the
token's identity wrote it (``is_own``): archmem never rewrites another user's comment,
and one that merely imitates archmem's is left alone while archmem posts its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from archmem.ci.types import Comment, Identity
from archmem.review.markdown import MARKER
from archmem.values import Value


class CommentsApi(Protocol):
    """What publishing needs of a CI provider's API (``archmem.ci.github_api.GitHubClient``,
    ``archmem.ci.gitlab_api.GitLabClient``)."""

    def comments(self, number: int) -> Iterable[Comment]: ...

    def create_comment(self, number: int, body: str) -> Comment: ...

    def update_comment(self, number: int, comment_id: int, body: str) -> Comment: ...


@dataclass(frozen=True, repr=False, eq=False)
class Published(Value):
    """``created``, ``updated``, ``unchanged`` (the same text is there already) or
    ``skipped`` (nothing to say and no earlier comment)."""

    action: str
    comment_id: int | None = None
    url: str | None = None
    warning: str | None = None
    """What the caller should say: the comment was posted by another identity than the
    configured one, so the next run will not find it."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "comment_id": self.comment_id, "url": self.url}
        if self.warning:
            data["warning"] = self.warning
        return data


DEFAULT_AUTHOR = "github-actions[bot]"
"""The identity ``GITHUB_TOKEN`` writes as."""


def is_own(comment: Comment, author: str | Identity = DEFAULT_AUTHOR) -> bool:
    """Whether ``comment`` was written by ``author``, the token's identity: the same
    login (GitHub and GitLab compare logins case-insensitively), the same user number
    when the API told the token's, and a ``Bot`` account exactly when the login is a
    bot's (``…[bot]``), so a user can never pass for the bot."""
    identity = author if isinstance(author, Identity) else Identity(author)
    if comment.author is None or comment.author.casefold() != identity.login.casefold():
        return False
    if identity.id is not None and comment.author_id != identity.id:
        return False
    return (comment.author_type == "Bot") == identity.login.endswith("[bot]")


def find_comment(api: CommentsApi, number: int, *, author: str | Identity = DEFAULT_AUTHOR) -> Comment | None:
    """archmem's earlier comment on the pull request: the first one with the marker
    that ``author`` wrote."""
    return next((c for c in api.comments(number) if is_own(c, author) and c.body.lstrip().startswith(MARKER)), None)


def _posted_as_another(created: Comment, author: str | Identity) -> str | None:
    """The warning for a comment the token posted under another login than ``author``:
    archmem would not know it for its own, and would post a new one on every push."""
    if created.author is None or is_own(created, author):
        return None
    identity = author if isinstance(author, Identity) else Identity(author)
    if identity.id is not None:  # the API named the token's user: nothing to configure
        return (f"the note was posted as {created.author}, not as the token's user {identity.login}: archmem will "
                "not know it for its own, and each run posts another")
    return (f"the comment was posted as {created.author}, but archmem updates only comments by {identity.login}: set "
            f"[github] comment_author (the action's comment-author input, ARCHMEM_GITHUB_COMMENT_AUTHOR) to "
            f"{created.author}, or each run posts another comment")


def publish(api: CommentsApi, number: int, body: str, *, nothing_to_say: bool, resolved: str,
            author: str | Identity = DEFAULT_AUTHOR) -> Published:
    """Create or update the one comment; with nothing to say, only an earlier comment is
    touched (rewritten to ``resolved``). ``author`` is the token's identity (a login on
    GitHub, the user ``GET /user`` names on GitLab)."""
    existing = find_comment(api, number, author=author)
    if nothing_to_say:
        if existing is None:
            return Published("skipped")
        body = resolved
    if existing is None:
        created = api.create_comment(number, body)
        return Published("created", created.id, created.url, _posted_as_another(created, author))
    if existing.body.strip() == body.strip():
        return Published("unchanged", existing.id, existing.url)
    updated = api.update_comment(number, existing.id, body)
    return Published("updated", updated.id, updated.url or existing.url)

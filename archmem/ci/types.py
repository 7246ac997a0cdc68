"""The values a CI provider hands the review: a comment (GitHub) or note (GitLab) on
the change, and the identity a token writes as."""

from __future__ import annotations

from dataclasses import dataclass

from archmem.values import Value


@dataclass(frozen=True, repr=False, eq=False)
class Comment(Value):
    """A comment on a pull request or a note on a merge request; ``author`` and
    ``author_type`` are GitHub's ``user.login`` and ``user.type`` (``Bot`` or ``User``)
    or GitLab's ``author.username`` (no type), ``author_id`` the author's number where
    the provider names the token's identity by it; None when the API did not say."""

    id: int
    body: str
    url: str | None = None
    author: str | None = None
    author_type: str | None = None
    author_id: int | None = None


@dataclass(frozen=True, repr=False, eq=False)
class Identity(Value):
    """Who the token writes as: a login, and its number when the API told (GitLab's
    ``GET /user``); GitHub's ``GITHUB_TOKEN`` cannot ask, so its login is configured."""

    login: str
    id: int | None = None

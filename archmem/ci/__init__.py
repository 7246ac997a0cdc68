"""CI providers: GitHub Actions and GitLab CI behind one interface (``CiProvider``), so
``archmem pr`` asks the same questions wherever it runs: where the change is, where a
file at head is shown, and through which API (and as whom) the one comment is posted.

The provider is the one the environment names (``GITLAB_CI=true`` for GitLab); anything
else is GitHub, which outside Actions finds no event and leaves base and head to the
flags and the default branch. Each provider's own outputs (GitHub's annotations, job
summary and step outputs) live in its modules; the API clients share one hardened HTTP
transport (``archmem.ci.transport``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from archmem.ci.types import Identity
    from archmem.config import Config
    from archmem.review.publish import CommentsApi
    from archmem.review.pull_request import PullRequestRef


class CiProvider(Protocol):
    """What ``archmem pr`` needs of the CI it runs in."""

    comment_noun: str
    """What the one comment is called where it is posted, for messages."""
    no_change: str
    """Why there is nothing to comment on outside a pull (merge) request, with the fix."""

    def change(self) -> PullRequestRef | None:
        """The pull (merge) request the run is for: base, head, number; None outside one."""
        ...

    def link_base(self, head: str) -> str | None:
        """The URL a file's path at ``head`` is appended to, to show it."""
        ...

    def comment_api(self) -> tuple[CommentsApi, Identity]:
        """The API the one comment goes through, and the identity its token writes as."""
        ...


def provider(env: Mapping[str, str], config: Config) -> CiProvider:
    """The CI provider of this run: GitLab CI when ``GITLAB_CI`` is ``true``, else GitHub."""
    if env.get("GITLAB_CI", "").strip().lower() == "true":
        from archmem.ci.gitlab import GitLabCi

        return GitLabCi(env, config.gitlab)
    from archmem.ci.github import GitHubActions

    return GitHubActions(env, config.github)

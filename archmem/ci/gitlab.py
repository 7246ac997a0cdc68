"""GitLab CI as a CI provider: where the change is (a merge request pipeline's
predefined variables), and the one note on the merge request through the API v4.

Findings reach the merge request's widget through ``--format codequality`` and an
``artifacts: reports: codequality`` file; GitLab has no step outputs to write.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from archmem.ci.types import Identity
from archmem.errors import InvalidInputError

if TYPE_CHECKING:
    from archmem.config import GitLabConfig
    from archmem.review.publish import CommentsApi
    from archmem.review.pull_request import PullRequestRef

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class GitLabCi:
    """The CI provider of a GitLab CI job (``GITLAB_CI=true``)."""

    comment_noun = "merge request note"
    no_change = ("no merge request to comment on: run in a merge request pipeline (CI_MERGE_REQUEST_IID; "
                 "rules: - if: $CI_PIPELINE_SOURCE == \"merge_request_event\")")

    def __init__(self, env: Mapping[str, str], settings: GitLabConfig) -> None:
        self.env = env
        self.settings = settings

    def _var(self, name: str) -> str:
        return self.env.get(name, "").strip()

    def change(self) -> PullRequestRef | None:
        """Base and head of the merge request the pipeline runs for: the diff base
        (``CI_MERGE_REQUEST_DIFF_BASE_SHA``) and the source branch's head, which is
        ``CI_COMMIT_SHA`` except in a merged results pipeline, where that is GitLab's
        merge commit and the head is ``CI_MERGE_REQUEST_SOURCE_BRANCH_SHA`` (as on
        GitHub, whose checkout is a merge commit too); None in a pipeline for a branch
        or a tag."""
        iid = self._var("CI_MERGE_REQUEST_IID")
        if not iid:
            return None
        if not re.fullmatch(r"[1-9][0-9]{0,18}", iid):
            raise InvalidInputError(f"CI_MERGE_REQUEST_IID must be the merge request's number, not {iid!r}")
        head_variable = "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA" if self._var("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA") \
            else "CI_COMMIT_SHA"
        base, head = self._var("CI_MERGE_REQUEST_DIFF_BASE_SHA"), self._var(head_variable)
        for name, value in (("CI_MERGE_REQUEST_DIFF_BASE_SHA", base), (head_variable, head)):
            if not _SHA.fullmatch(value):
                raise InvalidInputError(f"{name} is not a commit ({value[:80]!r}), so the merge request's change "
                                        "is unknown", hint="archmem pr --base SHA --head SHA")
        from archmem.review.pull_request import PullRequestRef

        project_url = self._project_url()
        return PullRequestRef(
            base=base, head=head, number=int(iid), title=self._var("CI_MERGE_REQUEST_TITLE") or None,
            url=f"{project_url}/-/merge_requests/{iid}" if project_url else None,
            base_ref=self._var("CI_MERGE_REQUEST_TARGET_BRANCH_NAME") or None,
            head_ref=self._var("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME") or None,
        )

    def link_base(self, head: str) -> str | None:
        """Where files at head are shown (``{project}/-/blob/{sha}/``)."""
        project_url = self._var("CI_PROJECT_URL")
        return f"{project_url.rstrip('/')}/-/blob/{head}/" if _is_web_url(project_url) else None

    def comment_api(self) -> tuple[CommentsApi, Identity]:
        """The API client with the access token the configured variable holds, and the
        token's own user (asked of GitLab, so no login needs configuring)."""
        from archmem.ci.gitlab_api import TOKEN_HINT, GitLabApiError, GitLabClient

        variable = self.settings.token_variable
        token = self._var(variable)
        if not token:
            job_token = " (CI_JOB_TOKEN cannot write merge request notes)" if self._var("CI_JOB_TOKEN") else ""
            raise GitLabApiError(f"{variable} is not set, so no note can be posted{job_token}", hint=TOKEN_HINT)
        if not self._var("CI_API_V4_URL"):
            raise GitLabApiError("CI_API_V4_URL is not set, so no note can be posted (is this a GitLab CI job?)")
        client = GitLabClient(
            token=token, project=self._var("CI_MERGE_REQUEST_PROJECT_ID") or self._var("CI_PROJECT_ID"),
            api_url=self._var("CI_API_V4_URL"), web_url=self._project_url(), timeout=self.settings.timeout,
            max_answer_bytes=self.settings.max_answer_bytes,
        )
        return client, client.identity()

    def _project_url(self) -> str | None:
        """The project the merge request lives in (the target, for one from a fork)."""
        url = self._var("CI_MERGE_REQUEST_PROJECT_URL") or self._var("CI_PROJECT_URL")
        return url.rstrip("/") if _is_web_url(url) else None


def _is_web_url(value: str) -> bool:
    return bool(re.fullmatch(r"https?://[!-~]{1,2000}", value))

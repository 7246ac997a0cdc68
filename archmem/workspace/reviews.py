"""The ``Workspace``'s reviews of the code: conformance and pull requests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from archmem.errors import InvalidInputError

if TYPE_CHECKING:
    from archmem.conformance.types import ConformanceReport
    from archmem.review.publish import Published
    from archmem.review.pull_request import PullRequestReview


class ReviewOps:
    """Conformance (``archmem/conformance/``) and pull request reviews (``archmem/review/``)."""

    def conformance(self) -> ConformanceReport:
        """The code's imports against the model's relationships and the ``[conformance]``
        rules: undeclared dependencies with their import sites, relationships without code,
        cycles, rule violations (docs/conformance.md). Imports are cached per file
        content in the store, so a second run reads only changed files; the report is
        kept until ``refresh()``."""
        report = self.__dict__.get("_conformance")
        if report is None:
            from archmem.conformance.engine import check_conformance
            from archmem.store.imports import ImportCache

            report = check_conformance(
                files=self.repository.files(), hashes=self.repository.content_hashes, read=self.repository.read_bytes,
                model=self.model, ownership=self.ownership, config=self.config.conformance,
                cache=ImportCache(self.store), config_source=self.config.source,
            )
            self.__dict__["_conformance"] = report
        return report

    def pull_request_review(
        self, *, base: str | None = None, head: str | None = None, deepen: bool = False
    ) -> PullRequestReview:
        """What the change ``base...head`` touches and what to check before merging it
        (``archmem pr``). Without flags, base and head come from the pull request event
        of a GitHub Actions run (``GITHUB_EVENT_PATH``), else the default branch and HEAD.
        The model, the memories and drift are read at the checkout, which must hold head."""
        from archmem.model.paths import compile_globs
        from archmem.review.accept_changes import accept_changes, is_accept_file
        from archmem.review.github import link_base, pull_request_from_event, read_event
        from archmem.review.memory_changes import memory_changes
        from archmem.review.pull_request import resolve_change, review_pull_request

        view = self.drift_view(deepen=deepen)
        checkout = view.scan.head  # a shallow clone is refused (or deepened) before any diff
        self.__dict__["drift"] = view
        revisions = view.revisions
        ref = resolve_change(revisions, base=base, head=head, checkout=checkout,
                             event=pull_request_from_event(read_event(self.env)))
        merge_base = revisions.merge_base(ref.base, ref.head)
        changed = revisions.changed_files(merge_base, ref.head)
        folder = self.config.store.memories.strip("/") + "/"
        memory_files = [f for f in changed if f.path.startswith(folder) and f.path.endswith(".md")]
        accepts = self.config.store.accepts
        accept_files = [f for f in changed if any(is_accept_file(p, accepts) for p in f.paths)]
        ignored = compile_globs(self._drift_config.ignore)
        code = [f for f in changed if f not in memory_files and f not in accept_files
                and not all(ignored(p) for p in f.paths)]
        brought = {p for f in accept_files for p in f.paths}
        return review_pull_request(
            ref, merge_base=merge_base, code=code, model=self.model, ownership=self.ownership,
            recall=lambda task, files: self.recall(task, changed_files=files, limit=60),
            memories=self.store.list_memories(status="active"), stale=view.stale,
            new_commits=revisions.commits_between(ref.base, checkout or ref.head), memory_path=self.store.path_of,
            memory_changes=memory_changes(memory_files, show=revisions.show, base=merge_base, head=ref.head,
                                          lookup=self.store.get_memory),
            accept_changes=accept_changes(
                accept_files, folder=accepts, show=revisions.show, base=merge_base, head=ref.head, model=self.model,
                changes_for=lambda accept: view.accept_changes(accept.path or "", without=brought, max_diff=0)),
            changes_for=lambda memory: view.memory_changes(memory, max_diff=0),
            link_base=link_base(self.env, ref.head),
            changed_lines=revisions.changed_lines(merge_base, ref.head, [f.path for f in code if f.status != "D"]),
        )

    def review_markdown(self, review: PullRequestReview) -> str:
        """The review as the pull request comment (``templates/pr.md.j2``)."""
        from archmem import __version__
        from archmem.review.markdown import render_review

        return render_review(review, version=__version__, overrides=self.template_overrides)

    def comment_on_pull_request(self, review: PullRequestReview, markdown: str) -> Published:
        """Post the review as the pull request's one archmem comment, or update that
        comment (GitHub REST API, ``GITHUB_TOKEN``); with nothing to say, only an earlier
        comment is rewritten, to say so."""
        from archmem import __version__
        from archmem.github_api import GitHubClient
        from archmem.review.markdown import resolved_body
        from archmem.review.publish import publish

        if review.ref.number is None:
            raise InvalidInputError("no pull request to comment on: run on a pull_request event (GITHUB_EVENT_PATH)")
        settings = self.config.github
        client = GitHubClient.from_env(self.env, timeout=settings.timeout, max_answer_bytes=settings.max_answer_bytes)
        return publish(client, review.ref.number, markdown, nothing_to_say=review.nothing_to_say,
                       resolved=resolved_body(review, version=__version__), author=settings.comment_author)


"""The ``Workspace``'s reviews of the code: conformance and pull requests."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from archmem.errors import InvalidInputError
from archmem.workspace.recall import RecallOps

if TYPE_CHECKING:
    from pathlib import Path

    from archmem.ci.types import Identity
    from archmem.conformance.baseline import Entry, Frozen
    from archmem.conformance.types import ConformanceReport
    from archmem.review.publish import CommentsApi, Published
    from archmem.review.pull_request import PullRequestRef, PullRequestReview


class ReviewOps(RecallOps):
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

            cache = self.store.import_cache()  # open first: ownership keeps its file headers in the store
            report = check_conformance(
                files=self.repository.files(), hashes=self.repository.content_hashes, read=self.repository.read_bytes,
                model=self.model, ownership=self.ownership, config=self.config.conformance,
                cache=cache, config_source=self.config.source,
            )
            self.__dict__["_conformance"] = report
        return report

    @property
    def conformance_baseline_path(self) -> Path:
        """The committed baseline file (``[conformance] baseline``), kept in the repository."""
        from archmem.confinement import repository_path

        return repository_path(self.root, self.config.conformance.baseline)

    def conformance_baseline(self) -> list[tuple[int, Entry]] | None:
        """The baseline's entries with their lines; None when there is no baseline file."""
        from archmem.conformance.baseline import read_baseline

        path = self.conformance_baseline_path
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InvalidInputError(f"{self.config.conformance.baseline}: cannot be read ({exc.strerror})") from None
        return read_baseline(data.decode("utf-8", errors="replace"), self.config.conformance.baseline)

    def conformance_against_baseline(self) -> Frozen:
        """The conformance report without the findings the baseline freezes, with how
        many were frozen and which frozen ones the code no longer has."""
        from archmem.conformance.baseline import apply_baseline

        entries = self.conformance_baseline()
        return apply_baseline(self.conformance(), [entry for _, entry in entries or ()])

    def update_conformance_baseline(self) -> tuple[list[Entry], list[Entry], list[Entry]]:
        """Freeze today's findings: write the baseline file from the code now. Returns
        (kept, added, dropped): entries that stay, new ones, and fixed ones that go."""
        from archmem.atomic_write import write_atomic
        from archmem.conformance.baseline import entries, render

        before = {entry for _, entry in self.conformance_baseline() or ()}
        now = entries(self.conformance())
        path = self.conformance_baseline_path
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, render(now))
        return ([e for e in now if e in before], [e for e in now if e not in before],
                sorted(before - set(now)))

    def pull_request_review(
        self, *, base: str | None = None, head: str | None = None, deepen: bool = False,
        change: PullRequestRef | None = None, link_base: Callable[[str], str | None] | None = None,
    ) -> PullRequestReview:
        """What the change ``base...head`` touches and what to check before merging it
        (``archmem pr``). Without flags, base and head come from ``change``, the pull
        (merge) request the CI provider names, else the default branch and HEAD;
        ``link_base`` says where a file at head is shown. The model, the memories and
        drift are read at the checkout, which must hold head."""
        from archmem.model.paths import compile_globs
        from archmem.review.accept_changes import accept_changes, is_accept_file
        from archmem.review.memory_changes import memory_changes
        from archmem.review.pull_request import resolve_change, review_pull_request

        view = self.drift_view(deepen=deepen)
        checkout = view.scan.head  # a shallow clone is refused (or deepened) before any diff
        self.__dict__["drift"] = view
        revisions = view.revisions
        ref = resolve_change(revisions, base=base, head=head, checkout=checkout, event=change)
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
            # a review shows what is known about the code a change touches: ranked, not decided
            recall=lambda task, files: self.recall(task, changed_files=files, limit=60, always_answer=True),
            memories=self.store.list_memories(status="active"), stale=view.stale,
            new_commits=revisions.commits_between(ref.base, checkout or ref.head), memory_path=self.store.path_of,
            memory_changes=memory_changes(memory_files, show=revisions.show, base=merge_base, head=ref.head,
                                          lookup=self.store.get_memory),
            accept_changes=accept_changes(
                accept_files, folder=accepts, show=revisions.show, base=merge_base, head=ref.head, model=self.model,
                changes_for=lambda accept: view.accept_changes(accept.path or "", without=brought, max_diff=0)),
            changes_for=lambda memory: view.memory_changes(memory, max_diff=0),
            link_base=link_base(ref.head) if link_base else None,
            changed_lines=revisions.changed_lines(merge_base, ref.head, [f.path for f in code if f.status != "D"]),
        )

    def review_markdown(self, review: PullRequestReview) -> str:
        """The review as the pull request comment (``templates/pr.md.j2``)."""
        from archmem import __version__
        from archmem.review.markdown import render_review

        return render_review(review, version=__version__, overrides=self.template_overrides)

    def comment_on_pull_request(self, review: PullRequestReview, markdown: str, *,
                                connect: Callable[[], tuple[CommentsApi, Identity]], no_change: str) -> Published:
        """Post the review as the pull (merge) request's one archmem comment, or update
        the one the token's identity wrote; with nothing to say, only an earlier comment
        is rewritten, to say so. ``connect`` gives the CI provider's API and that
        identity; ``no_change`` is the error's text when the review is of no pull request."""
        from archmem import __version__
        from archmem.review.markdown import resolved_body
        from archmem.review.publish import publish

        if review.ref.number is None:
            raise InvalidInputError(no_change)
        api, author = connect()
        return publish(api, review.ref.number, markdown, nothing_to_say=review.nothing_to_say,
                       resolved=resolved_body(review, version=__version__), author=author)

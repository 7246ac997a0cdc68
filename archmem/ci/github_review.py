"""``archmem pr --format github``: annotations where a reviewer looks (the memory files
to verify, the changed code of an element with pitfalls, the drift accept files of the
change), the job summary and the step outputs.

GitHub shows at most 10 annotations of a kind per step; archmem prints 10 in all, and
the ones past that go to the summary, which also holds the whole review with each
memory file linked at head.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from archmem.ci.github import append_step_files
from archmem.escape import workflow_command as _escape
from archmem.review.markdown import MARKER, inline, label
from archmem.review.publish import Published
from archmem.review.pull_request import PullRequestReview
from archmem.values import Value
from archmem.words import plural

MAX_ANNOTATIONS = 10


@dataclass(frozen=True, repr=False, eq=False)
class Annotation(Value):
    """A ``::warning`` (or a ``::notice``) at a line of a file, or at lines ``line`` to
    ``end_line``."""

    file: str
    title: str
    text: str
    level: str = "warning"
    line: int = 1
    end_line: int | None = None

    def command(self) -> str:
        end = f",endLine={self.end_line}" if self.end_line is not None and self.end_line > self.line else ""
        return (f"::{self.level} file={_escape(self.file, property=True)},line={self.line}{end},"
                f"title={_escape(self.title[:120], property=True)}::{_escape(self.text)}")


def accept_annotations(review: PullRequestReview) -> tuple[list[Annotation], list[Annotation]]:
    """Each accept file of the change: a warning when it cannot count (unreadable, or an
    element the model does not have), else a notice of what merging it decides. Values
    from the file are disarmed as in the comment."""
    warnings: list[Annotation] = []
    notices: list[Annotation] = []
    for item in review.accept_changes:
        accept = item.accept
        if item.change == "unreadable" or item.unknown_element:
            warnings.append(Annotation(item.path, "archmem: a drift accept that cannot count",
                                       inline(item.detail, 400), line=item.line or 1))
        elif accept is not None:
            name = f"{inline(item.element_name, 60)} ({accept.element})"
            if item.change == "deleted":
                notices.append(Annotation(item.path, f"archmem: drift accept of {inline(item.element_name, 60)} "
                                          "withdrawn", f"{name}: {inline(item.detail, 400)}.", "notice"))
                continue
            author = inline(accept.author, 80) if accept.author else "an unnamed author"
            reason = f": {inline(accept.reason, 300)}" if accept.reason else " (no reason given)"
            edited = f" (accept edited; {inline(item.detail, 200)})" if item.change == "edited" else ""
            at = f"commit {accept.commit[:12]}" if accept.commit else "the accept's time"
            notices.append(Annotation(
                item.path, f"archmem: drift of {inline(item.element_name, 60)} accepted",
                f"{name}: drift accepted by {author}{reason}{edited}. From this merge its drift counts from {at}: "
                "what you approve is its code's diff since its previous baseline (see the archmem comment).",
                "notice", accept.line_of("element"),
            ))
    return warnings, notices


def review_annotations(review: PullRequestReview) -> list[Annotation]:
    """Every annotation, most pressing first: memories this change makes VERIFY, accept
    files that cannot count, elements with pitfalls on their changed code, memories that
    were VERIFY already, then a notice per accept the change makes or withdraws."""
    removed = {f.path for f in review.files if f.status == "D"}
    new: list[Annotation] = []
    old: list[Annotation] = []
    for item in review.verify:
        if item.path:
            name = label(item.memory.title, item.memory.content, 60)
            why = "this change makes it VERIFY" if item.new else "VERIFY"
            (new if item.new else old).append(Annotation(
                item.path, f"archmem: verify {name}",
                f"{name} [{item.memory.kind}], {why}: {item.reason}. Check it against the code, then "
                f"archmem confirm {item.memory.id} (or supersede it) in this pull request.",
            ))
    elements: list[Annotation] = []
    for element in review.touched:
        pitfalls = [m for m in element.memories if m["kind"] == "pitfall"]
        files = [path for path in element.files if path not in removed]
        if not (pitfalls or element.verify) or not files:
            continue
        counts = [plural(len(pitfalls), "pitfall")]
        if element.verify:
            counts.append(plural(element.verify, "memory", "memories") + " to verify")
        titles = "; ".join(label(m["title"], m["content"], 60) for m in pitfalls[:3])
        first, last = (review.changed_lines.get(files[0]) or [(1, 1)])[0]  # the change's first hunk in the file
        elements.append(Annotation(
            files[0], f"archmem: {element.name}",
            f"{element.name}: {', '.join(counts)}" + (f" ({titles})" if titles else "")
            + "; see the archmem comment or the job summary", line=first, end_line=last,
        ))
    broken, accepts = accept_annotations(review)
    return new + broken + elements + old + accepts


def summary(markdown: str, *, more: list[Annotation], published: Published | None = None,
            comment_problem: str | None = None) -> str:
    """The job summary: the review itself (without the marker), the annotations GitHub
    did not show, and what happened to the comment."""
    body = markdown.replace(MARKER + "\n", "", 1)
    out = [body.rstrip(), ""]
    if more:
        kind = "more warning" if all(a.level == "warning" for a in more) else "more annotation"
        out += [f"### {plural(len(more), kind)} (GitHub shows {MAX_ANNOTATIONS} per step)", ""]
        out += [f"- `{a.file}`: {inline(a.text, 400)}" for a in more]
        out.append("")
    if published is not None and published.action != "skipped":
        link = f" ({published.url})" if published.url else ""
        out += [f"Pull request comment {published.action}{link}.", ""]
    if comment_problem:
        out += [f"No pull request comment: {inline(comment_problem, 400)}", ""]
    return "\n".join(out)


def outputs(review: PullRequestReview, published: Published | None) -> dict[str, str]:
    counts = review.counts()
    return {
        "touched-elements": str(counts["touched_elements"]),
        "memories-to-verify": str(counts["memories_to_verify"]),
        "made-verify": str(counts["made_verify"]),
        "memory-changes": str(counts["memory_changes"]),
        "accept-changes": str(counts["accept_changes"]),
        "undocumented-elements": str(counts["undocumented_elements"]),
        "comment": published.action if published else "",
        "comment-url": (published.url or "") if published else "",
    }


def write_github(
    review: PullRequestReview, markdown: str, env: Mapping[str, str], *, published: Published | None = None,
    comment_problem: str | None = None,
) -> list[str]:
    """Append the summary and the outputs to the files GitHub names; return the
    annotations to print (at most ``MAX_ANNOTATIONS``)."""
    lines = review_annotations(review)
    shown, more = lines[:MAX_ANNOTATIONS], lines[MAX_ANNOTATIONS:]
    append_step_files(env, summary(markdown, more=more, published=published, comment_problem=comment_problem),
                      outputs(review, published))
    return [a.command() for a in shown]


__all__ = ["MAX_ANNOTATIONS", "Annotation", "outputs", "review_annotations", "summary", "write_github"]

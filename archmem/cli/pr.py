"""``archmem pr``: what a change touches and what to check before merging it, as
Markdown, JSON or GitHub Actions output, and as the pull request's one comment (the
merge request's one note under GitLab CI)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from archmem.cli import cli, emit_json, json_option, workspace_options

if TYPE_CHECKING:
    from archmem.ci import CiProvider
    from archmem.review.publish import Published
    from archmem.review.pull_request import PullRequestReview
    from archmem.workspace import Workspace


@cli.command("pr")
@click.option("--base", default=None, help="What the change is compared with (default: the pull request's base "
                                          "in GitHub Actions, the merge request's diff base in GitLab CI, else the "
                                          "default branch).")
@click.option("--head", default=None, help="The change's last commit (default: the pull or merge request's head, "
                                          "else HEAD).")
@click.option("--comment", is_flag=True, help="Post the review as the pull request's one archmem comment, or update "
                                              "it (GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL); under GitLab "
                                              "CI the merge request's one note (GITLAB_TOKEN, CI_API_V4_URL).")
@click.option("--format", "output_format", type=click.Choice(["md", "json", "github"]), default="md",
              show_default=True, help="github: annotations, job summary and step outputs.")
@click.option("--fail-on-stale", type=click.IntRange(1), default=None,
              help="Exit 1 when this many memories on the touched code are VERIFY, or more.")
@click.option("--fail-on-api-error", is_flag=True, help="Fail (exit 12) when the comment cannot be posted; "
                                                        "by default that is a warning.")
@click.option("--deepen", is_flag=True, help="Fetch the full history first when this is a shallow clone.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the Markdown to FILE.")
@workspace_options
@json_option
def pr(
    workspace: Workspace, base: str | None, head: str | None, comment: bool, output_format: str,
    fail_on_stale: int | None, fail_on_api_error: bool, deepen: bool, out: Path | None, as_json: bool,
) -> None:
    """What the change BASE...HEAD touches and what to check before merging: the elements
    whose code it changes with their pitfalls and conventions, the memories it makes
    VERIFY (with what changed since each was confirmed), the memories it adds, supersedes
    or confirms, the drift accepts it makes or withdraws, and the touched elements nobody
    has written about."""
    from archmem.ci import provider
    from archmem.ci.github import errors_as_annotations

    github = output_format == "github" and not as_json
    with errors_as_annotations(github, "archmem pr"):
        ci = provider(workspace.env, workspace.config)
        review = workspace.pull_request_review(base=base, head=head, deepen=deepen, change=ci.change(),
                                               link_base=ci.link_base)
        markdown = workspace.review_markdown(review)
    published: Published | None = None
    problem: str | None = None
    if comment:
        published, problem = _comment(workspace, ci, review, markdown, fail_on_api_error=fail_on_api_error,
                                      github=github)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(markdown, encoding="utf-8")
    if as_json or output_format == "json":
        data: dict[str, Any] = review.to_dict()
        data["comment"] = published.to_dict() if published else None
        data["comment_problem"] = problem
        emit_json(data)
    elif github:
        from archmem.ci.github_review import write_github
        from archmem.words import plural

        for line in write_github(review, markdown, workspace.env, published=published, comment_problem=problem):
            click.echo(line)
        counts = review.counts()
        click.echo(f"archmem pr: {plural(counts['touched_elements'], 'element')} touched, "
                   f"{plural(counts['memories_to_verify'], 'memory', 'memories')} to verify "
                   f"({counts['made_verify']} made so by this change), "
                   f"{plural(counts['memory_changes'], 'memory file')} changed"
                   + (f", {plural(counts['accept_changes'], 'drift accept file')} changed"
                      if counts["accept_changes"] else "")
                   + (f"; comment {published.action}" if published else ""))
    else:
        click.echo(markdown, nl=False)
        if published is not None:
            click.echo(f"comment {published.action}" + (f": {published.url}" if published.url else ""), err=True)
    if fail_on_stale is not None and len(review.verify) >= fail_on_stale:
        raise SystemExit(1)


def _comment(
    workspace: Workspace, ci: CiProvider, review: PullRequestReview, markdown: str, *, fail_on_api_error: bool,
    github: bool,
) -> tuple[Published | None, str | None]:
    """Post or update the comment; a failure is a warning (with the fix) unless asked to fail."""
    from archmem.ci.transport import ApiError
    from archmem.errors import InvalidInputError

    try:
        published = workspace.comment_on_pull_request(review, markdown, connect=ci.comment_api,
                                                      no_change=ci.no_change)
        if published.warning:
            _warn(published.warning, github=github)
        return published, None
    except ApiError as exc:
        if fail_on_api_error:
            raise
        problem = str(exc)
    except InvalidInputError as exc:  # not a pull request: nothing to comment on
        problem = str(exc)
    _warn(f"no {ci.comment_noun}: {problem}", github=github)
    return None, problem


def _warn(text: str, *, github: bool) -> None:
    if github:
        from archmem.escape import workflow_command as escape

        click.echo(f"::warning title=archmem pr::{escape(text)}")
    else:
        click.secho(f"warning: {text}", fg="yellow", err=True)


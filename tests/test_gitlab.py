"""``archmem pr --comment`` under GitLab CI: the change from a merge request pipeline's
variables, and the merge request's one note, posted then updated in place, on the
loopback GitLab API (``tests/loopback_gitlab.py``), which checks method, path, headers
and body. The note is archmem's only when the token's own user (``GET /user``) wrote it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from archmem.ci.gitlab_api import GitLabApiError, GitLabClient
from archmem.ci.types import Comment, Identity
from archmem.review.publish import is_own

from .conftest import commit, git, lines
from .loopback_gitlab import BOT, PROJECT, TOKEN, FakeGitLab
from .test_pr import ROUTER, am, change  # noqa: F401  (the pull request fixture)

MARKER = "<!-- archmem:pr-review -->"
NOTES = f"/api/v4/projects/{PROJECT}/merge_requests/7/notes"


def gitlab_env(gitlab: FakeGitLab, base: str, head: str, **more: str) -> dict[str, str]:
    """What GitLab sets in a merge request pipeline, with the token in GITLAB_TOKEN."""
    return {"GITLAB_CI": "true", "CI_API_V4_URL": gitlab.url, "CI_PROJECT_ID": PROJECT,
            "CI_PROJECT_URL": "https://gitlab.example/shop-team/shop", "CI_MERGE_REQUEST_IID": "7",
            "CI_MERGE_REQUEST_DIFF_BASE_SHA": base, "CI_COMMIT_SHA": head,
            "CI_MERGE_REQUEST_TITLE": "Rewrite the router", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
            "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "router", "GITLAB_TOKEN": TOKEN, **more}


def test_the_note_is_posted_once_then_updated_in_place(repo: Path, change, tmp_path: Path):  # noqa: F811
    with FakeGitLab() as gitlab:
        for i in range(3):  # two pages of other people's notes first, and a system note
            gitlab.add_note(7, f"looks good {i}")
        gitlab.add_note(7, f"{MARKER}\nadded 1 commit", dict(BOT), system=True)
        first = am(repo, "pr", "--comment", "--format", "json", env=gitlab_env(gitlab, change["base"], change["head"]))
        assert first.exit_code == 0, first.output
        assert [(r.method, r.path, r.query.get("page")) for r in gitlab.requests] == [
            ("GET", "/api/v4/user", None),
            ("GET", NOTES, None),
            ("GET", NOTES, ["2"]),
            ("POST", NOTES, None),
        ]
        data = json.loads(first.stdout)
        assert data["pull_request"] == {
            "base": change["base"], "head": change["head"], "number": 7, "title": "Rewrite the router",
            "url": "https://gitlab.example/shop-team/shop/-/merge_requests/7", "base_ref": "main", "head_ref": "router"}
        [note] = [n for n in gitlab.notes[7] if not n["system"] and n["body"].startswith(MARKER)]
        assert data["comment"] == {"action": "created", "comment_id": note["id"],
                                   "url": f"https://gitlab.example/shop-team/shop/-/merge_requests/7#note_{note['id']}"}
        body = gitlab.requests[-1].body["body"]
        assert "| ApiGateway (`shop.api`) |" in body and "Prefix order" in body
        assert f"https://gitlab.example/shop-team/shop/-/blob/{change['head']}/" in body  # memory files linked at head
        assert gitlab.problems == []

        (repo / ROUTER).write_text(lines(100, "route") + "one more route\n")
        commit(repo, "one more route", "2026-02-02T12:00:00Z")
        head = git(repo, "rev-parse", "HEAD").strip()
        gitlab.requests.clear()
        second = am(repo, "pr", "--comment", env=gitlab_env(gitlab, change["base"], head))
        assert second.exit_code == 0, second.output
        [put] = gitlab.writes()
        assert put.method == "PUT" and put.path == f"{NOTES}/{note['id']}"
        assert f"main...{head[:7]}" in put.body["body"] and "+101 −40" in put.body["body"]
        assert "comment updated: https://gitlab.example/" in second.stderr

        gitlab.requests.clear()
        again = am(repo, "pr", "--comment", env=gitlab_env(gitlab, change["base"], head))
        assert again.exit_code == 0 and gitlab.writes() == []  # the same text: not rewritten
        assert gitlab.problems == []


def test_a_note_with_the_marker_by_another_user_is_never_rewritten(repo: Path, change):  # noqa: F811
    """Someone named like the token's user but with another number, and a plain user,
    both imitate archmem's note: archmem posts its own and touches neither."""
    with FakeGitLab() as gitlab:
        fake = f"{MARKER}\n## archmem: All clear\n"
        impostor = gitlab.add_note(7, fake, {"id": 666, "username": BOT["username"].upper()})
        mallory = gitlab.add_note(7, fake, {"id": 13, "username": "mallory"})
        result = am(repo, "pr", "--comment", env=gitlab_env(gitlab, change["base"], change["head"]))
        assert result.exit_code == 0, result.output
        assert [r.method for r in gitlab.writes()] == ["POST"]
        assert impostor["body"] == fake and mallory["body"] == fake
        assert gitlab.problems == []


@pytest.mark.parametrize(("author", "author_id", "own"), [
    ("project_1_bot_x", 77, True),
    ("Project_1_Bot_X", 77, True),  # GitLab usernames are case-insensitive
    ("project_1_bot_x", 78, False),  # the same name, another user
    ("project_1_bot_x", None, False),
    ("someone", 77, False),
])
def test_a_note_is_own_only_with_the_token_users_name_and_number(author, author_id, own):
    note = Comment(1, MARKER, None, author, None, author_id)
    assert is_own(note, Identity("project_1_bot_x", 77)) is own


def test_failures_are_warnings_with_the_fix_unless_asked_to_fail(repo: Path, change):  # noqa: F811
    base, head = change["base"], change["head"]
    with FakeGitLab() as gitlab:
        no_token = am(repo, "pr", "--comment", env=gitlab_env(gitlab, base, head, GITLAB_TOKEN="",
                                                             CI_JOB_TOKEN="job-token"))
        assert no_token.exit_code == 0
        assert "warning: no merge request note: GITLAB_TOKEN is not set, so no note can be posted (CI_JOB_TOKEN " \
            "cannot write merge request notes)" in no_token.stderr and "project access token with the api scope" in no_token.stderr
        named = am(repo, "pr", "--comment", "--format", "json",
                   env=gitlab_env(gitlab, base, head, GITLAB_TOKEN="", REVIEW_TOKEN=TOKEN,
                                  ARCHMEM_GITLAB_TOKEN_VARIABLE="REVIEW_TOKEN"))
        assert json.loads(named.stdout)["comment"]["action"] == "created"

        wrong = am(repo, "pr", "--comment", env=gitlab_env(gitlab, base, head, GITLAB_TOKEN="nope"))
        assert wrong.exit_code == 0 and "GET /api/v4/user: 401 401 Unauthorized" in wrong.stderr
        assert "expired or revoked" in wrong.stderr

        gitlab.fail = (403, {}, "403 Forbidden")
        forbidden = am(repo, "pr", "--comment", env=gitlab_env(gitlab, base, head))
        assert forbidden.exit_code == 0 and "at least the Reporter role" in forbidden.stderr
        failed = am(repo, "pr", "--comment", "--fail-on-api-error", env=gitlab_env(gitlab, base, head))
        assert failed.exit_code == 12 and "403 Forbidden" in failed.stderr and "Traceback" not in failed.output
        gitlab.fail = (429, {"Retry-After": "60"}, "Retry later")
        limited = am(repo, "pr", "--comment", env=gitlab_env(gitlab, base, head))
        assert "rate limit reached; it resets in 60 seconds" in limited.stderr
        gitlab.fail = None

        branch = gitlab_env(gitlab, base, head)
        del branch["CI_MERGE_REQUEST_IID"]
        no_mr = am(repo, "pr", "--base", "main", "--comment", env=branch)
        assert no_mr.exit_code == 0 and "no merge request to comment on" in no_mr.stderr
        clear = am(repo, "pr", "--comment", env=gitlab_env(gitlab, base, head,
                                                          CI_API_V4_URL="http://gitlab.example.com/api/v4"))
        assert "CI_API_V4_URL must be an https URL (http only to a loopback address)" in clear.stderr
        assert gitlab.problems == []
    assert all(r.headers.get("private-token") in (TOKEN, "nope") for r in gitlab.requests)


def test_a_merged_results_pipeline_reviews_the_source_branch_not_gitlabs_merge_commit(repo: Path, change):  # noqa: F811
    """There CI_COMMIT_SHA is the merge commit GitLab made of the source branch and the
    target; the change under review ends at the source branch's head."""
    git(repo, "checkout", "-q", "main")
    (repo / "NOTES.md").write_text("on main since the branch\n")
    commit(repo, "main moves on", "2026-02-01T13:00:00Z")
    git(repo, "checkout", "-q", "--detach", change["head"])
    git(repo, "merge", "-q", "--no-ff", "-m", "merged result", "main",
        env={"GIT_AUTHOR_DATE": "2026-02-01T14:00:00Z", "GIT_COMMITTER_DATE": "2026-02-01T14:00:00Z"})
    merged = git(repo, "rev-parse", "HEAD").strip()
    env = {"GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "7", "CI_MERGE_REQUEST_DIFF_BASE_SHA": change["base"],
           "CI_COMMIT_SHA": merged}
    assert json.loads(am(repo, "pr", "--format", "json", env=env).stdout)["pull_request"]["head"] == merged
    result = am(repo, "pr", "--format", "json", env={**env, "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA": change["head"]})
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["pull_request"]["head"] == change["head"]


def test_a_merge_request_without_its_commits_is_a_clear_error(repo: Path, change):  # noqa: F811
    bad = am(repo, "pr", env={"GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "7", "CI_COMMIT_SHA": change["head"],
                              "CI_MERGE_REQUEST_DIFF_BASE_SHA": "main"})
    assert bad.exit_code != 0 and "Traceback" not in bad.output
    assert "CI_MERGE_REQUEST_DIFF_BASE_SHA is not a commit ('main')" in bad.output


def test_the_client_checks_what_the_api_answers():
    with FakeGitLab() as gitlab:
        client = GitLabClient(token=TOKEN, project=PROJECT, api_url=gitlab.url)
        gitlab.user = {"id": True, "username": "x"}
        with pytest.raises(GitLabApiError, match=r"without the token's user \(id true, username \"x\"\)"):
            client.identity()
        gitlab.add_note(7, "no id")["id"] = "1"
        with pytest.raises(GitLabApiError, match=r'GET .*/notes: the API answered without a note id \(id "1"\)'):
            list(client.comments(7))
    with pytest.raises(GitLabApiError, match="CI_PROJECT_ID must be the project's number"):
        GitLabClient(token=TOKEN, project="../../users", api_url="https://gitlab.example/api/v4")


def test_the_example_pipeline_runs_in_merge_requests_and_uploads_what_it_writes():
    """examples/gitlab/.gitlab-ci.yml: a merge request job with the whole history, whose
    archmem commands parse with archmem's own options, and whose Code Quality report is
    the file the script writes."""
    import shlex

    import yaml

    from archmem.cli import cli

    from .conftest import REPO_ROOT

    job = yaml.safe_load((REPO_ROOT / "examples/gitlab/.gitlab-ci.yml").read_text(encoding="utf-8"))["archmem"]
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert job["variables"]["GIT_DEPTH"] == "0"
    written = {}
    for line in job["script"]:
        words = shlex.split(line)
        if ">" in words:
            written[words[0:words.index(">")][1]] = words[words.index(">") + 1]
            words = words[:words.index(">")]
        assert words[0] == "archmem"
        command = cli.get_command(cli.make_context("archmem", ["--help"], resilient_parsing=True), words[1])
        assert command is not None, line
        command.make_context(words[1], words[2:])  # an unknown option or value raises here
    assert "--comment" in job["script"][1]
    assert job["artifacts"]["reports"]["codequality"] == written["conformance"]
    assert job["artifacts"]["when"] == "always"


def test_the_gitlab_client_shares_the_hardened_transport():
    """A redirect elsewhere is not followed with the token, an answer past the cap is not
    read on, and a closed port is an error naming the API."""
    with FakeGitLab() as gitlab:
        gitlab.fail = (302, {"Location": "http://127.0.0.2:9/api/v4/user"}, "moved")
        client = GitLabClient(token=TOKEN, project=PROJECT, api_url=gitlab.url)
        with pytest.raises(GitLabApiError, match=r"GET /api/v4/user: redirected \(302\) to http://127.0.0.2:9, not "
                                                 r"followed: the token goes only to http://127.0.0.1:\d+"):
            client.identity()
        assert [r.path for r in gitlab.requests] == ["/api/v4/user"]
        gitlab.fail = None
        gitlab.add_note(7, "x" * 5000)
        small = GitLabClient(token=TOKEN, project=PROJECT, api_url=gitlab.url, max_answer_bytes=1000)
        with pytest.raises(GitLabApiError, match="more than the 1,000 archmem reads"):
            list(small.comments(7))
        with pytest.raises(GitLabApiError, match=re.escape("no answer from http://127.0.0.1:9/api/v4")):
            GitLabClient(token=TOKEN, project=PROJECT, api_url="http://127.0.0.1:9/api/v4").identity()


@pytest.mark.parametrize("make", [
    lambda token: GitLabClient(token=token, project=PROJECT, api_url="http://127.0.0.1:9/api/v4"),
    lambda token: __import__("archmem.ci.github_api", fromlist=["GitHubClient"]).GitHubClient(
        token=token, repository="shop-team/shop", api_url="http://127.0.0.1:9"),
])
def test_a_token_no_header_can_carry_is_refused_without_showing_it(make):
    """A line break pasted into the token's variable: an error that names the header,
    never a traceback that prints the token."""
    from archmem.ci.transport import ApiError

    with pytest.raises(ApiError) as refused:
        make("glpat-secret\nX-Injected: 1")
    assert "holds a line break or another character no HTTP header may carry" in str(refused.value)
    assert "secret" not in str(refused.value)

"""Issue 22, item 5: the pull request comment is archmem's only when the token's
identity wrote it. Another user's comment that starts with archmem's marker is never
patched; the identity is ``github-actions[bot]`` unless configured (archmem.toml, the
action's input, the environment). On the loopback GitHub API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from archmem.ci.types import Comment
from archmem.review.publish import is_own

from .conftest import REPO_ROOT
from .loopback_github import REPOSITORY, FakeGitHub
from .test_pr import am, change, event_file, github_env  # noqa: F401  (the pull request fixture)

MARKER = "<!-- archmem:pr-review -->"
FAKE = f"{MARKER}\n## archmem: All clear\n\nNothing to check, merge away.\n"


@pytest.mark.parametrize(("author", "author_type", "configured", "own"), [
    ("github-actions[bot]", "Bot", "github-actions[bot]", True),
    ("GitHub-Actions[bot]", "Bot", "github-actions[bot]", True),
    ("github-actions[bot]", "User", "github-actions[bot]", False),  # no user may pass for the bot
    ("mallory", "User", "github-actions[bot]", False),
    (None, None, "github-actions[bot]", False),
    ("archmem-app[bot]", "Bot", "archmem-app[bot]", True),
    ("github-actions[bot]", "Bot", "archmem-app[bot]", False),
    ("sarah", "User", "sarah", True),
    ("sarah", "Bot", "sarah", False),
])
def test_own_means_written_by_the_configured_identity(author, author_type, configured, own):
    assert is_own(Comment(1, FAKE, None, author, author_type), configured) is own


def test_a_users_comment_with_the_marker_is_never_patched(repo: Path, change, tmp_path: Path):  # noqa: F811
    event = event_file(tmp_path, change["base"], change["head"])
    with FakeGitHub() as github:
        fake = github.add_comment(7, FAKE, "mallory")
        impostor = github.add_comment(7, FAKE, "github-actions[bot]", user_type="User")
        first = am(repo, "pr", "--comment", "--format", "json", env=github_env(github, event))
        assert first.exit_code == 0, first.output
        [post] = github.writes()
        assert post.method == "POST" and post.body["body"].startswith(MARKER + "\n## archmem: ")
        assert fake["body"] == FAKE and impostor["body"] == FAKE
        own = github.comments[7][-1]
        assert own["user"] == {"login": "github-actions[bot]", "type": "Bot"}

        github.requests.clear()
        own["body"] = FAKE  # archmem's own comment, gone stale: this one is updated
        again = am(repo, "pr", "--comment", "--format", "json", env=github_env(github, event))
        assert again.exit_code == 0, again.output
        [patch] = github.writes()
        assert patch.method == "PATCH" and patch.path == f"/repos/{REPOSITORY}/issues/comments/{own['id']}"
        assert fake["body"] == FAKE and impostor["body"] == FAKE
        assert github.problems == []


def test_a_configured_identity_is_taken_from_the_environment_or_archmem_toml(repo: Path, change, tmp_path: Path):  # noqa: F811
    event = event_file(tmp_path, change["base"], change["head"])
    with FakeGitHub() as github:
        app = github.add_comment(7, f"{MARKER}\nold", "archmem-app[bot]")
        result = am(repo, "pr", "--comment", env=github_env(github, event,
                                                            ARCHMEM_GITHUB_COMMENT_AUTHOR="archmem-app[bot]"))
        assert result.exit_code == 0, result.output
        [patch] = github.writes()
        assert patch.method == "PATCH" and patch.path.endswith(f"/comments/{app['id']}")

        github.requests.clear()
        app["body"] = f"{MARKER}\nold"
        (repo / "archmem.toml").write_text('[github]\ncomment_author = "archmem-app[bot]"\n', encoding="utf-8")
        again = am(repo, "pr", "--comment", env=github_env(github, event))
        assert again.exit_code == 0, again.output
        assert [(w.method, w.path) for w in github.writes()] == [
            ("PATCH", f"/repos/{REPOSITORY}/issues/comments/{app['id']}")]


def test_a_login_that_cannot_be_one_is_a_config_error(repo: Path, change, tmp_path: Path):  # noqa: F811
    bad = am(repo, "pr", "--comment", env={"ARCHMEM_GITHUB_COMMENT_AUTHOR": "x\ny"})
    assert bad.exit_code == 3 and "github.comment_author" in bad.output and "Traceback" not in bad.output


def test_a_refused_patch_says_so_without_the_write_permission_hint(repo: Path, change, tmp_path: Path):  # noqa: F811
    event = event_file(tmp_path, change["base"], change["head"])
    with FakeGitHub() as github:
        github.add_comment(7, f"{MARKER}\nold", "github-actions[bot]")

        def refuse_patch(handler, seen) -> bool:
            if seen.method != "PATCH":
                return False
            handler._answer(403, {"message": "Must have admin rights to Repository."})
            return True

        github.raw = refuse_patch
        summary = tmp_path / "summary.md"
        result = am(repo, "pr", "--comment", "--format", "github",
                    env=github_env(github, event, GITHUB_STEP_SUMMARY=str(summary)))
    assert result.exit_code == 0, result.output
    assert "no pull request comment: PATCH /repos/" in result.stdout
    assert "403 Must have admin rights" in result.stdout
    assert "may not edit that comment" in result.stdout and "comment-author" in result.stdout
    assert "may not write comments" not in result.stdout
    assert "comment updated" not in result.stdout and "Pull request comment updated" not in summary.read_text()


def test_the_action_passes_its_comment_author_input_through_the_environment():
    action = yaml.safe_load((REPO_ROOT / "actions" / "pr-review" / "action.yml").read_text(encoding="utf-8"))
    assert action["inputs"]["comment-author"]["default"] == ""
    [step] = [s for s in action["runs"]["steps"] if s.get("id") == "pr"]
    assert step["env"]["COMMENT_AUTHOR"] == "${{ inputs.comment-author }}"
    assert 'export ARCHMEM_GITHUB_COMMENT_AUTHOR="$COMMENT_AUTHOR"' in step["run"]


def test_a_comment_posted_as_another_identity_says_which_login_to_configure(repo: Path, change, tmp_path: Path):  # noqa: F811
    event = event_file(tmp_path, change["base"], change["head"])
    with FakeGitHub() as github:  # its POST answers as github-actions[bot]
        result = am(repo, "pr", "--comment", "--format", "json",
                    env=github_env(github, event, ARCHMEM_GITHUB_COMMENT_AUTHOR="archmem-app[bot]"))
    assert result.exit_code == 0, result.output
    comment = json.loads(result.stdout)["comment"]
    assert comment["action"] == "created"
    assert comment["warning"].startswith("the comment was posted as github-actions[bot], but archmem updates only "
                                         "comments by archmem-app[bot]")
    assert "warning: the comment was posted as github-actions[bot]" in result.stderr

"""``archmem pr``: a real repository with a base and a head commit and committed memory
files; the review it gives, the GitHub output, and the one comment it keeps up to date
on a loopback GitHub API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from archmem.cli import cli
from archmem.workspace import Workspace

from .conftest import DRIFT_MODEL, FrozenClock, commit, git, lines
from .loopback_github import REPOSITORY, TOKEN, FakeGitHub

ROUTER = "services/api/router.go"


def am(repo: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    base = {"GITHUB_EVENT_PATH": "", "GITHUB_STEP_SUMMARY": "", "GITHUB_OUTPUT": "", "GITHUB_TOKEN": "",
            "GITHUB_REPOSITORY": "", "GITHUB_API_URL": "", "GITHUB_SERVER_URL": "", "GITLAB_CI": ""}
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)], env=base | (env or {}), catch_exceptions=False)


def remember(repo: Path, when: str, **memory: object) -> str:
    clock = FrozenClock()
    clock.now = clock.now.fromisoformat(when)
    with Workspace.open(repo, clock=clock, env={}) as ws:
        content = str(memory.pop("content"))
        return ws.remember(content, **memory).id  # type: ignore[arg-type]


@pytest.fixture
def change(repo: Path) -> dict[str, str]:
    """main: the model, code and two memories (written 2026-01-10); the branch `router`
    rewrites the router (the pitfall on ApiGateway becomes VERIFY), touches Legacy (no
    memory about it) and adds a memory file. HEAD is the branch."""
    ids = {
        "prefix": remember(repo, "2026-01-10T09:00:00+00:00", content="Routes are matched by prefix, longest first.",
                           kind="pitfall", title="Prefix order", elements=["ApiGateway"]),
        "cents": remember(repo, "2026-01-10T09:00:00+00:00", content="Order totals are integer cents.",
                          kind="convention", title="Cents", elements=["Orders"]),
    }
    commit(repo, "team memory", "2026-01-10T12:00:00Z")
    ids["base"] = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "router")
    (repo / ROUTER).write_text(lines(100, "route"))
    (repo / "legacy/old.py").write_text(lines(11))
    ids["added"] = remember(repo, "2026-02-01T09:00:00+00:00", content="The router table is generated; edit routes.yaml.",
                            kind="convention", title="Generated routes", elements=["ApiGateway"])
    commit(repo, "rewrite the router", "2026-02-01T12:00:00Z")
    ids["head"] = git(repo, "rev-parse", "HEAD").strip()
    return ids


def event_file(tmp_path: Path, base: str, head: str, *, number: int = 7) -> Path:
    path = tmp_path / f"event-{head[:7]}.json"
    path.write_text(json.dumps({
        "action": "synchronize", "number": number,
        "pull_request": {"number": number, "title": "Rewrite the router", "html_url": "https://github.example/pr/7",
                         "base": {"sha": base, "ref": "main"}, "head": {"sha": head, "ref": "router"}},
    }), encoding="utf-8")
    return path


def test_the_review_names_touched_elements_their_pitfalls_what_to_verify_and_new_memories(repo: Path, change):
    result = am(repo, "pr", "--base", "main", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    elements = {e["id"]: e for e in data["elements"]}
    assert set(elements) == {"shop.api", "shop.legacy", "shop"}  # touched, and their parent
    api = elements["shop.api"]
    assert api["files"] == [ROUTER] and api["added"] == 100 and api["deleted"] == 40
    assert [m["title"] for m in api["memories"]] == ["Prefix order", "Generated routes"]  # pitfalls first
    assert elements["shop"]["parent_of"] == ["ApiGateway", "Legacy"]
    [verify] = data["verify"]
    assert verify["id"] == change["prefix"] and verify["new"] is True
    assert verify["verify_reason"].startswith("ApiGateway drifted since this was confirmed: 140 lines in 1 commit")
    assert verify["changes"]["files"] == [ROUTER]
    assert "1 file changed, 100 insertions(+), 40 deletions(-)" in verify["changes"]["stat"]["lines"][-1]
    assert [(c["change"], c["title"]) for c in data["memory_changes"]] == [("added", "Generated routes")]
    assert data["undocumented"] == ["shop.legacy"]
    assert data["merge_base"] == change["base"] and data["pull_request"]["head"] == change["head"]


def test_the_markdown_comment_starts_with_the_marker_and_prompts_for_gaps(repo: Path, change):
    text = am(repo, "pr", "--base", "main").stdout
    assert text.startswith("<!-- archmem:pr-review -->\n## archmem: this change makes 1 memory VERIFY\n")
    assert "### Memories this change makes VERIFY" in text
    assert "- **Prefix order** (`.archmem/memories/prefix-order." in text
    assert "ApiGateway drifted since this was confirmed" in text
    assert f"   {ROUTER} | 140" in text  # the diff stat since it was confirmed
    assert "- added: **Generated routes**" in text
    assert '`archmem remember --element shop.legacy --kind pitfall "…"`' in text


def test_github_format_annotates_memory_files_and_code_and_links_files_at_head(repo: Path, change, tmp_path: Path):
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output), "GITHUB_REPOSITORY": REPOSITORY,
           "GITHUB_SERVER_URL": "https://github.example"}
    result = am(repo, "pr", "--base", "main", "--format", "github", env=env)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert warnings[0].startswith("::warning file=.archmem/memories/prefix-order.")
    assert "title=archmem%3A verify Prefix order::Prefix order [pitfall], this change makes it VERIFY" in warnings[0]
    assert warnings[1] == (f"::warning file={ROUTER},line=1,endLine=100,title=archmem%3A ApiGateway::ApiGateway: 1 pitfall, "
                           "1 memory to verify (Prefix order); see the archmem comment or the job summary")
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert outputs | {"comment": "", "comment-url": ""} == {
        "touched-elements": "2", "memories-to-verify": "1", "made-verify": "1", "memory-changes": "1",
        "accept-changes": "0", "undocumented-elements": "1", "comment": "", "comment-url": ""}
    text = summary.read_text()
    assert "<!-- archmem:pr-review -->" not in text
    assert f"(https://github.example/{REPOSITORY}/blob/{change['head']}/.archmem/memories/prefix-order." in text


def test_annotations_are_capped_at_ten_and_the_rest_go_to_the_summary(repo: Path, tmp_path: Path):
    for i in range(12):
        remember(repo, "2026-01-10T09:00:00+00:00", content=f"Rule {i}: header {i} is reserved for the gateway.",
                 kind="pitfall", title=f"Header {i}", elements=["ApiGateway"])
    commit(repo, "memories", "2026-01-10T12:00:00Z")
    git(repo, "checkout", "-q", "-b", "change")
    (repo / ROUTER).write_text(lines(100, "route"))
    commit(repo, "rewrite", "2026-02-01T12:00:00Z")
    summary = tmp_path / "summary.md"
    result = am(repo, "pr", "--base", "main", "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 10
    text = summary.read_text()
    assert "### 3 more warnings (GitHub shows 10 per step)" in text
    assert text.count("\n- `.archmem/memories/header-") == 2 and f"\n- `{ROUTER}`: ApiGateway: 12 pitfalls" in text


def test_the_event_gives_base_and_head_and_the_checkout_must_hold_head(repo: Path, change, tmp_path: Path):
    event = event_file(tmp_path, change["base"], change["head"])
    data = json.loads(am(repo, "pr", "--format", "json", env={"GITHUB_EVENT_PATH": str(event)}).stdout)
    assert data["pull_request"] == {"base": change["base"], "head": change["head"], "number": 7,
                                    "title": "Rewrite the router", "url": "https://github.example/pr/7",
                                    "base_ref": "main", "head_ref": "router"}
    git(repo, "checkout", "-q", "main")
    elsewhere = am(repo, "pr", "--format", "json", env={"GITHUB_EVENT_PATH": str(event)})
    assert elsewhere.exit_code == 8 and "check out the head of the change first" in elsewhere.output


def test_a_merge_commit_checkout_holds_head_and_only_the_change_counts_as_new(repo: Path, change, tmp_path: Path):
    """GitHub checks out refs/pull/N/merge: base's tip merged with head."""
    git(repo, "checkout", "-q", "main")
    (repo / "services/orders/app.py").write_text(lines(41))
    commit(repo, "meanwhile on main", "2026-02-02T12:00:00Z")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "--detach", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge router into main", change["head"],
        env={"GIT_COMMITTER_DATE": "2026-02-03T12:00:00Z", "GIT_AUTHOR_DATE": "2026-02-03T12:00:00Z"})
    event = event_file(tmp_path, base, change["head"])
    data = json.loads(am(repo, "pr", "--format", "json", env={"GITHUB_EVENT_PATH": str(event)}).stdout)
    assert [f["path"] for f in data["files"]] == ["legacy/old.py", ROUTER]  # base...head: not main's own change
    assert [(v["id"], v["new"]) for v in data["verify"]] == [(change["prefix"], True)]


def test_memory_files_in_the_diff_say_what_the_change_does_to_each(repo: Path):
    with Workspace.open(repo, env={}) as ws:
        old = ws.remember("Tokens last 15 minutes.", kind="note", title="Token expiry", elements=["ApiGateway"])
        kept = ws.remember("Retries reuse the idempotency key.", kind="convention", title="Retries")
        gone = ws.remember("The legacy job runs at 3am.", kind="note", title="Legacy job")
        edited = ws.remember("Orders are numbered per day.", kind="note", title="Order numbers")
        archived = ws.remember("Use the v1 API for refunds.", kind="note", title="Refunds")
    commit(repo, "memories", "2026-01-10T12:00:00Z")
    git(repo, "checkout", "-q", "-b", "memories")
    with Workspace.open(repo, env={}) as ws:
        ws.remember("Tokens last 60 minutes since v2.", kind="note", title="Token expiry", supersedes="Token expiry")
        ws.confirm("Retries", reason="three retries still", by="cli/ana")
        ws.archive("Refunds", "the v1 API is gone")
        edited_path, gone_path = ws.store.path_of(edited.id), ws.store.path_of(gone.id)
    path = repo / edited_path
    path.write_text(path.read_text().replace("per day", "per day, from 1"))
    (repo / gone_path).unlink()
    (repo / ".archmem/memories/broken.md").write_text("---\nid: x\nkind: gotcha\ncreated: 2026-01-01\n---\n\nx\n")
    commit(repo, "memory changes", "2026-02-01T12:00:00Z")
    data = json.loads(am(repo, "pr", "--base", "main", "--format", "json").stdout)
    changes = {(c["change"], c["title"]) for c in data["memory_changes"]}
    assert changes == {("supersedes", "Token expiry"), ("confirmed", "Retries"), ("archived", "Refunds"),
                       ("edited", "Order numbers"), ("deleted", "Legacy job"), ("unreadable", None)}
    by_change = {c["change"]: c for c in data["memory_changes"]}
    assert by_change["supersedes"]["detail"] == f"replaces 'Token expiry' ({old.id})"
    assert by_change["confirmed"]["detail"] == "1 confirmation by cli/ana: three retries still"
    assert kept.id == by_change["confirmed"]["id"]
    assert by_change["archived"]["detail"] == "the v1 API is gone" and archived.id == by_change["archived"]["id"]
    assert by_change["edited"]["detail"] == "changed: content"
    assert "archive it instead" in by_change["deleted"]["detail"]
    assert by_change["unreadable"]["detail"].startswith(".archmem/memories/broken.md:3:1: unknown kind 'gotcha'")
    assert data["elements"] == [] and not data["nothing_to_say"]


def test_a_shallow_clone_is_refused_with_the_fix(repo: Path, change, tmp_path: Path):
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "router", f"file://{repo}", str(shallow))
    result = am(shallow, "pr", "--base", change["base"])
    assert result.exit_code == 6 and "fetch-depth: 0" in result.output and "Traceback" not in result.output


# ---- the comment on the loopback GitHub API -----------------------------------------------


def github_env(github: FakeGitHub, event: Path, **more: str) -> dict[str, str]:
    return {"GITHUB_EVENT_PATH": str(event), "GITHUB_API_URL": github.url, "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_TOKEN": TOKEN, **more}


def test_comment_is_posted_once_then_updated_in_place_and_a_403_is_a_warning(repo: Path, change, tmp_path: Path):
    with FakeGitHub() as github:
        for i in range(3):  # two pages of other people's comments first
            github.add_comment(7, f"looks good {i}")
        first = am(repo, "pr", "--comment", "--format", "github",
                   env=github_env(github, event_file(tmp_path, change["base"], change["head"])))
        assert first.exit_code == 0, first.output
        assert [(r.method, r.path, r.query.get("page")) for r in github.requests] == [
            ("GET", f"/repos/{REPOSITORY}/issues/7/comments", None),
            ("GET", f"/repos/{REPOSITORY}/issues/7/comments", ["2"]),
            ("POST", f"/repos/{REPOSITORY}/issues/7/comments", None),
        ]
        body = github.requests[-1].body["body"]
        assert body.startswith("<!-- archmem:pr-review -->\n")
        assert "| ApiGateway (`shop.api`) |" in body and "Prefix order" in body
        assert "ApiGateway drifted since this was confirmed: 140 lines in 1 commit" in body
        assert "comment created" in first.stdout
        assert github.problems == []

        (repo / ROUTER).write_text(lines(100, "route") + "one more route\n")
        commit(repo, "one more route", "2026-02-02T12:00:00Z")
        head = git(repo, "rev-parse", "HEAD").strip()
        github.requests.clear()
        second = am(repo, "pr", "--comment", "--format", "github",
                    env=github_env(github, event_file(tmp_path, change["base"], head)))
        assert second.exit_code == 0, second.output
        [patch] = github.writes()
        mine = [c for c in github.comments[7] if c["body"].startswith("<!-- archmem:pr-review -->")]
        assert len(mine) == 1 and patch.method == "PATCH"
        assert patch.path == f"/repos/{REPOSITORY}/issues/comments/{mine[0]['id']}"
        assert f"main...{head[:7]}" in patch.body["body"] and "+101 −40" in patch.body["body"]

        github.requests.clear()
        again = am(repo, "pr", "--comment", "--format", "github",
                   env=github_env(github, event_file(tmp_path, change["base"], head)))
        assert again.exit_code == 0 and github.writes() == []  # the same text: not rewritten

        github.fail = (403, {}, "Resource not accessible by integration")
        forked = am(repo, "pr", "--comment", "--format", "github",
                    env=github_env(github, event_file(tmp_path, change["base"], head)))
        assert forked.exit_code == 0, forked.output
        assert "::warning title=archmem pr::no pull request comment: GET /repos/" in forked.stdout
        assert "403 Resource not accessible by integration" in forked.stdout
        assert "read-only token" in forked.stdout and "Traceback" not in forked.output
        assert github.problems == []


def test_rate_limits_name_the_reset_time_and_can_fail_the_job(repo: Path, change, tmp_path: Path):
    event = event_file(tmp_path, change["base"], change["head"])
    with FakeGitHub() as github:
        github.fail = (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1767225600"},
                       "API rate limit exceeded")
        warned = am(repo, "pr", "--comment", env=github_env(github, event))
        assert warned.exit_code == 0
        assert "rate limit reached; it resets at 2026-01-01 00:00:00 UTC" in warned.stderr
        failed = am(repo, "pr", "--comment", "--fail-on-api-error", env=github_env(github, event))
        assert failed.exit_code == 12 and "rate limit" in failed.stderr and "Traceback" not in failed.output
        github.fail = None
        wrong = am(repo, "pr", "--comment", env=github_env(github, event, GITHUB_TOKEN="nope"))
        assert wrong.exit_code == 0 and "401 Bad credentials" in wrong.stderr and "expired or wrong" in wrong.stderr
        missing = am(repo, "pr", "--comment", env=github_env(github, event, GITHUB_REPOSITORY="shop-team/other"))
        assert missing.exit_code == 0 and "404 Not Found" in missing.stderr
    closed = am(repo, "pr", "--comment", env=github_env(github, event, GITHUB_API_URL="http://127.0.0.1:9"))
    assert closed.exit_code == 0 and "no answer from http://127.0.0.1:9" in closed.stderr
    tokenless = am(repo, "pr", "--comment", env=github_env(github, event, GITHUB_TOKEN=""))
    assert tokenless.exit_code == 0 and "GITHUB_TOKEN is not set" in tokenless.stderr
    no_event = am(repo, "pr", "--base", "main", "--comment")
    assert no_event.exit_code == 0 and "no pull request to comment on" in no_event.stderr


def test_nothing_to_say_posts_nothing_but_resolves_an_earlier_comment(repo: Path, tmp_path: Path):
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "docs")
    (repo / "README.md").write_text("# Shop\n")
    commit(repo, "a readme", "2026-02-01T12:00:00Z")
    head = git(repo, "rev-parse", "HEAD").strip()
    event = event_file(tmp_path, base, head)
    assert "## archmem: nothing to check\n\nThis change touches no element's code.\n" in am(repo, "pr", "--base", "main").stdout
    with FakeGitHub() as github:
        quiet = am(repo, "pr", "--comment", "--format", "json", env=github_env(github, event))
        assert json.loads(quiet.stdout)["comment"] == {"action": "skipped", "comment_id": None, "url": None}
        assert github.writes() == []
        earlier = github.add_comment(7, "<!-- archmem:pr-review -->\n## archmem: 1 memory to verify\n",
                                      "github-actions[bot]")
        resolved = am(repo, "pr", "--comment", "--format", "json", env=github_env(github, event))
        assert json.loads(resolved.stdout)["comment"]["action"] == "updated"
        [patch] = github.writes()
        assert patch.path.endswith(f"/comments/{earlier['id']}")
        assert patch.body["body"].startswith("<!-- archmem:pr-review -->\n## archmem: nothing to check any more")
        assert github.problems == []


def test_memory_text_cannot_ping_people_or_inject_html_into_the_comment(repo: Path):
    git(repo, "checkout", "-q", "-b", "sneaky")
    remember(repo, "2026-02-01T09:00:00+00:00",
             content="Ask @shop-team/admins <img src=x onerror=alert(1)> first, [here](https://evil.example) | x.",
             kind="pitfall", title="Ping @everyone", elements=["ApiGateway"])
    (repo / ROUTER).write_text(lines(41))
    commit(repo, "sneaky", "2026-02-01T12:00:00Z")
    text = am(repo, "pr", "--base", "main").stdout
    assert "@shop-team" not in text and "@\u200bshop-team/admins" in text
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "@everyone" not in text
    assert " [here](" not in text and "\\[here\\](https://evil.example) \\| x." in text  # no link, no cell


# ---- drift accept files in the change ---------------------------------------------------

SNEAKY_REASON = "routes only moved; ask @shop-team/admins <img src=x onerror=alert(1)>"


@pytest.fixture
def accepted(repo: Path) -> dict[str, str]:
    """main rewrote the router (ApiGateway drifted); the branch `accept` holds only the
    accept file `archmem drift accept` wrote for it, committed. HEAD is the branch."""
    (repo / ROUTER).write_text(lines(100, "route"))
    commit(repo, "rewrite the router", "2026-01-15T12:00:00Z")
    found = {"rewrite": git(repo, "rev-parse", "HEAD").strip()}
    git(repo, "checkout", "-q", "-b", "accept")
    git(repo, "config", "user.name", "Sarah Connor")
    result = am(repo, "drift", "accept", "ApiGateway", "--yes", "--reason", SNEAKY_REASON, "--json")
    assert result.exit_code == 0, result.output
    found["file"] = json.loads(result.stdout)["file"]
    commit(repo, "accept the gateway's description", "2026-01-16T12:00:00Z")
    found["initial"] = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    return found


def test_an_accept_in_the_change_is_listed_with_its_element_reason_and_author_and_is_not_code(repo: Path, accepted):
    data = json.loads(am(repo, "pr", "--base", "main", "--json").stdout)
    [change] = data["accept_changes"]
    assert change["change"] == "added" and change["path"] == accepted["file"]
    assert (change["element"], change["element_name"], change["element_found"]) == ("shop.api", "ApiGateway", True)
    assert change["reason"] == SNEAKY_REASON and change["author"] == "cli/Sarah-Connor"
    assert change["commit"] == accepted["rewrite"]
    # what the reviewer approves: the gateway's code from its previous baseline to the accept
    assert (change["changes"]["base"], change["changes"]["head"]) == (accepted["initial"], accepted["rewrite"])
    assert change["changes"]["files"] == [ROUTER]
    assert data["files"] == [] and data["elements"] == [] and data["unowned"] == []  # not code, touches no system
    assert data["counts"]["accept_changes"] == 1 and data["counts"]["changed_files"] == 0
    assert data["nothing_to_say"] is False  # only an accept file: still something to review


def test_the_comment_has_a_section_for_accepts_with_the_reason_disarmed(repo: Path, accepted):
    text = am(repo, "pr", "--base", "main").stdout
    assert text.startswith("<!-- archmem:pr-review -->\n## archmem: 1 drift accept in this change\n")
    assert "This change touches no element's code. 1 drift accept written." in text
    assert "### Drift accepts in this change" in text
    assert "From this merge, the element's drift counts from the accepted commit" in text
    assert (f"- accepted: **ApiGateway** (`shop.api`) by cli/Sarah-Connor at `{accepted['rewrite'][:7]}`: "
            '"routes only moved; ask @\u200bshop-team/admins &lt;img src=x onerror=alert(1)&gt;"') in text
    assert f"what it accepts: git diff {accepted['initial'][:7]} {accepted['rewrite'][:7]} of its code" in text
    assert "@shop-team" not in text and "<img" not in text


def test_github_format_puts_a_notice_on_each_accept_file(repo: Path, accepted, tmp_path: Path):
    summary, output = tmp_path / "summary.md", tmp_path / "outputs"
    result = am(repo, "pr", "--base", "main", "--format", "github",
                env={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output)})
    assert result.exit_code == 0, result.output
    assert "accept-changes=1" in output.read_text().splitlines()
    [notice] = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert notice.startswith(f"::notice file={accepted['file']},line=1,title=archmem%3A drift of ApiGateway accepted::"
                             "ApiGateway (shop.api): drift accepted by cli/Sarah-Connor: routes only moved; ask @\u200b")
    assert f"its drift counts from commit {accepted['rewrite'][:12]}" in notice and "<img" not in notice
    assert "1 drift accept file changed" in result.stdout
    assert "### Drift accepts in this change" in summary.read_text()


def test_deleting_an_accept_file_is_reported_as_withdrawn(repo: Path, accepted):
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "accept")
    git(repo, "checkout", "-q", "-b", "withdraw")
    (repo / accepted["file"]).unlink()
    commit(repo, "the router did change: withdraw the accept", "2026-01-20T12:00:00Z")
    data = json.loads(am(repo, "pr", "--base", "main", "--json").stdout)
    [change] = data["accept_changes"]
    assert (change["change"], change["path"], change["element"]) == ("deleted", accepted["file"], "shop.api")
    assert change["reason"] == SNEAKY_REASON and change["changes"] is None
    assert change["detail"].startswith("the accept is withdrawn: from this merge, drift of ApiGateway counts from "
                                       "the model's description again")
    assert data["files"] == [] and not data["nothing_to_say"]
    text = am(repo, "pr", "--base", "main").stdout
    assert "- deleted: **ApiGateway** (`shop.api`) by cli/Sarah-Connor at " in text and "1 drift accept withdrawn" in text
    assert '" — the accept is withdrawn: from this merge' in text


def test_a_malformed_accept_file_is_reported_unreadable_at_its_line(repo: Path, tmp_path: Path):
    git(repo, "checkout", "-q", "-b", "broken")
    folder = repo / ".archmem/accepts"
    folder.mkdir(parents=True)
    (folder / "broken.yaml").write_text("element: shop.api\naccepted: yesterday\n", encoding="utf-8")
    (folder / "typo.yaml").write_text("element: shop.apii\naccepted: 2026-02-01T00:00:00Z\n", encoding="utf-8")
    commit(repo, "accepts by hand", "2026-02-01T12:00:00Z")
    data = json.loads(am(repo, "pr", "--base", "main", "--json").stdout)
    by_path = {c["path"]: c for c in data["accept_changes"]}
    broken, typo = by_path[".archmem/accepts/broken.yaml"], by_path[".archmem/accepts/typo.yaml"]
    assert broken["change"] == "unreadable" and broken["line"] == 2
    assert broken["detail"].startswith(".archmem/accepts/broken.yaml:2:1: bad time in 'accepted': 'yesterday'")
    assert (typo["change"], typo["element_found"], typo["closest"][0]) == ("added", False, "shop.api")
    assert "which the model does not have; did you mean 'shop.api', " in typo["detail"]
    assert data["files"] == [] and not data["nothing_to_say"]

    summary = tmp_path / "summary.md"
    result = am(repo, "pr", "--base", "main", "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    warnings = sorted(line for line in result.stdout.splitlines() if line.startswith("::warning"))
    assert warnings[0].startswith("::warning file=.archmem/accepts/broken.yaml,line=2,title=archmem%3A a drift accept "
                                  "that cannot count::.archmem/accepts/broken.yaml:2:1: bad time")
    assert warnings[1].startswith("::warning file=.archmem/accepts/typo.yaml,line=1,")
    text = am(repo, "pr", "--base", "main").stdout
    assert "- unreadable: `.archmem/accepts/broken.yaml` — .archmem/accepts/broken.yaml:2:1: bad time" in text
    assert "- accepted: **shop.apii** (not in the model)" in text


def test_an_edited_or_moved_accept_file_says_what_changed(tmp_path: Path):
    """Pure: the diff and the two versions come in as values."""
    from archmem.git.revisions import ChangedFile
    from archmem.model.dsl import parse_dsl
    from archmem.review.accept_changes import accept_changes

    (tmp_path / "workspace.dsl").write_text(DRIFT_MODEL, encoding="utf-8")
    model = parse_dsl(tmp_path / "workspace.dsl")
    old = "element: ApiGateway\ncommit: abc1234\naccepted: 2026-02-01T00:00:00Z\nreason: tests only\n"
    files = {("base", ".archmem/accepts/a.yaml"): old, ("head", ".archmem/accepts/a.yaml"): old.replace("tests", "docs"),
             ("base", ".archmem/accepts/b.yaml"): old, ("head", ".archmem/accepts/c.yaml"): old}
    changes = accept_changes(
        [ChangedFile("M", ".archmem/accepts/a.yaml"), ChangedFile("R", ".archmem/accepts/c.yaml", ".archmem/accepts/b.yaml"),
         ChangedFile("R", "elsewhere/d.yaml", ".archmem/accepts/a.yaml")],
        folder=".archmem/accepts/", show=lambda rev, path: files.get((rev, path)), base="base", head="head", model=model,
    )
    assert [(c.change, c.path, c.accept.element if c.accept else None, c.detail) for c in changes[:2]] == [
        ("edited", ".archmem/accepts/a.yaml", "shop.api", "changed: reason"),  # a name the model finds: its id
        ("edited", ".archmem/accepts/c.yaml", "shop.api", "moved from .archmem/accepts/b.yaml"),
    ]
    assert (changes[2].change, changes[2].path) == ("deleted", ".archmem/accepts/a.yaml")  # moved out: withdrawn


def test_fail_on_stale_gates_on_memories_to_verify(repo: Path, change):
    assert am(repo, "pr", "--base", "main", "--fail-on-stale", "1").exit_code == 1
    assert am(repo, "pr", "--base", "main", "--fail-on-stale", "2").exit_code == 0

"""The GitHub Action: the example workflow passes actionlint, and the action's own run
steps, executed as GitHub would in a temporary repository, write the summary and outputs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner

from archmem.cli import cli

from .conftest import REPO_ROOT, commit, git, lines
from .loopback_github import REPOSITORY, TOKEN, FakeGitHub
from .test_pr import change, event_file, remember  # noqa: F401  (the pull request fixture)

ACTION = REPO_ROOT / "actions" / "drift" / "action.yml"
PR_ACTION = REPO_ROOT / "actions" / "pr-review" / "action.yml"
WORKFLOW = REPO_ROOT / "examples" / "github" / "archmem-drift.yml"
PR_WORKFLOW = REPO_ROOT / "examples" / "github" / "archmem-pr.yml"
README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
needs_actionlint = pytest.mark.skipif(shutil.which("actionlint") is None, reason="actionlint is not installed (dev extra)")


WORKFLOWS = sorted([*(REPO_ROOT / "examples" / "github").glob("*.yml"), *(REPO_ROOT / ".github" / "workflows").glob("*.yml")])


@needs_actionlint
@pytest.mark.parametrize("workflow", WORKFLOWS, ids=[w.name for w in WORKFLOWS])
def test_every_workflow_passes_actionlint(workflow: Path):
    result = subprocess.run(["actionlint", str(workflow)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_action_declares_the_documented_inputs_and_outputs():
    action = yaml.safe_load(ACTION.read_text())
    assert set(action["inputs"]) == {"model", "fail-on", "python-version", "working-directory", "sarif",
                                     "archmem-version", "archmem-spec"}
    assert set(action["outputs"]) == {"drift-score", "total-elements", "drifted-elements", "missing-elements",
                                      "stale-memories", "documented-elements"}
    assert action["runs"]["using"] == "composite"
    # inputs reach scripts only through env, never pasted into the script (no injection)
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", "")


PREINSTALLED = {"archmem-spec": "archmem"}
"""The archmem these tests run is installed already (the dev install): the install step
leaves it. tests/test_release.py runs the default, an install from the action's checkout."""


@dataclass
class ActionRun:
    code: int
    outputs: dict[str, str]
    """The action's outputs (its ``outputs:`` expressions over the steps' outputs)."""
    stdout: str
    summary: str
    steps: dict[str, dict[str, str]] = field(default_factory=dict)


def run_action(action_file: Path, inputs: dict[str, str], workspace: Path, tmp: Path,
               env: dict[str, str] | None = None) -> ActionRun:
    """Execute a composite action's `run:` steps the way the runner does: bash with
    `-eo pipefail`, each step's env and working directory, a GITHUB_OUTPUT file per step
    whose values become `steps.<id>.outputs.*`, one GITHUB_STEP_SUMMARY. `uses:` steps
    (setup-python, cache, upload-artifact) are the runner's business and are skipped."""
    action = yaml.safe_load(action_file.read_text())
    values = {name: spec.get("default", "") for name, spec in action["inputs"].items()} | PREINSTALLED | inputs
    summary = tmp / "summary.md"
    context = {"github.action_path": str(action_file.parent), "github.token": "", "github.job": "test",
               "runner.os": "Linux"} | {f"inputs.{k}": v for k, v in values.items()}

    def expand(text: str) -> str:
        def value(match: re.Match[str]) -> str:
            key = match.group(1)
            return context.get(key, "") if key.startswith("steps.") else context[key]

        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", value, text)

    base_env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(workspace),
                "RUNNER_TEMP": str(tmp / "runner"), "PYTHONPATH": str(REPO_ROOT), "PIP_NO_INDEX": "1",
                **(env or {})}
    (tmp / "runner").mkdir(exist_ok=True)
    stdout, steps = "", {}
    for number, step in enumerate(action["runs"]["steps"]):
        if "run" not in step or not condition(step.get("if"), values):
            continue
        output = tmp / f"output-{number}.txt"
        step_env = base_env | {"GITHUB_OUTPUT": str(output)}
        step_env |= {k: expand(str(v)) for k, v in (step.get("env") or {}).items()}
        cwd = workspace / expand(step.get("working-directory", "."))
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                cwd=cwd, env=step_env, capture_output=True, text=True)
        stdout += result.stdout
        written = dict(line.split("=", 1) for line in output.read_text().splitlines()) if output.exists() else {}
        if step.get("id"):
            steps[step["id"]] = written
            context |= {f"steps.{step['id']}.outputs.{k}": v for k, v in written.items()}
        if result.returncode != 0:
            return ActionRun(result.returncode, {}, stdout + result.stderr,
                             summary.read_text() if summary.exists() else "", steps)
    outputs = {name: expand(spec["value"]) for name, spec in (action.get("outputs") or {}).items()}
    return ActionRun(0, outputs, stdout, summary.read_text() if summary.exists() else "", steps)


def condition(text: str | None, inputs: dict[str, str]) -> bool:
    """A step's ``if:`` of the one form the actions use, ``inputs.NAME == 'value'``."""
    if text is None:
        return True
    match = re.fullmatch(r"inputs\.([\w-]+) == '([^']*)'", text.strip())
    assert match, f"run_action cannot evaluate if: {text}"
    return inputs[match[1]] == match[2]


def run_steps(inputs: dict[str, str], workspace: Path, tmp: Path) -> tuple[int, dict[str, str], str, str]:
    """The drift action's steps: (exit code, outputs, stdout, summary)."""
    run = run_action(ACTION, inputs, workspace, tmp)
    return run.code, {k: v for step in run.steps.values() for k, v in step.items()}, run.stdout, run.summary


@pytest.fixture
def drifted(repo: Path) -> Path:
    """The drift tests' repository after the API was rewritten (ApiGateway and Shop drift)."""
    (repo / "services/api/router.go").write_text(lines(100))
    commit(repo, "api rewrite", "2026-02-01T00:00:00Z")
    return repo


def test_action_steps_write_outputs_summary_and_annotations(drifted: Path, tmp_path: Path):
    code, outputs, stdout, summary = run_steps({"archmem-spec": "archmem"}, drifted, tmp_path)
    assert code == 0, stdout
    assert outputs == {"drift-score": "50", "total-elements": "4", "drifted-elements": "2", "missing-elements": "0",
                       "stale-memories": "0", "documented-elements": "0"}
    assert "## archmem drift: 50/100" in summary
    assert "::warning file=workspace.dsl,line=" in stdout


def test_action_fails_on_threshold_and_takes_model_and_working_directory(drifted: Path, tmp_path: Path):
    repo = drifted
    code, _, _, _ = run_steps({"archmem-spec": "archmem", "fail-on": "2"}, repo, tmp_path)
    assert code == 1
    outer = tmp_path / "outer"
    outer.mkdir()
    shutil.move(str(repo), str(outer / "checkout"))
    git(outer / "checkout", "mv", "workspace.dsl", "arch.dsl")
    commit(outer / "checkout", "rename the model", "2026-03-01T00:00:00Z")  # blame follows the rename
    code, outputs, stdout, _ = run_steps(
        {"archmem-spec": "archmem", "working-directory": "checkout", "model": "arch.dsl"}, outer, tmp_path
    )
    assert code == 0, stdout
    assert outputs["drifted-elements"] == "2"


# ---- the pull request review action ------------------------------------------------------

PINNED = re.compile(r"uses: ([\w.-]+/[\w./-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$")
PLACEHOLDER = re.compile(r'uses: your-org/archmem/actions/(drift|pr-review)@([0-9a-f]{40}) # your-org and this SHA: '
                         r'see "Adopting the Action" in archmem\'s README')


def test_pr_review_action_pins_its_actions_and_keeps_inputs_out_of_scripts():
    text = PR_ACTION.read_text()
    action = yaml.safe_load(text)
    assert set(action["inputs"]) >= {"comment", "fail-on", "fail-on-stale", "model", "working-directory",
                                     "archmem-version"}
    assert action["inputs"]["archmem-version"]["default"] == ""  # its own checkout, whatever a package index has
    uses = [line.strip().removeprefix("- ") for line in text.splitlines() if line.strip().startswith(("uses:", "- uses:"))]
    assert uses and all(PINNED.fullmatch(line) for line in uses), uses
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", "")  # inputs reach scripts only through env
    for workflow in (WORKFLOW, PR_WORKFLOW):
        lines_ = [line.strip().removeprefix("- ") for line in workflow.read_text().splitlines()]
        third_party = [line for line in lines_ if line.startswith("uses: actions/")]
        assert third_party and all(PINNED.fullmatch(line) for line in third_party), third_party
        ours = [line for line in lines_ if line.startswith("uses: ") and not line.startswith("uses: actions/")]
        assert ours and all(PLACEHOLDER.fullmatch(line) for line in ours), ours  # the README explains the two
    for action_file in (ACTION, PR_ACTION):  # one install step, in one script
        [install] = [step for step in yaml.safe_load(action_file.read_text())["runs"]["steps"]
                     if step.get("name") == "Install archmem"]
        assert install["run"] == 'bash "$ACTION_PATH/../install-archmem.sh"'
        assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert "#### Adopting the Action" in README
    example = yaml.safe_load(PR_WORKFLOW.read_text())
    assert example[True] == {"push": {"branches": ["main"]}, "pull_request": None}  # yaml reads `on` as True
    assert example["permissions"] == {"contents": "read"} and "concurrency" in example
    writers = {name for name, job in example["jobs"].items() if "pull-requests" in (job.get("permissions") or {})}
    assert writers == {"pull-request"}


@needs_actionlint
def test_workflows_using_the_actions_locally_pass_actionlint(tmp_path: Path):
    shutil.copytree(REPO_ROOT / "actions", tmp_path / "actions")
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    git(tmp_path, "init", "-q")
    local = re.sub(r"your-org/archmem/actions/pr-review@[0-9a-f]{40}", "./actions/pr-review", PR_WORKFLOW.read_text())
    assert "uses: ./actions/pr-review" in local
    (workflows / "archmem.yml").write_text(local)
    drift = re.sub(r"your-org/archmem/actions/drift@[0-9a-f]{40}", "./actions/drift", WORKFLOW.read_text())
    assert "uses: ./actions/drift" in drift
    (workflows / "archmem-drift.yml").write_text(drift)
    result = subprocess.run(["actionlint"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    (workflows / "archmem.yml").write_text(local.replace("fail-on-stale:", "fail-on-stael:"))
    wrong = subprocess.run(["actionlint"], cwd=tmp_path, capture_output=True, text=True)
    assert wrong.returncode == 1 and "fail-on-stael" in wrong.stdout  # it does read the local action


def pr_env(tmp_path: Path, event: Path, github: FakeGitHub | None = None, name: str = "pull_request") -> dict[str, str]:
    env = {"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": REPOSITORY,
           "GITHUB_SERVER_URL": "https://github.example", "GITHUB_API_URL": github.url if github else "http://127.0.0.1:9"}
    return env


def test_pr_review_action_comments_annotates_checks_and_maps(repo: Path, change, tmp_path: Path):  # noqa: F811
    event = event_file(tmp_path, change["base"], change["head"])
    with FakeGitHub() as github:
        run = run_action(PR_ACTION, {"github-token": TOKEN}, repo, tmp_path, pr_env(tmp_path, event, github))
        assert run.code == 0, run.stdout
        [post] = github.writes()
        assert post.method == "POST" and "Prefix order" in post.body["body"] and github.problems == []
    assert run.outputs["touched-elements"] == "2" and run.outputs["memories-to-verify"] == "1"
    assert run.outputs["made-verify"] == "1" and run.outputs["comment-url"].endswith("#issuecomment-1001")
    assert run.outputs["memory-changes"] == "1" and run.outputs["accept-changes"] == "0"
    assert run.outputs["drift-score"] == "50" and run.outputs["documented-elements"] == "2"
    assert run.outputs["coverage"] == "2 of 4 elements documented"
    assert "::warning file=.archmem/memories/prefix-order." in run.stdout
    assert "## archmem drift: 50/100" in run.summary
    assert "## archmem: this change makes 1 memory VERIFY" in run.summary
    assert "**Knowledge map:** 2 of 4 elements documented" in run.summary
    assert (tmp_path / "runner" / "archmem" / "knowledge-map.html").read_text().startswith("<!doctype html>")
    has_check = "check" in cli.list_commands(click.Context(cli))
    assert ("::notice title=archmem::this archmem has no 'archmem check' yet" in run.stdout) is not has_check


def test_pr_review_action_gates_after_the_comment_is_posted(repo: Path, change, tmp_path: Path):  # noqa: F811
    event = event_file(tmp_path, change["base"], change["head"])
    with FakeGitHub() as github:
        run = run_action(PR_ACTION, {"github-token": TOKEN, "fail-on-stale": "1"}, repo, tmp_path,
                         pr_env(tmp_path, event, github))
        assert run.code == 1
        assert "::error title=archmem::memories to verify: 1 (fail-on-stale: 1)" in run.stdout
        assert [w.method for w in github.writes()] == ["POST"]
    bad = run_action(PR_ACTION, {"comment": "false", "fail-on": "many"}, repo, tmp_path, pr_env(tmp_path, event))
    assert bad.code == 1 and "FAIL_ON must be a whole number, not 'many'" in bad.stdout


def test_pr_review_action_without_permission_to_comment_warns_and_passes(repo: Path, change, tmp_path: Path):  # noqa: F811
    event = event_file(tmp_path, change["base"], change["head"])
    with FakeGitHub() as github:
        github.fail = (403, {}, "Resource not accessible by integration")
        run = run_action(PR_ACTION, {"github-token": TOKEN}, repo, tmp_path, pr_env(tmp_path, event, github))
    assert run.code == 0, run.stdout
    assert "::warning title=archmem pr::no pull request comment" in run.stdout
    assert "No pull request comment: POST" in run.summary or "No pull request comment: GET" in run.summary


def test_pr_review_action_on_push_runs_drift_and_skips_the_review(repo: Path, change, tmp_path: Path):  # noqa: F811
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"before": change["base"], "after": change["head"]}))
    run = run_action(PR_ACTION, {"comment": "true"}, repo, tmp_path, pr_env(tmp_path, event, name="push"))
    assert run.code == 0, run.stdout
    assert "archmem pr: not a pull request (push); the review is skipped" in run.stdout
    assert run.outputs["touched-elements"] == "" and run.outputs["stale-memories"] == "1"


def test_pr_review_action_on_a_shallow_clone_says_the_fix_or_deepens(repo: Path, change, tmp_path: Path):  # noqa: F811
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "router", f"file://{repo}", str(shallow))
    event = event_file(tmp_path, change["base"], change["head"])
    refused = run_action(PR_ACTION, {"comment": "false"}, shallow, tmp_path, pr_env(tmp_path, event))
    assert refused.code == 1
    assert "::error title=archmem::This is a shallow clone" in refused.stdout and "fetch-depth: 0" in refused.stdout
    deepened = run_action(PR_ACTION, {"comment": "false", "deepen": "true"}, shallow, tmp_path, pr_env(tmp_path, event))
    assert deepened.code == 0, deepened.stdout
    assert deepened.outputs["memories-to-verify"] == "1"


def test_drift_on_a_shallow_clone_is_an_error_annotation_with_the_fix(repo: Path, tmp_path: Path):
    (repo / "services/api/router.go").write_text(lines(41))
    commit(repo, "second", "2026-02-01T00:00:00Z")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    result = CliRunner().invoke(cli, ["drift", "--format", "github", "--repo", str(shallow)])
    assert result.exit_code == 6
    assert result.stdout.startswith("::error title=archmem drift::") and "fetch-depth: 0" in result.stdout


def test_a_fresh_clone_reports_what_the_working_clone_reports(repo: Path, tmp_path: Path):
    """CI clones the repository: no index, only the committed memory files."""
    remember(repo, "2026-01-10T09:00:00+00:00", content="Routes are matched by prefix, longest first.",
             kind="pitfall", title="Prefix order", elements=["ApiGateway"])
    remember(repo, "2026-01-10T09:30:00+00:00", content="Order totals are integer cents.", kind="convention",
             title="Cents", elements=["Orders"], anchors=["services/orders/app.py"])  # its file sorts first
    remember(repo, "2026-01-10T09:00:00+00:00", content="Nobody owns the legacy jobs.", kind="note",
             elements=["Legacy"])
    commit(repo, "team memory", "2026-01-10T12:00:00Z")
    (repo / "services/api/router.go").write_text(lines(100, "route"))
    (repo / "services/orders/app.py").write_text(lines(41))
    commit(repo, "router rewrite, one more order line", "2026-02-01T12:00:00Z")
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", f"file://{repo}", str(fresh))
    assert not (fresh / ".archmem" / "archmem.db").exists()

    def drift(root: Path, name: str) -> tuple[dict[str, str], str, list[str]]:
        summary, output = tmp_path / f"{name}-summary.md", tmp_path / f"{name}-output.txt"
        result = CliRunner().invoke(cli, ["drift", "--format", "github", "--repo", str(root)],
                                    env={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output)})
        assert result.exit_code == 0, result.output
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
        verify = summary.read_text().split("### Memories to verify", 1)[1].strip().splitlines()
        return outputs, result.stdout, verify

    for run in range(2):  # the working clone's index is warm the second time
        working = drift(repo, f"working-{run}")
    cloned = drift(fresh, "fresh")
    assert working == cloned
    assert working[0]["stale-memories"] == "2" and working[0]["documented-elements"] == "3"
    assert [line.split("**")[1] for line in working[2]] == ["Prefix order", "Cents"]  # in the order written


# ---- SARIF to code scanning --------------------------------------------------------------


def test_with_sarif_the_actions_write_sarif_for_the_upload_step_and_without_write_none(repo: Path, change,  # noqa: F811
                                                                                         tmp_path: Path):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (dev extra)")
    schema = json.loads((REPO_ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    event = event_file(tmp_path, change["base"], change["head"])
    for action_file, expected in ((ACTION, {"drift.sarif"}), (PR_ACTION, {"conformance.sarif", "drift.sarif",
                                                                         "check.sarif"})):
        run = run_action(action_file, {"sarif": "true", "comment": "false"} if action_file == PR_ACTION
                         else {"sarif": "true"}, repo, tmp_path, pr_env(tmp_path, event))
        assert run.code == 0, run.stdout
        folder = Path(run.steps["sarif"]["folder"])
        assert {p.name for p in folder.iterdir()} == expected
        categories = set()
        for path in folder.iterdir():
            log = json.loads(path.read_text())
            jsonschema.Draft4Validator(schema).validate(log)
            categories.add(log["runs"][0]["automationDetails"]["id"])
        assert categories == {f"archmem/{name.removesuffix('.sarif')}/" for name in expected}  # one category each
        for path in folder.iterdir():
            path.unlink()
        for file in (ACTION, PR_ACTION):
            [upload] = [s for s in yaml.safe_load(file.read_text())["runs"]["steps"]
                        if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
            assert upload["if"] == "inputs.sarif == 'true'"
            assert upload["with"]["sarif_file"] == "${{ steps.sarif.outputs.folder }}"
    quiet = run_action(ACTION, {}, repo, tmp_path, pr_env(tmp_path, event))
    assert quiet.code == 0 and "sarif" not in quiet.steps and not any(folder.iterdir())

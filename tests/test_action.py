"""The GitHub Action: the example workflow passes actionlint, and the action's own run
steps, executed as GitHub would in a temporary repository, write the summary and outputs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from .conftest import REPO_ROOT, commit, git, lines

ACTION = REPO_ROOT / "actions" / "drift" / "action.yml"
WORKFLOW = REPO_ROOT / "examples" / "github" / "archmem-drift.yml"


@pytest.mark.skipif(shutil.which("actionlint") is None, reason="actionlint is not installed (dev extra)")
def test_example_workflow_passes_actionlint():
    result = subprocess.run(["actionlint", str(WORKFLOW)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_action_declares_the_documented_inputs_and_outputs():
    action = yaml.safe_load(ACTION.read_text())
    assert set(action["inputs"]) == {"model", "fail-on", "python-version", "working-directory", "archmem-spec"}
    assert set(action["outputs"]) == {"drift-score", "total-elements", "drifted-elements", "missing-elements",
                                      "stale-memories", "documented-elements"}
    assert action["runs"]["using"] == "composite"
    # inputs reach scripts only through env, never pasted into the script (no injection)
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", "")


def run_steps(inputs: dict[str, str], workspace: Path, tmp: Path) -> tuple[int, dict[str, str], str, str]:
    """Execute the action's `run:` steps the way the runner does (bash, env, cwd)."""
    action = yaml.safe_load(ACTION.read_text())
    values = {name: spec.get("default", "") for name, spec in action["inputs"].items()} | inputs
    summary, output = tmp / "summary.md", tmp / "output.txt"
    context = {"github.action_path": str(ACTION.parent)} | {f"inputs.{k}": v for k, v in values.items()}

    def expand(text: str) -> str:
        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: context[m.group(1)], text)

    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output),
           "GITHUB_WORKSPACE": str(workspace)}
    stdout = ""
    for step in action["runs"]["steps"]:
        if "run" not in step:
            continue  # uses: actions/setup-python is the runner's business
        step_env = env | {k: expand(str(v)) for k, v in (step.get("env") or {}).items()}
        cwd = workspace / expand(step.get("working-directory", "."))
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                cwd=cwd, env=step_env, capture_output=True, text=True)
        stdout += result.stdout
        if result.returncode != 0:
            return result.returncode, {}, stdout + result.stderr, ""
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines()) if output.exists() else {}
    return 0, outputs, stdout, summary.read_text() if summary.exists() else ""


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

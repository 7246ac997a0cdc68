"""A release as the release workflow makes it (issue 26, item 7): the sdist and the wheel
built with ``python -m build``, checked by ``twine check``, holding the templates and
the example shop; the wheel installed into a fresh virtualenv runs; and the actions'
install step, run as the runner runs it, installs archmem from the action's checkout.

Slow: a fresh virtualenv installs archmem's dependencies from the package index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

from archmem import __version__

from .conftest import REPO_ROOT

pytestmark = pytest.mark.slow
RELEASE = REPO_ROOT / ".github" / "workflows" / "release.yml"


def clean_env(venv: Path | None = None) -> dict[str, str]:
    """The environment of a fresh shell: no PYTHONPATH to this checkout, the virtualenv's
    scripts first on PATH, pip free to reach the index."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_NO_INDEX", "VIRTUAL_ENV")}
    if venv is not None:
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(venv)
    return env


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: int = 600) -> str:
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env or clean_env(), capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` of this checkout, as the release workflow runs it (without build
    isolation when hatchling is here already: no download)."""
    pytest.importorskip("build", reason="build is not installed (dev extra)")
    out = tmp_path_factory.mktemp("dist")
    try:
        import hatchling  # noqa: F401

        isolation = ["--no-isolation"]
    except ImportError:
        isolation = []
    run(sys.executable, "-m", "build", *isolation, "--outdir", out, REPO_ROOT, cwd=out)
    return out


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory, dist: Path) -> Path:
    """A new virtualenv with the wheel installed (and so archmem's dependencies)."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=venv.parent)
    [wheel] = dist.glob("*.whl")
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel,
        cwd=venv.parent, env=clean_env(venv))
    return venv


def installed_from(venv: Path) -> dict:
    """What pip recorded as the source of the installed archmem (PEP 610 direct_url.json)."""
    code = ("import importlib.metadata as m, json; "
            "print(m.distribution('archmem').read_text('direct_url.json') or 'null')")
    return json.loads(run(venv / "bin" / "python", "-c", code, cwd=venv.parent, env=clean_env(venv)))


def test_the_sdist_and_the_wheel_hold_the_templates_and_the_example_shop(dist: Path):
    [wheel] = dist.glob(f"archmem-{__version__}-*.whl")
    [sdist] = dist.glob(f"archmem-{__version__}.tar.gz")
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {p.name for p in (REPO_ROOT / "templates").glob("*.j2")}
    assert templates and {f"archmem/templates/{name}" for name in templates} <= names
    assert "archmem/examples/shop/workspace.dsl" in names
    assert any(n.startswith("archmem/examples/shop/services/") for n in names)
    assert f"archmem-{__version__}.dist-info/entry_points.txt" in names
    with tarfile.open(sdist) as archive:
        inside = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {f"templates/{name}" for name in templates} <= inside
    assert {"examples/shop/workspace.dsl", "pyproject.toml", "README.md", "actions/install-archmem.sh"} <= inside


def test_twine_accepts_both(dist: Path):
    pytest.importorskip("twine", reason="twine is not installed (dev extra)")
    out = run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()), cwd=dist)
    assert out.count("PASSED") == 2


def test_the_wheel_in_a_fresh_virtualenv_runs_and_finds_its_templates_and_example(fresh_venv: Path, dist: Path,
                                                                                  tmp_path: Path):
    [wheel] = dist.glob("*.whl")
    env = clean_env(fresh_venv)
    run(fresh_venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps", wheel,
        cwd=tmp_path, env=env)
    assert installed_from(fresh_venv)["url"].endswith(wheel.name)
    assert run("archmem", "--version", cwd=tmp_path, env=env).strip() == f"archmem, version {__version__}"
    run("archmem", "demo", "--dir", tmp_path / "demo", cwd=tmp_path, env=env)  # the example shop and the templates
    assert (tmp_path / "demo" / "briefing.md").read_text().startswith("# Briefing")
    assert (tmp_path / "demo" / "knowledge-map.html").read_text().startswith("<!doctype html>")


def test_the_actions_install_step_installs_archmem_from_the_actions_checkout(fresh_venv: Path, tmp_path: Path):
    """The `Install archmem` step with its inputs at their defaults, `github.action_path`
    substituted and the runner's bash, in a workspace that is not archmem's."""
    action_file = REPO_ROOT / "actions" / "pr-review" / "action.yml"
    action = yaml.safe_load(action_file.read_text())
    [step] = [s for s in action["runs"]["steps"] if s.get("name") == "Install archmem"]
    defaults = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    context = defaults | {"github.action_path": str(action_file.parent)}
    step_env = {key: context[value.strip("${} ")] for key, value in step["env"].items()}
    assert step_env == {"ARCHMEM_VERSION": "", "ARCHMEM_SPEC": "", "ACTION_PATH": str(action_file.parent)}
    workspace = tmp_path / "their-repository"
    workspace.mkdir()
    result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=workspace,
                            env=clean_env(fresh_venv) | step_env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"archmem: installed archmem, version {__version__} from {REPO_ROOT}" in result.stdout
    source = installed_from(fresh_venv)
    assert source["url"] == REPO_ROOT.resolve().as_uri() and "dir_info" in source
    assert run("archmem", "--version", cwd=workspace, env=clean_env(fresh_venv)).strip().endswith(__version__)


def test_the_install_step_refuses_a_version_that_is_not_one(tmp_path: Path):
    result = subprocess.run(["bash", str(REPO_ROOT / "actions" / "install-archmem.sh")], cwd=tmp_path,
                            env=clean_env() | {"ARCHMEM_VERSION": "latest; rm -rf /", "ARCHMEM_SPEC": "",
                                               "ACTION_PATH": str(REPO_ROOT / "actions" / "drift")},
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "::error title=archmem::archmem-version must be a released version (e.g. 0.2.0)" in result.stdout


def test_the_release_workflow_publishes_only_for_a_tag():
    workflow = yaml.safe_load(RELEASE.read_text())
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    runs = "\n".join(step.get("run", "") for step in build["steps"])
    assert "python -m build" in runs and "twine check --strict dist/*" in runs
    assert publish["needs"] == "build" and "startsWith(github.ref, 'refs/tags/v')" in publish["if"]
    assert publish["permissions"] == {"id-token": "write"}
    assert workflow["permissions"] == {"contents": "read"}

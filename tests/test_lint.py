"""The house's lint and type checks, with the project's own configurations
(pyproject.toml's ``[tool.ruff]`` and ``[tool.mypy]``), run by the suite so the README's one
test command and CI check the same things. Both tools come with the dev extra."""

from __future__ import annotations

import os
import subprocess
import sys

from .conftest import REPO_ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    # caches stay out of the checkout, so a read-only or shared clone still runs the suite
    env = {**os.environ, "RUFF_CACHE_DIR": os.path.join(os.environ.get("TMPDIR", "/tmp"), "archmem-ruff-cache")}
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO_ROOT, capture_output=True, text=True, env=env,
                          timeout=600, check=False)


def test_ruff_finds_nothing_in_the_package_the_tests_or_the_benches():
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_passes_on_the_whole_package_at_the_projects_strictness():
    result = run("mypy", "--cache-dir", os.path.join(os.environ.get("TMPDIR", "/tmp"), "archmem-mypy-cache"))
    assert result.returncode == 0, result.stdout + result.stderr

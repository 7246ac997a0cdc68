"""The pre-commit hooks (issue 26, item 8): ``.pre-commit-hooks.yaml`` is a manifest
pre-commit accepts, its file filters reach the files each hook reads, and each entry,
run as pre-commit runs it (the entry's words, no file names), passes a clean repository
and fails one with a problem."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conformance_repos import LANGUAGES, shop
from .conftest import REPO_ROOT, write
from .test_conformance import RULES

MANIFEST = REPO_ROOT / ".pre-commit-hooks.yaml"


def hooks() -> dict[str, dict]:
    return {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))}


def run_hook(hook_id: str, root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The hook as pre-commit starts it: its entry split into words, at the repository root."""
    hook = hooks()[hook_id]
    assert hook["pass_filenames"] is False  # archmem reads the whole repository, not the staged files
    return subprocess.run(shlex.split(hook["entry"]), cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_the_manifest_has_the_two_hooks():
    found = hooks()
    assert set(found) == {"archmem-check", "archmem-conformance"}
    for hook in found.values():
        assert hook["language"] == "python" and hook["name"] and hook["description"]
        assert shlex.split(hook["entry"])[0] == "archmem"  # the console script the package installs


def test_pre_commit_accepts_the_manifest():
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (dev extra)")
    result = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_filters_reach_the_memory_files_and_every_language_conformance_reads():
    identify = pytest.importorskip("identify.identify")
    check, conformance = hooks()["archmem-check"], hooks()["archmem-conformance"]
    assert re.search(check["files"], ".archmem/memories/header-limits.md")
    assert re.search(check["files"], ".archmem/accepts/gateway.yaml")
    assert not re.search(check["files"], "services/gateway/router.go")
    wanted = set(conformance["types_or"])
    for language in LANGUAGES:
        code = [name for name in shop(language) if not name.endswith(("workspace.dsl", "package.json", "go.mod"))]
        reached = [name for name in code if identify.tags_from_filename(name) & wanted]
        assert reached, f"no {language} file would start archmem-conformance"


def test_the_check_entry_passes_clean_memory_files_and_fails_a_broken_one(git_repo, archmem_on_path):
    root = git_repo({**shop("python"), ".archmem/memories/.keep": ""})
    clean = run_hook("archmem-check", root, archmem_on_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    write(root, {".archmem/memories/broken.md": "---\nkind: pitfall\ntitle: [unclosed\n---\nBody.\n"})
    broken = run_hook("archmem-check", root, archmem_on_path)
    assert broken.returncode == 2, broken.stdout + broken.stderr
    assert ".archmem/memories/broken.md:" in broken.stdout


def test_the_conformance_entry_fails_on_a_broken_rule_only(git_repo, archmem_on_path):
    root = git_repo({**shop("python"), "archmem.toml": RULES})
    broken = run_hook("archmem-conformance", root, archmem_on_path)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "audit only listens" in broken.stdout
    undeclared_only = git_repo(shop("python"), name="undeclared")  # no rules: undeclared imports do not fail it
    passed = run_hook("archmem-conformance", undeclared_only, archmem_on_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "The code leaves the model." in passed.stdout

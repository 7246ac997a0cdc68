"""Shell completion (issue 26, item 8): ``_ARCHMEM_COMPLETE=bash_source archmem`` prints
click's completion script for bash, zsh and fish through the CLI's safe streams, and the
script it prints completes archmem's commands and options in a real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from click.shell_completion import get_completion_class

from archmem.cli import cli

from .conftest import REPO_ROOT


def archmem(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``archmem`` as a shell starts it: a real process, its own streams."""
    return subprocess.run([sys.executable, "-m", "archmem", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **env}, timeout=60)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_completion_source_is_clicks_script_for_each_shell(shell: str):
    result = archmem({"_ARCHMEM_COMPLETE": f"{shell}_source"})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    expected = get_completion_class(shell)(cli, {}, "archmem", "_ARCHMEM_COMPLETE").source()
    # click 8.1 echoes the script with one more newline than 8.2 and later; shells ignore it
    assert result.stdout.rstrip("\n") == expected.rstrip("\n")


def test_completing_a_word_lists_the_commands_and_options_it_may_be():
    commands = archmem({"_ARCHMEM_COMPLETE": "bash_complete", "COMP_WORDS": "archmem conf", "COMP_CWORD": "1"})
    assert commands.returncode == 0, commands.stderr
    assert "plain,conformance" in commands.stdout.splitlines()
    formats = archmem({"_ARCHMEM_COMPLETE": "bash_complete", "COMP_WORDS": "archmem conformance --format ",
                       "COMP_CWORD": "3"})
    assert {"plain,text", "plain,json", "plain,github"} <= set(formats.stdout.splitlines())


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_sources_the_script_and_completes_a_subcommand(tmp_path):
    folder = tmp_path / "bin"
    folder.mkdir()
    shim = folder / "archmem"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO_ROOT}" exec "{sys.executable}" -m archmem "$@"\n')
    shim.chmod(0o755)
    script = ('eval "$(_ARCHMEM_COMPLETE=bash_source archmem)"\n'
              'COMP_WORDS=(archmem rememb); COMP_CWORD=1\n'
              '_archmem_completion archmem\n'
              'printf "%s\\n" "${COMPREPLY[@]}"\n')
    result = subprocess.run(["bash", "--noprofile", "--norc", "-c", script], capture_output=True, text=True,
                            env={**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["remember"]

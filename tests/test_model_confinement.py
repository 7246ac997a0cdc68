"""Issue 17, item 3: nothing a model names is read from outside the repository.

Each test builds a repository and, beside it, an ``outside`` folder whose files hold
words (OUTSIDEWORD) that must never reach a model or a message.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from archmem.cli import cli
from archmem.errors import ModelError
from archmem.model.confine import confine
from archmem.model.dsl import parse_dsl
from archmem.model.loader import load_model
from archmem.model.yaml_model import parse_yaml_model

from .conftest import ADR, write

SECRET = "OUTSIDEWORD"
OUTSIDE_DSL = f'workspace "{SECRET}" {{\n    model {{\n        x = person "{SECRET}" "{SECRET}"\n    }}\n}}\n'
OUTSIDE_ADR = f"# 1. {SECRET}\n\nDate: 2026-01-01\n\n## Status\n\nAccepted\n"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """(repository, outside): the outside folder holds a DSL file and an ADR folder."""
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    write(outside, {"outside.dsl": OUTSIDE_DSL, "adr/0001-out.md": OUTSIDE_ADR, "outside.json": '{"name": "X"}'})
    repo.mkdir()
    return repo, outside


def refused(call, *, file: Path, line: int, column: int) -> ModelError:
    """The call fails with a ModelError at file:line:col that says nothing of the outside."""
    with pytest.raises(ModelError) as caught:
        call()
    error = caught.value
    assert (error.file, error.line, error.column) == (str(file.resolve()), line, column), str(error)
    assert "points outside" in error.message or "links outside" in error.message, error.message
    assert SECRET not in str(error)
    return error


# ---- what the DSL names --------------------------------------------------------------


@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_workspace_extends_outside_is_refused_without_reading_it(layout, how: str) -> None:
    repo, outside = layout
    target = outside / "outside.dsl" if how == "absolute" else "../outside/outside.dsl"
    model = write_file(repo / "workspace.dsl", f"workspace extends {target} {{\n}}\n")
    refused(lambda: parse_dsl(model, env={}, root=repo), file=model, line=1, column=19)


def test_workspace_extends_a_json_file_outside_is_refused(layout) -> None:
    repo, outside = layout
    model = write_file(repo / "workspace.dsl", f"workspace extends {outside / 'outside.json'} {{\n}}\n")
    refused(lambda: parse_dsl(model, env={}, root=repo), file=model, line=1, column=19)


@pytest.mark.parametrize("directive", ["!adrs", "!decisions", "!docs"])
@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_adrs_and_docs_outside_are_refused(layout, directive: str, how: str) -> None:
    repo, outside = layout
    target = outside / "adr" if how == "absolute" else "../../outside/adr"
    model = write_file(repo / "docs" / "workspace.dsl", f"workspace {{\n    {directive} {target}\n}}\n")
    refused(lambda: parse_dsl(model, env={}, root=repo), file=model, line=2, column=len(directive) + 6)


def test_a_path_inside_the_repository_but_above_the_model_is_allowed(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, {"adr/0017-use-the-body.md": ADR, "docs/workspace.dsl": "workspace {\n    !adrs ../adr\n}\n"})
    model = parse_dsl(repo / "docs" / "workspace.dsl", env={}, root=repo)
    assert [d.id for d in model.decisions] == ["17"]


def test_include_keeps_structurizrs_narrower_rule(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, {"shared.dsl": 's = softwareSystem "S"\n',
                 "ws/workspace.dsl": "workspace {\n model {\n  !include ../shared.dsl\n }\n}\n"})
    error = refused(lambda: parse_dsl(repo / "ws" / "workspace.dsl", env={}, root=repo),
                    file=repo / "ws" / "workspace.dsl", line=3, column=12)
    assert "the folder of the including file" in error.message


# ---- escapes through symlinks ----------------------------------------------------------


def test_a_symlinked_extends_include_or_adrs_target_is_refused(layout) -> None:
    repo, outside = layout
    os.symlink(outside / "outside.dsl", repo / "base.dsl")
    os.symlink(outside / "adr", repo / "adr")
    (repo / "parts").mkdir()
    os.symlink(outside / "outside.dsl", repo / "parts" / "linked.dsl")
    model = write_file(repo / "workspace.dsl", "workspace extends base.dsl {\n}\n")
    refused(lambda: parse_dsl(model, env={}, root=repo), file=model, line=1, column=19)
    write_file(model, "workspace {\n    !adrs adr\n}\n")
    refused(lambda: parse_dsl(model, env={}, root=repo), file=model, line=2, column=11)
    write_file(model, "workspace {\n    model {\n        !include parts\n    }\n}\n")
    error = refused(lambda: parse_dsl(model, env={}, root=repo), file=model, line=3, column=18)
    assert "linked.dsl" in error.message


def test_a_symlinked_record_in_a_decisions_folder_is_skipped_with_a_warning(layout) -> None:
    repo, outside = layout
    write(repo, {"adr/0017-use-the-body.md": ADR, "workspace.dsl": "workspace {\n    !adrs adr\n}\n"})
    os.symlink(outside / "adr" / "0001-out.md", repo / "adr" / "0001-out.md")
    model = parse_dsl(repo / "workspace.dsl", env={}, root=repo)
    assert [d.id for d in model.decisions] == ["17"]
    assert any("0001-out.md" in w and "points outside" in w for w in model.warnings), model.warnings
    assert SECRET not in json.dumps(dataclasses.asdict(model), default=str)


def test_a_conventional_adr_folder_that_links_out_is_not_read(layout) -> None:
    repo, outside = layout
    (repo / "docs").mkdir()
    os.symlink(outside / "adr", repo / "docs" / "adr")
    model = write_file(repo / "workspace.dsl", "workspace {\n}\n")
    assert load_model(model, repo).decisions == []


def test_a_discovered_model_file_may_not_link_out(layout) -> None:
    repo, outside = layout
    os.symlink(outside / "outside.dsl", repo / "workspace.dsl")
    result = CliRunner().invoke(cli, ["model", "--repo", str(repo)])
    assert result.exit_code == 4, result.output
    assert "points outside" in result.output and SECRET not in result.output


# ---- what adr-tools, Log4brains and the YAML model name ----------------------------------


def test_log4brains_adr_folder_outside_is_refused_at_its_line(layout) -> None:
    repo, outside = layout
    write_file(repo / "workspace.dsl", "workspace {\n}\n")
    settings_file = write_file(repo / ".log4brains.yml", "project:\n  name: x\n  adrFolder: ../outside/adr\n")
    refused(lambda: load_model(repo / "workspace.dsl", repo), file=settings_file, line=3, column=14)


def test_adr_dir_outside_is_refused(layout) -> None:
    repo, outside = layout
    write_file(repo / "workspace.dsl", "workspace {\n}\n")
    adr_dir = write_file(repo / ".adr-dir", f"{outside / 'adr'}\n")
    refused(lambda: load_model(repo / "workspace.dsl", repo), file=adr_dir, line=1, column=1)


@pytest.mark.parametrize("how", ["absolute", "relative", "element"])
def test_yaml_decisions_outside_are_refused(layout, how: str) -> None:
    repo, outside = layout
    if how == "element":
        text = "elements:\n  - id: s\n    kind: system\n    decisions: ../outside/adr\n"
        line, column = 4, 16
    else:
        target = outside / "adr" if how == "absolute" else "../outside/adr"
        text, line, column = f"decisions: {target}\n", 1, 12
    model = write_file(repo / "archmem.yaml", text)
    refused(lambda: parse_yaml_model(model, root=repo), file=model, line=line, column=column)


# ---- through the command line ---------------------------------------------------------------


def test_the_cli_refuses_with_the_directives_place_and_no_traceback(layout) -> None:
    repo, outside = layout
    write_file(repo / "workspace.dsl", f"workspace extends {outside / 'outside.dsl'} {{\n}}\n")
    result = CliRunner().invoke(cli, ["model", "--repo", str(repo)])
    assert result.exit_code == 4, result.output
    assert f"{(repo / 'workspace.dsl').resolve()}:1:19:" in result.output
    assert SECRET not in result.output and "Traceback" not in result.output


def test_an_explicit_model_outside_the_repository_may_name_files_beside_it(layout, tmp_path: Path) -> None:
    repo, outside = layout
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, {"adr/0017-use-the-body.md": ADR, "workspace.dsl": "workspace {\n    !adrs adr\n}\n"})
    args = ["model", "--repo", str(repo), "--model", str(elsewhere / "workspace.dsl")]
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    assert [d["id"] for d in json.loads(result.output)["decisions"]] == ["17"]
    # …but not above its own folder
    write_file(elsewhere / "workspace.dsl", "workspace {\n    !adrs ../outside/adr\n}\n")
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 4 and "points outside" in result.output and SECRET not in result.output


# ---- the rule itself, for any written path ------------------------------------------------------


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A repository with a folder, a symlink out and a symlink in, and its outside."""
    base = tmp_path_factory.mktemp("confine")
    repo, outside = base / "repo", base / "outside"
    (repo / "a" / "b").mkdir(parents=True)
    outside.mkdir()
    os.symlink(outside, repo / "a" / "out")
    os.symlink(repo / "a" / "b", repo / "a" / "in")
    return repo, outside


SEGMENTS = st.sampled_from(["..", ".", "a", "b", "out", "in", "x", "", "outside", "repo"])


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=300)
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=7), absolute=st.booleans())
def test_confine_returns_a_path_inside_or_refuses(tree, parts: list[str], absolute: bool) -> None:
    repo, _ = tree
    written = ("/" if absolute else "") + "/".join(parts)
    try:
        path = confine(written, base=repo / "a", within=repo, what="!adrs", location=None)
    except ModelError as exc:
        assert "points outside" in exc.message or "is not a path" in exc.message
    else:
        assert path == path.resolve() and path.is_relative_to(repo.resolve())


def write_file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path

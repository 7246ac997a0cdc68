"""Issue 22, item 4: one confinement rule for every path configuration names. A
committed ``archmem.toml`` (or pyproject.toml) that points a folder out of the
repository, or a committed symlink in place of a folder, is refused with the setting
(and its file:line) named, and nothing is written or read outside; an absolute path
given in the environment is the user's own choice. Real repositories, real symlinks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from archmem.cli import cli
from archmem.confinement import OutsideBoundary, resolve_within

from .conftest import ADR, MODEL, git, write

NOTE = "The gateway drops headers over 8KB."


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """(repository, outside): a git repository with a model, and an empty folder beside it."""
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    write(repo, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    git(repo, "init", "-q")
    outside.mkdir()
    return repo, outside


def am(repo: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)], env=env, catch_exceptions=False)


def everything_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def refused(result: Result, *needles: str) -> None:
    assert result.exit_code == 3, result.output
    for needle in needles:
        assert needle in result.output, result.output
    assert "Traceback" not in result.output


def test_a_committed_setting_leading_out_is_refused_with_its_file_and_line(layout):
    repo, outside = layout
    (repo / "archmem.toml").write_text('# team settings\n[store]\nmemories = "../outside"\n', encoding="utf-8")
    result = am(repo, "remember", NOTE, "--kind", "pitfall")
    refused(result, f'{repo / "archmem.toml"}:3: [store] memories = "../outside" leads outside the repository ({repo})',
            "ARCHMEM_STORE_MEMORIES=/absolute/path")
    assert everything_under(outside) == []


def test_a_committed_symlink_in_place_of_the_memory_folder_is_refused(layout):
    repo, outside = layout
    (repo / ".archmem").mkdir()
    (repo / ".archmem" / "memories").symlink_to(outside, target_is_directory=True)
    result = am(repo, "remember", NOTE, "--kind", "pitfall")
    refused(result, '[store] memories = ".archmem/memories" (the default) leads through the symlink .archmem/memories '
                    f"outside the repository ({repo})", "replace the symlink .archmem/memories with a folder")
    assert everything_under(outside) == []
    assert am(repo, "list").exit_code == 3 and am(repo, "check").exit_code == 3  # reads too: nothing read from there


def test_a_symlink_in_place_of_archmem_s_own_folder_is_refused(layout):
    repo, outside = layout
    (repo / ".archmem").symlink_to(outside, target_is_directory=True)
    refused(am(repo, "remember", NOTE, "--kind", "pitfall"), "leads through the symlink .archmem outside")
    (repo / "archmem.toml").write_text('[store]\nmemories = "memories"\nprivate_memories = "private"\n'
                                       'accepts = "accepts"\npath = "index.db"\n', encoding="utf-8")
    refused(am(repo, "remember", NOTE, "--kind", "pitfall"), ".archmem in", "leads through the symlink .archmem outside")
    refused(am(repo, "init"), ".archmem in", "leads through the symlink .archmem outside")
    assert everything_under(outside) == []


@pytest.mark.parametrize(("key", "value"), [
    ("private_memories", "../outside/private"), ("accepts", "../outside/accepts"), ("path", "../outside/index.db"),
    ("path", "{outside}/index.db"), ("memories", "docs/../../outside"),
])
def test_every_store_path_is_confined(layout, key: str, value: str):
    repo, outside = layout
    value = value.format(outside=outside)  # an absolute path, in a committed file
    (repo / "archmem.toml").write_text(f'[store]\n{key} = "{value}"\n', encoding="utf-8")
    refused(am(repo, "remember", NOTE, "--kind", "pitfall", "--private"),
            f'archmem.toml:2: [store] {key} = "{value}" leads outside the repository')
    assert everything_under(outside) == []


def test_the_configured_model_is_confined_and_pyproject_lines_are_named(layout):
    repo, outside = layout
    (outside / "outside.yaml").write_text(MODEL, encoding="utf-8")
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.archmem]\nmodel = "../outside/outside.yaml"\n',
                                         encoding="utf-8")
    refused(am(repo, "model"), f'{repo / "pyproject.toml"}:5: model = "../outside/outside.yaml" leads outside')


def test_a_symlink_that_stays_inside_is_followed(layout):
    repo, _ = layout
    (repo / "team-memories").mkdir()
    (repo / ".archmem").mkdir()
    (repo / ".archmem" / "memories").symlink_to(Path("..") / "team-memories", target_is_directory=True)
    assert am(repo, "remember", NOTE, "--kind", "pitfall").exit_code == 0
    [written] = everything_under(repo / "team-memories")
    assert written.endswith(".md")
    assert [m["content"] for m in json.loads(am(repo, "list", "--json").output)] == [NOTE]


def test_an_absolute_path_from_the_environment_is_the_users_own(layout, tmp_path: Path):
    repo, outside = layout
    env = {"ARCHMEM_STORE_MEMORIES": str(outside / "mine"), "ARCHMEM_STORE_PATH": str(outside / "index.db")}
    assert am(repo, "remember", NOTE, "--kind", "pitfall", env=env).exit_code == 0
    assert len(list((outside / "mine").glob("*.md"))) == 1 and (outside / "index.db").exists()
    relative = am(repo, "remember", NOTE, "--kind", "pitfall", env={"ARCHMEM_STORE_MEMORIES": "../outside/rel"})
    refused(relative, 'ARCHMEM_STORE_MEMORIES: [store] memories = "../outside/rel" leads outside')
    assert not (outside / "rel").exists()


def test_the_rule_resolves_symlinks_and_dot_dots(tmp_path: Path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "a").mkdir(parents=True)
    outside.mkdir()
    (root / "a" / "out").symlink_to(outside, target_is_directory=True)
    (root / "loop").symlink_to(root / "loop")
    assert resolve_within("a/../a", base=root, within=root) == (root / "a").resolve()
    with pytest.raises(OutsideBoundary) as through:
        resolve_within("a/out/x.md", base=root, within=root)
    assert through.value.through == "a/out"
    with pytest.raises(OutsideBoundary) as written:
        resolve_within("../outside", base=root, within=root)
    assert written.value.through is None
    with pytest.raises((OSError, RuntimeError)):
        resolve_within("loop/x", base=root, within=root)
    assert os.listdir(outside) == []


SECRET = "OUTSIDEWORD"


def test_a_template_symlinked_out_of_the_repository_is_never_read(layout):
    repo, outside = layout
    (outside / "stolen.md").write_text(f"{SECRET} {{{{ map.title }}}}\n", encoding="utf-8")
    own = repo / ".archmem" / "templates"
    own.mkdir(parents=True)
    (own / "map.md.j2").symlink_to(outside / "stolen.md")
    result = am(repo, "map", "--format", "md")
    assert result.exit_code == 11, result.output
    assert f"{own / 'map.md.j2'}: a template that leads outside {own} (a symlink) is not read" in result.output
    assert SECRET not in result.output and "Traceback" not in result.output
    (own / "map.md.j2").unlink()
    (own / "map.md.j2").write_text("own map {{ map.title }}\n", encoding="utf-8")  # a real file: used
    assert am(repo, "map", "--format", "md").output.startswith("own map ")


def test_a_templates_folder_symlinked_out_of_the_repository_is_refused(layout):
    repo, outside = layout
    (outside / "map.md.j2").write_text(f"{SECRET}\n", encoding="utf-8")
    (repo / ".archmem").mkdir()
    (repo / ".archmem" / "templates").symlink_to(outside, target_is_directory=True)
    refused(am(repo, "map", "--format", "md"), ".archmem/templates in", "leads through the symlink "
            ".archmem/templates outside the repository")
    assert SECRET not in am(repo, "map", "--format", "md").output


def test_init_never_writes_through_a_committed_symlink(layout):
    repo, outside = layout
    (repo / ".gitignore").symlink_to(outside / "gitignore")  # dangling: writing would create it outside
    refused(am(repo, "init"), ".gitignore in", "leads through the symlink .gitignore outside the repository")
    (repo / ".gitignore").unlink()
    (repo / "archmem.toml").symlink_to(outside / "archmem.toml")
    refused(am(repo, "init"), "archmem.toml in", "leads through the symlink archmem.toml outside")
    (repo / "archmem.toml").unlink()
    (repo / ".archmem").mkdir()
    (repo / ".archmem" / ".gitignore").symlink_to(outside / "ignored")
    assert am(repo, "remember", NOTE, "--kind", "pitfall").exit_code == 0
    assert everything_under(outside) == []

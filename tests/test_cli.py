"""The command line, driven through click's CliRunner and, for start-up, a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli

from .conftest import REPO_ROOT, write

EXAMPLE = REPO_ROOT / "examples" / "shop"


def run(*args: str, cwd: Path | None = None):
    """Invoke the CLI, from ``cwd`` when given (the default --repo is found from there)."""
    import os

    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def test_version_and_help():
    result = run("--version")
    assert result.exit_code == 0 and "archmem" in result.output
    result = run("--help")
    assert result.exit_code == 0 and "init" in result.output and "model" in result.output


def test_init_writes_config_state_folder_and_gitignore(git_repo):
    root = git_repo({"workspace.dsl": 'workspace {\n  model {\n    a = person "A"\n  }\n}\n', ".gitignore": "dist/"})
    result = run("init", "--repo", str(root))
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and "model: workspace.dsl" in result.output
    config = (root / "archmem.toml").read_text()
    assert 'model = "workspace.dsl"' in config and "[drift]" in config
    assert (root / ".archmem").is_dir()
    gitignore = (root / ".gitignore").read_text()
    assert gitignore.startswith("dist/\n") and ".archmem/archmem.db\n" in gitignore

    (root / "archmem.toml").write_text("# mine\n")
    again = run("init", "--repo", str(root))
    assert again.exit_code == 0 and "kept the existing" in again.output
    assert (root / "archmem.toml").read_text() == "# mine\n"
    assert (root / ".gitignore").read_text() == gitignore


def test_init_json_and_print(tmp_path: Path):
    result = run("init", "--repo", str(tmp_path), "--json")
    data = json.loads(result.output)
    assert data["config_written"] is True and data["model"] is None
    printed = run("init", "--print", "--repo", str(tmp_path))
    assert printed.output.startswith("# archmem configuration")


def test_model_on_the_example_as_json():
    result = run("model", "--repo", str(EXAMPLE), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    ids = [e["id"] for e in data["elements"]]
    assert "shop.orders.checkout" in ids and "customer" in ids
    checkout = next(e for e in data["elements"] if e["id"] == "shop.orders.checkout")
    assert checkout["name"] == "OrderProcessor" and checkout["parent"] == "shop.orders"
    assert checkout["paths"] == ["services/orders/checkout/**"]
    assert checkout["size"] == {"files": 7, "lines": 299}
    orders = next(e for e in data["elements"] if e["id"] == "shop.orders")
    assert orders["paths"] == [] and orders["paths_from_children"] is True
    assert orders["size"] == {"files": 11, "lines": 483}
    assert data["unowned"] == ["scripts/seed_products.py"]
    assert [d["id"] for d in data["decisions"]] == ["1", "2", "3"]
    assert {"source": "shop.payments", "destination": "psp", "description": "Charges cards with", "technology": "HTTPS"} in data["relationships"]
    for key in ("id", "name", "kind", "parent", "paths", "tags", "description", "technology", "properties"):
        assert key in checkout


def test_model_table_on_the_example():
    result = run("model", "--repo", str(EXAMPLE))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Elements (13)" in out
    assert "shop.orders.checkout" in out and "services/orders/checkout/**" in out
    assert "Code no element owns (1 file" in out and "scripts/seed_products.py" in out
    assert "Decisions (3)" in out


def test_model_outside_the_repository_keeps_paths_relative_to_it(tmp_path: Path):
    repo = tmp_path / "repo"
    write(repo, {"src/a.py": "1\n2\n"})
    model = tmp_path / "elsewhere" / "workspace.dsl"
    write(model.parent, {"workspace.dsl": 'workspace {\n model {\n  s = softwareSystem "S" {\n   properties {\n    "archmem.paths" "src/**"\n   }\n  }\n }\n}\n'})
    result = run("model", "--repo", str(repo), "--model", str(model), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["elements"][0]["size"] == {"files": 1, "lines": 2}
    assert data["git"] is False


def test_not_a_git_repository_says_so(tmp_path: Path):
    write(tmp_path, {"archmem.yaml": "name: X\nelements:\n  - id: a\n    kind: person\n    name: A\n"})
    result = run("model", "--repo", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "not a git repository" in result.output


def test_missing_model_is_a_clear_error_without_traceback(tmp_path: Path):
    result = run("model", "--repo", str(tmp_path))
    assert result.exit_code == 4
    assert "no architecture model found" in result.output and "Traceback" not in result.output


def test_syntax_error_names_file_line_and_column(tmp_path: Path):
    write(tmp_path, {"workspace.dsl": 'workspace {\n  model {\n    a = person "A"\n    enterprise "E" {\n    }\n  }\n}\n'})
    result = run("model", "--repo", str(tmp_path))
    assert result.exit_code == 4
    assert f"{tmp_path / 'workspace.dsl'}:4:" in result.output
    assert "Traceback" not in result.output


def test_errors_as_json_with_json_flag(tmp_path: Path):
    result = run("model", "--repo", str(tmp_path), "--json")
    assert result.exit_code == 4
    error = json.loads(result.stderr)
    assert error["error"] == "model_not_found"


def test_bad_config_exit_code(tmp_path: Path):
    write(tmp_path, {"archmem.toml": "[drift]\nmin_line = 3\n"})
    result = run("model", "--repo", str(tmp_path))
    assert result.exit_code == 3 and "drift.min_lines" in result.output


def test_default_repo_is_the_git_top_level_of_the_current_folder(git_repo):
    root = git_repo({"archmem.yaml": "elements:\n  - {id: a, kind: person, name: A}\n", "sub/x.py": "1\n"})
    result = run("model", "--json", cwd=root / "sub")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["model"] == "archmem.yaml"


HEAVY = ["pydantic", "numpy", "jinja2", "git", "yaml", "openai", "ollama", "mcp", "networkx"]


@pytest.mark.parametrize("args", [["--version"], ["--help"]])
def test_startup_does_not_import_heavy_modules(args):
    code = (
        "import sys; from archmem.cli import cli\n"
        f"try:\n    cli.main({args!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "HEAVY=", f"heavy modules loaded at start-up: {out}"

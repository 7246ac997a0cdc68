"""Accept what Structurizr accepts (issue 13, item 5): where its parser opens a block on
the keyword alone, tokens around the ``{`` are ignored with a warning at file:line
instead of refusing the workspace; discovery finds workspaces in ``architecture/``,
``docs/architecture/``, ``c4/`` and a single ``*.dsl`` holding a workspace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archmem.errors import ModelNotFoundError, ModelSyntaxError
from archmem.model.dsl import parse_dsl
from archmem.model.loader import discover_model

TOKENS_AFTER_BRACE = """\
workspace "Shop" {
    model {
        shop = softwareSystem "Shop" {
            properties {    "" "Existing"
                "owner" "team-a"
            }
        }
    }
    views {
        styles { element "Existing"
        }
    }
}
"""


def test_tokens_after_properties_brace_parse_with_a_warning(tmp_path: Path):
    path = tmp_path / "workspace.dsl"
    path.write_text(TOKENS_AFTER_BRACE, encoding="utf-8")
    model = parse_dsl(path, env={})
    assert model.get("shop").properties == {"owner": "team-a"}  # type: ignore[union-attr]
    assert f"{path}:4: tokens around `properties {{` are ignored" in model.warnings[0]
    assert '"" "Existing"' in model.warnings[0]
    assert any(w.startswith(f"{path}:10:") and "styles" in w for w in model.warnings)


@pytest.mark.parametrize("line", ['model { "x"', 'views { x', 'properties "a" {'])
def test_every_keyword_structurizr_opens_alone_is_lenient(tmp_path: Path, line: str):
    keyword = line.split()[0]
    text = {
        "model": 'workspace {\n    ' + line + '\n        a = person "A"\n    }\n}\n',
        "views": 'workspace {\n    model {\n    }\n    ' + line + '\n    }\n}\n',
        "properties": 'workspace {\n    model {\n        a = person "A" {\n            ' + line
                      + '\n                "k" "v"\n            }\n        }\n    }\n}\n',
    }[keyword]
    path = tmp_path / "workspace.dsl"
    path.write_text(text, encoding="utf-8")
    model = parse_dsl(path, env={})
    assert any(f"tokens around `{keyword} {{` are ignored" in w for w in model.warnings)


def test_a_keyword_without_any_brace_is_still_an_error(tmp_path: Path):
    path = tmp_path / "workspace.dsl"
    path.write_text('workspace {\n    model "x"\n    }\n}\n', encoding="utf-8")
    with pytest.raises(ModelSyntaxError, match=re.escape("Too many tokens, expected: model {")):
        parse_dsl(path, env={})


WORKSPACE = 'workspace "W" {\n    model {\n    }\n}\n'
FRAGMENT = 'person "Included"\n'


@pytest.mark.parametrize(
    "where", ["architecture/workspace.dsl", "c4/workspace.dsl", "docs/architecture/shop.dsl", "c4/model/system.dsl",
              "design/overview.dsl"],
)
def test_discovery_finds_a_workspace_where_teams_keep_it(tmp_path: Path, where: str):
    (tmp_path / where).parent.mkdir(parents=True)
    (tmp_path / where).write_text(WORKSPACE, encoding="utf-8")
    (tmp_path / where).with_name("people.dsl").write_text(FRAGMENT, encoding="utf-8")  # an !include fragment
    assert discover_model(tmp_path) == (tmp_path / where).resolve()


def test_two_workspaces_are_named_and_the_choice_is_left_to_the_user(tmp_path: Path):
    for name in ("a/one.dsl", "b/two.dsl"):
        (tmp_path / name).parent.mkdir(parents=True)
        (tmp_path / name).write_text(WORKSPACE, encoding="utf-8")
    with pytest.raises(ModelNotFoundError, match="several Structurizr workspaces") as error:
        discover_model(tmp_path)
    assert "a/one.dsl, b/two.dsl" in str(error.value) and "model =" in str(error.value)


def test_the_architecture_folder_wins_over_a_stray_workspace_elsewhere(tmp_path: Path):
    for name in ("architecture/system.dsl", "examples/demo/workspace.dsl"):
        (tmp_path / name).parent.mkdir(parents=True)
        (tmp_path / name).write_text(WORKSPACE, encoding="utf-8")
    assert discover_model(tmp_path) == (tmp_path / "architecture/system.dsl").resolve()

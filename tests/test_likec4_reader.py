"""The LikeC4 reader: what each construct gives the model, errors with their place,
warnings for what is not read, the kind mapping and the paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from archmem.errors import ModelError, ModelNotFoundError, ModelSyntaxError
from archmem.model.likec4 import parse_likec4
from archmem.model.likec4.kinds import c4_level
from archmem.model.likec4.syntax import KindSpec
from archmem.model.loader import discover_model, load_model

SPEC = """
specification {
  color brand #0284c7
  color green-ish rgb(5, 150, 105)
  element actor { notation "Person" }
  element system
  element webapp { technology 'React' }
  element thing { style { shape person } }
  element module
  relationship async
  tag deprecated
}
"""

MODEL = """
model {
  customer = actor 'Customer' 'Buys things'
  cloud = system 'Cloud' {
    #deprecated, #next
    description '''
      Our platform
      with two lines
    '''
    backend = webapp 'Backend' {
      technology 'Python'
      link https://example.com/backend 'Docs'
      link ./src/backend.py
      metadata {
        archmem_paths 'services/backend/**'
        owner 'team-a'
        regions ['eu', 'us']
      }
      api = module 'API'
      -> cloud.db 'reads' 'the orders' 'SQL'
      it -[async]-> customer 'notifies' {
        technology 'email'
        #deprecated
      }
    }
    module db 'Database'
  }
  customer .async cloud 'uses'
  customer -> backend.api
}
"""


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def test_elements_nest_into_fqns_with_titles_kinds_and_properties(tmp_path: Path) -> None:
    model = parse_likec4(write(tmp_path, {"spec.c4": SPEC, "model.c4": MODEL}), root=tmp_path)
    by_id = {e.id: e for e in model.elements}
    assert list(by_id) == ["customer", "cloud", "cloud.backend", "cloud.db", "cloud.backend.api"]
    assert model.format == "likec4"
    assert by_id["customer"].kind == "person" and by_id["customer"].name == "Customer"
    assert by_id["customer"].description == "Buys things"
    cloud = by_id["cloud"]
    assert cloud.kind == "softwareSystem" and cloud.tags == ["deprecated", "next"]
    assert cloud.description == "Our platform\nwith two lines"
    backend = by_id["cloud.backend"]
    assert (backend.kind, backend.parent, backend.technology) == ("container", "cloud", "Python")
    assert backend.url == "https://example.com/backend"
    assert backend.properties["owner"] == "team-a" and backend.properties["regions"] == "eu, us"
    assert backend.properties["likec4.kind"] == "webapp"
    assert backend.paths == [] and backend.properties["archmem.paths"] == "services/backend/**"
    assert by_id["cloud.backend.api"].kind == "component" and by_id["cloud.db"].name == "Database"
    location = backend.location
    assert location is not None and (location.line, location.column, location.end_line) == (10, 5, 25)
    assert location.file == str((tmp_path / "model.c4").resolve())  # git blames it for drift


def test_relationships_inside_elements_with_it_kinds_titles_and_technology(tmp_path: Path) -> None:
    model = parse_likec4(write(tmp_path, {"spec.c4": SPEC, "model.c4": MODEL}), root=tmp_path)
    found = [(r.source, r.destination, r.description, r.technology) for r in model.relationships]
    assert found == [
        ("cloud.backend", "cloud.db", "reads", "SQL"),
        ("cloud.backend", "customer", "notifies", "email"),
        ("customer", "cloud", "uses", ""),
        ("customer", "cloud.backend.api", "", ""),
    ]
    notify = model.relationships[1]
    assert notify.tags == ["deprecated"] and notify.properties["likec4.kind"] == "async"
    assert model.warnings == []


def test_extend_adds_children_tags_metadata_and_relationships_from_another_file(tmp_path: Path) -> None:
    write(tmp_path, {
        "a.c4": "specification { element system\n element service }\nmodel { shop = system 'Shop' {\n"
                "  metadata { version '1' }\n } }",
        "b.c4": "model {\n extend shop {\n  #core\n  metadata { version '2' }\n  orders = service 'Orders'\n"
                "  this -> orders 'owns'\n }\n}",
    })
    model = parse_likec4(tmp_path, root=tmp_path)
    shop = model.get("shop")
    assert shop is not None and shop.tags == ["core"] and shop.properties["version"] == "1, 2"
    assert [e.id for e in model.elements] == ["shop", "shop.orders"]
    assert [(r.source, r.destination) for r in model.relationships] == [("shop", "shop.orders")]


def test_deployment_and_views_are_read_apart_from_the_elements(tmp_path: Path) -> None:
    write(tmp_path, {"m.c4": """
specification { element system
  deploymentNode vm }
model { shop = system }
deployment {
  prod = vm 'Production' {
    web = vm { instanceOf shop 'Shop' }
    web -> prod
  }
}
views "Main" {
  view index { include * }
  dynamic view flow { shop -> shop 'loops' }
  deployment view prod { include prod.** }
}
"""})
    model = parse_likec4(tmp_path, root=tmp_path)
    assert [e.id for e in model.elements] == ["shop"] and model.relationships == []
    assert [(d.id, d.kind, d.instance_of) for d in model.deployment] == [
        ("prod", "deploymentNode", None), ("prod.web", "deploymentNode", None),
        ("prod.web.shop", "containerInstance", "shop"),
    ]
    assert model.views == ["index", "flow", "prod"]


def test_a_syntax_error_names_file_line_column_and_what_was_expected(tmp_path: Path) -> None:
    write(tmp_path, {"spec.c4": SPEC, "model.c4": "model {\n  cloud = system 'Cloud' {\n    -> \n  }\n}\n"})
    with pytest.raises(ModelSyntaxError) as caught:
        parse_likec4(tmp_path, root=tmp_path)
    err = caught.value
    assert (err.file, err.line, err.column) == ("model.c4", 4, 3)
    assert err.expected == ["the target element"]
    assert str(err).startswith("model.c4:4:3: unexpected '}'")


@pytest.mark.parametrize(("text", "where"), [
    ("model { a = system 'x }", "m.c4:1:20"),
    ("model { /* never closed", "m.c4:1:9"),
    ("model {\n  a = system {\n", "m.c4:3:1"),
    ("modle { }", "m.c4:1:1"),
])
def test_broken_files_are_model_errors_at_their_place(tmp_path: Path, text: str, where: str) -> None:
    write(tmp_path, {"m.c4": text})
    with pytest.raises(ModelSyntaxError) as caught:
        parse_likec4(tmp_path, root=tmp_path)
    assert str(caught.value.location) == where


def test_what_is_not_read_is_a_warning_never_a_guess(tmp_path: Path) -> None:
    write(tmp_path, {"m.c4": """
import { other } from 'elsewhere'
specification { element system
 deploymentNode vm }
model {
  a = system {
    -> nowhere
    -> other
    gizmo { anything here }
  }
  b = widget
  extend missing { c = system }
  extend a -> b { metadata { x '1' } }
}
deployment {
  vm prod
  extend prod { instanceOf a }
}
"""})
    model = parse_likec4(tmp_path, root=tmp_path)
    assert [e.id for e in model.elements] == ["a", "b"] and model.relationships == []
    assert [d.id for d in model.deployment] == ["prod"]
    text = "\n".join(model.warnings)
    for expected in ("m.c4:2:1: an import", "'nowhere' names no element", "'other' names no element",
                     "m.c4:9:5: 'gizmo' blocks are not read", "kind 'widget' is not in the specification",
                     "extend 'missing': no such element", "m.c4:13:3: extend of a relationship is not read",
                     "m.c4:17:3: extend 'prod' in the deployment model is not read"):
        assert expected in text


def test_references_resolve_by_scope_then_by_a_unique_name(tmp_path: Path) -> None:
    write(tmp_path, {"m.c4": """
specification { element s }
model {
  a = s { x = s { y = s } }
  b = s {
    x = s
    -> x 'own child first'
    -> y 'unique anywhere'
    -> a.y 'a descendant of a'
  }
  z = s { -> x 'ambiguous' }
}
"""})
    model = parse_likec4(tmp_path, root=tmp_path)
    assert [(r.destination, r.description) for r in model.relationships] == [
        ("b.x", "own child first"), ("a.x.y", "unique anywhere"), ("a.x.y", "a descendant of a"),
    ]
    assert any("'x' names no element (or several)" in w for w in model.warnings)


def test_a_project_reads_its_folder_includes_and_excludes_and_not_nested_projects(tmp_path: Path) -> None:
    write(tmp_path, {
        "shared/spec.c4": "specification { element system }",
        "arch/likec4.config.json": '{\n  // JSON5\n  "name": "shop",\n  "include": {"paths": ["../shared"]},\n'
                                   '  "exclude": ["drafts/**"],\n}',
        "arch/model.c4": "model { shop = system 'Shop' }",
        "arch/drafts/x.c4": "model { draft = system }",
        "arch/other/likec4.config.json": '{"name": "other"}',
        "arch/other/m.c4": "model { other = system }",
    })
    model = parse_likec4(tmp_path / "arch", root=tmp_path)
    assert model.name == "shop" and [e.id for e in model.elements] == ["shop"]
    assert sorted(Path(f).name for f in model.files) == ["model.c4", "spec.c4"]
    assert model.warnings == []


def test_an_include_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    write(tmp_path, {"outside/spec.c4": "specification { element system }",
                     "repo/likec4.config.json": '{"name": "x", "include": {"paths": ["../outside"]}}',
                     "repo/m.c4": "model { a = system }"})
    model = parse_likec4(tmp_path / "repo", root=tmp_path / "repo")
    assert any("points outside" in w for w in model.warnings)
    assert [e.id for e in model.elements] == ["a"]


def test_the_kind_rule_configured_then_name_notation_shape_words_nesting() -> None:
    assert c4_level("actor", None, None, {"actor": "component"}) == "component"
    assert c4_level("Software-System", None, None) == "softwareSystem"
    assert c4_level("node", KindSpec("node", notation="C4 Container"), None) == "container"
    assert c4_level("staffer", KindSpec("staffer", shape="person"), None) == "person"
    assert c4_level("paymentService", None, None) == "container"
    assert c4_level("zone", None, None) == "softwareSystem"
    assert c4_level("zone", None, "softwareSystem") == "container"
    assert c4_level("zone", None, "container") == "component"


def test_discovery_finds_a_project_or_the_folder_of_the_c4_files(tmp_path: Path) -> None:
    write(tmp_path, {"docs/c4/a/spec.c4": "specification { element system }",
                     "docs/c4/b/model.c4": "model { shop = system 'Shop' }"})
    assert discover_model(tmp_path) == (tmp_path / "docs/c4").resolve()
    model = load_model(discover_model(tmp_path), tmp_path)
    assert [e.id for e in model.elements] == ["shop"]
    write(tmp_path, {"one/likec4.config.json": "{}", "two/likec4.config.json": "{}"})
    with pytest.raises(ModelNotFoundError, match="several LikeC4 projects"):
        discover_model(tmp_path)


def test_code_paths_come_from_metadata(tmp_path: Path) -> None:
    write(tmp_path, {"m.c4": "specification { element system }\nmodel { a = system {\n"
                             "  metadata { archmem_paths 'src/a/**, !src/a/gen/**' }\n} }",
                     "src/a/x.py": ""})
    model = load_model(tmp_path, tmp_path)
    assert model.elements[0].paths == ["src/a/**", "!src/a/gen/**"]


def test_a_folder_without_sources_is_refused(tmp_path: Path) -> None:
    (tmp_path / "likec4.config.json").write_text("{}")
    with pytest.raises(ModelError, match="no LikeC4 source files"):
        parse_likec4(tmp_path, root=tmp_path)


def test_other_config_files_mark_projects_and_a_program_is_not_run(tmp_path: Path) -> None:
    write(tmp_path, {"a/.likec4rc": "{\n  name: 'alpha', // JSON5\n}", "a/m.c4": "specification { element s }\nmodel { x = s }",
                     "b/likec4.config.ts": "module.exports = {}", "b/m.c4": "specification { element s }\nmodel { y = s }"})
    assert parse_likec4(tmp_path / "a", root=tmp_path).name == "alpha"
    model = parse_likec4(tmp_path / "b", root=tmp_path)
    assert [e.id for e in model.elements] == ["y"] and "likec4.config.ts is a program" in model.warnings[0]
    with pytest.raises(ModelNotFoundError, match=r"several LikeC4 projects in .*: a, b"):
        discover_model(tmp_path)


def test_metadata_keys_may_repeat_and_hold_arrays(tmp_path: Path) -> None:
    write(tmp_path, {"m.c4": "specification { element s }\nmodel { x = s {\n metadata {\n  k 'one'\n  k ['two', 'three']\n"
                             "  k: 'four';\n  other '''\n   long\n  '''\n }\n} }"})
    element = parse_likec4(tmp_path, root=tmp_path).elements[0]
    assert element.properties["k"] == "one, two, three, four" and element.properties["other"] == "long"


def test_a_structurizr_workspace_is_found_before_likec4_files(tmp_path: Path) -> None:
    write(tmp_path, {"workspace.dsl": "workspace {\n model {\n }\n}\n", "c4/m.c4": "model { }"})
    assert discover_model(tmp_path).name == "workspace.dsl"


def test_sources_seven_folders_down_are_found(tmp_path: Path) -> None:
    write(tmp_path, {"docs/architecture/diagram/containers/db/tables/v1/model.c4": "model { }"})
    assert discover_model(tmp_path) == (tmp_path / "docs/architecture/diagram/containers/db/tables/v1").resolve()


def test_a_typescript_config_exporting_an_object_is_read_not_run(tmp_path: Path) -> None:
    write(tmp_path, {"shared/spec.c4": "specification { element system }",
                     "p/likec4.config.ts": "import { defineConfig } from 'likec4/config'\n\nexport default defineConfig({\n"
                                           "  name: 'shop', // the project\n  include: { paths: ['../shared'] },\n})\n",
                     "p/m.c4": "model { a = system }"})
    model = parse_likec4(tmp_path / "p", root=tmp_path)
    assert model.name == "shop" and model.warnings == []
    (tmp_path / "p/likec4.config.ts").write_text("export default makeConfig(process.env)\n")
    assert "exports no plain object" in parse_likec4(tmp_path / "p", root=tmp_path).warnings[0]


def test_strings_are_trimmed_and_escapes_applied_as_likec4_reads_them(tmp_path: Path) -> None:
    write(tmp_path, {"m.c4": "specification { element s }\nmodel {\n  a = s ' Padded title '\n"
                             "  b = s 'Two\\nlines' 'It\\'s'\n}\n"})
    by_id = {e.id: e for e in parse_likec4(tmp_path, root=tmp_path).elements}
    assert by_id["a"].name == "Padded title"
    assert (by_id["b"].name, by_id["b"].description) == ("Two\nlines", "It's")


def test_links_and_icons_are_read_as_written(tmp_path: Path) -> None:
    write(tmp_path, {"m.c4": "specification { element s }\nmodel {\n  a = s {\n    link: https://example.com/a#x 'A'\n"
                             "    link ./docs/a.md\n    icon aws:lambda\n  }\n  link = s\n}\n"})
    model = parse_likec4(tmp_path, root=tmp_path)
    assert [e.id for e in model.elements] == ["a", "link"] and model.elements[0].url == "https://example.com/a#x"

"""Unit tests of the Structurizr DSL parser, one feature at a time, on small inputs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from archmem.errors import (
    ModelError,
    ModelNotFoundError,
    ModelSyntaxError,
    UnsupportedFeatureError,
)
from archmem.model.dsl import parse_dsl
from archmem.model.structurizr_json import parse_structurizr_json
from archmem.model.types import ArchitectureModel


def write(root: Path, name: str, text: str, *, encoding: str = "utf-8") -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding=encoding)
    return path


def parse(
    tmp_path: Path, text: str, env: dict[str, str] | None = None, files: dict[str, str] | None = None
) -> ArchitectureModel:
    """Write ``text`` as workspace.dsl (and the other ``files``) and parse it."""
    for name, content in (files or {}).items():
        write(tmp_path, name, content)
    return parse_dsl(write(tmp_path, "workspace.dsl", text), env=env if env is not None else {})


def fails(
    tmp_path: Path, text: str, error: type[ModelError] = ModelSyntaxError, files: dict[str, str] | None = None
) -> ModelError:
    with pytest.raises(error) as caught:
        parse(tmp_path, text, files=files)
    return caught.value


def model_of(body: str) -> str:
    return (
        "workspace {\n    model {\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "        ") + "\n    }\n}\n"
    )


# ---- elements, identifiers and names ----------------------------------------------


def test_elements_kinds_parents_and_fields(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        workspace "Shop" "An online shop." {
            model {
                user = person "Customer" "Buys things." "External, VIP"
                shop = softwareSystem "Shop" "Sells things." {
                    web = container "Web" "Serves pages." "Python" "UI"
                    api = container "API" {
                        orders = component "Orders" "Takes orders." "FastAPI"
                    }
                }
            }
        }
    """,
    )
    assert (model.name, model.description, model.format) == ("Shop", "An online shop.", "structurizr-dsl")
    user, shop, web = model.get("user"), model.get("shop"), model.get("web")
    assert user is not None and user.kind == "person" and user.tags == ["External", "VIP"]
    assert shop is not None and shop.description == "Sells things." and shop.parent is None
    assert web is not None and (web.kind, web.technology, web.tags, web.parent) == (
        "container",
        "Python",
        ["UI"],
        "shop",
    )
    orders = model.get("orders")
    assert orders is not None and orders.parent == "api" and orders.technology == "FastAPI"
    assert orders.canonical_name == "Component://Shop.API.Orders"
    assert model.source == str((tmp_path / "workspace.dsl").resolve())
    assert model.files == [model.source]


def test_anonymous_elements_get_their_canonical_name_as_id(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        model_of("""
        person "A"
        softwareSystem "B" {
            container "C" {
                component "D"
            }
        }
        element "Name" "Hardware"
    """),
    )
    assert [e.id for e in model.elements] == [
        "Person://A",
        "SoftwareSystem://B",
        "Container://B.C",
        "Component://B.C.D",
        "CustomElement://Name",
    ]
    assert model.get("Component://B.C.D").parent == "Container://B.C"


def test_custom_element_keeps_metadata_as_technology(tmp_path: Path) -> None:
    model = parse(tmp_path, model_of('box = element "Box" "Hardware" "A box." "Metal"'))
    box = model.get("box")
    assert box is not None and (box.kind, box.technology, box.description, box.tags) == (
        "element",
        "Hardware",
        "A box.",
        ["Metal"],
    )
    assert model.counts()["customElements"] == 1


def test_hierarchical_identifiers_resolve_inside_out(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        workspace {
            !identifiers hierarchical
            model {
                a = person "A"
                b = softwareSystem "B" {
                    c = container "C" {
                        d = component "D"
                        a = component "A"
                        d -> a
                    }
                }
                a -> b.c.d "Uses"
            }
        }
    """,
    )
    assert [e.id for e in model.elements] == ["a", "b", "b.c", "b.c.d", "b.c.a"]
    assert [(r.source, r.destination) for r in model.relationships] == [("b.c.d", "b.c.a"), ("a", "b.c.d")]


def test_flat_identifiers_collide(tmp_path: Path) -> None:
    error = fails(
        tmp_path,
        model_of("""
        a = softwareSystem "A" {
            api = container "API"
        }
        b = softwareSystem "B" {
            api = container "API"
        }
    """),
    )
    assert 'The identifier "api" is already in use' in error.message
    assert (error.line, error.column) == (7, 13)


def test_keywords_and_identifiers_are_case_insensitive(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        WORKSPACE {
            Model {
                User = PERSON "User"
                Shop = SoftwareSystem "Shop"
                user -> SHOP "Uses"
            }
        }
    """,
    )
    assert [e.id for e in model.elements] == ["User", "Shop"]
    assert (model.relationships[0].source, model.relationships[0].destination) == ("User", "Shop")


def test_duplicate_names_are_refused(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of('softwareSystem "A"\nsoftwareSystem "A"'))
    assert 'software system named "A" already exists' in error.message and error.line == 4


def test_identifier_characters_are_checked(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of('my.system = softwareSystem "A"'))
    assert "Identifiers can only contain" in error.message


# ---- blocks: description, tags, url, properties, perspectives, groups --------------


def test_block_statements_and_properties_are_kept_as_written(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        model_of("""
        api = softwareSystem "API" {
            description "Serves the API."
            tag "Core"
            tags "Edge, Public" "Beta"
            url https://github.com/acme/shop/tree/main/services/api
            properties {
                "archmem.paths" "services/api/**, libs/http"
                source "services/api/main.py:handler"
                code src/api
            }
            perspectives {
                "Security" "Tokens expire after 1h." "High"
            }
        }
    """),
    )
    api = model.get("api")
    assert api is not None
    assert api.description == "Serves the API."
    assert api.tags == ["Core", "Edge", "Public", "Beta"]
    assert api.url == "https://github.com/acme/shop/tree/main/services/api"
    assert api.properties == {
        "archmem.paths": "services/api/**, libs/http",
        "source": "services/api/main.py:handler",
        "code": "src/api",
    }
    assert api.perspectives == {"Security": "Tokens expire after 1h."}
    assert api.paths == [] and api.anchors == []  # paths are derived later, by archmem.model.paths


def test_groups_nest_with_slashes(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        model_of("""
        group "Org" {
            group "Team" {
                s = softwareSystem "S" {
                    group "Backend" {
                        api = container "API" {
                            c = component "C" {
                                group "Layer"
                            }
                        }
                    }
                }
            }
            t = softwareSystem "T"
        }
    """),
    )
    assert [(e.id, e.group) for e in model.elements] == [
        ("s", "Org/Team"),
        ("api", "Backend"),
        ("c", "Layer"),
        ("t", "Org"),
    ]


def test_group_needs_a_brace(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of('group "Name"'))
    assert "Expected: group <name> {" in error.message and error.line == 3


def test_url_inside_a_group_is_unexpected_and_lists_what_is_allowed(tmp_path: Path) -> None:
    error = fails(
        tmp_path,
        model_of("""
        softwareSystem "S" {
            group "G" {
                url "https://example.com"
            }
        }
    """),
    )
    assert isinstance(error, ModelSyntaxError)
    assert error.message.startswith("Unexpected tokens") and error.line == 5
    assert "container" in error.expected and "->" in error.expected


# ---- relationships -----------------------------------------------------------------


def test_relationship_forms(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        model_of("""
        a = softwareSystem "A"
        b = softwareSystem "B" {
            -> a "Calls" "gRPC"
        }
        r = a -> b "Reads" "HTTPS" "Sync, Critical" {
            tags "Extra"
            url https://example.com/r
            properties {
                timeout 30s
            }
        }
        !relationship r {
            tag "Reopened"
        }
    """),
    )
    first, second = model.relationships
    assert (first.source, first.destination, first.description, first.technology) == ("b", "a", "Calls", "gRPC")
    assert (second.id, second.tags, second.url) == (
        "r",
        ["Sync", "Critical", "Extra", "Reopened"],
        "https://example.com/r",
    )
    assert second.properties == {"timeout": "30s"}
    assert second.location is not None and (second.location.line, second.location.end_line) == (7, 13)


def test_this_refers_to_the_enclosing_element(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        model_of("""
        u = person "U"
        s = softwareSystem "S" {
            u -> this "Uses"
            c = container "C" {
                this -> u "Notifies"
            }
        }
    """),
    )
    assert [(r.source, r.destination) for r in model.relationships] == [("u", "s"), ("c", "u")]


def test_unknown_relationship_end_is_an_error_at_its_column(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of('a = person "A"\na -> nowhere'))
    assert error.message == 'The destination element "nowhere" does not exist'
    assert (error.line, error.column) == (4, 14)


def test_duplicate_relationship_already_exists(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of('a = person "A"\nb = softwareSystem "B"\na -> b "Uses"\na -> b "Uses"'))
    assert "already exists" in error.message and error.line == 6


def test_implied_relationship_counts_as_existing(tmp_path: Path) -> None:
    text = model_of("""
        a = softwareSystem "A"
        b = softwareSystem "B" {
            c = container "C"
        }
        c -> a
        b -> a
    """)
    error = fails(tmp_path, text)
    assert 'A relationship between "SoftwareSystem://B" and "SoftwareSystem://A" already exists' in error.message
    assert error.line == 8
    # with another description, or without implied relationships, both are fine
    model = parse(tmp_path, text.replace("b -> a", 'b -> a "Other"'))
    assert len(model.relationships) == 2  # the implied one is never returned
    model = parse(tmp_path, text.replace("    model {", "    model {\n        !impliedRelationships false"))
    assert len(model.relationships) == 2


def test_relationship_between_person_and_deployment_node_is_not_permitted(tmp_path: Path) -> None:
    error = fails(
        tmp_path,
        model_of("""
        u = person "U"
        live = deploymentEnvironment "Live" {
            dn = deploymentNode "Server"
        }
        u -> dn
    """),
    )
    assert "is not permitted" in error.message


def test_bulk_elements_and_relationships(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        model_of("""
        u = person "U"
        s = softwareSystem "S" {
            app = container "App" {
                component "A" "" "Spring"
                component "B" "" "Spring"
                component "C" "" "Go"
            }
            db = container "DB"
            !elements "element.parent==app && element.technology==Spring" {
                tag "Java"
                u -> this "Uses"
                -> db "Reads"
            }
        }
        !relationships "u->*" {
            tags "FromUser"
        }
        !element "SoftwareSystem://S" {
            properties {
                owner team-a
            }
        }
    """),
    )
    spring = [e for e in model.elements if e.technology == "Spring"]
    assert [e.tags for e in spring] == [["Java"], ["Java"]]
    assert len(model.relationships) == 4
    assert all(r.tags == ["FromUser"] for r in model.relationships if r.source == "u")
    assert model.get("s").properties == {"owner": "team-a"}


def test_find_element_that_does_not_exist(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of("!element nothing {\n}"))
    assert 'The element "nothing" does not exist' in error.message


def test_archetypes(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        model_of("""
        archetypes {
            softwareSystem {
                tag "Default"
            }
            external = softwareSystem {
                tag "External"
                description "Not ours."
            }
            service = container {
                technology "Go"
            }
            https = -> {
                technology "HTTPS"
            }
        }
        a = softwareSystem "A" {
            api = service "API"
        }
        b = external "B"
        api --https-> b "Calls"
    """),
    )
    assert model.get("a").tags == ["Default"]
    assert (model.get("b").tags, model.get("b").description) == (["Default", "External"], "Not ours.")
    assert model.get("api").technology == "Go"
    assert model.relationships[0].technology == "HTTPS"
    error = fails(tmp_path, model_of('a = softwareSystem "A"\nb = softwareSystem "B"\na --nope-> b'))
    assert 'The relationship archetype "nope" does not exist' in error.message


# ---- deployment --------------------------------------------------------------------


def test_deployment_is_kept_apart_from_elements(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        workspace {
            !identifiers hierarchical
            model {
                s = softwareSystem "S" {
                    api = container "API"
                    db = container "DB"
                    api -> db "Reads"
                }
                live = deploymentEnvironment "Live" {
                    blue = deploymentGroup "Blue"
                    aws = deploymentNode "AWS" "" "Cloud" "" "3" {
                        lb = infrastructureNode "LB"
                        ec2 = deploymentNode "EC2" {
                            apiInstance = containerInstance s.api blue
                            instanceOf s.db {
                                healthCheck "Ping" "https://example.com/health" 60
                            }
                        }
                        lb -> ec2.apiInstance "Forwards to"
                    }
                    deploymentNode "Other" {
                        softwareSystemInstance s
                    }
                }
            }
        }
    """,
    )
    assert [e.id for e in model.elements] == ["s", "s.api", "s.db"]
    nodes = {d.id: d for d in model.deployment}
    assert nodes["live.aws"].kind == "deploymentNode" and nodes["live.aws"].instances == 3
    assert nodes["live.aws"].technology == "Cloud" and nodes["live.aws"].environment == "Live"
    assert nodes["live.aws.ec2"].parent == "live.aws"
    assert nodes["live.aws.lb"].kind == "infrastructureNode"
    assert nodes["live.aws.ec2.apiInstance"].instance_of == "s.api"
    db_instance = next(d for d in model.deployment if d.instance_of == "s.db")
    assert db_instance.kind == "containerInstance" and db_instance.parent == "live.aws.ec2"
    assert model.counts()["deploymentNodes"] == 3
    assert [d.kind for d in model.deployment if d.parent == "DeploymentNode://Live/Other"] == ["softwareSystemInstance"]
    assert [(r.source, r.destination) for r in model.relationships] == [
        ("s.api", "s.db"),
        ("live.aws.lb", "live.aws.ec2.apiInstance"),
    ]


def test_softwaresysteminstance_outside_a_node_is_unexpected(tmp_path: Path) -> None:
    error = fails(
        tmp_path,
        model_of("""
        s = softwareSystem "S"
        deploymentEnvironment "Live" {
            softwareSystemInstance s
        }
    """),
    )
    assert "Unexpected tokens" in error.message and error.line == 5


def test_no_relationship_block_replaces_an_instance_relationship(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        workspace {
            !identifiers hierarchical
            model {
                s = softwareSystem "S" {
                    ui = container "UI"
                    api = container "API"
                    ui -> api "Calls" "JSON"
                }
                prod = deploymentEnvironment "Prod" {
                    pc = deploymentNode "PC" {
                        instanceOf s.ui
                    }
                    dc = deploymentNode "DC" {
                        lb = infrastructureNode "LB"
                        instanceOf s.api
                    }
                    s.ui -/> s.api {
                        s.ui -> dc.lb
                        dc.lb -> s.api "Forwards to" ""
                    }
                }
            }
        }
    """,
    )
    ui_to_lb, lb_to_api = model.relationships[1:]
    assert (ui_to_lb.description, ui_to_lb.technology) == ("Calls", "JSON")
    assert (lb_to_api.description, lb_to_api.technology) == ("Forwards to", "")
    assert ui_to_lb.source.startswith("ContainerInstance://Prod/PC/S.UI")


# ---- views, configuration ----------------------------------------------------------


def test_views_are_read_past_and_their_keys_kept(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        workspace {
            model {
                s = softwareSystem "S"
            }
            views {
                systemLandscape {
                    include *
                }
                systemContext s "Context" {
                    include *
                    animation {
                        s
                    }
                }
                dynamic * {
                    {
                        s -> s
                    }
                }
                styles {
                    element "Software System" {
                        background #1168bd
                    }
                }
                theme default
            }
            configuration {
                scope softwaresystem
            }
        }
    """,
    )
    assert model.views == ["SystemLandscape-001", "Context", "Dynamic-001"]


def test_a_view_of_an_element_that_does_not_exist(tmp_path: Path) -> None:
    error = fails(tmp_path, "workspace {\n    views {\n        container nothing {\n        }\n    }\n}\n")
    assert 'The software system "nothing" does not exist' in error.message and error.line == 3


def test_image_view_file_must_exist_and_urls_are_not_fetched(tmp_path: Path) -> None:
    text = 'workspace {\n    views {\n        image * "img" {\n            image %s\n        }\n    }\n}\n'
    error = fails(tmp_path, text % "missing.png")
    assert "does not exist" in error.message and error.line == 4
    model = parse(tmp_path, text % "https://example.com/a.png")
    assert any("never fetches over the network" in w for w in model.warnings)


def test_workspace_properties(tmp_path: Path) -> None:
    model = parse(tmp_path, 'workspace {\n    properties {\n        "structurizr.dslEditor" "false"\n    }\n}\n')
    assert model.properties == {"structurizr.dslEditor": "false"}


# ---- the lexer: comments, continuations, text blocks, quoting -----------------------


def test_comments_of_every_style(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        # hash comment
        // slash comment
        /* one-line block */
        workspace {
            /*
                a block comment with softwareSystem "X" in it
            */
            model {
                s = softwareSystem "S" // trailing comment
            }
            views {
                styles {
                    element "Element" {
                        color #ffffff
                    }
                }
            }
        }
    """,
    )
    assert [e.name for e in model.elements] == ["S"]


def test_unterminated_block_comment(tmp_path: Path) -> None:
    error = fails(tmp_path, "workspace {\n    /* never closed\n}\n")
    assert "Unterminated /* comment" in error.message and error.line == 2


def test_continuation_keeps_the_first_line_number(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        workspace {
            model {
                s = \\
                    softwareSystem \\
                    "Software \\
                    System"
                t = softwareSystem "T"
            }
        }
    """,
    )
    s = model.get("s")
    assert s is not None and s.name == "Software System"
    assert s.location is not None and (s.location.line, s.location.end_line) == (3, 6)
    assert model.get("t").location.line == 7
    error = fails(
        tmp_path,
        """
        workspace {
            model {
                softwareSystem = \\
                    softwareSystem \\
                    "S" {
                        component "C"
                    }
            }
        }
    """,
    )
    assert error.line == 6  # the original line, though lines 3-5 were joined


def test_error_on_a_continued_statement_reports_its_first_line(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of('a = person "A"\na \\\n    -> nowhere'))
    assert error.line == 4


def test_text_blocks_are_dedented_and_substituted(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        workspace {
            !const WHO "the team"
            model {
                s = softwareSystem "S" \"\"\"
                    Owned by ${WHO}.
                      Indented line.

                    Last line.
                    \"\"\"
                t = softwareSystem "T"
            }
        }
    """,
    )
    s = model.get("s")
    assert s is not None and s.description == "Owned by the team.\n  Indented line.\n\nLast line."
    assert s.location is not None and (s.location.line, s.location.end_line) == (4, 9)
    assert model.get("t").location.line == 10


def test_quoted_strings_escapes_and_empty_arguments(tmp_path: Path) -> None:
    model = parse(tmp_path, model_of('s = softwareSystem "Say \\"hi\\"" "" "Tag"'))
    s = model.get("s")
    assert s is not None and (s.name, s.description, s.tags) == ('Say "hi"', "", ["Tag"])


def test_unterminated_string(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of('s = softwareSystem "Open'))
    assert "Unterminated string" in error.message and (error.line, error.column) == (3, 28)


def test_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "part.dsl").write_bytes('\ufeffs = softwareSystem "S"\n'.encode())
    path = tmp_path / "workspace.dsl"
    path.write_bytes("\ufeffworkspace {\n    model {\n        !include part.dsl\n    }\n}\n".encode())
    model = parse_dsl(path, env={})
    assert [e.id for e in model.elements] == ["s"]


def test_latin1_file_falls_back_with_a_warning_or_reads_as_told(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "workspace.dsl",
        'workspace {\n    model {\n        softwareSystem "Namé"\n    }\n}\n',
        encoding="iso-8859-1",
    )
    model = parse_dsl(path, env={})
    assert model.elements[0].name == "Namé" and "not UTF-8" in model.warnings[0]
    model = parse_dsl(path, env={}, encoding="iso-8859-1")
    assert model.elements[0].name == "Namé" and model.warnings == []


# ---- constants, variables, environment -----------------------------------------------


def test_constants_variables_and_environment(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        """
        !const ORG "Acme"
        !var TEAM "A"
        !var TEAM "B"
        workspace {
            model {
                s = softwareSystem "${ORG} ${TEAM} ${REGION} ${UNKNOWN}"
            }
        }
    """,
        env={"REGION": "eu", "ORG": "ignored: constants come first"},
    )
    assert model.elements[0].name == "Acme B eu ${UNKNOWN}"


def test_environment_defaults_to_os_environ(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARCHMEM_TEST_SYSTEM", "From env")
    path = write(tmp_path, "workspace.dsl", model_of('softwareSystem "${ARCHMEM_TEST_SYSTEM}"'))
    assert parse_dsl(path).elements[0].name == "From env"


def test_a_constant_cannot_be_redefined(tmp_path: Path) -> None:
    error = fails(tmp_path, '!const A "1"\n!const A "2"\nworkspace {\n}\n')
    assert 'A constant/variable "A" already exists' in error.message and error.line == 2


# ---- includes, extends ---------------------------------------------------------------


def test_include_file_and_directory(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        model_of("!include parts/one.dsl\n!include parts/more"),
        files={
            "parts/one.dsl": 'one = softwareSystem "One"\n',
            "parts/more/a.dsl": 'a = softwareSystem "A"\n',
            "parts/more/sub/b.dsl": 'b = softwareSystem "B"\n',
            "parts/more/.DS_Store": "garbage that is not DSL\n",
            "parts/more/.hidden/c.dsl": "garbage that is not DSL\n",
        },
    )
    assert [e.id for e in model.elements] == ["one", "a", "b"]
    assert len(model.files) == 4


def test_include_may_not_leave_the_including_folder(tmp_path: Path) -> None:
    write(tmp_path, "secret.dsl", 's = softwareSystem "S"\n')
    path = write(tmp_path, "ws/workspace.dsl", model_of("!include ../secret.dsl"))
    with pytest.raises(ModelError) as caught:
        parse_dsl(path, env={})
    assert "points outside" in caught.value.message
    assert caught.value.file == str(path.resolve()) and caught.value.line == 3


def test_include_over_the_network_is_unsupported(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of("!include https://example.com/model.dsl"), UnsupportedFeatureError)
    assert "never fetches over the network" in error.message and error.line == 3


def test_errors_inside_an_include_name_the_included_file(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of("!include part.dsl"), files={"part.dsl": 's = softwareSystem "S"\nnope "x"\n'})
    assert error.file == str((tmp_path / "part.dsl").resolve())
    assert (error.line, error.column) == (2, 1)


def test_missing_include_and_include_cycle(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of("!include nothing.dsl"), ModelNotFoundError)
    assert "does not exist" in error.message and error.line == 3
    error = fails(tmp_path, model_of("!include loop.dsl"), ModelError, files={"loop.dsl": "!include loop.dsl\n"})
    assert "includes or extends itself" in error.message


def test_workspace_extends_a_dsl_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        "base.dsl",
        """
        !const NAME "Base"
        workspace "Base" {
            !identifiers hierarchical
            model {
                s = softwareSystem "${NAME}" {
                    web = container "Web"
                }
            }
        }
    """,
    )
    model = parse(
        tmp_path,
        """
        workspace extends base.dsl {
            model {
                !element s {
                    api = container "API"
                }
                s.api -> s.web "Calls"
            }
        }
    """,
    )
    assert model.name == "Base"
    assert [e.id for e in model.elements] == ["s", "s.web", "s.api"]
    assert model.get("s").name == "Base"
    assert model.get("s").location.file.endswith("base.dsl")
    assert [Path(f).name for f in model.files] == ["workspace.dsl", "base.dsl"]


def test_workspace_extends_a_json_file(tmp_path: Path) -> None:
    (tmp_path / "base.json").write_text(
        '{"name": "J", "model": {"people": [{"id": "1", "name": "User", "tags": "Element,Person",'
        ' "properties": {"structurizr.dsl.identifier": "user"}}],'
        ' "softwareSystems": [{"id": "2", "name": "Sys", "tags": "Element,Software System,Core"}]}}'
    )
    model = parse(
        tmp_path,
        'workspace extends base.json {\n    model {\n        !element "SoftwareSystem://Sys" {\n'
        '            user -> this "Uses"\n        }\n    }\n}\n',
    )
    assert [e.id for e in model.elements] == ["user", "SoftwareSystem://Sys"]
    assert model.get("SoftwareSystem://Sys").tags == ["Core"]
    assert (model.relationships[0].source, model.relationships[0].destination) == ("user", "SoftwareSystem://Sys")


def test_workspace_extends_over_the_network_is_unsupported(tmp_path: Path) -> None:
    error = fails(tmp_path, "workspace extends https://example.com/w.dsl {\n}\n", UnsupportedFeatureError)
    assert error.line == 1


# ---- constructs archmem refuses ------------------------------------------------------


@pytest.mark.parametrize(
    "statement", ["!script groovy {\n        x\n    }", "!plugin com.example.Plugin", "!script test.groovy"]
)
def test_jvm_constructs_are_never_run(tmp_path: Path, statement: str) -> None:
    error = fails(tmp_path, "workspace {\n    " + statement + "\n}\n", UnsupportedFeatureError)
    construct = statement.split()[0]
    assert construct in error.message and "never executes" in error.message
    assert str((tmp_path / "workspace.dsl").resolve()) in error.message and "line 2" in error.message
    assert error.line == 2


def test_component_finder_is_never_run(tmp_path: Path) -> None:
    error = fails(
        tmp_path,
        model_of('s = softwareSystem "S" {\n    c = container "C" {\n        !components {\n        }\n    }\n}'),
        UnsupportedFeatureError,
    )
    assert "!components" in error.message and error.line == 5


@pytest.mark.parametrize(
    ("text", "phrase", "line"),
    [
        (model_of('enterprise "E" {\n}'), "enterprise keyword was previously deprecated", 3),
        ("workspace {\n    !constant A B\n}\n", "!constant was previously deprecated", 2),
        ("workspace {\n    model {\n    }\n    model {\n    }\n}\n", "Multiple models are not permitted", 4),
        ("workspace {\n}\nworkspace {\n}\n", "Multiple workspaces are not permitted", 3),
        ("hello\nworkspace {\n}\n", "Unexpected tokens (expected: workspace)", 1),
        ("workspace {\n    model {\n", "closing curly braces missing", 2),
        ("workspace {\n}\n}\n", "Unexpected end of context", 3),
        ("workspace {\n    !identifiers deep\n}\n", "Expected: !identifiers", 2),
        (model_of("person"), "Expected: person <name>", 3),
        (model_of('person "A" "B" "C" "D"'), "Too many tokens", 3),
    ],
)
def test_syntax_errors_name_file_line_and_column(tmp_path: Path, text: str, phrase: str, line: int) -> None:
    error = fails(tmp_path, text)
    assert phrase in str(error)
    assert error.file == str((tmp_path / "workspace.dsl").resolve()) and error.line == line
    assert error.column is not None and error.column >= 1


def test_missing_model_file() -> None:
    with pytest.raises(ModelNotFoundError):
        parse_dsl(Path("/nonexistent/workspace.dsl"))


# ---- locations for git blame ----------------------------------------------------------


def test_end_line_is_the_closing_brace(tmp_path: Path) -> None:
    model = parse(
        tmp_path,
        model_of("""
        s = softwareSystem "S" {
            c = container "C" {
                description "d"
            }

        }
        t = softwareSystem "T"
    """),
    )
    spans = {e.id: (e.location.line, e.location.column, e.location.end_line) for e in model.elements}
    assert spans == {"s": (3, 9, 8), "c": (4, 13, 6), "t": (9, 9, 9)}


# ---- decisions and documentation -------------------------------------------------------


def _adr(folder: Path, number: int, title: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{number:04d}-{title.lower().replace(' ', '-')}.md").write_text(
        f"# {number}. {title}\n\nDate: 2024-01-0{number}\n\n## Status\n\nAccepted\n\n## Context\n\nText.\n"
    )


def test_adrs_at_workspace_and_element_level(tmp_path: Path) -> None:
    _adr(tmp_path / "adr", 1, "Use DSL")
    _adr(tmp_path / "adr", 2, "Use Python")
    _adr(tmp_path / "svc-adr", 1, "Use Go")
    (tmp_path / "docs").mkdir()
    model = parse(
        tmp_path,
        """
        workspace {
            !adrs adr
            !docs docs
            model {
                svc = softwareSystem "Svc" {
                    !decisions svc-adr com.example.CustomImporter
                }
            }
        }
    """,
    )
    assert [(d.id, d.title, d.element) for d in model.decisions] == [
        ("1", "Use DSL", None),
        ("2", "Use Python", None),
        ("1", "Use Go", "svc"),
    ]
    assert any("com.example.CustomImporter" in w for w in model.warnings)


def test_an_adrs_or_docs_path_that_moved_away_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    """Real workspaces outlive their folders (dasch-swiss/dsp-api names docs/architecture/
    decisions, moved years ago): the decisions are lost, never the model."""
    for directive in ("!adrs", "!docs"):
        model = parse(tmp_path, f"workspace {{\n    model {{\n        a = person A\n    }}\n    {directive} nowhere\n}}\n")
        assert [e.id for e in model.elements] == ["a"]
        assert any(f"{directive}: the path nowhere does not exist" in w and ":5:" in w for w in model.warnings)


# ---- Structurizr JSON ----------------------------------------------------------------


def test_structurizr_json_standalone(tmp_path: Path) -> None:
    path = tmp_path / "workspace.json"
    path.write_text("""{
      "name": "W",
      "model": {
        "people": [{"id": "1", "name": "User", "tags": "Element,Person",
                    "relationships": [{"id": "5", "sourceId": "1", "destinationId": "3", "description": "Uses"}]}],
        "softwareSystems": [{"id": "2", "name": "Sys", "properties": {"archmem.paths": "src/**"},
          "containers": [{"id": "3", "name": "Web", "technology": "Python",
                          "properties": {"structurizr.dsl.identifier": "sys.web"}}]}],
        "deploymentNodes": [{"id": "6", "name": "Node", "environment": "Live", "instances": 2,
          "containerInstances": [{"id": "7", "containerId": "3", "instanceId": 1,
            "relationships": [{"id": "8", "sourceId": "7", "destinationId": "7", "linkedRelationshipId": "5"}]}]}]
      },
      "views": {"systemLandscapeViews": [{"key": "Landscape"}]}
    }""")
    model = parse_structurizr_json(path)
    assert model.format == "structurizr-json" and model.name == "W"
    assert [e.id for e in model.elements] == ["Person://User", "SoftwareSystem://Sys", "sys.web"]
    assert model.get("sys.web").parent == "SoftwareSystem://Sys"
    assert model.get("SoftwareSystem://Sys").properties == {"archmem.paths": "src/**"}
    assert [(r.source, r.destination) for r in model.relationships] == [("Person://User", "sys.web")]
    assert [(d.kind, d.instances, d.instance_of) for d in model.deployment] == [
        ("deploymentNode", 2, None),
        ("containerInstance", 1, "sys.web"),
    ]
    assert model.views == ["Landscape"]


def test_structurizr_json_errors(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"model": {\n  "people": [}\n}')
    with pytest.raises(ModelSyntaxError) as caught:
        parse_structurizr_json(path)
    assert caught.value.line == 2
    with pytest.raises(ModelNotFoundError):
        parse_structurizr_json(tmp_path / "missing.json")


def test_an_element_found_by_canonical_name_can_be_given_an_identifier(tmp_path: Path) -> None:
    model = parse(tmp_path, model_of("""
        softwareSystem "Legacy"
        legacy = !element "SoftwareSystem://Legacy"
        u = person "U"
        u -> legacy "Uses"
    """))
    assert (model.relationships[0].source, model.relationships[0].destination) == ("u", "SoftwareSystem://Legacy")


def test_windows_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "workspace.dsl"
    path.write_bytes(b'workspace {\r\n    model {\r\n        s = softwareSystem "S" \\\r\n            "Desc"\r\n'
                     b'        t = softwareSystem "T"\r\n    }\r\n}\r\n')
    model = parse_dsl(path, env={})
    assert [(e.id, e.description, e.location.line) for e in model.elements] == [("s", "Desc", 3), ("t", "", 5)]


def test_misplaced_statements_get_a_hint(tmp_path: Path) -> None:
    error = fails(tmp_path, model_of('container "C"'))
    assert error.hint is not None and "softwareSystem" in error.hint
    error = fails(tmp_path, model_of('s = softwareSystem "S"\n{\n}'))
    assert error.line == 4 and error.hint is not None and "end of the line" in error.hint


def test_deployment_ids_under_an_unnamed_environment(tmp_path: Path) -> None:
    model = parse(tmp_path, """
        workspace {
            !identifiers hierarchical
            model {
                deploymentEnvironment "Live" {
                    web = deploymentNode "Web" {
                        lb = infrastructureNode "LB"
                    }
                }
            }
        }
    """)
    assert [d.id for d in model.deployment] == ["Live.web", "Live.web.lb"]

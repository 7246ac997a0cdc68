"""Mangled DSL never crashes the parser: it parses, or it raises an ``ArchmemError``.

Real workspaces (the conformance corpus, copied so ``!include`` and ``extends`` still
resolve) and a built-in sample are cut, spliced, truncated and sprinkled with DSL
fragments and stray bytes; whatever comes out, ``parse_dsl`` must answer with a model
or with one of archmem's own errors (with a location when it is a syntax error).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from archmem.errors import ArchmemError, ModelSyntaxError
from archmem.model.dsl import parse_dsl
from archmem.model.types import ArchitectureModel

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "c4-corpus" / "structurizr-dsl"

SAMPLE = '''!const ORG "Acme"
workspace "${ORG}" "Sample" {
    !identifiers hierarchical
    !adrs decisions
    model {
        archetypes {
            service = container {
                technology "Go"
            }
            https = -> {
                technology "HTTPS"
            }
        }
        user = person "User" "A customer." "External"
        group "Shop" {
            shop = softwareSystem "Shop" """
                The shop.
                """
            !element shop {
                web = container "Web" "Pages" "Python" {
                    -> user "Emails" // trailing
                    properties {
                        "archmem.paths" "web/**"
                    }
                }
                api = service "API" {
                    orders = component "Orders" {
                        group "Domain"
                    }
                }
                web --https-> api "Calls"
            }
        }
        user -> shop.web "Browses" \\
            "HTTPS"
        !elements "element.parent==shop" {
            tag "Shop"
        }
        live = deploymentEnvironment "Live" {
            blue = deploymentGroup "Blue"
            aws = deploymentNode "AWS" "" "" "" 2 {
                lb = infrastructureNode "LB"
                w = containerInstance shop.web blue
                i = instanceOf shop.api {
                    healthCheck "Ping" "https://example.com" 60
                }
                lb -> w "Routes"
            }
            shop.web -/> shop.api {
                aws.w -> aws.lb
            }
        }
    }
    views {
        systemContext shop {
            include *
        }
        styles {
            element "Person" {
                background #08427b
            }
        }
    }
}
'''

FRAGMENTS = [
    "{",
    "}",
    "{\n",
    "}\n",
    '"',
    '""',
    '"""',
    "\\",
    "\\\n",
    "\n",
    " ",
    "=",
    "->",
    "-/>",
    "--x->",
    "this",
    "/*",
    "*/",
    "//",
    "#",
    "${ORG}",
    "${",
    "!include ",
    "!include ../x.dsl",
    "!include https://x",
    "!element ",
    "!elements ",
    "!relationships ",
    "!identifiers hierarchical",
    "!adrs nowhere",
    "!docs .",
    "!const A B",
    "!var A B",
    "!script groovy {",
    "!plugin x",
    "workspace ",
    "model ",
    "views ",
    "person ",
    "softwareSystem ",
    "container ",
    "component ",
    "element ",
    "group ",
    "deploymentNode ",
    "containerInstance ",
    "instanceOf ",
    "properties {",
    "perspectives {",
    "tags ",
    "url ",
    "archetypes {",
    "\ufeff",
    "\t",
    "\r\n",
    "workspace extends ",
    "extends ",
    "enterprise ",
    "image x.png",
]


@pytest.fixture(scope="module")
def playground(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A writable copy of the corpus (so relative includes resolve) plus the sample."""
    root = tmp_path_factory.mktemp("fuzz")
    if CORPUS.is_dir():
        shutil.copytree(CORPUS, root / "corpus")
        for path in (root / "corpus").rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
    (root / "decisions").mkdir()
    return root


def _sources() -> list[str]:
    files = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.dsl")) if CORPUS.is_dir() else []
    return ["<sample>", *files]


@st.composite
def mangled(draw: st.DrawFn) -> tuple[str, bytes]:
    """(which source, mangled bytes): deletions, insertions, duplications, a truncation."""
    source = draw(st.sampled_from(_sources()))
    text = SAMPLE if source == "<sample>" else (CORPUS / source).read_text(encoding="utf-8", errors="replace")
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        operation = draw(st.sampled_from(["delete", "insert", "duplicate", "swap"]))
        at = draw(st.integers(min_value=0, max_value=len(text)))
        if operation == "delete":
            text = text[:at] + text[at + draw(st.integers(min_value=1, max_value=40)) :]
        elif operation == "insert":
            piece = draw(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)))
            text = text[:at] + piece + text[at:]
        elif operation == "duplicate":
            text = text[:at] + text[at : at + draw(st.integers(min_value=1, max_value=80))] + text[at:]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    if draw(st.booleans()):
        text = text[: draw(st.integers(min_value=0, max_value=len(text)))]
    data = text.encode("utf-8")
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        at = draw(st.integers(min_value=0, max_value=len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
    return source, data


def _check(playground: Path, source: str, data: bytes) -> None:
    folder = playground if source == "<sample>" else playground / "corpus" / Path(source).parent
    path = folder / "__fuzz__.dsl"
    path.write_bytes(data)
    try:
        model = parse_dsl(path, env={})
    except ModelSyntaxError as error:
        assert error.location is not None and error.line is not None and error.line >= 1
    except ArchmemError as error:
        assert "internal error" not in error.message, error.message
    else:
        assert isinstance(model, ArchitectureModel)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=mangled())
def test_mangled_dsl_never_crashes(playground: Path, case: tuple[str, bytes]) -> None:
    source, data = case
    _check(playground, source, data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(st.sampled_from([*FRAGMENTS, '"A"', "a", "b", "a -> b", "x = "]), max_size=40))
def test_random_fragments_never_crash(playground: Path, tokens: list[str]) -> None:
    _check(playground, "<sample>", " ".join(tokens).encode("utf-8"))


def test_the_sample_itself_parses(playground: Path) -> None:
    path = playground / "sample.dsl"
    path.write_text(SAMPLE, encoding="utf-8")
    model = parse_dsl(path, env={})
    assert model.name == "Acme"
    assert {e.id for e in model.elements} >= {"user", "shop", "shop.web", "shop.api", "shop.api.orders"}
    assert len(model.relationships) == 5

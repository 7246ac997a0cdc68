from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from archmem.errors import ModelError
from archmem.model.paths import (
    compile_globs,
    derive_code_paths,
    glob_to_regex,
    normalize_glob,
    path_from_url,
    resolve_code_paths,
    split_globs,
)
from archmem.model.types import ArchitectureModel, Element, Location


def test_split_globs_accepts_commas_and_semicolons():
    assert split_globs(" src/a/** , src/b/*.py; lib ;") == ["src/a/**", "src/b/*.py", "lib"]


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("src/**", "src/a/b/c.py", True),
        ("src/**", "srcx/a.py", False),
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/a/b/c.py", True),
        ("src/**/*.py", "src/a/b/c.go", False),
        ("src/*.py", "src/a/b.py", False),
        ("src/api", "src/api/handler.go", True),
        ("src/api", "src/api", True),
        ("src/api", "src/apix/handler.go", False),
        ("src/[ab].go", "src/a.go", True),
        ("src/[!ab].go", "src/a.go", False),
        ("**/*.sql", "db/migrations/0001.sql", True),
        ("docs/a+b(1).md", "docs/a+b(1).md", True),
    ],
)
def test_glob_grammar(glob, path, matches):
    assert compile_globs([normalize_glob(glob)])(path) is matches


def test_empty_glob_set_matches_nothing():
    assert compile_globs([])("anything") is False


@pytest.mark.parametrize("bad", ["../outside/**", "/etc/passwd", "src/../../x", "C:/code", "   "])
def test_globs_that_leave_the_repository_are_refused(bad):
    with pytest.raises(ValueError):
        normalize_glob(bad)


def test_normalize_glob_cleans_dots_and_backslashes():
    assert normalize_glob("./src\\api//x/./y") == "src/api/x/y"


def test_url_into_the_repository_gives_a_path():
    assert path_from_url("https://github.com/acme/shop/tree/main/services/api") == "services/api"
    assert path_from_url("https://gitlab.com/acme/shop/-/blob/main/src/x.py") == "src/x.py"
    assert path_from_url("https://example.com/docs/page") is None
    # a branch with a slash: the split whose remainder exists wins
    exists = {"src/x.py"}.__contains__
    assert path_from_url("https://github.com/a/b/blob/feature/new/src/x.py", exists) == "src/x.py"


def test_derive_paths_from_every_property_form():
    element = Element(
        id="e",
        name="E",
        kind="component",
        properties={
            "archmem.paths": "src/a/**; src/b/*.py",
            "source": "src/Game.java:onTick",
            "code": "lib/util.py",
        },
    )
    globs, anchors = derive_code_paths(element)
    assert globs == ["src/a/**", "src/b/*.py", "src/Game.java", "lib/util.py"]
    assert anchors == ["src/Game.java#onTick"]


def test_url_property_is_used_only_when_no_other_paths():
    with_url = Element(id="e", name="E", kind="container", url="https://github.com/a/b/tree/main/svc")
    assert derive_code_paths(with_url)[0] == ["svc"]
    both = dataclasses.replace(with_url, properties={"archmem.paths": "other/**"})
    assert derive_code_paths(both)[0] == ["other/**"]


def test_escaping_glob_is_an_error_with_the_element_location():
    element = Element(
        id="api",
        name="API",
        kind="container",
        properties={"archmem.paths": "../secrets/**"},
        location=Location(file="/x/workspace.dsl", line=12, column=9),
    )
    with pytest.raises(ModelError) as info:
        resolve_code_paths(ArchitectureModel(elements=[element]))
    message = str(info.value)
    assert "/x/workspace.dsl:12:9" in message
    assert "api" in message and "leaves the repository" in message


@pytest.mark.parametrize(
    ("glob", "path"),
    [("src/**", "src/a\nb.py"), ("src/**", "src/x\n/y.py"), ("src/*.py", "src/a\nb.py"), ("src/?", "src/\n"),
     ("src", "src/a\nb.py"), ("src/[\n]", "src/\n")],
)
def test_a_file_name_with_a_newline_is_matched_like_any_other(glob, path):
    """Issue 17, item 11: a newline is a legal character in a file name."""
    assert compile_globs([normalize_glob(glob)])(path) is True


@given(name=st.text(alphabet=st.characters(blacklist_characters="/\x00"), min_size=1, max_size=12))
def test_any_file_name_under_a_folder_is_matched_by_its_double_star(name):
    assert compile_globs(["src/**"])(f"src/{name}") is True
    assert compile_globs(["src/*"])(f"src/{name}") is True
    assert compile_globs(["src"])(f"src/{name}") is True


def _by_expressions(globs: list[str], path: str) -> bool:
    """The matcher as one regular expression per glob: what string comparison must equal."""
    verdict = False
    for glob in globs:
        negated = glob.startswith("!")
        if re.fullmatch(glob_to_regex(glob[1:] if negated else glob), path):
            verdict = not negated
    return verdict


_NAME = st.sampled_from(["a", "b", "ab", "a.b", "x\ny", "a+b"])
_PART = st.one_of(_NAME, st.sampled_from(["**", "*", "a*", "?", "[ab]", "."]))
_PLAIN = st.builds(lambda parts, under: "/".join(parts) + ("/**" if under else ""),
                   st.lists(_NAME, min_size=1, max_size=3), st.booleans())
_GLOB = st.builds(lambda neg, glob: ("!" if neg else "") + glob, st.booleans(),
                  st.one_of(_PLAIN, st.lists(_PART, min_size=1, max_size=4).map("/".join)))
_PATH = st.lists(st.sampled_from(["a", "b", "ab", "a.b", "x\ny", "a+b", "c"]), min_size=1, max_size=5).map("/".join)


@given(st.lists(_GLOB, min_size=1, max_size=4), _PATH)
def test_globs_decided_by_string_comparison_match_as_their_expressions_do(globs: list[str], path: str):
    while globs and globs[0].startswith("!"):
        globs = globs[1:]
    assert compile_globs(globs)(path) == _by_expressions(globs, path)


ANYWHERE = ["**/*.lock", "**/go.sum", "**/vendor/**", "**/*.min.js", "**/package-lock.json", "**/gen/**"]
"""The shapes drift's default ignores take (``**/name``, ``**/*.suffix``, ``**/folder/**``),
which a matcher decides without a regular expression."""


@given(st.lists(st.sampled_from([*ANYWHERE, "src/**", "docs", "**/test_*.py", "a/*/b.py"]), min_size=1, max_size=4),
       st.lists(st.sampled_from(["a", "go.sum", "vendor", "x.lock", ".lock", "gen", "", "b.py", "app.min.js",
                                 "test_x.py", "src", "docs", "a\nb", "package-lock.json"]), min_size=1, max_size=5))
def test_a_glob_decided_without_an_expression_matches_what_the_expression_matches(globs, parts):
    path = "/".join(parts)  # empty parts make the paths git never lists: a leading slash, a double one
    expression = re.compile("(?:" + "|".join(glob_to_regex(g) for g in globs) + r")\Z")
    assert compile_globs(globs)(path) == (expression.match(path) is not None), (globs, path)


def test_the_default_ignores_compile_no_expression(monkeypatch: pytest.MonkeyPatch):
    from archmem.config import DriftConfig

    compiled: list[str] = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda pattern, flags=0: compiled.append(pattern) or real(pattern, flags))
    ignored = compile_globs(DriftConfig().ignore)
    assert [ignored(path) for path in ("web/package-lock.json", "yarn.lock", "api/vendor/x/y.go", "app.min.js",
                                       "src/pricing.py")] == [True, True, True, True, False]
    assert compiled == []

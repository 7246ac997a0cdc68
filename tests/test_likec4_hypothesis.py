"""Mangled LikeC4 never crashes the reader: it reads, or it raises an ``ArchmemError``
(with a place when it is a syntax error). Real workspaces from tests/data/likec4 are cut,
spliced, truncated and sprinkled with LikeC4 fragments and stray characters."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from archmem.errors import ArchmemError, ModelSyntaxError
from archmem.model.likec4 import parse_likec4

CORPUS = Path(__file__).resolve().parent / "data" / "likec4"
TEXTS = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.rglob("*.c4"))[:12]]
FRAGMENTS = ["{", "}", "->", "-[", "]->", " .uses ", "'", "'''", '"', "#tag", "extend ", "it ", "this ", "model {",
             "specification {", "metadata {", "link ", "icon ", "/*", "//", "=", ",", ";", ":", "[", "]", "\n",
             "views {", "deployment {", "instanceOf ", "element x", "a.b.c", "\\", "\x00", "é"]


@st.composite
def mangled(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["cut", "insert", "truncate", "splice"]))
        if action == "cut":
            text = text[:at] + text[at + draw(st.integers(1, 40)):]
        elif action == "insert":
            text = text[:at] + draw(st.sampled_from(FRAGMENTS)) + text[at:]
        elif action == "truncate":
            text = text[:at]
        else:
            other = draw(st.sampled_from(TEXTS))
            start = draw(st.integers(0, len(other)))
            text = text[:at] + other[start:start + draw(st.integers(1, 200))] + text[at:]
    return text


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mangled())
def test_mangled_likec4_reads_or_raises_an_archmem_error(tmp_path_factory, text: str) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("mangled")
    (folder / "model.c4").write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        parse_likec4(folder, root=folder)
    except ModelSyntaxError as err:
        assert err.location is not None and err.location.line >= 1 and err.location.column >= 1
        assert "internal error" not in err.message
    except ArchmemError as err:
        assert "internal error" not in err.message, err.message

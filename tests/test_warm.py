"""What the command server works out once before forking: the same answers, computed once."""

from __future__ import annotations

import re

from archmem import patterns
from archmem.recall import synonyms
from archmem.workspace.warm import warm


def test_compile_all_compiles_every_lazy_pattern_once_and_they_answer_as_compiled():
    late = patterns.lazy(r"(\d+)-(\d+)")
    assert patterns.compile_all() >= 1
    assert patterns.compile_all() == 0
    assert late.match("12-34").groups() == re.compile(r"(\d+)-(\d+)").match("12-34").groups()  # type: ignore[union-attr]


def test_the_shipped_thesaurus_is_read_once_and_each_caller_gets_its_own_copy(monkeypatch):
    monkeypatch.setattr(synonyms, "_shipped", [])
    first = synonyms.shipped_groups()
    first[0].append("changed by one caller")
    first.append(["changed", "too"])
    again = synonyms.shipped_groups()
    assert "changed by one caller" not in again[0] and ["changed", "too"] not in again
    assert again == synonyms.parse_groups((synonyms.Path(synonyms.__file__).with_name(synonyms.SHIPPED))
                                          .read_text(encoding="utf-8"))


def test_warm_leaves_nothing_to_compile():
    warm()
    assert patterns.compile_all() == 0

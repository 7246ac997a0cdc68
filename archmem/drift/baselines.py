"""What counts as the model *describing* an element, for the "described at" baseline.

The baseline is the newest commit among the lines of the element's block in the model
file. Mapping the model to the code is not describing it: adding or changing
``archmem.*`` properties (with the ``properties { }`` block and braces that hold them),
re-indenting, or editing comments says nothing new about the element, so it must not
move the baseline (or the drift before it would vanish). Two rules do it:

- a *mapping-only* commit (every line it removed or added in the file is one of those)
  is ignored by blame (``git blame --ignore-rev``), so a line it only touched keeps the
  commit that wrote it, and the lines it added are not counted;
- the ``archmem.*`` property lines of the block now (and a properties block holding only
  them) are never counted, whichever commit wrote them.

Which line of a model file says something and which only maps is the model languages'
syntax, and ``archmem.model.description_lines`` owns it; this module decides what a
commit or a block counts for.

A commit that maps one element and re-describes another is not mapping-only: the
lines it changed count for the elements they belong to (their ``archmem.*`` lines still
do not).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from archmem.model.description_lines import described_text


def _described(lines: Iterable[str]) -> Counter[str]:
    return Counter(said for said in map(described_text, lines) if said)


def is_mapping_only(removed: Sequence[str], added: Sequence[str]) -> bool:
    """Did a change to the model file (its removed and added lines) only map elements
    to code, re-indent or touch comments?"""
    return _described(removed) == _described(added)


def mapping_only_commits(patches: Iterable[tuple[str, Sequence[str], Sequence[str]]]) -> list[str]:
    """The shas among ``(sha, removed, added)`` patches that only mapped elements."""
    return [sha for sha, removed, added in patches if (removed or added) and is_mapping_only(removed, added)]

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

A commit that maps one element and re-describes another is not mapping-only: the
lines it changed count for the elements they belong to (their ``archmem.*`` lines still
do not).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from archmem.model.paths import MAPPING_LINE as _MAPPING
from archmem.model.paths import PROPERTIES_OPEN as _PROPERTIES_OPEN

_BRACE_ONLY = re.compile(r"^\s*[{}]\s*$")
_COMMENT = re.compile(r"^\s*(?://|#|/\*|\*)")


def is_mapping_line(line: str) -> bool:
    """An ``"archmem.paths" "…"`` (any ``archmem.*``) property line, or LikeC4's
    ``archmem_paths '…'`` metadata line."""
    return bool(_MAPPING.match(line))


def described_text(line: str) -> str:
    """What one line says about an element: "" for a mapping line, a property-block
    opening, a lone brace, a blank or a comment; else the line stripped, spaces
    collapsed, a trailing ``{`` removed."""
    if not line.strip() or is_mapping_line(line) or _PROPERTIES_OPEN.match(line) or _BRACE_ONLY.match(line):
        return ""
    if _COMMENT.match(line):
        return ""
    return re.sub(r"\s+", " ", re.sub(r"\s*\{\s*$", "", line.strip()))


def _described(lines: Iterable[str]) -> Counter[str]:
    return Counter(said for said in map(described_text, lines) if said)


def is_mapping_only(removed: Sequence[str], added: Sequence[str]) -> bool:
    """Did a change to the model file (its removed and added lines) only map elements
    to code, re-indent or touch comments?"""
    return _described(removed) == _described(added)


def mapping_only_commits(patches: Iterable[tuple[str, Sequence[str], Sequence[str]]]) -> list[str]:
    """The shas among ``(sha, removed, added)`` patches that only mapped elements."""
    return [sha for sha, removed, added in patches if (removed or added) and is_mapping_only(removed, added)]


def mapping_lines(text: Sequence[str]) -> set[int]:
    """1-based numbers of the lines of a model file that only map elements to code:
    ``archmem.*`` property lines, and the opening and closing lines of a properties
    block that holds nothing else."""
    found = {number for number, line in enumerate(text, 1) if is_mapping_line(line)}
    number = 0
    while number < len(text):
        if _PROPERTIES_OPEN.match(text[number]):
            end = number + 1
            inner: list[int] = []
            while end < len(text) and not _BRACE_ONLY.match(text[end]):
                inner.append(end + 1)
                end += 1
            meaningful = [n for n in inner if text[n - 1].strip() and not _COMMENT.match(text[n - 1])]
            if meaningful and all(n in found for n in meaningful) and end < len(text):
                found.update({number + 1, end + 1})
            number = end
        number += 1
    return found

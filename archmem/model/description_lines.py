"""Which lines of a model file describe an element and which only map it to code, in
either model language (Structurizr DSL, LikeC4): ``archmem.*`` properties and LikeC4's
``archmem_*`` metadata, the ``properties { }`` / ``metadata { }`` blocks that hold only
them, braces, blanks and comments. Drift asks this to know when the model last
*described* an element (``archmem.drift.baselines``); the syntax stays here, with the
parsers."""

from __future__ import annotations

import re
from collections.abc import Sequence

from archmem.model.paths import MAPPING_PREFIX
from archmem.patterns import lazy

MAPPING_LINE = lazy(
    r'^\s*(?:"?' + re.escape(MAPPING_PREFIX) + r'[^"\s]*"?(?:\s|$)'  # Structurizr: "archmem.paths" "…"
    r"|archmem_\w+\s*:?\s*(?:['\"\[]|$)"  # LikeC4 metadata: archmem_paths '…'
    r"|metadata\s*\{\s*archmem_\w+\s*:?\s*(?:'[^']*'|\"[^\"]*\")\s*;?\s*\}\s*$)",
    re.I,
)
"""A model-file line that only maps an element to code, in either model language."""
PROPERTIES_OPEN = lazy(r"^\s*(?:properties|metadata)\s*\{\s*$", re.I)
"""The opening line of a block that may hold mapping lines."""
_BRACE_ONLY = lazy(r"^\s*[{}]\s*$")
_COMMENT = lazy(r"^\s*(?://|#|/\*|\*)")


def is_mapping_line(line: str) -> bool:
    """An ``"archmem.paths" "…"`` (any ``archmem.*``) property line, or LikeC4's
    ``archmem_paths '…'`` metadata line."""
    return bool(MAPPING_LINE.match(line))


def described_text(line: str) -> str:
    """What one line says about an element: "" for a mapping line, a property-block
    opening, a lone brace, a blank or a comment; else the line stripped, spaces
    collapsed, a trailing ``{`` removed."""
    if not line.strip() or is_mapping_line(line) or PROPERTIES_OPEN.match(line) or _BRACE_ONLY.match(line):
        return ""
    if _COMMENT.match(line):
        return ""
    return re.sub(r"\s+", " ", re.sub(r"\s*\{\s*$", "", line.strip()))


def mapping_lines(text: Sequence[str]) -> set[int]:
    """1-based numbers of the lines of a model file that only map elements to code:
    ``archmem.*`` property lines, and the opening and closing lines of a properties
    block that holds nothing else."""
    found = {number for number, line in enumerate(text, 1) if is_mapping_line(line)}
    number = 0
    while number < len(text):
        if PROPERTIES_OPEN.match(text[number]):
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

"""The YAML of archmem's committed files (memory front matter, drift accepts): one way to
write a value and one way to read a mapping back.

Written values are plain where YAML reads them back as the same string, else
double-quoted with JSON's escapes (which are YAML's), so a file is deterministic and a
diff reads well. Read back with PyYAML's safe loader (the C one when there), with times
kept as text: archmem parses them itself, the same way for every file and import.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from archmem.errors import InvalidInputError

_PLAIN = re.compile(r"[A-Za-z_./][A-Za-z0-9_./@+#-]*(?: [A-Za-z0-9_./@+#()-]+)*")
_YAML_WORDS = {"y", "yes", "n", "no", "true", "false", "on", "off", "null", "~"}
_YAML_FLOAT = re.compile(r"\.(?:[0-9][0-9_]*(?:[eE][-+][0-9]+)?|inf|nan)", re.IGNORECASE)
"""Plain scalars that YAML reads as a number (``.5``, ``.inf``)."""
_YAML_UNPRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ufffe\uffff]")
"""What JSON leaves raw but YAML refuses (DEL, C1, U+FFFE/F) or reads as a line break,
folded to a space in a quoted scalar (NEL, U+2028, U+2029): written as escapes."""
_SURROGATE = re.compile("[\ud800-\udfff]")
"""Not text (an undecodable byte of a command line, a bad JSON escape): YAML has no
way to write one, so a value holding one is refused."""


@dataclass
class YamlTextError(Exception):
    """Text that is not a YAML mapping, with where (1-based line and column); the
    message goes after the name of what was read (``the front matter is not valid YAML``)."""

    message: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.message}"


def yaml_scalar(value: str) -> str:
    """A YAML scalar for a string: plain where YAML reads it back as the same string,
    else double-quoted (JSON's escapes are YAML's)."""
    if (
        _PLAIN.fullmatch(value)
        and value.lower() not in _YAML_WORDS
        and not _YAML_FLOAT.match(value)
        and not value.endswith(":")
        and ": " not in value
        and " #" not in value
    ):
        return value
    surrogate = _SURROGATE.search(value)
    if surrogate:
        raise InvalidInputError(
            f"{value!r} holds U+{ord(surrogate.group()):04X}, a lone surrogate, which is not text "
            "(an undecodable byte?); nothing was written"
        )
    quoted = json.dumps(value, ensure_ascii=False)
    return _YAML_UNPRINTABLE.sub(lambda match: f"\\u{ord(match.group()):04x}", quoted)


def load_mapping(text: str, *, first_line: int = 1) -> dict[str, Any]:
    """The ``key: value`` mapping ``text`` holds (empty text: an empty one), keys as
    strings and times as text; ``YamlTextError`` at the file's line and column, counting
    ``text`` as starting on line ``first_line``."""
    import yaml

    offset = first_line - 1
    try:
        data = yaml.load(text, Loader=_loader()) if text.strip() else {}
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1 + offset, mark.column + 1) if mark else (first_line, 1)
        context = exc.context_mark
        where = (f" ({exc.context} at line {context.line + 1 + offset}, column {context.column + 1})"
                 if context is not None and exc.context and context is not mark else "")
        raise YamlTextError(f"is not valid YAML: {exc.problem or exc}{where}", line, column) from None
    except yaml.YAMLError as exc:
        raise YamlTextError(f"is not valid YAML: {exc}", first_line) from None
    if not isinstance(data, dict):
        raise YamlTextError("must be 'key: value' lines", first_line)
    return {str(key): value for key, value in data.items()}


_LOADER: Any = None


def _loader() -> Any:
    """YAML's safe loader (the C one when there), reading times as text."""
    global _LOADER
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class _TextTimesLoader(base):  # type: ignore[misc, valid-type]
            pass

        _TextTimesLoader.yaml_implicit_resolvers = {
            first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for first, resolvers in base.yaml_implicit_resolvers.items()
        }
        _LOADER = _TextTimesLoader
    return _LOADER

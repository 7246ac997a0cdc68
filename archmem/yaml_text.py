"""The YAML of archmem's committed files (memory front matter, drift accepts): one way to
write a value and one way to read a mapping back.

Written values are plain where YAML reads them back as the same string, else
double-quoted with JSON's escapes (which are YAML's), so a file is deterministic and a
diff reads well. Read back with PyYAML's safe loader (the C one when there), with times
kept as text: archmem parses them itself, the same way for every file and import.

Limits come before work: the event stream is read first, and a file with an anchor, an
alias or an explicit tag (archmem never writes one; an alias is how a few hundred bytes
expand to billions of nodes), nesting deeper than ``MAX_DEPTH`` or a number longer
than ``MAX_NUMBER_CHARS`` is refused at its line before anything is built from it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from archmem.errors import InvalidInputError
from archmem.patterns import lazy
from archmem.values import Record

MAX_DEPTH = 8
"""Collections inside collections: archmem writes two levels (keys, then a list)."""
MAX_NUMBER_CHARS = 100
"""A plain whole number longer than this is nothing archmem keeps (int64 has 19 digits,
a SHA-256 commit id 64 characters), and past 4,300 digits Python refuses to convert one."""
_DECIMAL = lazy(r"[-+]?[0-9][0-9_]*")
_PLAIN_SHAPE = lazy(r"(?:(?:[A-Za-z_][\w-]*:(?:[ \t][^\n]*)?|  - (?![-?:]\s)[^\n]*|[ \t]*)(?:\n|\Z))*")
"""Text in the shape archmem writes: ``key: value`` lines at the margin and ``  - item``
lines under them. With no ``&``, ``*``, ``!``, ``[`` or ``{`` in it and no long run of
digits, it can hold no anchor, alias or tag, nest no deeper than two, and hold no long
number: the event pass is skipped (it costs as much again as the load)."""
_NEEDS_EVENTS = lazy(r"[&*!\[{]|[0-9_]{%d}" % (MAX_NUMBER_CHARS + 1))
_STR_TAG = "tag:yaml.org,2002:str"

_PLAIN = lazy(r"[A-Za-z_./][A-Za-z0-9_./@+#-]*(?: [A-Za-z0-9_./@+#()-]+)*")
_YAML_WORDS = {"y", "yes", "n", "no", "true", "false", "on", "off", "null", "~"}
_LONGEST_YAML_WORD = max(map(len, _YAML_WORDS))
_YAML_FLOAT = lazy(r"\.(?:[0-9][0-9_]*(?:[eE][-+][0-9]+)?|inf|nan)", re.IGNORECASE)
"""Plain scalars that YAML reads as a number (``.5``, ``.inf``)."""
_YAML_UNPRINTABLE = lazy("[\x7f-\x9f\u2028\u2029\ufffe\uffff]")
"""What JSON leaves raw but YAML refuses (DEL, C1, U+FFFE/F) or reads as a line break,
folded to a space in a quoted scalar (NEL, U+2028, U+2029): written as escapes."""
_SURROGATE = lazy("[\ud800-\udfff]")
"""Not text (an undecodable byte of a command line, a bad JSON escape): YAML has no
way to write one, so a value holding one is refused."""


@dataclass(repr=False, eq=False)
class YamlTextError(Record, Exception):
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
    if yaml_scalar_is_plain(value):
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
    return read_mapping(text, first_line=first_line)[0]


def read_mapping(text: str, *, first_line: int = 1) -> tuple[dict[str, Any], bool]:
    """``load_mapping``, and whether every text in the mapping stands in ``text`` as it
    is (archmem's own shape, read without YAML: no escape or fold can hide a character)."""
    if not text.strip():
        return {}, True
    written = _as_written(text)
    if written is not None:
        return written, True  # archmem's own shape: read without YAML (not even imported)
    return _load(text, first_line), False


def _load(text: str, first_line: int) -> dict[str, Any]:
    import yaml

    offset = first_line - 1
    try:
        if _NEEDS_EVENTS.search(text) or not _PLAIN_SHAPE.fullmatch(text):
            _check_events(text, first_line)
        data = yaml.load(text, Loader=_loader())
    except YamlTextError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1 + offset, mark.column + 1) if mark else (first_line, 1)
        context = exc.context_mark
        where = (f" ({exc.context} at line {context.line + 1 + offset}, column {context.column + 1})"
                 if context is not None and exc.context and context is not mark else "")
        raise YamlTextError(f"is not valid YAML: {exc.problem or exc}{where}", line, column) from None
    except yaml.YAMLError as exc:
        raise YamlTextError(f"is not valid YAML: {exc}", first_line) from None
    except (ValueError, OverflowError, RecursionError) as exc:  # a value the constructor cannot build
        raise YamlTextError(f"holds a value that cannot be read ({type(exc).__name__})", first_line) from None
    if not isinstance(data, dict):
        raise YamlTextError("must be 'key: value' lines", first_line)
    return {str(key): value for key, value in data.items()}


_KEY = lazy(r"[a-z_][a-z0-9_]*")
"""A key as archmem writes one, before its colon."""
_TIME_TEXT = lazy(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})")
_WHOLE = lazy(r"0|[1-9][0-9]{0,17}")
_QUOTED = lazy(r'"([^"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]*)"')
_NOT_KEYS = _YAML_WORDS | {"yes", "no", "on", "off"}


def _as_written(text: str) -> dict[str, Any] | None:
    """The mapping of text in the shape archmem writes, read without YAML: ``key: value``
    lines (``key:`` then ``  - item`` lines for a list), each value plain as
    ``yaml_scalar`` writes one, a time, a whole number, or double-quoted without an
    escape. None for anything else, which the YAML loader reads (what YAML would read
    differently, a key like ``on``, a number like ``012``, never takes this path)."""
    found: dict[str, Any] = {}
    items: list[Any] | None = None
    for line in text.split("\n"):
        if not line:
            continue
        if line.startswith("  - "):  # a list's item
            if items is None:
                return None
            value = _written_value(line[4:])
            if value is None:
                return None
            items.append(value)
            continue
        key, colon, rest = line.partition(":")  # ``key: value`` or ``key:`` (a list follows)
        if not colon or not _written_key(key):
            return None
        if not rest:
            items = found[key] = []
            continue
        if rest[0] != " ":
            return None
        items = None
        value = _written_value(rest[1:])
        if value is None:
            return None
        found[key] = value
    return {key: value if value != [] else None for key, value in found.items()}


_KEYS_SEEN: dict[str, bool] = {}
"""Whether a key is one as archmem writes it, for the few keys files hold (every file
holds the same dozen: one regular expression a line less)."""


def _written_key(key: str) -> bool:
    written = _KEYS_SEEN.get(key)
    if written is None:
        written = bool(_KEY.fullmatch(key)) and key not in _NOT_KEYS
        if len(_KEYS_SEEN) < 256:
            _KEYS_SEEN[key] = written
    return written


def _written_value(text: str) -> str | int | None:
    """A scalar as archmem writes one (see ``_as_written``), None for any other."""
    if yaml_scalar_is_plain(text) or _TIME_TEXT.fullmatch(text):
        return text
    if _WHOLE.fullmatch(text):
        return int(text)
    quoted = _QUOTED.fullmatch(text)
    return quoted[1] if quoted is not None else None


def yaml_scalar_is_plain(value: str) -> bool:
    """Whether ``yaml_scalar`` writes ``value`` as it is: YAML reads it back as the same string."""
    return bool(
        _PLAIN.fullmatch(value)  # no ":" in it, so no "key: value" nor a trailing colon
        and (len(value) > _LONGEST_YAML_WORD or value.lower() not in _YAML_WORDS)
        and (value[0] != "." or not _YAML_FLOAT.match(value))
        and " #" not in value
    )


def _check_events(text: str, first_line: int) -> None:
    """Refuse, from the event stream and before anything is composed, what archmem's
    files never hold (see the module doc); ``yaml.MarkedYAMLError`` for bad syntax."""
    import yaml

    depth = 0
    for event in yaml.parse(text, Loader=_loader()):
        mark = event.start_mark
        line, column = (mark.line + first_line, mark.column + 1) if mark is not None else (first_line, 1)
        if isinstance(event, yaml.AliasEvent):
            raise YamlTextError(f"uses the alias *{event.anchor}: archmem's files never hold anchors or aliases; "
                                "write the value out", line, column)
        anchor, tag = getattr(event, "anchor", None), getattr(event, "tag", None)
        if anchor is not None:
            raise YamlTextError(f"defines the anchor &{anchor}: archmem's files never hold anchors or aliases; "
                                "write the value out", line, column)
        if tag is not None and tag not in ("!", _STR_TAG):  # a tag is None unless written
            raise YamlTextError(f"has the explicit tag {tag[:40]!r}: archmem's files never hold tags", line, column)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlTextError(f"nests deeper than {MAX_DEPTH} levels", line, column)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        elif isinstance(event, yaml.ScalarEvent) and event.implicit[0] and len(event.value) > MAX_NUMBER_CHARS \
                and _DECIMAL.fullmatch(event.value):
            raise YamlTextError(f"holds a number {len(event.value):,} characters long; archmem's numbers are at "
                                f"most {MAX_NUMBER_CHARS}", line, column)


def comment_line(text: str, *, first_line: int = 1) -> int | None:
    """The line of the first YAML comment in ``text`` (a ``#`` outside every scalar),
    None without one: archmem never writes comments, so rewriting a file drops them.
    Text that does not scan has none to keep."""
    import yaml

    covered: list[tuple[int, int]] = []
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):  # the Python scanner: character offsets
            if isinstance(token, yaml.ScalarToken):
                covered.append((token.start_mark.index, token.end_mark.index))
    except yaml.YAMLError:
        return None
    for match in re.finditer(r"(?:^|(?<=[ \t]))#", text, re.MULTILINE):
        if not any(start <= match.start() < end for start, end in covered):
            return text.count("\n", 0, match.start()) + first_line
    return None


_LOADER: Any = None


def _loader() -> Any:
    """YAML's safe loader (the C one when there), reading times as text."""
    global _LOADER
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class _TextTimesLoader(base):  # type: ignore[misc, valid-type]  # C or Python loader
            pass

        _TextTimesLoader.yaml_implicit_resolvers = {
            first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for first, resolvers in base.yaml_implicit_resolvers.items()
        }
        _LOADER = _TextTimesLoader
    return _LOADER

"""What text may reach a reader raw: control characters shown as escapes.

Much of what archmem prints comes from people and files it does not control: an author
typed on a command line, an imported memory, an element name in a DSL file, a file
name from git. A control character in it (``ESC ] 0 ; … BEL`` retitles a terminal,
``ESC [ 2 J`` clears it, a carriage return overwrites a line, a bidi override reorders
what is read) is shown as its JSON escape (``\\u001b``, ``\\r``). A JSON escape is also
valid inside a JSON string, so escaping printed JSON keeps it JSON with the same data.
"""

from __future__ import annotations

import re
import unicodedata

_BIDI = "\u202a-\u202e\u2066-\u2069"
_SHORT = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNSAFE_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_BIDI}]")
"""Everything ``is_control`` names except tab and newline, which text may hold."""
_UNSAFE_LINE = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff{_BIDI}]")
_SGR = r"\x1b\[[0-9;]*m"
_STYLED = re.compile(f"({_SGR})|{_UNSAFE_TEXT.pattern}")
_UNSTYLED = re.compile(f"{_SGR}|{_UNSAFE_TEXT.pattern}")


def is_control(char: str) -> bool:
    """C0/C1 controls, DEL, lone surrogates and the bidi overrides that disguise text."""
    category = unicodedata.category(char)
    return category in ("Cc", "Cs") or "\u202a" <= char <= "\u202e" or "\u2066" <= char <= "\u2069"


def escape_char(char: str) -> str:
    """The JSON escape of one character: ``\\n``, ``\\t``, ``\\u001b``, ``\\u202e``."""
    return _SHORT.get(char) or f"\\u{ord(char):04x}"


def printable(text: str) -> str:
    """``text`` for a terminal: every control character but tab and newline escaped."""
    return _UNSAFE_TEXT.sub(lambda m: escape_char(m[0]), text)


def one_line(text: str) -> str:
    """``text`` that stays on its line: newlines and carriage returns escaped as well."""
    return _UNSAFE_LINE.sub(lambda m: escape_char(m[0]), text)


def terminal_output(text: str, *, styled: bool = False) -> str:
    """What a terminal stream may write: ``printable``, and colour sequences (SGR) kept
    only for ``styled`` text, whose words were escaped before the styles were added;
    anywhere else they are dropped, as click drops them when output is not a terminal."""
    if styled:
        return _STYLED.sub(lambda m: m[1] or escape_char(m[0]), text)
    return _UNSTYLED.sub(lambda m: "" if len(m[0]) > 1 else escape_char(m[0]), text)

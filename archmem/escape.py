"""What text may reach a reader raw: control characters shown as escapes, Markdown values made inert.

Much of what archmem prints comes from people and files it does not control: an author
typed on a command line, an imported memory, an element name in a DSL file, a file
name from git. A control character in it (``ESC ] 0 ; … BEL`` retitles a terminal,
``ESC [ 2 J`` clears it, a carriage return overwrites a line, a bidi override reorders
what is read) is shown as its JSON escape (``\\u001b``, ``\\r``). A JSON escape is also
valid inside a JSON string, so escaping printed JSON keeps it JSON with the same data.

A value interpolated into Markdown (a briefing, the overview, the map) stays on its
line: line breaks are escaped too, so no value starts a heading, a list item or a
fence. Outside code spans ``<`` becomes ``&lt;`` (no raw HTML, no ``<!--`` hiding the
rest, no autolink) and ``![`` becomes ``\\![`` (an image becomes a plain link: nothing
is fetched when the Markdown is shown).
"""

from __future__ import annotations

import re
import unicodedata

from archmem.patterns import lazy

_BIDI = "\u202a-\u202e\u2066-\u2069"
_SHORT = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNSAFE_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_BIDI}]")
"""Everything ``is_control`` names except tab and newline, which text may hold."""
_UNSAFE_LINE = lazy(f"[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff{_BIDI}]")
_SGR = r"\x1b\[[0-9;]*m"
_STYLED = re.compile(f"({_SGR})|{_UNSAFE_TEXT.pattern}")
_UNSTYLED = re.compile(f"{_SGR}|{_UNSAFE_TEXT.pattern}")
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_LINK_TAIL = lazy(r"\](?:\(|:)")
"""``](`` or ``]:``: a link destination could take a backtick before a code span does."""
_MARKDOWN_ACTIVE = lazy(r"<|!(?=\[)")


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


def markdown_inline(text: str) -> str:
    """One Markdown value, inert: ``one_line``, then ``<`` as ``&lt;`` and ``![`` as
    ``\\![`` wherever they are not inside a code span (already escaped ones are kept)."""
    text = one_line(text)
    out: list[str] = []
    position = 0
    for start, end in [*code_spans(text), (len(text), len(text))]:
        out.append(_MARKDOWN_ACTIVE.sub(lambda m: _neutral(text, position + m.start(), m[0]),  # noqa: B023  (called now)
                                        text[position:start]))
        out.append(text[start:end])
        position = end
    return "".join(out)


def markdown_code(text: str) -> str:
    """``text`` as one Markdown code span, shown literally whatever backticks it holds."""
    text = one_line(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" or (text[:1] == text[-1:] == " " and text.strip()) else ""
    return f"{fence}{pad}{text or ' '}{pad}{fence}"


def code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the inline code spans of one line, as CommonMark reads them: a
    backslash escapes the character after it, a run of n backticks is closed by the next
    run of exactly n. Where a link destination could take a backtick first (``](``),
    no span is trusted, so nothing is left unescaped on a guess."""
    if _LINK_TAIL.search(text):
        return []
    spans: list[tuple[int, int]] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == "\\" and index + 1 < size and text[index + 1] in _ASCII_PUNCTUATION:
            index += 2
            continue
        if char != "`":
            index += 1
            continue
        run_end = index
        while run_end < size and text[run_end] == "`":
            run_end += 1
        close = _closing_run(text, run_end, run_end - index)
        if close is None:
            index = run_end
            continue
        spans.append((index, close))
        index = close
    return spans


def _closing_run(text: str, start: int, length: int) -> int | None:
    """The end of the first run of exactly ``length`` backticks from ``start``, if any."""
    for match in re.finditer(r"`+", text[start:]):
        if len(match[0]) == length:
            return start + match.end()
    return None


def _neutral(text: str, offset: int, found: str) -> str:
    """``<`` or ``!`` at ``offset`` made inert, unless a backslash already escapes it."""
    before = offset
    while before > 0 and text[before - 1] == "\\":
        before -= 1
    if (offset - before) % 2:
        return found
    return "&lt;" if found == "<" else "\\!"


def workflow_command(value: str, *, property: bool = False) -> str:
    """A value in a GitHub Actions workflow command (``::warning file=…::text``): ``%``,
    CR and LF escaped, and in a property (``file=``, ``title=``) ``:`` and ``,`` too. One
    place for drift, conformance, pull request and memory-file annotations."""
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def toml_string(text: str) -> str:
    """A TOML basic string: backslash, quote and control characters escaped, every other
    character as it is (JSON's ``\\ud83d`` surrogate escapes are not valid TOML)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'

"""Where a symbol is defined in a file, and whether a diff touched it: so a memory
anchored at ``path#Symbol`` is flagged only when that symbol's lines changed.

A definition matcher, not a parser: Python by indentation; JavaScript/TypeScript, Go,
Java and Rust by balanced braces (skipping strings and comments). ``Class.method``
looks for ``method`` inside ``Class`` (in Rust inside any ``impl Class``; in Go a
method with receiver ``Class``). Line numbers are 1-based and inclusive.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from archmem.patterns import lazy
from archmem.values import Record, Value

LineRange = tuple[int, int]

_LANGUAGES = {
    "py": "python", "pyi": "python",
    "js": "js", "jsx": "js", "mjs": "js", "cjs": "js", "ts": "js", "tsx": "js", "mts": "js", "cts": "js",
    "go": "go", "java": "java", "rs": "rust",
}  # fmt: skip

_JS_MOD = r"(?:(?:export|default|declare|public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*"
_JAVA_MOD = (
    r"(?:(?:public|private|protected|static|final|abstract|sealed|non-sealed|strictfp|synchronized"
    r"|native|default|transient)\s+)*"
)
_JAVA_TYPE = r"(?!(?:return|new|throw|else|yield|case)\b)[\w$][\w$.]*(?:<[^;{}()]*?>)?(?:\[\])*\s+"
_RUST_VIS = r"(?:pub(?:\([^)]*\))?\s+)?"
_N = "(?P<name>%NAME%)"
_TEMPLATES: dict[str, tuple[str, ...]] = {
    "python": (rf"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+{_N}\b",),
    "js": (
        rf"^[ \t]*{_JS_MOD}function\s*\*?\s*{_N}(?![\w$])",
        rf"^[ \t]*{_JS_MOD}(?:class|interface|enum|namespace|module|type)\s+{_N}(?![\w$])",
        (
            rf"^[ \t]*{_JS_MOD}(?:const|let|var)\s+{_N}\s*(?::[^=\n]+)?=\s*(?:async\s+)?"
            r"(?:function\b|(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::\s*[^=\n]+?)?=>)"
        ),
        rf"^[ \t]*{_JS_MOD}\*?{_N}\s*(?:<[^>\n]*>)?\s*\([^)]*\)\s*(?::[^{{;\n]+)?\{{",
        rf"^[ \t]*{_JS_MOD}{_N}\s*(?::[^=\n]+)?=\s*(?:async\s+)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>",
    ),
    "go": (
        rf"^func\s+{_N}\s*[(\[]",
        rf"^func\s*\([^)]*\)\s*{_N}\s*[(\[]",
        rf"^(?:type|var|const)\s+{_N}\b",
    ),
    "java": (
        rf"^[ \t]*{_JAVA_MOD}(?:class|interface|enum|record|@interface)\s+{_N}\b",
        rf"^[ \t]*{_JAVA_MOD}(?:<[^>]+>\s*)?(?:{_JAVA_TYPE})?{_N}\s*\([^;{{}}]*?\)\s*(?:throws\s+[\w$.,\s]+)?\{{",
        rf"^[ \t]*{_JAVA_MOD}(?:<[^>]+>\s*)?{_JAVA_TYPE}{_N}\s*\([^;{{}}]*?\)\s*(?:throws\s+[\w$.,\s]+)?;",
    ),
    "rust": (
        rf"^[ \t]*{_RUST_VIS}(?:(?:default|const|async|unsafe|extern(?:\s+\"[^\"]*\")?)\s+)*fn\s+{_N}\b",
        rf"^[ \t]*{_RUST_VIS}(?:(?:unsafe|auto)\s+)*(?:struct|enum|union|trait|type|mod)\s+{_N}\b",
        rf"^[ \t]*(?:unsafe\s+)?impl\b(?:\s*<[^{{]*?>)?\s+(?:[\w:<>, &']+?\s+for\s+)?{_N}(?![\w:])",
        rf"^[ \t]*macro_rules!\s*{_N}\b",
    ),
}
_NEWLINE_ENDS = {"js": True, "go": True, "java": False, "rust": False}
"""Whether a definition without braces ends with its line (Go, JS) or needs a ``;``."""
_CONTINUES = set("=>(,+-*/&|?:.")
_RUST_CHAR = lazy(r"'(?:\\.[^'\n]{0,8}|[^\\'\n])'")


def language_of(path: str) -> str | None:
    """``python``, ``js`` (also TypeScript), ``go``, ``java``, ``rust``, or ``None``."""
    return _LANGUAGES.get(PurePosixPath(path).suffix.lstrip(".").lower())


def symbol_range(text: str, path: str, symbol: str) -> LineRange | None:
    """The lines (first, last) of ``symbol``'s definition in ``text``, decorators and
    annotations included; ``None`` when not found or the language is not known."""
    language = language_of(path)
    parts = [p for p in re.split(r"\.|::|#", symbol.replace("(", "").replace(")", "").replace("*", "")) if p]
    if language is None or not parts:
        return None
    source = _Source(text, language)
    if language == "go" and len(parts) == 2:
        receiver, method = re.escape(parts[0]), re.escape(parts[1])
        pattern = rf"^func\s*\(\s*(?:\w+\s+)?\*?\s*{receiver}(?:\[[^\]]*\])?\s*\)\s*(?P<name>{method})\s*[(\[]"
        for found in source.definitions([pattern], 0, len(text)):
            return found
    return source.find(parts, 0, len(text))


class _Source:
    """One file's text with its line offsets, searched for definitions."""

    def __init__(self, text: str, language: str) -> None:
        self.text = text
        self.language = language
        self.lines = text.split("\n")
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def find(self, parts: Sequence[str], lo: int, hi: int) -> LineRange | None:
        templates = [t.replace("%NAME%", re.escape(parts[0])) for t in _TEMPLATES[self.language]]
        for first, last in self.definitions(templates, lo, hi):
            if len(parts) == 1:
                return first, last
            if last > first:
                inner = self.find(parts[1:], self.starts[first], self.starts[last - 1] + len(self.lines[last - 1]))
                if inner is not None:
                    return inner
        return None

    def definitions(self, patterns: Sequence[str], lo: int, hi: int) -> Iterator[LineRange]:
        """Every match of ``patterns`` within ``[lo, hi)``, in file order, as line ranges."""
        starts: dict[int, int] = {}
        for pattern in patterns:
            for match in re.compile(pattern, re.MULTILINE).finditer(self.text, lo, hi):
                starts.setdefault(match.start(), match.end("name"))
        for start in sorted(starts):
            first = self.line_of(start)
            last = (self._python_end(first - 1) if self.language == "python"
                    else self.line_of(self._brace_end(starts[start])))
            yield self._with_decorators(first), last

    def _with_decorators(self, first: int) -> int:
        marks = ("@",) if self.language in ("python", "java", "js") else ("#[",) if self.language == "rust" else ()
        while first > 1 and marks and self.lines[first - 2].lstrip().startswith(marks):
            first -= 1
        return first

    def _python_end(self, index: int) -> int:
        """Last line (1-based) of the def/class whose header starts at line ``index`` (0-based)."""
        lines, indent = self.lines, _indent(self.lines[index])
        depth, header = 0, index
        while header < len(lines):
            depth += _bracket_delta(lines[header])
            if depth <= 0:
                break
            header += 1
        header = min(header, len(lines) - 1)
        if not _strip_python_comment(lines[header]).rstrip().endswith(":"):
            return header + 1
        last, k = header, header + 1
        while k < len(lines):
            if lines[k].strip():
                if _indent(lines[k]) <= indent:
                    break
                last = k
            k += 1
        return last + 1

    def _brace_end(self, pos: int) -> int:
        """Offset where the definition starting its signature at ``pos`` ends: its
        matching ``}``, a ``;``, or (Go, JS) the end of its line."""
        text, n, depth = self.text, len(self.text), 0
        newline_ends = _NEWLINE_ENDS[self.language]
        i = pos
        while i < n:
            skipped = self._skip(i)
            if skipped != i:
                i = skipped
                continue
            ch = text[i]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif depth <= 0:
                if ch == "{":
                    return self._matching_brace(i)
                if ch == ";":
                    return i
                if ch == "\n" and newline_ends and _line_ends_statement(text, pos, i):
                    return max(pos, i - 1)
            i += 1
        return n - 1

    def _matching_brace(self, open_at: int) -> int:
        text, depth, i = self.text, 0, open_at
        while i < len(text):
            skipped = self._skip(i)
            if skipped != i:
                i = skipped
                continue
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        return len(text) - 1

    def _skip(self, i: int) -> int:
        """The offset after a comment or string literal starting at ``i`` (else ``i``)."""
        text = self.text
        ch = text[i]
        if ch == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            return len(text) if end == -1 else end
        if ch == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            return len(text) if end == -1 else end + 2
        if ch == "'" and self.language == "rust":
            match = _RUST_CHAR.match(text, i)
            return match.end() if match else i + 1
        if ch == '"' and text.startswith('"""', i):
            end = text.find('"""', i + 3)
            return len(text) if end == -1 else end + 3
        if ch in "\"'`":
            j = i + 1
            while j < len(text) and text[j] != ch:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n" and ch != "`":
                    break
                j += 1
            return j + 1
        return i


def _line_ends_statement(text: str, pos: int, newline: int) -> bool:
    body = text[pos:newline].rstrip()
    return bool(body) and body[-1] not in _CONTINUES


def _indent(line: str) -> int:
    return len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())


def _strip_python_comment(line: str) -> str:
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line


def _bracket_delta(line: str) -> int:
    code = _strip_python_comment(line)
    code = re.sub(r"'[^']*'|\"[^\"]*\"", "", code)
    return sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")


# ---- diffs ----------------------------------------------------------------------------


@dataclass(frozen=True, repr=False, eq=False)
class Hunk(Value):
    """One ``@@ -a,b +c,d @@`` of a zero-context diff: ``b`` old lines from ``a``
    became ``d`` new lines from ``c`` (a count of 0 means "after line a/c")."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: list[str] = field(default_factory=list, compare=False, repr=False)
    added: list[str] = field(default_factory=list, compare=False, repr=False)
    """The text of the lines removed and added (without the ``-``/``+``)."""


_HUNK = lazy(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_unified_zero(diff_text: str) -> dict[str, list[Hunk]]:
    """Hunks per file (the new path; the old one for a deleted file) of a ``git diff
    -U0``. Files changed without hunks (binary, mode, pure rename) map to ``[]``."""
    sections: list[_Section] = []
    pending_old = pending_new = 0
    for line in diff_text.splitlines():
        if pending_old or pending_new:
            if line.startswith(("-", "+", "\\")):
                pending_old -= line.startswith("-")
                pending_new -= line.startswith("+")
                if line[:1] in "-+":
                    (sections[-1].hunks[-1].removed if line[0] == "-" else sections[-1].hunks[-1].added).append(line[1:])
                continue
            pending_old = pending_new = 0
        if line.startswith("diff --git "):
            sections.append(_Section(header=_path_from_diff_header(line)))
        elif line.startswith("--- ") and (not sections or sections[-1].hunks or sections[-1].has_new):
            sections.append(_Section(old=_strip_prefix(_unquote(line[4:]), "a/")))
        elif not sections:
            continue
        elif line.startswith("rename to "):
            sections[-1].renamed = _unquote(line[len("rename to ") :])
        elif line.startswith("--- "):
            sections[-1].old = _strip_prefix(_unquote(line[4:]), "a/")
        elif line.startswith("+++ "):
            sections[-1].new = _strip_prefix(_unquote(line[4:]), "b/")
            sections[-1].has_new = True
        elif line.startswith("@@"):
            match = _HUNK.match(line)
            if match:
                a, b, c, d = match.groups()
                hunk = Hunk(int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d))
                sections[-1].hunks.append(hunk)
                pending_old, pending_new = hunk.old_count, hunk.new_count
    result: dict[str, list[Hunk]] = {}
    for section in sections:
        path = section.new or section.old or section.renamed or section.header
        if path is not None:
            result.setdefault(path, []).extend(section.hunks)
    return result


@dataclass(repr=False, eq=False)
class _Section(Record):
    """One hunk's header and its old and new text."""

    header: str | None = None
    old: str | None = None
    new: str | None = None
    renamed: str | None = None
    has_new: bool = False
    hunks: list[Hunk] = field(default_factory=list)


def _path_from_diff_header(line: str) -> str | None:
    rest = line[len("diff --git ") :]
    if rest.startswith('"'):
        parts = re.findall(r'"(?:\\.|[^"\\])*"|\S+', rest)
        return _strip_prefix(_unquote(parts[-1]), "b/") if len(parts) >= 2 else None
    half = rest.find(" b/")
    return rest[half + 3 :] if half != -1 else None


def _unquote(text: str) -> str | None:
    text = text.rstrip("\n").split("\t")[0]
    if text == "/dev/null":
        return None
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        raw = text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        return raw.encode("latin-1").decode("utf-8", "replace")
    return text


def _strip_prefix(path: str | None, prefix: str) -> str | None:
    if path is None:
        return None
    return path.removeprefix(prefix)


_LINE_COMMENTS = {
    "python": ("#",), "js": ("//", "/*", "*"), "go": ("//", "/*", "*"), "java": ("//", "/*", "*"),
    "rust": ("//", "/*", "*"),
}
_MORE_LINE_COMMENTS = {
    "rb": ("#",), "sh": ("#",), "bash": ("#",), "yaml": ("#",), "yml": ("#",), "toml": ("#",), "r": ("#",),
    "pl": ("#",), "tf": ("#", "//"), "c": ("//", "/*", "*"), "h": ("//", "/*", "*"), "cc": ("//", "/*", "*"),
    "cpp": ("//", "/*", "*"), "hpp": ("//", "/*", "*"), "cs": ("//", "/*", "*"), "kt": ("//", "/*", "*"),
    "swift": ("//", "/*", "*"), "scala": ("//", "/*", "*"), "php": ("//", "#", "/*", "*"), "sql": ("--",),
    "lua": ("--",), "hs": ("--",), "css": ("/*", "*"), "scss": ("//", "/*", "*"), "proto": ("//", "/*", "*"),
}


def cosmetic(hunk: Hunk, path: str) -> bool:
    """A change to blank lines or comments only (whitespace is already ignored by
    ``git diff -w``): nothing a memory about the code could be wrong about. Files of an
    unknown language are never cosmetic."""
    language = language_of(path)
    markers = _LINE_COMMENTS.get(language) if language else _MORE_LINE_COMMENTS.get(
        PurePosixPath(path).suffix.lstrip(".").lower()
    )
    if not markers or not (hunk.removed or hunk.added):
        return False  # no text to judge (a binary file, a mode change): it changed
    return all(not line.strip() or line.strip().startswith(markers) for line in (*hunk.removed, *hunk.added))


def substantive(hunks: Sequence[Hunk], path: str) -> list[Hunk]:
    """The hunks that change more than blank lines and comments."""
    return [hunk for hunk in hunks if not cosmetic(hunk, path)]


def symbol_changed(hunks: Sequence[Hunk], symbol_lines: LineRange) -> bool:
    """Whether any hunk touches the symbol's lines (new side, as in HEAD's text).

    A pure deletion counts when it falls inside the symbol or right after its last
    line: the removed lines may have been its tail (a Python body ends where it ends).
    """
    first, last = symbol_lines
    for hunk in hunks:
        if hunk.new_count > 0:
            if hunk.new_start <= last and hunk.new_start + hunk.new_count - 1 >= first:
                return True
        elif first <= hunk.new_start <= last:
            return True
    return False

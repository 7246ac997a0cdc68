"""The words of a memory: search tokens, FTS5 queries, lexical similarity, code paths.

Search tokens. Every token is a run of Unicode letters and digits (``[^\\W_]+``), so
FTS5's ``unicode61`` tokenizer indexes each one as exactly one term whatever its
options; the store may add stemming, we never do. A compound word is emitted whole
(joined, separators dropped) and then split level by level, most significant
separator first: ``/ \\ : # @`` (path components), ``.`` (dotted names, extensions),
``- '`` (kebab case), ``_`` (snake case), case changes (``idArgument`` → id argument,
``HTTPServer`` → http server, ``URLs`` stays whole) and letter/digit runs
(``utf8`` → utf 8, ``8KB`` → 8 kb). So ``src/authz/check.go`` gives
``srcauthzcheckgo src authz checkgo check go`` and a query for ``check.go`` (checkgo,
check, go), ``authz``, ``src/authz/check.go`` or ``argument resolvers`` finds it: the
query goes through the same splitting. Input is NFKC-normalized and lowercased;
letters of any script are kept (``中文`` is one token, as unicode61 would make it).

Compounds keep their weight. Path components, dotted names, kebab-case and
letter/digit runs (``8KB``) are names in their own right and are indexed as *whole*
words; the pieces of an identifier joined by ``_`` or a change of case (``add_on``,
``AddOn``, ``getRandomLetterCode``) are its *parts*, which the index keeps in a column of
their own, ranked below whole words. So ``add_on``, ``AddOn`` and ``addon`` match each
other at full weight, ``on`` or ``letter`` still find them at a lower one, and a part
that is a stop-word or a common verb (``add``, ``get``, ``set``, ``on``) is not indexed
nor asked for: "add a retry" must not find every memory that names ``add_on``.

Queries drop a small list of English function words and single letters; ``up``,
``down``, ``not``, ``before`` and ``after`` are kept because they change a fact.

Similarity. Without vectors, "restating is confirming" compares token sets: the
finest split, accents and case folded, stop-words dropped, ``ies``/``s`` plurals and
unit names folded, scored by Dice (2|A∩B| / (|A|+|B|)). A changed number, quantity
(``8KB`` vs ``16KB``, ``5 min`` vs ``5 s``) or negation is a different fact, so the
score of such a pair is capped below ``LEXICAL_DUPLICATE``. Bag-of-words cannot see
order ("from A to B" vs "from B to A"); that limit is accepted and tested.

Backtick paths. A single-backtick span naming a relative file path (a ``/`` or an
extension; no URL, flag, glob or variable; spaces only inside a name, letters of any
script) is a candidate anchor: ``docs/My Notes/ü.md`` is one. The workspace keeps
those that exist, so ``archmem.paths`` or ``make test.py`` passing here is harmless.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Literal

from archmem.memory.links import code_spans
from archmem.patterns import lazy

VECTOR_DUPLICATE = 0.94
"""Cosine above which a new memory restates an existing one."""
VECTOR_SIMILAR = 0.82
"""Cosine from which a new memory is near an existing one and reported as ``similar_to``."""
LEXICAL_DUPLICATE = 0.9
"""Dice above which two token sets restate one fact: one extra word in six, one changed
word in eleven; lower wrongly confirms corrections, higher misses plain rewordings."""
LEXICAL_SIMILAR = 0.6
"""Dice from which two memories are near (same topic, another number or element)."""
FACT_CHANGE_CAP = LEXICAL_DUPLICATE - 0.02
"""The score ceiling of a pair whose numbers, quantities or negation differ."""
MAX_QUERY_TERMS = 128
"""A pasted diff must not become a ten-thousand-term OR; the first terms are kept."""

Similarity = Literal["duplicate", "similar", "different"]

STOP_WORDS = frozenset(
    """a about also an and any are as at be been being but by can could did do does
    doing done each etc for from had has have having he her here him his how i if in
    into is it its itself just let lets may me might must my of on or our ours please
    she should so some such that the their them then there these they this those to too
    us very was we were what when where which while who whom why will with would you
    your yours""".split()
)
"""Function words dropped from queries and similarity; negations, ``up``/``down``,
``before``/``after``, ``over``/``under`` and ``only`` stay: they carry facts."""
NEGATIONS = frozenset({"not", "no", "never", "without", "none", "nor", "neither", "nothing"})
FACT_WORDS = NEGATIONS | frozenset({"up", "down", "before", "after", "over", "under", "only"})
"""Kept in queries because they change a fact ("scale up"), though they name no topic."""
COMMON_VERB_PARTS = frozenset(
    """add get set put has is do make new init run use handle create update delete remove load
    save read write fetch find build parse check on off""".split()
)
"""Parts of identifiers too common to carry a match alone (``add_on``, ``getCart``)."""

_CHUNK = re.compile(r"[^\W_]+(?:['\u2019_./\\:#@-]+[^\W_]+)*")
_LEVELS = tuple(map(lazy, (r"[/\\:#@]+", r"\.+", r"['\u2019-]+", r"_+")))
_LETTER_DIGIT = re.compile(r"\d+|[^\W\d_]+")
_TERM = re.compile(r"[^\W_]+")
_UNITS = {
    "milliseconds": "ms", "millisecond": "ms", "msec": "ms", "ms": "ms",
    "seconds": "sec", "second": "sec", "secs": "sec", "sec": "sec", "s": "sec",
    "minutes": "min", "minute": "min", "mins": "min", "min": "min",
    "hours": "hour", "hour": "hour", "hrs": "hour", "hr": "hour", "h": "hour",
    "days": "day", "day": "day", "d": "day",
    "bytes": "byte", "byte": "byte", "b": "byte", "kib": "kib", "mib": "mib", "gib": "gib",
    "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "%": "percent", "percent": "percent",
    "times": "times", "x": "times", "k": "k", "m": "m",
}  # fmt: skip
_QUANTITY = lazy(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:\s?("
    + "|".join(sorted(map(re.escape, _UNITS), key=len, reverse=True))
    + r"))?(?!\w)",
    re.IGNORECASE,
)
_CONTRACTION = lazy(r"\b(\w+?)n['\u2019]t\b", re.IGNORECASE)
_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}
_POSSESSIVE = lazy(r"['\u2019]s\b", re.IGNORECASE)


# ---- search tokens ----------------------------------------------------------------


def search_tokens(text: str) -> list[str]:
    """The BM25 terms of ``text``: each word whole and split (see the module docstring)."""
    return [token for token, _ in _terms(text)]


def split_tokens(text: str) -> tuple[list[str], list[str]]:
    """(whole words, parts of compounds) of ``text``; parts that cannot carry a match
    alone (stop-words, common verbs, single letters) are left out."""
    if len(text) <= _SHORT_TEXT:
        wholes, parts = _short_split(text)
        return list(wholes), list(parts)
    return _split(text)


def _split(text: str) -> tuple[list[str], list[str]]:
    wholes: list[str] = []
    parts: list[str] = []
    whole, part = wholes.append, parts.append
    for token, is_part in _terms(text):
        if not is_part:
            whole(token)
        elif not _weak_part(token):
            part(token)
    return wholes, parts


_SHORT_TEXT = 64
"""Texts up to this long are split once a process: element names, indexed with every
memory attached to them, are the same few texts again and again."""


@lru_cache(maxsize=4096)
def _short_split(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    wholes, parts = _split(text)
    return tuple(wholes), tuple(parts)


def search_text(*parts: str | None) -> str:
    """Every token of every field, space-joined (wholes and parts together)."""
    return " ".join(token for part in parts if part for token in search_tokens(part))


def search_columns(*fields: str | None) -> tuple[str, str]:
    """(whole words, parts) of the fields, each space-joined: what the word index holds
    in its full-weight column and in its parts column."""
    wholes: list[str] = []
    parts: list[str] = []
    for field in fields:
        if field:
            found = split_tokens(field)
            wholes += found[0]
            parts += found[1]
    return " ".join(wholes), " ".join(parts)


def query_tokens(text: str) -> list[str]:
    """The terms of a query: split like ``search_tokens``, de-duplicated, stop-words and
    single letters dropped (digits stay: ``8`` in ``8KB`` matters), and so are the parts
    of a compound that cannot carry a match alone (``add`` of ``add_on``)."""
    seen: dict[str, None] = {}
    for token, is_part in _terms(text):
        if token in STOP_WORDS or (len(token) == 1 and not token.isdigit()) or (is_part and _weak_part(token)):
            continue
        seen.setdefault(token, None)
    return list(seen)


def file_stems(paths: Iterable[str]) -> list[str]:
    """The names of changed files without folder and extension (``validation.py`` →
    ``validation``): what a change is about, as words a task could have said."""
    stems: list[str] = []
    for path in paths:
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        stem = name.split(".", 1)[0] if not name.startswith(".") else name.lstrip(".").split(".", 1)[0]
        if stem:
            stems.append(stem)
    return stems


def _weak_part(token: str) -> bool:
    return token in STOP_WORDS or token in COMMON_VERB_PARTS or (len(token) == 1 and not token.isdigit())


def _terms(text: str) -> list[tuple[str, bool]]:
    """(token, is it a part of a compound) for every token of ``text``, in order."""
    terms: list[tuple[str, bool]] = []
    ascii_text = text.isascii()  # NFKC leaves ASCII as it is
    for chunk in _CHUNK.findall(text if ascii_text else unicodedata.normalize("NFKC", text)):
        if (ascii_text or chunk.isascii()) and chunk.isalpha() and (chunk.islower() or chunk[1:].islower()):
            terms.append((chunk.lower(), False))  # a plain word, most of any text: itself, whole
        else:
            terms.extend(_chunk_tokens(chunk))
    return terms


def fts5_query(text: str) -> str:
    """A MATCH expression ORing the quoted query terms; ``""`` when there is none.

    Terms are letters and digits only, so quoting makes every FTS5 keyword, operator
    and quote in the input plain text: the expression never fails to parse.
    """
    return " OR ".join(f'"{token}"' for token in query_tokens(text)[:MAX_QUERY_TERMS])


_PART_LEVEL = 3
"""Splits at ``_LEVELS[3:]`` (``_``) and at case changes give parts; the levels before
it (paths, dots, hyphens) give whole names."""


@lru_cache(maxsize=1 << 16)
def _chunk_tokens(chunk: str) -> tuple[tuple[str, bool], ...]:
    """One compound word's tokens, whole first, each distinct token once, each marked
    whether it is a part (see ``_PART_LEVEL``); a token found both ways is whole. Cached:
    words repeat (Zipf), and indexing 10,000 memory files spent 60% of its time here.
    Plain functions, not closures: a recursive closure is a reference cycle, garbage
    for the cycle collector (which a sync pauses) at every word split."""
    found: dict[str, bool] = {}
    _emit(found, chunk, 0, False)
    # a separator left at a piece's edge ("a/_b" → "_b") must not become a term of its own
    return tuple((token, is_part) for token, is_part in found.items() if _TERM.fullmatch(token))


def _add(found: dict[str, bool], token: str, is_part: bool) -> None:
    found[token] = found.get(token, True) and is_part


def _emit(found: dict[str, bool], piece: str, level: int, is_part: bool) -> None:
    if piece.isalnum():  # one run of letters and digits (most pieces): no level splits it
        _add(found, piece.lower(), is_part)
        _words_of(found, piece, is_part)
        return
    _add(found, "".join(_LETTER_DIGIT.findall(piece)).lower(), is_part)
    if level < len(_LEVELS):
        parts = [p for p in _LEVELS[level].split(piece) if p]
        split_here = len(parts) > 1
        for part in parts if split_here else [piece]:
            _emit(found, part, level + 1, is_part or (split_here and level >= _PART_LEVEL))
        return
    _words_of(found, piece, is_part)


def _words_of(found: dict[str, bool], piece: str, is_part: bool) -> None:
    words = _camel_parts(piece)
    # a change of case makes parts; a letter/digit boundary alone ("8KB") does not
    cased = is_part or sum(1 for word in words if not word.isdigit()) > 1
    for word in words:
        _add(found, word.lower(), cased)
    for word in words:
        runs = _LETTER_DIGIT.findall(word)
        if len(runs) > 1:
            for run in runs:
                _add(found, run.lower(), cased)


def _camel_parts(word: str) -> list[str]:
    """``idArgumentResolvers`` → id, Argument, Resolvers; ``HTTPServer`` → HTTP, Server;
    ``utf8Decoder`` → utf8, Decoder; ``URLs`` and ``IDs`` stay whole; scripts without
    case (``中文``) are parts of their own."""

    if word.isdigit() or (word.isalpha() and (word.islower() or (word[0].isupper() and word[1:].islower()))):
        return [word]  # the common cases, without the per-character walk below

    def cls(ch: str) -> str:
        if ch.isdigit() or ch.isnumeric():
            return "D"
        return "U" if ch.isupper() else "L" if ch.islower() else "O"

    classes = "".join(cls(ch) for ch in word)
    parts: list[str] = []
    start = 0
    for i in range(1, len(word)):
        prev, cur = classes[i - 1], classes[i]
        if prev == "U" and cur == "U":
            # an acronym ends where a capitalized word starts: HTTP|Server, but URLs
            lower_run = len(classes[i + 1 :]) - len(classes[i + 1 :].lstrip("L"))
            split = lower_run >= 2
        else:
            split = (prev in "LD" and cur == "U") or ((prev == "O") != (cur == "O"))
        if split:
            parts.append(word[start:i])
            start = i
    parts.append(word[start:])
    return parts


# ---- lexical similarity -----------------------------------------------------------


def token_set(text: str) -> frozenset[str]:
    """The normalized words of ``text`` for comparing two memories (not for search)."""
    return _normalized(text)[0]


def token_set_similarity(a: str, b: str) -> float:
    """Dice similarity of the two token sets in [0, 1], capped when a fact changed."""
    set_a, facts_a = _normalized(a)
    set_b, facts_b = _normalized(b)
    if not set_a or not set_b:
        same = not set_a and not set_b and " ".join(a.casefold().split()) == " ".join(b.casefold().split())
        return 1.0 if same else 0.0
    score = 2 * len(set_a & set_b) / (len(set_a) + len(set_b))
    if facts_a != facts_b:
        score = min(score, FACT_CHANGE_CAP)
    return score


def similarity_tokens(text: str) -> frozenset[str]:
    """The token set ``token_set_similarity`` compares (for a similarity join)."""
    return _normalized(text)[0]


def same_facts(a: str, b: str) -> bool:
    """Whether two texts state the same quantities (in order), numbers and negation.

    Embeddings see "8KB" and "16KB" as near-identical; a restatement must not change
    a fact, so the vector rule asks this too."""
    return _normalized(a)[1] == _normalized(b)[1]


def classify_similarity(score: float, *, lexical: bool) -> Similarity:
    """``duplicate`` above the duplicate threshold, ``similar`` from the similar one."""
    duplicate, similar = (LEXICAL_DUPLICATE, LEXICAL_SIMILAR) if lexical else (VECTOR_DUPLICATE, VECTOR_SIMILAR)
    if math.isnan(score) or score < similar:
        return "different"
    return "duplicate" if score > duplicate else "similar"


@lru_cache(maxsize=8192)
def _normalized(text: str) -> tuple[frozenset[str], tuple[tuple[tuple[str, str], ...], frozenset[str], bool]]:
    """(token set, facts): facts are the quantities in reading order, the bare numbers
    and negation. Order matters for quantities: "worker 3, session 6" and "worker 6,
    session 3" have the same words but are different facts."""
    text = unicodedata.normalize("NFKC", text)
    text = _CONTRACTION.sub(lambda m: _CONTRACTED.get(m[1].lower(), m[1]) + " not", text)
    text = _POSSESSIVE.sub("", text)
    quantities: list[tuple[str, str]] = []

    def take(match: re.Match[str]) -> str:
        number = match[1].replace(",", "").lstrip("0") or "0"
        fraction = (match[2] or "").rstrip("0")
        unit = _UNITS[match[3].lower()] if match[3] else ""
        quantities.append((number + ("." + fraction if fraction else ""), unit))
        return " "

    rest = _QUANTITY.sub(take, text)
    words: set[str] = {number for number, _ in quantities} | {unit for _, unit in quantities if unit}
    for chunk in _CHUNK.findall(rest):
        for piece in _finest(chunk):
            if piece.casefold() not in STOP_WORDS:
                words.add(_fold_word(piece))
    words = {w for w in words if len(w) > 1 or w.isdigit()}
    numbers = frozenset(w for w in words if w[0].isdigit())
    return frozenset(words), (tuple(quantities), numbers, bool(words & NEGATIONS))


def _finest(chunk: str) -> Iterator[str]:
    """The smallest pieces of a compound word: its letter runs and digit runs."""
    for piece in re.split(r"['\u2019_./\\:#@-]+", chunk):
        for word in _camel_parts(piece):
            yield from _LETTER_DIGIT.findall(word)


@lru_cache(maxsize=65536)
def _fold_word(word: str) -> str:
    """Lowercase, accents off, simple plurals and unit names folded, numbers canonical."""
    word = "".join(ch for ch in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(ch))
    if word.isdigit():
        return word.lstrip("0") or "0"
    if word in _UNITS and len(word) > 1:
        return _UNITS[word]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("sses"):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


# ---- paths named in backticks -----------------------------------------

_PATH_SUFFIX = lazy(
    r"^(?P<path>.+?)(?:#L\d+(?:-L?\d+)?|:\d+(?::\d+)?(?:-\d+)?|(?:#|::)(?P<symbol>[A-Za-z_][\w.$]*))?$"
)
_NOT_IN_PATH = lazy(r"[^\S ]|[<>|&;$=*?\"'`(){}\[\]!,@%^]|://")
"""Characters no candidate path holds; a plain space may, inside a name (``My Notes``)."""
_EXTENSION = lazy(r"(?:^|[^./])\.[A-Za-z][A-Za-z0-9_+-]{0,11}$|^\.[A-Za-z0-9_][\w.-]*$")
_BARE_FILES = frozenset(
    "Makefile Dockerfile Containerfile Justfile Procfile Gemfile Rakefile Jenkinsfile "
    "Vagrantfile Brewfile Pipfile Taskfile CODEOWNERS LICENSE".split()
)


def backtick_anchors(text: str) -> list[str]:
    """Repo paths named in single-backtick spans, in order, each once; a ``#Symbol``
    (or ``::Symbol``) suffix is kept as ``path#Symbol``, line suffixes are dropped."""
    found: dict[str, None] = {}
    for start, end, size in code_spans(text):
        if size != 1:
            continue
        anchor = _anchor(text[start + 1 : end - 1].strip())
        if anchor:
            found.setdefault(anchor, None)
    return list(found)


def backtick_paths(text: str) -> list[str]:
    """The path part of every ``backtick_anchors`` entry, in order, each once."""
    return list(dict.fromkeys(anchor.split("#", 1)[0] for anchor in backtick_anchors(text)))


def _anchor(span: str) -> str | None:
    """``span`` as ``path`` or ``path#Symbol`` when it looks like a repo file path:
    relative, spaces only inside its names, not a URL, a flag or a variable; a ``/`` or
    a file extension (or a well-known bare name such as ``Makefile``)."""
    span = span.replace("\\", "/")
    match = _PATH_SUFFIX.match(span)
    if not match:
        return None
    path, symbol = match["path"], match["symbol"]
    while path.startswith("./"):
        path = path[2:]
    if not path or _NOT_IN_PATH.search(path) or path[0] in "/~-" or re.match(r"^[A-Za-z]:/", path):
        return None
    segments = path.split("/")
    if any(segment in ("", "..") for segment in segments[:-1]) or segments[-1] in ("", ".", ".."):
        return None
    if any(segment != segment.strip(" ") for segment in segments):
        return None  # `docs/ notes.md` is prose around a path, not a name
    if "/" not in path and not _EXTENSION.search(path) and path not in _BARE_FILES:
        return None
    if not re.search(r"[^\W\d_]", path):
        return None
    return f"{path}#{symbol}" if symbol else path

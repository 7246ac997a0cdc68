"""How an element's name meets a file or folder name: identifier-aware words and stems.

``Email Processor`` and ``process_emails_from_sqs.py``, ``Order Service`` and
``services/orders/``, ``WebApp`` and ``web-app``: names are split on case changes,
``_``, ``-``, ``.``, spaces and digits; words are compared by a light stem (plural
and agent endings off: ``orders`` → ``order``, ``processor`` → ``process``), by a long
common prefix (``notification`` ~ ``notifier``), and joined (``web app`` = ``webapp``).
Generic words (service, app, api, …) count little: they name a kind, not a thing.
"""

from __future__ import annotations

import re
from functools import lru_cache

GENERIC = frozenset(
    """service services svc system systems app apps application applications module modules component
    components container containers microservice microservices server servers api apis backend core main
    src lib libs pkg pkgs internal cmd source sources code project impl""".split()
)
"""Words that say what kind of thing something is, rarely which one."""
STOP = frozenset("the a an and or of for to from in on by with via at as is it its this that".split())
NOISE_SEGMENTS = frozenset("src lib libs pkg pkgs internal cmd app apps main java python go js ts".split())
"""Folder names that hold code without naming it (``src/``, ``internal/``)."""

_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_COMPOUND = re.compile(r"^([a-z]{3,}?)(service|svc|server|api|app)$")
"""``cartservice`` → ``cart service``: a run-together name with a kind word at its end."""
_SUFFIXES = ("ations", "ation", "ings", "ing", "ers", "ors", "er", "or", "ies", "es", "s")


@lru_cache(maxsize=65536)
def words(text: str) -> tuple[str, ...]:
    """Lower-case words of a name or path segment: ``processEmails_fromSQS`` →
    ``process emails from sqs``; stop words dropped."""
    found: list[str] = []
    for word in _SPLIT.findall(text):
        word = word.lower()
        compound = _COMPOUND.match(word)
        found.extend(compound.groups() if compound else (word,))
    return tuple(w for w in found if w not in STOP)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stem: ``orders`` → ``order``, ``processor`` → ``process``, ``categories``
    → ``category``, ``processing`` → ``process``; short words stay as they are."""
    found = _strip_suffix(word)
    # a final e goes too, so cache = caches and schedule = scheduler
    return found[:-1] if len(found) > 4 and found.endswith("e") else found


def _strip_suffix(word: str) -> str:
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix == "ies":
                return base + "y"
            if suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh")):
                return word[:-1] if word[-2] != "s" else base
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            if suffix in ("ation", "ations"):
                return base + "e"  # configuration → configure ~ config (prefix)
            return base
    return word


def similarity(a: str, b: str) -> float:
    """1 for the same word or stem, 0.8 for a long common prefix (``notification`` ~
    ``notifier``, ``config`` ~ ``configuration``), else 0."""
    if a == b:
        return 1.0
    sa, sb = stem(a), stem(b)
    if sa == sb:
        return 1.0
    short = min(len(sa), len(sb))
    if short < 4:
        return 0.0
    common = 0
    for x, y in zip(sa, sb, strict=False):  # the common prefix
        if x != y:
            break
        common += 1
    return 0.8 if common >= max(4, short - 1) else 0.0


def weight(word: str) -> float:
    """How much a word of an element's name says about which code it is."""
    return 0.25 if word in GENERIC else 1.0


def joined(tokens: tuple[str, ...]) -> str:
    """``("web", "app")`` → ``webapp`` (stems, so ``orders-api`` = ``OrderApi``)."""
    return "".join(stem(t) for t in tokens)


def same_joined(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same name written together or apart (``web app`` = ``webapp``), compared
    as written and by stems."""
    return "".join(a) == "".join(b) or joined(a) == joined(b)


def prefix_key(word: str) -> str:
    """The bucket a word is found in for prefix matches (its first four letters of its stem)."""
    return stem(word)[:4]

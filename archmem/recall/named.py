"""What a task names outright: elements by identifier or name, memories by title or anchor.

"What should I know before touching the cartService" asks about that element as surely
as ``--element cartService`` does, and "follow the Migration naming rule" asks for the
memory titled so. Word matching alone weighs such a name by how rare its words are and
by how much code the element owns, so a container named in full could score below a
memory that merely shares a word; a name is not a hint of relevance, it is a pointer.

Matching is literal, never fuzzy: an identifier matches a word of the task written in
any case with or without separators (``cartService``, ``cart_service``, ``CartService``,
``boutique.cart``), a name or title matches the same words in a row (plurals folded:
"the cart services" names "Cart Service"). Persons and the software systems that hold
the product (their names are in every task) are never named this way. A file or symbol
is named when the task writes it as code does: a path or a file name with its extension
(``scraper_strategies.py``), an identifier with a case change, an underscore or a dot
(``OrderProcessor.checkout``, ``price_cart()``); plain words never are.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable

from archmem.memory.text import STOP_WORDS
from archmem.model.types import ArchitectureModel

MIN_KEY = 2
"""An identifier of one letter names nothing."""
MIN_TITLE_WORDS = 2
"""A one-word title ("Retries") is a topic, not a name; two telling words in a row are."""

_WORD = re.compile(r"[^\W_]+")
_CHUNK = re.compile(r"[^\s,;:!?()\[\]{}<>\"'`]+")


def _normal(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _fold(word: str) -> str:
    """One form for singular and plural: "services" and "service", "policies" and "policy"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> tuple[str, ...]:
    return tuple(_fold(w) for w in _WORD.findall(_normal(text)))


def squashed(text: str) -> str:
    """Letters and digits only: ``cart_service``, ``cartService`` and ``Cart-Service`` agree."""
    return "".join(_WORD.findall(_normal(text)))


def _contains(sequence: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return n > 0 and any(sequence[i:i + n] == phrase for i in range(len(sequence) - n + 1))


class Names:
    """The names a task can point with, built once per model (and per memory titles)."""

    def __init__(self, model: ArchitectureModel) -> None:
        broad = {
            element.id for element in model.elements
            if element.kind == "person" or (element.kind == "softwareSystem" and model.children(element.id))
        }
        self.keys: dict[str, set[str]] = {}
        self.phrases: dict[tuple[str, ...], set[str]] = {}
        for element in model.elements:
            if element.id in broad:
                continue
            for key in {squashed(element.id), squashed(element.id.rsplit(".", 1)[-1])}:
                if len(key) >= MIN_KEY:
                    self.keys.setdefault(key, set()).add(element.id)
            phrase = words(element.name)
            if phrase and len("".join(phrase)) >= MIN_KEY:
                self.phrases.setdefault(phrase, set()).add(element.id)

    def elements(self, task: str) -> dict[str, str]:
        """{element id: how the task names it} for every element the task names."""
        found: dict[str, str] = {}
        for chunk in _CHUNK.findall(task):
            chunk = chunk.strip(".")
            for element_id in self.keys.get(squashed(chunk), ()):
                found.setdefault(element_id, f"named as {chunk!r}")
        sequence = words(task)
        for phrase, element_ids in self.phrases.items():
            if _contains(sequence, phrase):
                for element_id in element_ids:
                    found.setdefault(element_id, f"named as {' '.join(phrase)!r}")
        return found


def title_phrase(title: str | None) -> tuple[str, ...] | None:
    """A title's words as a task would write them, or None when it is too short to name."""
    if not title:
        return None
    phrase = words(title)
    telling = [w for w in phrase if w not in STOP_WORDS]
    return phrase if len(telling) >= MIN_TITLE_WORDS else None


def titles_named(task: str, titles: Iterable[tuple[str, str | None]]) -> list[str]:
    """The ids of the memories whose title the task writes out, word for word."""
    sequence = words(task)
    found = []
    for memory_id, title in titles:
        phrase = title_phrase(title)
        if phrase is not None and _contains(sequence, phrase):
            found.append(memory_id)
    return found


MIN_ANCHOR = 4
_FILE = re.compile(r"^[\w.-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}$")
_SYMBOL = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_STRIP = "`'\"()[]{}<>,;:!?"


def anchor_mentions(task: str) -> list[str]:
    """The paths, file names and code symbols a task writes out, as written."""
    found: list[str] = []
    for chunk in task.split():
        chunk = chunk.strip(_STRIP).rstrip(".").removesuffix("()").strip(_STRIP)
        if len(chunk) < MIN_ANCHOR or "://" in chunk:
            continue
        if "/" in chunk.strip("/") or _FILE.match(chunk):
            found.append(chunk.strip("/").removeprefix("./"))
        elif _SYMBOL.match(chunk) and ("_" in chunk.strip("_") or "." in chunk or _camel(chunk)):
            found.append(chunk)
    return list(dict.fromkeys(found))


def _camel(word: str) -> bool:
    """A case change inside a word: ``cartService``, ``OrderProcessor`` (not ``Redis``)."""
    return any(a.islower() and b.isupper() for a, b in itertools.pairwise(word))

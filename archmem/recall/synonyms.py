"""Words used for one another: a task says "sluggish", the memory says "latency".

Without vectors, BM25 finds only the words a task shares with a memory. The shipped
thesaurus (``synonyms.txt`` beside this module: general software and commerce talk, one
group a line) and a project's own groups (``[recall] synonyms`` in archmem.toml) let
recall ask for a word's group mates too, at ``synonym_weight`` of the word itself
(``archmem.recall.score.synonym_evidence``). One step only: a word reaches the members
of its own groups, never their other groups: "cache" is in the group of "memoize" and in
that of "redis", so a task about caching reaches both, but "memoize" never reaches
"redis".

Entries are analysed as the word index analyses text: lowercased, split into words,
stop-words dropped, each word in its index form (the Porter stem), so "retries" in a task
finds the "retry" entry. An entry of several words is a phrase: it is in a task when its
words follow one another there, and a memory holds it when FTS5 finds the phrase.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from archmem.memory import text as textrules
from archmem.values import Value

Forms = Callable[[Iterable[str]], dict[str, str]]
"""Term → the form the word index keeps it under (its Porter stem)."""

Entry = tuple[str, ...]
"""One thesaurus entry as index forms: one word, or a phrase of several."""

SHIPPED = "synonyms.txt"
_WORD = re.compile(r"[^\W_]+")


_shipped: list[tuple[str, ...]] = []


def shipped_groups() -> list[list[str]]:
    """The thesaurus archmem ships, as written (read beside this module, or through
    ``importlib.resources`` from a zipped install; the latter costs every recall its
    import where a plain file does). Read once per process: it is part of the install."""
    if not _shipped:
        beside = Path(__file__).with_name(SHIPPED)
        if beside.is_file():
            text = beside.read_text(encoding="utf-8")
        else:
            from importlib import resources

            text = resources.files("archmem.recall").joinpath(SHIPPED).read_text(encoding="utf-8")
        _shipped.extend(tuple(group) for group in parse_groups(text))
    return [list(group) for group in _shipped]


def parse_groups(text: str) -> list[list[str]]:
    """Groups from the file format: one group a line, comma-separated, ``#`` comments."""
    groups = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        words = [word.strip() for word in line.split(",") if word.strip()]
        if len(words) > 1:
            groups.append(words)
    return groups


def _words(text: str) -> list[str]:
    """The words of an entry or a task, in order, stop-words and single letters dropped."""
    return [
        word for word in _WORD.findall(text.casefold())
        if word not in textrules.STOP_WORDS and (len(word) > 1 or word.isdigit())
    ]


@dataclass(frozen=True, repr=False, eq=False)
class Expansion(Value):
    """An entry a task holds and the group mates recall may ask for in its place."""

    entry: Entry
    mates: tuple[Entry, ...]


class Thesaurus:
    """Groups of entries, analysed once: which entries a task holds, and their mates."""

    def __init__(self, groups: Iterable[Sequence[str]], forms: Forms) -> None:
        written = [[_words(word) for word in group] for group in groups]
        known = forms({word for group in written for entry in group for word in entry})
        self._mates: dict[Entry, set[Entry]] = {}
        self._written: dict[Entry, tuple[str, ...]] = {}
        for group in written:
            entries: set[Entry] = set()
            for words in group:
                if words:
                    entry = tuple(known[word] for word in words)
                    self._written.setdefault(entry, tuple(words))
                    entries.add(entry)
            for entry in entries:
                self._mates.setdefault(entry, set()).update(entries - {entry})
        self._longest = max((len(entry) for entry in self._mates), default=0)
        self.forms = forms

    def __len__(self) -> int:
        return len(self._mates)

    def entries_in(self, text: str) -> list[Entry]:
        """The entries a text holds, longest first where they overlap ("rate limit"
        rather than "limit" alone), in reading order."""
        words = _words(text)
        if not words or not self._mates:
            return []
        known = self.forms(words)
        sequence = [known[word] for word in words]
        found: list[Entry] = []
        position = 0
        while position < len(sequence):
            for size in range(min(self._longest, len(sequence) - position), 0, -1):
                candidate = tuple(sequence[position : position + size])
                if candidate in self._mates:
                    found.append(candidate)
                    position += size
                    break
            else:
                position += 1
        return list(dict.fromkeys(found))

    def expansions(self, text: str) -> list[Expansion]:
        """For each entry of the text, the group mates it does not already say."""
        entries = self.entries_in(text)
        said = {form for entry in entries for form in entry}
        found = []
        for entry in entries:
            mates = tuple(sorted(mate for mate in self._mates[entry] if not set(mate) <= said))
            if mates:
                found.append(Expansion(entry, mates))
        return found

    def written(self, entry: Entry) -> str:
        """An entry as the thesaurus writes it ("rate limit"): for explanations, and the
        phrase recall asks the word index for (which stems the words itself)."""
        return " ".join(self._written.get(entry, entry))

"""What recall (and the restatement check) asks the word index, as a value: the store
translates it to its own query language (FTS5 ``MATCH`` for SQLite), so no query text
of one index leaks into the rules."""

from __future__ import annotations

from dataclasses import dataclass

from archmem.values import Value


@dataclass(frozen=True, repr=False, eq=False)
class WordQuery(Value):
    """The active memories holding any of ``phrases`` and none of ``excluded``, best
    first by BM25, at most ``limit``.

    A phrase is one or more words matched in a row as written (the index folds them to
    its stems itself). A title word counts ``title_weight`` of a body word, a word found
    only among the parts of a compound (``add`` of ``add_on``) ``parts_weight``.
    """

    phrases: tuple[str, ...]
    excluded: tuple[str, ...] = ()
    limit: int = 50
    title_weight: float = 2.0
    parts_weight: float = 0.75

    @property
    def empty(self) -> bool:
        """Whether it can find nothing (no phrase with a word in it)."""
        return not any(phrase.split() for phrase in self.phrases)

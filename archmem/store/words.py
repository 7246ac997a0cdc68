"""The word index's tokenizer, and the form it gives a query term.

The index is FTS5 with Porter stemming (migration 7): on the recall quality set,
stemming lifted nDCG@5 from 0.613 to 0.646 with the no-answer rate unchanged.
FTS5 stems MATCH terms itself, but term statistics come from the ``fts5vocab`` table,
which holds stems: a lookup by "retries" must ask for "retri". ``IndexForms`` asks the
same tokenizer, in a private in-memory table, so the two can never disagree; what it
answered for a large batch is kept in the index for the next process.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Protocol

WORD_TOKENIZER = "porter unicode61"
_CACHE_LIMIT = 50_000


class Meta(Protocol):
    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str | None) -> None: ...


class IndexForms:
    """Term → the form the word index stores it under (stemmed, case- and accent-folded).

    A large batch (the thesaurus's ~800 words, analysed by every recall) is kept in the
    index's ``store_meta`` with the tokenizer and the SQLite version that made it, so the
    next process finds the forms instead of asking the tokenizer again.
    """

    KEY = "index_forms"
    KEPT_BATCH = 100
    """Terms learnt at once from which the known forms are written back (a task's few
    words are not worth a write)."""

    def __init__(self, kept: Meta | None = None) -> None:
        self._db: sqlite3.Connection | None = None
        self._known: dict[str, str] = {}
        self._kept = kept
        self._kept_forms: dict[str, str] = {}
        """What the index keeps: large batches only (the thesaurus, the model's names)."""
        self._loaded = kept is None

    def of(self, terms: Iterable[str]) -> dict[str, str]:
        wanted = list(dict.fromkeys(terms))
        unknown = [term for term in wanted if term not in self._known]
        if unknown and not self._loaded:
            self._load()
            unknown = [term for term in unknown if term not in self._known]
        if unknown:
            if len(self._known) + len(unknown) > _CACHE_LIMIT:
                self._known.clear()
            db = self._analyser()
            with db:
                db.executemany("INSERT INTO words (rowid, word) VALUES (?, ?)", enumerate(unknown))
                forms = {unknown[row]: form for form, row in db.execute("SELECT term, doc FROM forms")}
                db.execute("DELETE FROM words")
            # a term the tokenizer keeps nothing of stays as it is (it matches nothing)
            self._known.update((term, forms.get(term, term)) for term in unknown)
            if len(unknown) >= self.KEPT_BATCH and self._kept is not None:  # never a task's words
                self._kept_forms.update((term, self._known[term]) for term in unknown)
                self._kept.set_meta(self.KEY, json.dumps({"made_by": _MADE_BY, "forms": self._kept_forms},
                                                         separators=(",", ":")))
        return {term: self._known[term] for term in wanted}

    def _analyser(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = sqlite3.connect(":memory:", check_same_thread=False)
            self._db.execute(f"CREATE VIRTUAL TABLE words USING fts5(word, tokenize = '{WORD_TOKENIZER}')")
            self._db.execute("CREATE VIRTUAL TABLE forms USING fts5vocab(words, 'instance')")
        return self._db

    def _load(self) -> None:
        self._loaded = True
        assert self._kept is not None
        try:
            kept = json.loads(self._kept.meta(self.KEY) or "{}")
        except ValueError:
            return
        forms = kept.get("forms") if isinstance(kept, dict) and kept.get("made_by") == _MADE_BY else None
        if isinstance(forms, dict) and len(forms) <= _CACHE_LIMIT:
            self._kept_forms = {str(term): str(form) for term, form in forms.items()}
            self._known.update(self._kept_forms)


_MADE_BY = f"{WORD_TOKENIZER} / SQLite {sqlite3.sqlite_version}"
"""Kept forms are valid for this tokenizer in this SQLite only."""

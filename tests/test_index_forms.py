"""The word index's forms of a large batch (the thesaurus) are kept in the index.

Every recall analysed the shipped thesaurus's ~800 words in an in-memory FTS5 table
before its query; the forms are kept in the index for the tokenizer and SQLite version
that made them, so the next process reads them. A task's own words are never kept.
"""

from __future__ import annotations

import json
from pathlib import Path

from archmem.recall.synonyms import _words, shipped_groups
from archmem.store import open_store
from archmem.store.words import IndexForms


def thesaurus_words() -> list[str]:
    return sorted({word for group in shipped_groups() for entry in group for word in _words(entry)})


def test_a_kept_batch_is_read_back_without_analysing_and_says_what_analysis_says(tmp_path: Path):
    words = thesaurus_words()
    fresh = IndexForms().of(words)
    store = open_store(tmp_path / "index.db")
    assert IndexForms(kept=store).of(words) == fresh
    later = IndexForms(kept=open_store(tmp_path / "index.db"))
    assert later.of(words) == fresh
    assert later._db is None  # no in-memory analyser was built: every form came from the index


def test_a_tasks_words_are_never_written_into_the_index(tmp_path: Path):
    store = open_store(tmp_path / "index.db")
    forms = IndexForms(kept=store)
    forms.of(["retries", "zanzibar", "quokkas"])
    assert store.meta(IndexForms.KEY) is None
    forms.of(thesaurus_words())
    kept = json.loads(store.meta(IndexForms.KEY) or "{}")["forms"]
    assert "zanzibar" not in kept and "quokkas" not in kept and "retry" in kept


def test_forms_kept_by_another_tokenizer_or_sqlite_are_not_read(tmp_path: Path):
    store = open_store(tmp_path / "index.db")
    store.set_meta(IndexForms.KEY, json.dumps({"made_by": "trigram / SQLite 3.0.0", "forms": {"retries": "wrong"}}))
    assert IndexForms(kept=store).of(["retries"]) == {"retries": "retri"}

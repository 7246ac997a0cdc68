"""The places code can be owned from: every folder holding code and every code file,
indexed by the words of their names so an element meets only the few that share one.

Comparing every element with every path is 300 × 5,000 comparisons on a mid-sized
repository; an index from word stems (and four-letter stem prefixes) to places makes
each element look at a handful (bench/paths_suggest_speed.py).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from archmem.model.ownership import is_code
from archmem.onboarding.names import NOISE_SEGMENTS, joined, prefix_key, similarity, stem, words
from archmem.values import Record

TEST_FOLDERS = frozenset(
    "test tests testing spec specs __tests__ __mocks__ e2e it fixtures testdata docs doc examples example samples "
    "sample demo demos benchmarks migrations".split()
)
"""Folders whose code belongs to something else (tests, docs, tooling)."""
_OPS_SCRIPTS = frozenset({".sh", ".bash", ".zsh", ".ps1", ".bat", ".cmd"})
"""Build and release scripts: tooling around the code, rarely an element's own."""
GENERIC_FILES = frozenset("__init__ __main__ index main mod lib app utils util helpers common types constants".split())


@dataclass(repr=False, eq=False)
class Place(Record):
    """A folder (``glob`` ends in ``/**``) or a file that an element could own."""

    path: str
    folder: bool
    words: tuple[str, ...]
    """Words of its own name (the folder name, or the file name without extension)."""
    above: frozenset[str]
    """Stems of the folders above it."""
    depth: int
    aside: bool
    """Under a test, docs, examples or tooling folder."""
    languages: Counter[str] = field(default_factory=Counter)
    """Code files by extension (a file: its own)."""

    @property
    def glob(self) -> str:
        return f"{self.path}/**" if self.folder else self.path

    @property
    def code_files(self) -> int:
        return sum(self.languages.values())

    def contains(self, other: Place) -> bool:
        return self.folder and other.path.startswith(self.path + "/")


@dataclass(repr=False, eq=False)
class WordIndex(Record):
    """Items (by number) under the stems of their words, stem prefixes, and joined names."""

    by_stem: dict[str, list[int]] = field(default_factory=dict)
    by_prefix: dict[str, set[str]] = field(default_factory=dict)
    by_joined: dict[str, list[int]] = field(default_factory=dict)

    def add(self, number: int, name_words: tuple[str, ...]) -> None:
        for word in set(name_words):
            key = stem(word)
            self.by_stem.setdefault(key, []).append(number)
            self.by_prefix.setdefault(prefix_key(word), set()).add(key)
        if len(name_words) > 1:
            self.by_joined.setdefault(joined(name_words), []).append(number)
            self.by_joined.setdefault("".join(name_words), []).append(number)

    def matching(self, tokens: tuple[str, ...]) -> set[int]:
        """Items one of whose words is like one of ``tokens`` (stem or long common
        prefix), or whose joined name is a token's or all tokens' (``cartservice``)."""
        found: set[int] = set()
        for word in tokens:
            key = stem(word)
            found.update(self.by_stem.get(key, ()))
            found.update(self.by_joined.get(key, ()))
            for other in self.by_prefix.get(prefix_key(word), ()):
                if other != key and similarity(key, other) > 0:
                    found.update(self.by_stem.get(other, ()))
        if len(tokens) > 1:
            for key in (joined(tokens), "".join(tokens)):
                found.update(self.by_stem.get(key, ()))
                found.update(self.by_joined.get(key, ()))
        return found


@dataclass(repr=False, eq=False)
class PlaceIndex(Record):
    """Every place, by path and by the words of its name."""

    places: list[Place] = field(default_factory=list)
    words: WordIndex = field(default_factory=WordIndex)
    by_path: dict[str, int] = field(default_factory=dict)

    def add(self, place: Place) -> int:
        number = len(self.places)
        self.places.append(place)
        self.by_path[place.path] = number
        self.words.add(number, place.words)
        return number


def build_index(files: Sequence[str], skip: Callable[[str], bool] = lambda path: False) -> PlaceIndex:
    """Every folder with code below it and every code file (not skipped), indexed."""
    index = PlaceIndex()
    folders: dict[str, Counter[str]] = {}
    code_files: list[str] = []
    for path in files:
        if not is_code(path) or skip(path):
            continue
        code_files.append(path)
        extension = PurePosixPath(path).suffix.lstrip(".").lower()
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folders.setdefault("/".join(parts[:depth]), Counter())[extension] += 1
    for folder, languages in sorted(folders.items()):
        index.add(_place(folder, True, languages))
    for path in code_files:
        name = PurePosixPath(path).stem
        if name.lower() in GENERIC_FILES:
            continue
        extension = PurePosixPath(path).suffix.lstrip(".").lower()
        index.add(_place(path, False, Counter({extension: 1})))
    return index


def _place(path: str, folder: bool, languages: Counter[str]) -> Place:
    parts = path.split("/")
    own = parts[-1] if folder else PurePosixPath(parts[-1]).stem
    above = frozenset(stem(w) for part in parts[:-1] for w in words(part))
    aside = any(part.lower() in TEST_FOLDERS or part.lower().startswith("test") for part in parts[:-1]) or (
        not folder and (own.lower().startswith("test_") or own.endswith(("_test", ".test", ".spec", "Test", "Tests")))
    ) or (folder and own.lower() in TEST_FOLDERS)
    aside = aside or (not folder and PurePosixPath(path).suffix.lower() in _OPS_SCRIPTS)
    own_words = () if own.lower() in NOISE_SEGMENTS else words(own)
    return Place(path, folder, own_words, above, len(parts), aside, languages)


def activity(change_sets: Iterable[Iterable[str]]) -> Mapping[str, int]:
    """Path (file or folder) → how many of the given commits touched it."""
    counts: Counter[str] = Counter()
    for changed in change_sets:
        touched: set[str] = set()
        for path in changed:
            touched.add(path)
            parent = posixpath.dirname(path)
            while parent:
                touched.add(parent)
                parent = posixpath.dirname(parent)
        counts.update(touched)
    return counts

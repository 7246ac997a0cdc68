"""Synthetic but varied memory texts for the benchmarks (deterministic per seed)."""

from __future__ import annotations

import random

SUBJECTS = ["the gateway", "OrderProcessor", "the pricing engine", "PaymentService", "the auth middleware",
            "idArgumentResolvers", "the cache warmer", "LedgerWriter", "the search indexer", "the retry loop",
            "the session store", "src/authz/check.go", "the migration runner", "the event bus", "TokenVerifier"]
VERBS = ["drops", "retries", "caches", "rejects", "serializes", "batches", "times out on", "locks", "rewrites",
         "validates", "logs", "throttles", "reorders", "duplicates", "compresses"]
OBJECTS = ["headers over {n}KB", "carts with {n} lines", "requests after {n} seconds", "tokens older than {n} minutes",
           "payloads above {n}MB", "batches of {n} events", "queries with {n} joins", "retries beyond {n} attempts",
           "keys in region {n}", "partitions over {n}"]
TAILS = ["unless the feature flag is on", "when the pool is exhausted", "during deploys", "on the first request",
         "for operator accounts", "in the EU region", "since the v2 rollout", "under load", "after a failover",
         "when clocks drift"]


def memory_text(rng: random.Random, i: int) -> str:
    subject = rng.choice(SUBJECTS)
    verb = rng.choice(VERBS)
    obj = rng.choice(OBJECTS).format(n=rng.randint(2, 999))
    tail = rng.choice(TAILS)
    return f"{subject[0].upper() + subject[1:]} {verb} {obj} {tail} (case {i})."


def texts(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [memory_text(rng, i) for i in range(count)]


# ---- a corpus with a natural vocabulary ---------------------------------------------
#
# The template corpus above has ~60 distinct words, so every query word is in 5-15% of
# all memories: the worst case for a word index. Real notes about a code base follow
# Zipf's law: a few words are everywhere, most (identifiers, numbers, names) are rare.
# This corpus draws words from a Zipf distribution (s = 1.07) over 60,000 word types,
# as measured for English and for source-code identifiers; tasks take a few words of
# one memory and a few common ones, the way a task description overlaps a note.

ONSETS = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "st", "tr", "pl",
          "gr", "sh", "ch", "br", "cl"]
NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
CODAS = ["", "n", "r", "s", "t", "x", "nd", "rk", "ll", "ng"]
ZIPF_TYPES = 60_000
ZIPF_EXPONENT = 1.07


def _word(rank: int) -> str:
    """A distinct pronounceable word for each rank (deterministic, no dictionary needed)."""
    parts = []
    n = rank
    while True:
        n, syllable = divmod(n, len(ONSETS) * len(NUCLEI) * len(CODAS))
        onset, rest = divmod(syllable, len(NUCLEI) * len(CODAS))
        nucleus, coda = divmod(rest, len(CODAS))
        parts.append(ONSETS[onset] + NUCLEI[nucleus] + CODAS[coda])
        if n == 0:
            return "".join(parts) + ("" if len(parts) > 1 else "o")
        n -= 1


class ZipfCorpus:
    """Memories and tasks over a Zipfian vocabulary, reproducible from a seed."""

    def __init__(self, seed: int = 13, types: int = ZIPF_TYPES, exponent: float = ZIPF_EXPONENT) -> None:
        self.rng = random.Random(seed)
        self.words = [_word(rank) for rank in range(types)]
        weights = [1 / (rank + 1) ** exponent for rank in range(types)]
        total = 0.0
        self.cumulative = []
        for weight in weights:
            total += weight
            self.cumulative.append(total)

    def _draw(self, k: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cumulative, k=k)

    def memory(self) -> str:
        words = self._draw(self.rng.randint(12, 40))
        words[0] = words[0].capitalize()
        return " ".join(words) + "."

    def memories(self, count: int) -> list[str]:
        return [self.memory() for _ in range(count)]

    def task(self, memories: list[str]) -> str:
        """A few words of one memory (its rarer ones among them) and a few common words."""
        source = self.rng.choice(memories).rstrip(".").lower().split()
        picked = self.rng.sample(source, k=min(len(source), self.rng.randint(2, 4)))
        return " ".join(picked + self._draw(self.rng.randint(1, 3)))

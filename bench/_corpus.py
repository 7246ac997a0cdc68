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

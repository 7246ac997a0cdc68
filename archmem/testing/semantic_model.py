"""A tiny deterministic "semantic" embedding model for tests and benchmarks.

Real embedding models put synonyms close together and unrelated texts far apart.
This one does the same on purpose, with no weights to download, so that tests and
benchmarks can check the semantic path of recall end to end:

1. words: lowercase runs of letters and digits; camelCase, snake_case, kebab-case
   and paths are split (``cacheTTL`` → cache ttl, ``payment_flow`` → payment flow);
   a few English function words are dropped;
2. concepts: each word goes through ``SYNONYMS`` to a canonical concept
   (``latency`` → performance); a word in no group is its own concept, after folding
   a plural ``s``/``es``/``ies`` and an ``ing``/``ed`` ending when that finds a group;
3. vectors: each concept is a fixed random unit vector (sha256 of the concept seeds
   numpy's generator), the text is the L2-normalized sum over its distinct concepts.

So "the checkout is slow" and "purchase latency" share both concepts (cosine ≈ 1),
and random concepts in 384 dimensions are near-orthogonal (|cosine| ≈ 0.05).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import numpy as np

DEFAULT_DIMS = 384

SYNONYMS: dict[str, tuple[str, ...]] = {
    "performance": ("performance", "perf", "speed", "fast", "faster", "slow", "slower", "slowness", "latency",
                    "throughput", "quick", "sluggish", "lag", "laggy", "p99"),
    "checkout": ("checkout", "purchase", "payment", "pay", "billing", "cart", "basket", "order"),
    "delete": ("delete", "remove", "drop", "erase", "purge", "destroy", "deletion", "removal"),
    "error": ("error", "failure", "fail", "exception", "crash", "bug", "fault", "panic", "traceback"),
    "auth": ("auth", "authentication", "authenticate", "authn", "login", "logon", "signin", "token", "jwt",
             "oauth", "credential", "password", "sso"),
    "cache": ("cache", "caching", "memoize", "memoization", "memo", "redis", "lru", "ttl"),
    "database": ("db", "database", "postgres", "postgresql", "sql", "sqlite", "mysql", "table", "row"),
    "migration": ("migration", "migrate", "schema", "alembic", "ddl"),
    "test": ("test", "testing", "pytest", "unittest", "spec", "fixture", "assertion", "flaky"),
    "deploy": ("deploy", "deployment", "release", "rollout", "ship", "publish", "rollback"),
    "config": ("config", "configuration", "setting", "option", "env", "environment", "toml", "flag"),
    "log": ("log", "logging", "logger", "trace", "tracing", "telemetry"),
    "monitoring": ("monitor", "monitoring", "metric", "alert", "alerting", "dashboard", "observability"),
    "network": ("network", "http", "socket", "tcp", "connection", "dns", "tls", "ssl"),
    "api": ("api", "endpoint", "route", "rest", "handler", "controller", "grpc"),
    "retry": ("retry", "backoff", "reattempt", "idempotent", "idempotency"),
    "timeout": ("timeout", "deadline", "hang", "hung", "stall", "stuck"),
    "concurrency": ("concurrency", "concurrent", "thread", "threading", "parallel", "race", "lock", "locking",
                    "mutex", "deadlock", "async"),
    "ram": ("ram", "oom", "leak", "heap", "allocation", "gc"),
    "security": ("security", "secure", "vulnerability", "xss", "csrf", "injection", "exploit", "sanitize"),
    "secret": ("secret", "apikey", "vault", "redact", "redaction"),
    "user": ("user", "customer", "account", "member", "profile"),
    "email": ("email", "mail", "smtp", "notification", "notify", "newsletter"),
    "queue": ("queue", "kafka", "rabbitmq", "broker", "message", "event", "pubsub", "topic", "consumer"),
    "search": ("search", "query", "lookup", "find", "index", "indexing", "elasticsearch", "fts", "bm25"),
    "file": ("file", "path", "directory", "folder", "filesystem", "disk"),
    "upload": ("upload", "attachment", "download", "blob", "s3", "bucket"),
    "time": ("date", "time", "timestamp", "timezone", "utc", "clock", "datetime"),
    "money": ("price", "pricing", "currency", "money", "amount", "cent", "discount", "tax", "invoice"),
    "inventory": ("inventory", "stock", "warehouse", "sku", "product", "catalog"),
    "shipping": ("shipping", "shipment", "delivery", "courier", "fulfillment", "fulfilment"),
    "ui": ("ui", "frontend", "button", "page", "css", "html", "layout", "render", "rendering"),
    "validation": ("validate", "validation", "validator", "invalid", "verify", "verification"),
    "header": ("header", "cookie"),
    "ratelimit": ("ratelimit", "throttle", "throttling", "quota"),
    "dependency": ("dependency", "package", "library", "version", "upgrade", "pin", "pinned"),
    "build": ("build", "compile", "compiler", "bundle", "bundler", "webpack", "ci", "pipeline"),
    "docs": ("docs", "documentation", "readme", "doc", "comment", "docstring"),
    "encoding": ("encoding", "unicode", "utf8", "charset", "ascii", "serialize", "serialization", "json"),
    "pagination": ("pagination", "paginate", "cursor", "offset"),
    "gateway": ("gateway", "proxy", "ingress", "loadbalancer", "nginx"),
    "container": ("docker", "container", "kubernetes", "k8s", "pod", "helm"),
    "create": ("create", "add", "insert", "append"),
    "update": ("update", "modify", "edit", "change", "patch", "mutate"),
}
"""Canonical concept → the words that mean it. Extend with ``SemanticModel(synonyms=...)``."""

STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "been", "by", "do", "does", "for", "from", "has", "have",
    "if", "in", "into", "is", "it", "its", "of", "on", "or", "our", "so", "that", "the", "then", "this",
    "to", "was", "we", "were", "when", "with",
})
_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def words(text: str) -> list[str]:
    """Lowercase words, identifiers split (camelCase, snake_case, kebab-case, paths)."""
    found: list[str] = []
    for run in _WORD.findall(text):
        for part in _CAMEL.findall(run) or [run]:
            word = part.lower()
            if word not in STOP_WORDS:
                found.append(word)
    return found


class SemanticModel:
    """Texts → L2-normalized float32 vectors where synonyms meet (see the module doc)."""

    def __init__(self, dims: int = DEFAULT_DIMS, synonyms: Mapping[str, Iterable[str]] | None = None) -> None:
        if dims < 1:
            raise ValueError("dims must be positive")
        self.dims = dims
        groups: dict[str, tuple[str, ...]] = dict(SYNONYMS)
        for concept, extra in (synonyms or {}).items():
            groups[concept] = tuple(groups.get(concept, ())) + tuple(extra)
        self.concept_of: dict[str, str] = {}
        for concept, members in groups.items():
            self.concept_of[concept.lower()] = concept
            for member in members:
                self.concept_of[member.lower()] = concept

    def concept(self, word: str) -> str:
        """The canonical concept of one lowercase word."""
        if word in self.concept_of:
            return self.concept_of[word]
        for suffix, replacement in (("ies", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ed", ""), ("ing", "e"),
                                    ("ed", "e"), ("ly", "")):
            if word.endswith(suffix) and len(word) - len(suffix) >= 2:
                stem = word[: -len(suffix)] + replacement
                if len(stem) > 3 and stem[-1] == stem[-2] and suffix in ("ing", "ed"):
                    stem = stem[:-1]  # dropped -> drop, running -> run
                if stem in self.concept_of:
                    return self.concept_of[stem]
        for suffix in ("ing", "ed"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                stem = word[: -len(suffix)]
                return stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else stem
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            return word[:-1]
        return word

    def concepts(self, text: str) -> list[str]:
        """The distinct concepts of a text, in order of first appearance."""
        return list(dict.fromkeys(self.concept(word) for word in words(text)))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One normalized row per text; an empty text gets the vector of "<empty>"."""
        out = np.zeros((len(texts), self.dims), dtype=np.float64)
        for row, text in enumerate(texts):
            for concept in self.concepts(text) or ["<empty>"]:
                out[row] += concept_vector(concept, self.dims)
            out[row] /= np.linalg.norm(out[row])
        return out.astype(np.float32)


@lru_cache(maxsize=8192)
def concept_vector(concept: str, dims: int) -> np.ndarray:
    """A fixed random unit vector per concept: the same on every machine and run."""
    seed = int.from_bytes(hashlib.sha256(concept.encode("utf-8")).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dims)
    vector /= np.linalg.norm(vector)
    vector.setflags(write=False)
    return vector

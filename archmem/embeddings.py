"""The embeddings adapter: providers (``none``, ``openai``, ``ollama``), vectors and backfill.

An ``Embedder`` turns texts into L2-normalized float32 rows and names itself with an
``identity`` (``provider:model:dims``); the store keys every vector by that identity,
so vectors of two models (or two sizes of one model) never meet. Providers talk
through the official client packages, imported only when a provider first needs
them. Every provider failure (refused, timeout, HTTP error, malformed answer, wrong
count or size, NaN) is one ``EmbeddingError`` with a short reason, raised fast (at
most one retry, and only for a server error): recall and remember turn it into a
warning and carry on lexically.
"""

from __future__ import annotations

import hashlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from archmem.config import EmbeddingsConfig
from archmem.errors import ConfigError, EmbeddingError
from archmem.values import Record

if TYPE_CHECKING:
    from archmem.memory.types import Memory
    from archmem.store.base import Store

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
NO_KEY = "archmem-no-key"
"""Sent as the API key to a custom endpoint when none is set: local servers ignore it."""
RETRY_PAUSE = 0.2
TEXT_HASH_VERSION = "archmem-embedding-text-v1"


class Embedder(Protocol):
    @property
    def identity(self) -> str:
        """``provider:model:dims``; the key of every vector this embedder makes."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array of shape (len(texts), dims), rows L2-normalized."""


class _Failure(Exception):
    """A provider call failed: a short reason, and whether one retry may help."""

    def __init__(self, reason: str, *, retry: bool = False, hint: str | None = None) -> None:
        super().__init__(reason)
        self.reason, self.retry, self.hint = reason, retry, hint


class _ProviderEmbedder(ABC):
    """What every remote provider shares: retry, validation, normalization, identity."""

    provider = ""
    package = ""

    def __init__(self, model: str, where: str, timeout: float, dimensions: int | None) -> None:
        self.model = model
        self.where = where
        self.timeout = timeout
        self.requested_dims = dimensions
        self.dims: int | None = dimensions
        self._client: Any = None

    @property
    def identity(self) -> str:
        """Known from the config or the first answer; else one small probe request."""
        if self.dims is None:
            self.embed(["dimension probe"])
        return f"{self.provider}:{self.model}:{self.dims}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        for attempt in (1, 2):
            try:
                raw = self._fetch(texts)
                break
            except _Failure as failure:
                if failure.retry and attempt == 1:
                    time.sleep(RETRY_PAUSE)
                    continue
                raise self._error(failure.reason, failure.hint) from None
        return self._validate(raw, len(texts))

    def close(self) -> None:
        """Release the client's connection pool."""
        if self._client is not None:
            self._client.close()
            self._client = None

    @abstractmethod
    def _fetch(self, texts: list[str]) -> Any:
        """Ask the provider for the raw vectors of ``texts``."""

    def _error(self, reason: str, hint: str | None = None) -> EmbeddingError:
        return EmbeddingError(f"{self.provider} embeddings at {self.where} failed: {reason}", hint=hint)

    def _import(self, name: str) -> Any:
        try:
            return __import__(name)
        except ImportError:
            raise self._error(
                f"the {name!r} package is not installed", hint=f"pip install 'archmem[{self.package}]'"
            ) from None

    def _validate(self, raw: Any, count: int) -> np.ndarray:
        """The answer as normalized float32 rows, or an EmbeddingError saying what is wrong."""
        try:
            got = len(raw)
            matrix = np.asarray(raw, dtype=np.float64)
        except (TypeError, ValueError):
            raise self._error("malformed response (vectors of different lengths or not numbers)") from None
        if got != count:
            raise self._error(f"returned {got} vector{'' if got == 1 else 's'} for {count} texts")
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise self._error(f"malformed response (vectors of shape {matrix.shape})")
        expected = self.dims
        if expected is not None and matrix.shape[1] != expected:
            raise self._error(f"returned {matrix.shape[1]}-dimensional vectors, expected {expected}")
        if not np.isfinite(matrix).all():
            raise self._error("returned NaN or infinite values")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if (norms == 0).any():
            raise self._error("returned an all-zero vector")
        self.dims = int(matrix.shape[1])
        return (matrix / norms).astype(np.float32)


class OpenAIEmbedder(_ProviderEmbedder):
    """Any OpenAI-compatible ``/embeddings`` endpoint, through the ``openai`` package."""

    provider = package = "openai"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 10.0, *, dimensions: int | None = None, api_key_env: str = "OPENAI_API_KEY") -> None:
        super().__init__(model, (base_url or "https://api.openai.com/v1").rstrip("/"), timeout, dimensions)
        self.base_url = self.where  # explicit, so the client never picks another from OPENAI_BASE_URL
        self.api_key = api_key or (NO_KEY if base_url else None)
        self.api_key_env = api_key_env

    def _fetch(self, texts: list[str]) -> Any:
        if self.api_key is None:
            raise _Failure(f"the API key variable {self.api_key_env} is not set",
                           hint=f"export {self.api_key_env}, or point embeddings.base_url at a local server")
        openai = self._import("openai")
        if self._client is None:
            self._client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                                         max_retries=0)
        extra = {"dimensions": self.requested_dims} if self.requested_dims else {}
        try:
            answer = self._client.embeddings.create(model=self.model, input=texts, **extra)
            rows = sorted(answer.data, key=lambda item: item.index)
            return [row.embedding for row in rows]
        except openai.APITimeoutError:
            raise _Failure(_timed_out(self.timeout)) from None
        except openai.APIConnectionError as exc:
            raise _connection_failure(exc) from None
        except openai.APIStatusError as exc:
            message = exc.message.split(" - ", 1)[-1] if exc.message else ""
            raise _status_failure(exc.status_code, message, self.model) from None
        except Exception as exc:  # noqa: BLE001 - a malformed answer surfaces as many types
            raise _Failure(_malformed(exc)) from None


class OllamaEmbedder(_ProviderEmbedder):
    """An Ollama server's ``/api/embed``, through the ``ollama`` package."""

    provider = package = "ollama"

    def __init__(self, model: str, host: str | None = None, timeout: float = 10.0, *,
                 dimensions: int | None = None) -> None:
        super().__init__(model, (host or DEFAULT_OLLAMA_HOST).rstrip("/"), timeout, dimensions)

    def _fetch(self, texts: list[str]) -> Any:
        ollama = self._import("ollama")
        import httpx  # a dependency of ollama: its transport errors are not wrapped

        if self._client is None:
            self._client = ollama.Client(host=self.where, timeout=self.timeout)
        try:
            return self._client.embed(model=self.model, input=texts).embeddings
        except httpx.TimeoutException:
            raise _Failure(_timed_out(self.timeout)) from None
        except ollama.ResponseError as exc:
            raise _status_failure(exc.status_code, str(exc.error), self.model, ollama=True) from None
        except (ConnectionError, httpx.TransportError) as exc:
            raise _connection_failure(exc) from None
        except Exception as exc:  # noqa: BLE001 - a malformed answer surfaces as many types
            raise _Failure(_malformed(exc)) from None


def _timed_out(timeout: float) -> str:
    return f"no answer within {timeout:g} s (timeout)"


def _connection_failure(exc: BaseException) -> _Failure:
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    if any(isinstance(e, ConnectionRefusedError) or "refused" in str(e).lower() for e in chain):
        return _Failure("connection refused", hint="is the embedding server running?")
    detail = str(chain[-1]) or type(chain[-1]).__name__
    return _Failure(f"connection failed ({_short(detail)})", retry=True)


def _status_failure(status: int, message: str, model: str, *, ollama: bool = False) -> _Failure:
    hint = f"ollama pull {model}" if ollama and status == 404 else None
    text = f"HTTP {status}" + (f": {_short(message)}" if message else "")
    return _Failure(text, retry=status >= 500 or status == 429, hint=hint)


def _malformed(exc: BaseException) -> str:
    import json

    if isinstance(exc, json.JSONDecodeError):
        return "malformed response (not JSON)"
    return f"malformed response ({type(exc).__name__}: {_short(str(exc))})"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def make_embedder(config: EmbeddingsConfig, env: Mapping[str, str]) -> Embedder | None:
    """The configured embedder, or None for ``provider = "none"``.

    Touches neither the network nor the client package: those fail later, as an
    ``EmbeddingError`` from ``embed``/``identity``, which callers turn into a warning.
    """
    if config.provider == "none":
        return None
    if config.provider == "local":  # on this machine, from disk (the ``local`` extra)
        from archmem.embeddings_local import LocalEmbedder

        return LocalEmbedder(config.model)
    if not config.model.strip():
        example = "text-embedding-3-small" if config.provider == "openai" else "nomic-embed-text"
        raise ConfigError(
            f"embeddings.provider is {config.provider!r} but embeddings.model is not set",
            hint=f'set model = "{example}" under [embeddings] in archmem.toml (or ARCHMEM_EMBEDDINGS_MODEL)',
        )
    base_url = config.base_url.strip()
    if base_url and not base_url.startswith(("http://", "https://")):
        raise ConfigError(
            f"embeddings.base_url must start with http:// or https:// (got {base_url!r})",
            hint="e.g. http://127.0.0.1:8080/v1 for an OpenAI-compatible server, http://127.0.0.1:11434 for Ollama",
        )
    dimensions = config.dimensions
    if config.provider == "openai":
        return OpenAIEmbedder(config.model, base_url or None, env.get(config.api_key_env) or None, config.timeout,
                              dimensions=dimensions, api_key_env=config.api_key_env)
    return OllamaEmbedder(config.model, base_url or env.get("OLLAMA_HOST") or None, config.timeout,
                          dimensions=dimensions)


# ---- vectors --------------------------------------------------------------------------


def vector_to_blob(vector: np.ndarray) -> bytes:
    """Little-endian float32 bytes, the one way vectors are stored."""
    return np.asarray(vector, dtype="<f4").tobytes()


def blob_to_vector(blob: bytes, dims: int) -> np.ndarray:
    """The float32 vector of a stored blob; a blob of the wrong size is an error."""
    vector = np.frombuffer(blob, dtype="<f4")
    if vector.shape != (dims,):
        raise ValueError(f"a stored vector has {vector.size} values, expected {dims}")
    return vector.astype(np.float32)


def embedding_text(title: str | None, content: str, element_names: Sequence[str] = ()) -> str:
    """What gets embedded for a memory: its title, its content, the elements it is about."""
    parts = [title.strip()] if title and title.strip() else []
    parts.append(content.strip())
    names = [name for name in element_names if name]
    if names:
        parts.append("Elements: " + ", ".join(names))
    return "\n\n".join(parts)


def text_hash(text: str) -> str:
    """The hash that skips re-embedding an unchanged text.

    Versioned: changing ``embedding_text`` means bumping ``TEXT_HASH_VERSION``, and
    every vector is then re-embedded.
    """
    return hashlib.sha256(f"{TEXT_HASH_VERSION}\0{text}".encode()).hexdigest()


def cosine_top(query: np.ndarray, matrix: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` rows most similar to ``query`` as (row index, cosine), best first.

    Brute force: rows are normalized already, so cosine is one matrix product; a few
    thousand memories take well under a millisecond. Ties keep row order.
    """
    query = np.asarray(query, dtype=np.float32).reshape(-1)
    if k <= 0 or len(matrix) == 0:
        return []
    if matrix.ndim != 2 or matrix.shape[1] != query.shape[0]:
        raise ValueError(f"query has {query.shape[0]} dims, matrix rows have {matrix.shape[-1]}")
    norm = float(np.linalg.norm(query))
    scores = matrix @ (query / norm if norm else query)
    order = np.argsort(-scores, kind="stable")[:k]
    return [(int(i), float(scores[i])) for i in order]


# ---- backfill -------------------------------------------------------------------------


@dataclass(repr=False, eq=False)
class BackfillReport(Record):
    """What ``backfill`` did: embedded and skipped memories, failed ones and why."""

    identity: str
    embedded: int = 0
    skipped: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)


def backfill(
    store: Store,
    embedder: Embedder,
    memories_text: Callable[[Memory], str],
    *,
    now: str,
    batch_size: int = 32,
    progress: Callable[[int, int], None] | None = None,
) -> BackfillReport:
    """Embed active memories whose vector for this identity is missing or stale.

    Stale means the stored hash differs from ``text_hash(memories_text(m))``, so a
    (memory, identity, text) is embedded once. A failing batch is counted and its
    reason kept; the others go on. Only a failure to learn the identity raises.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be positive")
    identity = embedder.identity
    report = BackfillReport(identity=identity)
    todo: list[tuple[str, str, str]] = []
    stored = store.vector_hashes(identity)
    for memory in store.list_memories(status="active"):
        text = memories_text(memory)
        digest = text_hash(text)
        if stored.get(memory.id) == digest:
            report.skipped += 1
        else:
            todo.append((memory.id, text, digest))
    done = 0
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        try:
            vectors = embedder.embed([text for _, text, _ in batch])
            if vectors.shape[0] != len(batch):
                raise EmbeddingError(f"returned {vectors.shape[0]} vectors for {len(batch)} texts")
        except EmbeddingError as exc:
            report.failed += len(batch)
            report.errors.append(f"memories {start + 1}-{start + len(batch)} of {len(todo)}: {exc.message}")
        else:
            with store.transaction():
                for (memory_id, _, digest), vector in zip(batch, vectors, strict=True):
                    store.put_vector(memory_id, identity, vector_to_blob(vector), int(vector.shape[0]), digest, now)
            report.embedded += len(batch)
        done += len(batch)
        if progress is not None:
            progress(done, len(todo))
    return report

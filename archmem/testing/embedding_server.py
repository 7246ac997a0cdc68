"""A real embedding server on loopback that speaks the OpenAI and Ollama protocols.

Tests and benchmarks run archmem's embedders against it through the official client
packages, over real HTTP, with no network beyond 127.0.0.1 and no model to download:

    with EmbeddingServer(dims=384) as server:
        server.openai_base_url   # http://127.0.0.1:PORT/v1  (POST /v1/embeddings)
        server.ollama_host       # http://127.0.0.1:PORT     (POST /api/embed)

Vectors come from ``SemanticModel`` (synonyms close, unrelated texts near-orthogonal),
or from any function given as ``embed`` (texts → one ``dims``-long row each), so that a
real local model can be measured through archmem's real provider path::

    model = SentenceTransformer(path)
    embed = lambda texts: model.encode(texts, normalize_embeddings=True)
    with EmbeddingServer(dims=384, embed=embed) as server: ...

Failures are switched at run time so every failure path of a provider can be tested:
``fail_with(status)``, ``delay(seconds)``, ``wrong_dimensions(n)``, ``wrong_count()``,
``nan()``, ``garbage()``, and ``reset()`` back to normal. ``requests`` counts the texts
embedded per path, ``calls`` the HTTP requests per path.
"""

from __future__ import annotations

import base64
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import numpy as np

from archmem.testing.semantic_model import DEFAULT_DIMS, SemanticModel

OPENAI_PATH = "/v1/embeddings"
OLLAMA_PATH = "/api/embed"


class EmbeddingServer:
    """A threaded loopback HTTP server; use it as a context manager."""

    def __init__(self, dims: int = DEFAULT_DIMS, *, synonyms: Mapping[str, Iterable[str]] | None = None,
                 port: int = 0, embed: Callable[[list[str]], Any] | None = None) -> None:
        """``embed``, if given, answers instead of ``SemanticModel``: it takes the texts of
        one request and returns one row of ``dims`` floats per text (a list of lists or a
        numpy array), called one request at a time; an exception, or rows of another
        shape, answer HTTP 500."""
        self.model = SemanticModel(dims, synonyms)
        self.dims = dims
        self.embed = embed
        self._embed_lock = threading.Lock()
        self.requests: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.last_body: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.reset()
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.owner = self

    # ---- lifecycle ----------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def ollama_host(self) -> str:
        return self.url

    def start(self) -> Self:
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever, name="archmem-embedding-server",
                                            kwargs={"poll_interval": 0.05}, daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving; requests sleeping in ``delay`` wake up and are dropped."""
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- failure switches -----------------------------------------------------------

    def reset(self) -> None:
        """Back to a healthy server (counters are kept)."""
        with self._lock:
            self._status: int | None = None
            self._status_times: int | None = None
            self._delay = 0.0
            self._dims_override: int | None = None
            self._count_delta = 0
            self._nan = False
            self._garbage = False

    def fail_with(self, status: int = 500, *, times: int | None = None) -> None:
        """Answer every embedding request (or the next ``times``) with this HTTP status."""
        with self._lock:
            self._status, self._status_times = status, times

    def delay(self, seconds: float) -> None:
        """Wait this long before answering (to trigger client timeouts)."""
        with self._lock:
            self._delay = seconds

    def wrong_dimensions(self, n: int) -> None:
        """Answer with ``n``-dimensional vectors instead of ``dims``."""
        with self._lock:
            self._dims_override = n

    def wrong_count(self, delta: int = -1) -> None:
        """Answer with ``delta`` more (or fewer) vectors than texts."""
        with self._lock:
            self._count_delta = delta

    def nan(self) -> None:
        """Put a NaN in the first vector of every answer."""
        with self._lock:
            self._nan = True

    def garbage(self) -> None:
        """Answer 200 with a body that is not JSON."""
        with self._lock:
            self._garbage = True

    # ---- answering --------------------------------------------------------------------

    def _answer(self, path: str, body: Any) -> tuple[int, bytes]:
        """(status, JSON body) for one embedding request; runs on a handler thread."""
        with self._lock:
            self.calls[path] += 1
            self.last_body = body if isinstance(body, dict) else None
            delay, garbage = self._delay, self._garbage
            status = self._status
            if status is not None and self._status_times is not None:
                self._status_times -= 1
                if self._status_times <= 0:
                    self._status = self._status_times = None
            dims, delta, nan = self._dims_override or self.dims, self._count_delta, self._nan
        if delay and self._stopping.wait(delay):
            return 503, _json({"error": "shutting down"})
        if status is not None:
            message = f"fake failure (HTTP {status})"
            error: Any = {"message": message, "type": "server_error"} if path == OPENAI_PATH else message
            return status, _json({"error": error})
        if garbage:
            return 200, b"<html>this is not JSON {"
        texts = _texts(body)
        if texts is None:
            return 400, _json({"error": "input must be a string or a list of strings"})
        try:
            vectors = self._vectors(texts, dims)
        except Exception as exc:  # a pluggable model's failure reaches the client as a server error
            message = f"embedding failed: {type(exc).__name__}: {exc}"
            return 500, _json({"error": {"message": message, "type": "server_error"} if path == OPENAI_PATH
                               else message})
        with self._lock:
            self.requests[path] += len(texts)
        if delta < 0:
            vectors = vectors[: max(0, len(vectors) + delta)]
        elif delta > 0:
            vectors = np.vstack([vectors] + [vectors[-1:]] * delta) if len(vectors) else vectors
        if nan and len(vectors):
            vectors = vectors.copy()
            vectors[0, 0] = np.nan
        model = str(body.get("model", ""))
        if path == OLLAMA_PATH:
            return 200, _json({"model": model, "embeddings": vectors.astype(float).tolist()})
        as_base64 = body.get("encoding_format") == "base64"
        data = [
            {"object": "embedding", "index": index,
             "embedding": base64.b64encode(row.astype("<f4").tobytes()).decode("ascii") if as_base64
             else row.astype(float).tolist()}
            for index, row in enumerate(vectors)
        ]
        tokens = sum(len(text.split()) for text in texts)
        return 200, _json({"object": "list", "data": data, "model": model,
                           "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    def _vectors(self, texts: list[str], dims: int) -> np.ndarray:
        if dims != self.dims:  # wrong_dimensions(n)
            return SemanticModel(dims).embed(texts)
        if self.embed is None or not texts:
            return self.model.embed(texts)
        with self._embed_lock:
            vectors = np.asarray(self.embed(list(texts)), dtype=np.float32)
        if vectors.shape != (len(texts), dims):
            raise ValueError(f"embed returned shape {vectors.shape} for {len(texts)} texts of {dims} dims")
        return vectors


def _texts(body: Any) -> list[str] | None:
    if not isinstance(body, dict):
        return None
    value = body.get("input")
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


def _json(data: Any) -> bytes:
    # allow_nan: a NaN must reach the client as the (non-standard) token real servers send
    return json.dumps(data, allow_nan=True).encode("utf-8")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: EmbeddingServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that timed out and hung up is expected here, not an error to print."""


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "archmem-fake-embeddings/1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read counters, not access logs."""

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        owner = self.server.owner
        if path == "/api/version":
            self._send(200, _json({"version": "0.0.0-archmem-fake"}))
        elif path == "/api/tags":
            self._send(200, _json({"models": [{"name": "fake-embed", "model": "fake-embed", "size": 0}]}))
        elif path == "/v1/models":
            self._send(200, _json({"object": "list", "data": [{"id": "fake-embed", "object": "model"}]}))
        elif path == "/":
            self._send(200, f"archmem fake embedding server, {owner.dims} dims".encode())
        else:
            self._send(404, _json({"error": f"no route {path}"}))

    def do_POST(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if path not in (OPENAI_PATH, OLLAMA_PATH):
            self._send(404, _json({"error": f"no route {path}"}))
            return
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            self._send(400, _json({"error": "request body is not JSON"}))
            return
        status, payload = self.server.owner._answer(path, body)
        self._send(status, payload)

    def _send(self, status: int, payload: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

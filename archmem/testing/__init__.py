"""Fakes archmem ships for its own tests and benchmarks (and yours): real parts, not mocks.

``EmbeddingServer`` is a loopback HTTP server speaking the OpenAI and Ollama embedding
protocols, backed by ``SemanticModel``, a deterministic toy model where synonyms meet.
Importing this package loads numpy; nothing on the CLI start-up path imports it.
"""

from archmem.testing.embedding_server import EmbeddingServer
from archmem.testing.semantic_model import SYNONYMS, SemanticModel

__all__ = ["SYNONYMS", "EmbeddingServer", "SemanticModel"]

"""A deterministic embedding provider for tests: hashed character trigrams, L2-normalised."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from memtui.embeddings.base import EmbeddingProvider

DIMS = 64


def trigram_vector(text: str, dims: int = DIMS) -> list[float]:
    """Count each lower-cased character trigram into a hashed bucket, then L2-normalise."""
    padded = f"  {text.lower()} "
    vector = [0.0] * dims
    for i in range(len(padded) - 2):
        digest = hashlib.sha256(padded[i : i + 3].encode("utf-8", "surrogatepass")).digest()
        vector[int.from_bytes(digest[:4], "little") % dims] += 1.0
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector] if norm else vector


class HashedProvider(EmbeddingProvider):
    """`id="hashed"`, model `hashed-trigram-64`; vectors computed from the text, never stored."""

    id = "hashed"
    model = f"hashed-trigram-{DIMS}"

    def __init__(self) -> None:
        self.query_calls: list[str] = []
        self.batch_calls: list[list[str]] = []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        self.query_calls.append(text)
        vector = trigram_vector(text)
        self._remember_dims([vector])
        return vector

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents."""
        self.batch_calls.append(list(texts))
        vectors = [trigram_vector(t) for t in texts]
        self._remember_dims(vectors)
        return vectors

"""The embedding provider interface and OpenClaw-identical provider identity (§2.4, §8.2)."""

from __future__ import annotations

import json
import math
import numbers
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from memtui.errors import ProviderError
from memtui.jscompat import js_stringify, sha256_hex

FTS_ONLY_MODEL = "fts-only"
NO_PROVIDER = "none"
DEFAULT_MAX_INPUT_TOKENS = 8192
# The largest magnitude a float32 holds: vectors are stored as float32 (sqlite-vec), so a finite double beyond it
# would fail every later write of a chunk embedded with it.
FLOAT32_MAX = 3.4028234663852886e38
# A vector whose L2 norm is below this has no direction (OpenClaw's normaliser leaves it as it is), and one whose
# squared norm exceeds FLOAT32_MAX overflows sqlite-vec's float32 arithmetic: either way its cosine distance is
# NULL or NaN, so such a vector is never stored.
MIN_NORM = 1e-10
PROBE_TEXT = "The meeting moved to Thursday afternoon."  # ordinary prose every working model embeds
_NONZERO_DIGIT = re.compile(r"[1-9]")
_OTHER_THAN_DIGITS = re.compile(r"[^\d.,\[\] -]")  # an exponent, NaN, Infinity, null: parsed to be sure


class EmbeddingProvider(ABC):
    """A source of embedding vectors for queries and documents.

    Subclasses set `id` (e.g. "openai", "local") and `model`, and may set
    `max_input_tokens`; `dims` is known after the first embedding at the latest.
    """

    id: str = ""
    model: str = ""
    max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS

    @property
    def dims(self) -> int | None:
        """Vector dimension, or None until the provider has embedded something."""
        return getattr(self, "_dims", None)

    @abstractmethod
    def embed_query(self, text: str) -> list[float]:
        """Embed one search query."""

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents (chunks), one vector per text, in order."""

    def cache_key_data(self) -> dict[str, Any] | None:
        """Ordered data hashed into `providerKey`; None means `{provider: id, model}`."""
        return None

    def warm_up(self) -> None:  # noqa: B027 - optional hook
        """Load now what the first call would (an SDK, a client), so that call does not wait for it."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (HTTP clients, models)."""

    def _remember_dims(self, vectors: Sequence[Sequence[float]]) -> None:
        if vectors and vectors[0]:
            self._dims = len(vectors[0])


def model_name(provider: EmbeddingProvider | None) -> str:
    """`chunks.model` value: the provider's model, or `fts-only`."""
    return provider.model if provider is not None else FTS_ONLY_MODEL


def provider_key(provider: EmbeddingProvider | None) -> str:
    """`computeProviderKey`: sha256 of JSON.stringify of the provider's cache-key data."""
    if provider is None:
        return sha256_hex(js_stringify({"provider": NO_PROVIDER, "model": FTS_ONLY_MODEL}))
    data = provider.cache_key_data()
    if data is not None:
        return sha256_hex(js_stringify(data))
    return sha256_hex(js_stringify({"provider": provider.id, "model": provider.model}))


def sanitize_and_normalize(vector: Sequence[float]) -> list[float]:
    """Replace non-finite values with 0, then L2-normalise (skipped when the norm is below 1e-10)."""
    clean = [float(v) if math.isfinite(v) else 0.0 for v in vector]
    norm = math.sqrt(sum(v * v for v in clean))
    if norm < 1e-10:
        return clean
    return [v / norm for v in clean]


def checked_vectors(provider: str, vectors: Any, count: int, *, finite: bool = True) -> list[list[float]]:
    """`vectors` as lists of floats when they are `count` non-empty lists of (with `finite`: finite, within the
    float32 range) numbers of one size; otherwise a ProviderError saying what the provider sent (nothing
    malformed reaches the index or the cache)."""
    if not isinstance(vectors, list | tuple) or len(vectors) != count:
        got = len(vectors) if isinstance(vectors, list | tuple) else type(vectors).__name__
        raise ProviderError(f"{provider} embeddings failed: {got} vectors returned for {count} inputs",
                            "check memorySearch.remote.baseUrl points at an embeddings API")
    checked: list[list[float]] = []
    for position, vector in enumerate(vectors, start=1):
        if not isinstance(vector, list | tuple) or not vector:
            raise ProviderError(f"{provider} embeddings failed: vector {position} is not a list of numbers")
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in vector):
            raise ProviderError(f"{provider} embeddings failed: vector {position} holds a non-numeric value")
        floats = [_as_float(v) for v in vector]
        if finite and not all(math.isfinite(v) for v in floats):
            raise ProviderError(f"{provider} embeddings failed: vector {position} holds NaN or an infinite value")
        if finite and not all(abs(v) <= FLOAT32_MAX for v in floats):
            raise ProviderError(f"{provider} embeddings failed: vector {position} holds a number too large for "
                                "float32")
        if checked and len(floats) != len(checked[0]):
            raise ProviderError(f"{provider} embeddings failed: vectors of {len(checked[0])} and {len(floats)} "
                                "dimensions in one response")
        checked.append(floats)
    return checked


def _as_float(value: numbers.Real) -> float:
    """`float(value)`, with an integer too large for a double as infinity (not an OverflowError)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def degenerate(vector: Sequence[float]) -> str | None:
    """Why `vector` has no cosine similarity to anything (None: it has one): it is empty, holds NaN or an
    infinite value, or its L2 norm is below `MIN_NORM` (all zeros) or too large for float32 arithmetic."""
    if not vector:
        return "is empty"
    if not all(math.isfinite(v) for v in vector):
        return "holds NaN or an infinite value"
    return degenerate_norm(math.fsum(v * v for v in vector), any(vector))


def degenerate_stored(embedding: str | bytes | None, *, float64: bool = False) -> str | None:
    """`degenerate` for a stored embedding: JSON text (memtui's and OpenClaw 2026.4's `chunks.embedding`), or
    packed little-endian floats (float32: sqlite-vec's BLOB; `float64`: OpenClaw 2026.9's). None for no vector
    at all (empty) and for a vector with a direction; a text that is not a list of numbers is "unreadable"."""
    if embedding is None or embedding in ("", "[]", b""):
        return None
    if isinstance(embedding, bytes | bytearray | memoryview):
        import numpy  # only for stored BLOBs (status, health): a search process need not load it

        values = numpy.frombuffer(bytes(embedding), dtype="<f8" if float64 else "<f4").astype(float)
        if values.size == 0 or not numpy.isfinite(values).all():
            return "holds NaN or an infinite value"
        return degenerate_norm(float(numpy.dot(values, values)), any(values))
    if _NONZERO_DIGIT.search(embedding) is not None and _OTHER_THAN_DIGITS.search(embedding) is None:
        return None  # plain decimals with a digit that is not 0: a direction (the common case, no parse)
    try:
        vector = json.loads(embedding)
    except (ValueError, RecursionError):
        return "unreadable"
    if not isinstance(vector, list) or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in vector):
        return "unreadable"
    return degenerate([_as_float(v) for v in vector])


def degenerate_norm(squares: float, nonzero: bool) -> str | None:
    """`degenerate`'s verdict from a finite vector's squared L2 norm (and whether any value is not 0)."""
    if squares < MIN_NORM * MIN_NORM:
        return "is all zeros" if not nonzero else f"has a norm below {MIN_NORM:g} (no direction)"
    if squares > FLOAT32_MAX:
        return "has a norm too large for float32"
    return None


def embed_texts(provider: EmbeddingProvider, texts: Sequence[str]) -> list[list[float]]:
    """`provider.embed_batch(texts)`, checked (a degenerate vector, see `degenerate`, is refused too, so it
    never reaches the cache or the index); any failure (also an unexpected one) is a one-line ProviderError."""
    checked = _embedded(provider, texts)
    for position, vector in enumerate(checked, start=1):
        if (why := degenerate(vector)) is not None:
            raise ProviderError(f"{provider.id} embeddings failed: vector {position} {why}; it cannot be searched "
                                "by similarity", "check the embedding model and memorySearch.remote settings")
    return checked


def embed_texts_keeping(provider: EmbeddingProvider, texts: Sequence[str]) -> tuple[list[list[float]], dict[int, str]]:
    """`embed_texts`, except that a degenerate vector (see `degenerate`) is not a failure of the whole call: it
    comes back as `[]`, with why by position (0-based). Whether such an answer is the provider failing or its
    deterministic answer for that text is the caller's to tell (`answers_with_direction`)."""
    checked = _embedded(provider, texts)
    refused = {position: why for position, vector in enumerate(checked) if (why := degenerate(vector)) is not None}
    return [[] if position in refused else vector for position, vector in enumerate(checked)], refused


def _embedded(provider: EmbeddingProvider, texts: Sequence[str]) -> list[list[float]]:
    """`provider.embed_batch(texts)`, one vector per text of finite numbers; any failure is a ProviderError."""
    try:
        vectors = provider.embed_batch(texts)
    except ProviderError:
        raise
    except Exception as exc:
        raise ProviderError(f"{provider.id} embeddings failed: {type(exc).__name__}: {exc}") from exc
    return checked_vectors(provider.id, vectors, len(texts))


def answers_with_direction(provider: EmbeddingProvider) -> bool:
    """Whether the provider embeds `PROBE_TEXT` to a vector with a direction: a provider that does, yet answers a
    degenerate vector for a text, gives that text no vector of its own (not an outage)."""
    try:
        embed_texts(provider, [PROBE_TEXT])
    except ProviderError:
        return False
    return True


def embed_query_text(provider: EmbeddingProvider, text: str) -> list[float]:
    """`provider.embed_query(text)`, checked like `embed_texts` except that a degenerate vector is returned (the
    search then skips its vector side, as OpenClaw does for an all-zero one)."""
    try:
        vector = provider.embed_query(text)
    except ProviderError:
        raise
    except Exception as exc:
        raise ProviderError(f"{provider.id} embeddings failed: {type(exc).__name__}: {exc}") from exc
    if isinstance(vector, list | tuple) and not vector:
        return []
    return checked_vectors(provider.id, [vector], 1)[0]

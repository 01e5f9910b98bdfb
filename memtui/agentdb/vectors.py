"""Stored embeddings: decoding a chunk's vector blob and the cosine similarity of two vectors."""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any


def decode_embedding(blob: Any) -> list[float]:
    """`decodeMemoryEmbedding`: IEEE-754 binary64 little-endian; a length that is not a multiple of 8 or a
    non-finite coordinate makes the vector unusable (empty)."""
    if not isinstance(blob, bytes | bytearray | memoryview):
        return []
    data = bytes(blob)
    if len(data) % 8:
        return []
    values = list(struct.unpack(f"<{len(data) // 8}d", data))
    return values if all(math.isfinite(v) for v in values) else []


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """`cosineSimilarity` of embedding-vector.ts (over the shorter length; 0 for an empty or zero vector)."""
    if not a or not b:
        return 0.0
    dot = norm_a = norm_b = 0.0
    for x, y in zip(a, b, strict=False):
        dot += x * y
        norm_a += x * x
        norm_b += y * y
    if norm_a == 0 or norm_b == 0:
        return 0.0
    return dot / (math.sqrt(norm_a) * math.sqrt(norm_b))


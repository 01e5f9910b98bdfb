"""A search candidate as the ranking steps pass it along, with its snippet and bm25 score helpers."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from memtui.jscompat import js_length, js_slice

SNIPPET_MAX_CHARS = 700


@dataclass
class Hit:
    """A chunk while it is being ranked: its scores, exact-path tier, recall metadata and trace so far."""

    id: str
    path: str
    start_line: int
    end_line: int
    source: str
    snippet: str
    score: float = 0.0
    text_score: float = 0.0
    path_score: float = 0.0
    tier: int = 0
    has_body: bool = False
    boost: dict[str, Any] | None = None
    found_by: list[str] = field(default_factory=list)
    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None
    provenance: dict[str, Any] | None = None
    vector_score: float = 0.0
    has_vector: bool = False
    has_keyword: bool = False
    trace: dict[str, Any] = field(default_factory=dict)


def truncate(text: str, limit: int = SNIPPET_MAX_CHARS) -> str:
    """`truncateUtf16Safe`: at most `limit` UTF-16 units, never ending in half a surrogate pair."""
    if js_length(text) <= limit:
        return text
    cut = js_slice(text, 0, limit)
    if cut and "\ud800" <= cut[-1] <= "\udbff":
        cut = cut[:-1]
    return cut


def bm25_score(rank: float | None) -> float:
    """`bm25RankToScore`."""
    if rank is None or not math.isfinite(rank):
        return 1 / 1000
    if rank < 0:
        relevance = -rank
        return relevance / (1 + relevance)
    return 1 / (1 + rank)

"""What a search returns: every candidate with the numbers that decided its fate, and the query-level facts
needed to explain the list (one shape for memtui's index and OpenClaw 2026.9's agent database)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memtui.search.fts_query import KeywordQuery
from memtui.search.ranking import truncate_utf16


@dataclass
class Candidate:
    """One chunk considered by a search, with every number that decided its fate."""

    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    text: str
    vector_score: float | None = None
    text_score: float | None = None
    bm25: float | None = None
    vector_rank: int | None = None
    text_rank: int | None = None
    cosine: float | None = None
    matched_by: list[str] = field(default_factory=list)
    base_score: float = 0.0
    date_boost: float = 0.0
    decay: float = 1.0
    age_days: float | None = None
    score: float = 0.0
    sorted_rank: int = 0
    mmr_rank: int | None = None
    rank: int | None = None
    threshold: str | None = None
    stage: str = "returned"
    openclaw: dict[str, Any] | None = None  # a 2026.9 agent DB hit: importance, triggers, provenance, its trace
    # A hit of memtui's index of a 2026.9 agent: importance?, triggers?, projectKey?, provenance (2026.9.6's order)
    recall: dict[str, Any] | None = None

    @property
    def snippet(self) -> str:
        """The first 700 UTF-16 units of the chunk text."""
        return truncate_utf16(self.text)

    @property
    def key(self) -> str:
        """`source:path:start:end`, used by the relax rule."""
        return f"{self.source}:{self.path}:{self.start_line}:{self.end_line}"

    def trace(self) -> dict[str, Any]:
        """The whole score breakdown as JSON."""
        return {
            "id": self.id,
            "score": self.score,
            "baseScore": self.base_score,
            "dateBoost": self.date_boost,
            "vectorScore": self.vector_score,
            "textScore": self.text_score,
            "bm25": self.bm25,
            "cosine": self.cosine,
            "vectorRank": self.vector_rank,
            "textRank": self.text_rank,
            "matchedBy": list(self.matched_by),
            "decay": self.decay,
            "ageDays": self.age_days,
            "sortedRank": self.sorted_rank,
            "mmrRank": self.mmr_rank,
            "rank": self.rank,
            "threshold": self.threshold,
            "stage": self.stage,
            **({"openclaw": self.openclaw} if self.openclaw is not None else {}),
        }


@dataclass
class SearchOptions:
    """Per-search overrides of the configured query settings."""

    max_results: int | None = None
    min_score: float | None = None
    sources: Sequence[str] | None = None
    candidate_limit: int | None = None  # why-not: every candidate, past maxResults × candidateMultiplier


@dataclass
class SearchResponse:
    """A search's results plus everything needed to explain them."""

    query: str
    profile: str
    mode: str
    results: list[Candidate]
    candidates: list[Candidate]
    keyword: KeywordQuery | None
    keyword_fallback_terms: list[str]
    min_score: float
    max_results: int
    candidate_limit: int
    vector_weight: float
    text_weight: float
    relaxed: bool
    filtered_count: int
    vector_skipped: str | None
    elapsed_ms: float
    text_normalization: str | None = None
    vector_normalization: str | None = None
    threshold_rule: str = "score >= minScore"
    skipped_vectors: int = 0  # stored vectors without a direction the vector side met and left out
    generation: str | None = None  # "2026.9": OpenClaw's agent database answered (`database`), not memtui's index
    database: str | None = None

    @property
    def text_divisor(self) -> float | None:
        """What each keyword hit's |bm25| was divided by for its text score (the memtui profile, hybrid: the best
        hit's, or the floor for a flat list); None when the text score is r/(1+r). Read back from a hit, so it is
        the number the ranking used."""
        if self.text_normalization is None:
            return None
        return next((-c.bm25 / c.text_score for c in self.candidates
                     if c.bm25 is not None and c.bm25 < 0 and c.text_score), None)

    @property
    def vector_divisor(self) -> float | None:
        """The best candidate cosine each cosine was divided by for its vector score (None: the raw cosine)."""
        if self.vector_normalization is None:
            return None
        return next((c.cosine / c.vector_score for c in self.candidates
                     if c.cosine is not None and c.cosine > 0 and c.vector_score), None)

    def explain(self) -> dict[str, Any]:
        """Query-level explanation: compiled FTS query, dropped terms, thresholds, counts."""
        return {
            "profile": self.profile,
            "mode": self.mode,
            "ftsQuery": self.keyword.match if self.keyword else None,
            "ftsOperator": self.keyword.operator if self.keyword else None,
            "terms": list(self.keyword.terms) if self.keyword else [],
            "droppedTerms": list(self.keyword.dropped) if self.keyword else [],
            "keywordFallbackTerms": self.keyword_fallback_terms,
            "minScore": self.min_score,
            "maxResults": self.max_results,
            "candidateLimit": self.candidate_limit,
            "vectorWeight": self.vector_weight,
            "textWeight": self.text_weight,
            "relaxed": self.relaxed,
            "filteredByMinScore": self.filtered_count,
            "candidates": len(self.candidates),
            "vectorSkipped": self.vector_skipped,
            "skippedVectors": self.skipped_vectors,
            "textNormalization": self.text_normalization,
            "textDivisor": self.text_divisor,
            "vectorNormalization": self.vector_normalization,
            "vectorDivisor": self.vector_divisor,
            "thresholdRule": self.threshold_rule,
            **({"generation": self.generation, "database": self.database} if self.generation else {}),
            "searchMs": round(self.elapsed_ms, 2),
        }

"""Why (not): where one chunk ranks for a search, and which stage kept it out of the results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np

from memtui.errors import PathError
from memtui.index.store import ChunkRow, Store
from memtui.search.fts_query import stemmed_match
from memtui.search.ranking import bm25_rank_to_score, decay_multiplier, item_age_days
from memtui.search.response import Candidate, SearchResponse
from memtui.settings.config import MemorySearchSettings


class IndexView(Protocol):
    """What why-not reads of the facade: its store, settings, file mtimes and query embedding."""

    store: Store
    settings: MemorySearchSettings

    def file_mtimes(self) -> dict[str, float]: ...

    def embed_query(self, query: str) -> list[float] | None: ...


STAGES = ("returned", "cut-by-max-results", "below-min-score", "not-a-candidate")


@dataclass
class WhyNot:
    """The fate of one chunk for one search, with the numbers and one sentence per stage."""

    chunk_id: str
    path: str
    start_line: int
    end_line: int
    stage: str
    rank: int | None = None
    sorted_rank: int | None = None
    mmr_rank: int | None = None
    keyword_candidate: bool = False
    vector_candidate: bool = False
    bm25: float | None = None
    text_score: float | None = None
    vector_score: float | None = None
    base_score: float | None = None
    decay: float = 1.0
    score: float | None = None
    reasons: list[str] = field(default_factory=list)

    @property
    def headline(self) -> str:
        """One line: returned at rank N, or the stage that dropped the chunk."""
        if self.stage == "returned":
            return f"returned at rank {self.rank}"
        return {
            "cut-by-max-results": "cut by maxResults",
            "below-min-score": "below minScore",
            "not-a-candidate": "not a keyword candidate and not a vector candidate",
        }.get(self.stage, self.stage)

    def to_json(self) -> dict[str, Any]:
        """camelCase shape for `--json` output."""
        return {
            "chunkId": self.chunk_id,
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "stage": self.stage,
            "headline": self.headline,
            "rank": self.rank,
            "sortedRank": self.sorted_rank,
            "mmrRank": self.mmr_rank,
            "keywordCandidate": self.keyword_candidate,
            "vectorCandidate": self.vector_candidate,
            "bm25": self.bm25,
            "textScore": self.text_score,
            "vectorScore": self.vector_score,
            "baseScore": self.base_score,
            "decay": self.decay,
            "score": self.score,
            "reasons": list(self.reasons),
        }


def chunk_at(manager: IndexView, path: str, line: int) -> ChunkRow:
    """The indexed chunk of `path` that covers `line` (the first one when chunks overlap)."""
    rows = manager.store.chunks_for_path(path)
    if not rows:
        raise PathError(f"{path} is not in the index; check the path or re-index")
    for row in rows:
        if row.start_line <= line <= row.end_line:
            return row
    last = rows[-1].end_line
    raise PathError(f"{path} has no chunk at line {line}; indexed lines are 1-{last}")


def parse_location(text: str) -> tuple[str, int]:
    """`path:line` or `path#Lline` → (path, line)."""
    value = text.strip()
    for separator in ("#L", ":"):
        head, found, tail = value.rpartition(separator)
        if found and head and tail.split("-")[0].strip().isdigit():
            return head, int(tail.split("-")[0])
    raise PathError(f"{text!r} is not a location; use path:line, e.g. memory/2026-04-20.md:12")


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    length = min(len(a), len(b))
    if not length:
        return 0.0
    left = np.asarray(a[:length], dtype=np.float64)
    right = np.asarray(b[:length], dtype=np.float64)
    denominator = float(np.linalg.norm(left)) * float(np.linalg.norm(right))
    return float(left @ right) / denominator if denominator else 0.0


def _explain_candidate(candidate: Candidate, response: SearchResponse) -> WhyNot:
    why = WhyNot(
        chunk_id=candidate.id, path=candidate.path, start_line=candidate.start_line, end_line=candidate.end_line,
        stage=candidate.stage, rank=candidate.rank, sorted_rank=candidate.sorted_rank, mmr_rank=candidate.mmr_rank,
        keyword_candidate=candidate.text_rank is not None, vector_candidate=candidate.vector_rank is not None,
        bm25=candidate.bm25, text_score=candidate.text_score, vector_score=candidate.vector_score,
        base_score=candidate.base_score, decay=candidate.decay, score=candidate.score,
    )
    reasons = why.reasons
    if candidate.text_rank is not None:
        reasons.append(f"keyword candidate #{candidate.text_rank} (bm25 {(candidate.bm25 or 0):.4f}, text score "
                       f"{(candidate.text_score or 0):.3f})")
    else:
        reasons.append("not a keyword candidate")
    if response.mode != "fts-only":
        if candidate.vector_rank is not None:
            cosine = candidate.cosine if candidate.cosine is not None else candidate.vector_score
            reasons.append(f"vector candidate #{candidate.vector_rank} (cosine {(cosine or 0):.3f})")
        else:
            reasons.append(f"not among the top {response.candidate_limit} vector candidates")
    if candidate.decay < 1.0:
        overtaken = sum(1 for other in response.candidates
                        if other.id != candidate.id and candidate.score < other.score <= candidate.base_score)
        reasons.append(f"temporal decay ×{candidate.decay:.3f} (age {candidate.age_days or 0:.1f} d) lowered "
                       f"{candidate.base_score:.3f} → {candidate.score:.3f}"
                       + (f", letting {overtaken} chunk(s) pass it" if overtaken else ""))
    if candidate.mmr_rank is not None and candidate.mmr_rank > candidate.sorted_rank:
        reasons.append(f"MMR pushed it down from #{candidate.sorted_rank} to #{candidate.mmr_rank}")
    if candidate.stage == "returned":
        reasons.append(f"returned at rank {candidate.rank} ({candidate.threshold})")
    elif candidate.stage == "cut-by-max-results":
        position = response.candidates.index(candidate) + 1
        reasons.append(f"passed the threshold but sits at #{position}; maxResults is {response.max_results}")
    elif candidate.stage == "below-min-score" and response.threshold_rule != "score >= minScore":
        keyword = bm25_rank_to_score(candidate.bm25) if candidate.bm25 is not None else 0.0
        reasons.append(f"neither its keyword score {keyword:.3f} nor its cosine {(candidate.cosine or 0):.3f} "
                       f"reaches minScore (both < minScore {response.min_score:.3f})")
    elif candidate.stage == "below-min-score":
        reasons.append(f"score {candidate.score:.3f} < minScore {response.min_score:.3f}")
    return why


def explain_chunk(manager: IndexView, response: SearchResponse, chunk_id: str, *,
                  settings: MemorySearchSettings | None = None, now: datetime | None = None,
                  query_vector: Sequence[float] | None = None) -> WhyNot:
    """Where `chunk_id` stands in `response`: its stage, its scores, and why it was dropped."""
    for candidate in response.candidates:
        if candidate.id == chunk_id:
            return _explain_candidate(candidate, response)
    rows = manager.store.chunks_by_ids([chunk_id])
    if chunk_id not in rows:
        raise PathError(f"chunk {chunk_id} is not in the index; re-index and try again")
    row = rows[chunk_id]
    settings = settings or manager.settings
    why = WhyNot(chunk_id=row.id, path=row.path, start_line=row.start_line, end_line=row.end_line,
                 stage="not-a-candidate")
    reasons = why.reasons
    match = response.keyword.match if response.keyword else None
    stemmed = response.profile == "memtui" and manager.store.has_stemmed_index
    if stemmed and response.keyword is not None:
        match = stemmed_match(response.keyword.terms)
    bm25 = manager.store.bm25_for_ids(match, [chunk_id], stemmed=stemmed).get(chunk_id) if match else None
    if bm25 is None:
        reasons.append(f"not a keyword candidate: does not match the keyword query {match or '(none)'}")
    else:
        why.bm25, why.text_score = bm25, bm25_rank_to_score(bm25)
        reasons.append(f"not a keyword candidate: matches (bm25 {bm25:.4f}, text score {why.text_score:.3f}) "
                       f"but ranks below the top {response.candidate_limit} keyword hits")
    if response.mode != "fts-only":
        vector = list(query_vector) if query_vector is not None else manager.embed_query(response.query)
        stored = manager.store.vectors_for_ids([chunk_id]).get(chunk_id)
        if vector is None or stored is None:
            reasons.append("not a vector candidate: the chunk has no stored embedding")
        else:
            why.vector_score = _cosine(vector, stored)
            floor = min((c.vector_score for c in response.candidates if c.vector_score is not None), default=None)
            reasons.append(f"not a vector candidate: cosine {why.vector_score:.3f}"
                           + (f" < {floor:.3f}, the weakest of the top {response.candidate_limit}"
                              if floor is not None else ""))
    if response.mode == "hybrid":
        why.base_score = response.vector_weight * (why.vector_score or 0.0) + response.text_weight * (
            why.text_score or 0.0)
    elif response.mode == "vector-only":
        why.base_score = why.vector_score or 0.0
    else:
        why.base_score = why.text_score or 0.0
    decay = settings.query.hybrid.temporal_decay
    if decay.enabled:
        mtime = manager.file_mtimes().get(row.path)
        age = item_age_days(row.path, row.source, now or datetime.now(UTC), mtime)
        why.decay = 1.0 if age is None else decay_multiplier(age, decay.half_life_days)
    why.score = why.base_score * why.decay
    would_rank = 1 + sum(1 for c in response.candidates if c.score > why.score)
    reasons.append(f"would score {why.score:.3f} (rank #{would_rank} of {len(response.candidates) + 1}) "
                   f"against minScore {response.min_score:.3f}")
    return why

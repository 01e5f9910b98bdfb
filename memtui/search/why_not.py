"""Why (not): where one chunk ranks for a search, and which stage kept it out of the results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from memtui.errors import PathError
from memtui.index.store import ChunkRow, Store
from memtui.search.engine import CLASSIC_PROFILE
from memtui.search.formula import formula_text
from memtui.search.ranking import bm25_rank_to_score
from memtui.search.response import Candidate, SearchResponse
from memtui.settings.config import MemorySearchSettings


class IndexView(Protocol):
    """What why-not reads of the facade: its store, settings, file mtimes and query embedding."""

    store: Store
    settings: MemorySearchSettings

    def file_mtimes(self) -> dict[str, float]: ...

    def embed_query(self, query: str) -> list[float] | None: ...

    def search(self, query: str, *, max_results: int | None = None, min_score: float | None = None,
               sources: list[str] | None = None, profile: str | None = None,
               settings: MemorySearchSettings | None = None, now: datetime | None = None,
               query_vector: list[float] | None = None, candidate_limit: int | None = None) -> SearchResponse: ...


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
    reasons.append(formula_text(candidate, response))
    last = response.results[-1] if response.results else None
    if candidate.stage == "returned":
        reasons.append(f"returned at rank {candidate.rank} ({candidate.threshold})")
    elif candidate.stage == "cut-by-max-results":
        position = response.candidates.index(candidate) + 1
        margin = f": score {candidate.score:.4f} vs {last.score:.4f} of #{last.rank}, the last returned (short by " \
                 f"{last.score - candidate.score:.4f})" if last is not None else ""
        reasons.append(f"passed the threshold but sits at #{position}; maxResults is {response.max_results}{margin}")
    elif candidate.stage == "below-min-score" and response.threshold_rule != "score >= minScore":
        keyword = bm25_rank_to_score(candidate.bm25) if candidate.bm25 is not None else 0.0
        reasons.append(f"neither its keyword score {keyword:.3f} nor its cosine {(candidate.cosine or 0):.3f} "
                       f"reaches minScore (both < minScore {response.min_score:.3f})")
    elif candidate.stage == "below-min-score":
        reasons.append(f"score {candidate.score:.4f} < minScore {response.min_score:.4f} (short by "
                       f"{response.min_score - candidate.score:.4f})")
    return why


def explain_chunk(manager: IndexView, response: SearchResponse, chunk_id: str, *,
                  settings: MemorySearchSettings | None = None, now: datetime | None = None,
                  query_vector: Sequence[float] | None = None, sources: Sequence[str] | None = None) -> WhyNot:
    """Where `chunk_id` stands in `response`: its stage, its scores, and why it was dropped. A chunk that was not
    a candidate is scored by the ranking code itself: the same search with every chunk a candidate."""
    if response.generation is not None:
        return explain_agent_db(manager, response, lambda c: c.id == chunk_id, chunk_id, now=now,
                                query_vector=query_vector)
    for candidate in response.candidates:
        if candidate.id == chunk_id:
            return _explain_candidate(candidate, response)
    rows = manager.store.chunks_by_ids([chunk_id])
    if chunk_id not in rows:
        raise PathError(f"chunk {chunk_id} is not in the index; re-index and try again")
    row = rows[chunk_id]
    wide = manager.search(response.query, max_results=response.max_results, min_score=response.min_score,
                          sources=list(sources) if sources else None,
                          profile=CLASSIC_PROFILE if response.profile == "openclaw" else response.profile,
                          settings=settings, now=now, candidate_limit=max(1, manager.store.chunk_count()),
                          query_vector=list(query_vector) if query_vector is not None else None)
    found = next((c for c in wide.candidates if c.id == chunk_id), None)
    why = WhyNot(chunk_id=row.id, path=row.path, start_line=row.start_line, end_line=row.end_line,
                 stage="not-a-candidate")
    reasons = why.reasons
    limit = response.candidate_limit
    keyword_matches = sum(1 for c in wide.candidates if c.text_rank is not None)
    if found is None or found.text_rank is None:
        match = response.keyword.match if response.keyword else None
        reasons.append(f"not a keyword candidate: does not match the keyword query {match or '(none)'}")
    else:
        reasons.append(f"not a keyword candidate: matches the keyword query at rank {found.text_rank} of "
                       f"{keyword_matches} (bm25 {found.bm25 or 0:.4f}), outside the keyword limit {limit}")
    if response.mode != "fts-only":
        if found is None or found.vector_rank is None:
            reasons.append("not a vector candidate: the chunk has no usable stored embedding")
        else:
            reasons.append(f"not a vector candidate: cosine rank {found.vector_rank} (cosine "
                           f"{found.cosine if found.cosine is not None else found.vector_score or 0:.4f}), "
                           f"outside the top {limit}")
    if found is None:
        return why
    why.keyword_candidate, why.vector_candidate = False, False
    why.bm25, why.text_score, why.vector_score = found.bm25, found.text_score, found.vector_score
    why.base_score, why.decay, why.score = found.base_score, found.decay, found.score
    would_rank = 1 + sum(1 for c in response.candidates if c.score > found.score)
    reasons.append(f"as a candidate it would score {formula_text(found, wide)}: rank #{would_rank} of "
                   f"{len(response.candidates) + 1}, against minScore {response.min_score:.4f}")
    return why


def explain_agent_db(manager: IndexView, response: SearchResponse, wanted: Callable[[Candidate], bool], where: str,
                     *, now: datetime | None = None, query_vector: Sequence[float] | None = None) -> WhyNot:
    """Why-not for a search OpenClaw 2026.9's agent database answered: the same search with maxResults 200 and
    minScore 0 (2026.9.6's whole candidate universe), then where the chunk `wanted` picks stands in it."""
    wide = manager.search(response.query, max_results=200, min_score=0.0, profile="openclaw", now=now,
                          query_vector=list(query_vector) if query_vector is not None else None)
    found = next((c for c in wide.results if wanted(c)), None)
    if found is None:
        path, _, line = where.rpartition(":")
        why = WhyNot(chunk_id="", path=path or where, start_line=int(line or 0) if line.isdigit() else 0,
                     end_line=int(line or 0) if line.isdigit() else 0, stage="not-a-candidate")
        why.reasons.append(f"{where} is not among the 200 chunks 2026.9.6 ranks for this query: no keyword, path "
                           "or vector match (or its project annotation excludes it)")
        return why
    returned = next((c for c in response.results if c.id == found.id), None)
    last = response.results[-1] if response.results else None
    stage = "returned" if returned is not None else (
        "below-min-score" if found.score < response.min_score else "cut-by-max-results")
    why = WhyNot(chunk_id=found.id, path=found.path, start_line=found.start_line, end_line=found.end_line,
                 stage=stage, rank=returned.rank if returned else None, sorted_rank=found.rank,
                 keyword_candidate=bool(found.matched_by), vector_candidate=found.vector_score is not None,
                 text_score=found.text_score, vector_score=found.vector_score, base_score=found.base_score,
                 decay=found.decay, score=found.score)
    why.reasons.append(f"ranked #{found.rank} of {len(wide.results)} by 2026.9.6's rules: {formula_text(found, wide)}")
    if stage == "returned":
        why.reasons.append(f"returned at rank {why.rank} of {len(response.results)}")
    elif stage == "below-min-score":
        why.reasons.append(f"score {found.score:.4f} < minScore {response.min_score:.4f} (short by "
                           f"{response.min_score - found.score:.4f}); 2026.9.6 keeps hits below it only when none "
                           "reaches it")
    else:
        margin = f": {found.score:.4f} vs {last.score:.4f} of #{last.rank}, the last returned (short by " \
                 f"{last.score - found.score:.4f})" if last is not None else ""
        why.reasons.append(f"cut by maxResults {response.max_results}{margin}")
    return why

"""Why (not): where one chunk ranks for a search, and which stage kept it out of the results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from memtui.errors import PathError
from memtui.index.store import ChunkRow, Store
from memtui.search.engine import CLASSIC_PROFILE, FLAT_BM25
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
    mode: str = "hybrid"

    @property
    def headline(self) -> str:
        """One line: returned at rank N, or the stage that dropped the chunk."""
        if self.stage == "returned":
            return f"returned at rank {self.rank}"
        return {
            "cut-by-max-results": "cut by maxResults",
            "below-min-score": "below minScore",
            "not-a-candidate": "not a keyword candidate" if self.mode == "fts-only" else
            "not a keyword candidate and not a vector candidate",
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


def chunk_at(manager: IndexView, path: str, line: int, response: SearchResponse | None = None) -> ChunkRow:
    """The indexed chunk of `path` that covers `line`: of overlapping ones, the best placed in `response` (else
    the first)."""
    covering = chunks_at(manager, path, line)
    if response is not None:
        placed = {c.id: position for position, c in enumerate(response.candidates)}
        covering.sort(key=lambda row: placed.get(row.id, len(placed)))
    return covering[0]


def parse_location(text: str) -> tuple[str, int]:
    """`path:line` or `path#Lline` → (path, line)."""
    value = text.strip()
    for separator in ("#L", ":"):
        head, found, tail = value.rpartition(separator)
        if found and head and tail.split("-")[0].strip().isdigit():
            return head, int(tail.split("-")[0])
    raise PathError(f"{text!r} is not a location; use path:line, e.g. memory/2026-04-20.md:12")


def _keyword_reason(candidate: Candidate | None, found: Candidate | None, response: SearchResponse,
                    wide: SearchResponse | None) -> str:
    shown = found or candidate
    words = [t.removeprefix("keyword:") for t in (shown.matched_by if shown else []) if t.startswith("keyword:")]
    terms = f"; found by the keyword {', '.join(words)}" if words else ""
    if candidate is not None and candidate.text_rank is not None:
        text = (f"keyword candidate #{candidate.text_rank} of {response.candidate_limit} (bm25 "
                f"{candidate.bm25 or 0:.4f}, text score {candidate.text_score or 0:.3f})")
    elif found is None or found.text_rank is None:
        match = response.keyword.match if response.keyword else None
        return f"not a keyword candidate: does not match the keyword query {match or '(none)'}"
    else:
        matches = sum(1 for c in wide.candidates if c.text_rank is not None) if wide is not None else 0
        text = (f"not a keyword candidate: matches the keyword query at rank {found.text_rank} of {matches} (bm25 "
                f"{found.bm25 or 0:.4f}), outside the keyword limit {response.candidate_limit} (maxResults × "
                "candidateMultiplier)")
    bm25 = (candidate if candidate is not None and candidate.text_rank is not None else found)
    if bm25 is not None and bm25.bm25 is not None and abs(bm25.bm25) < FLAT_BM25:
        text += " — bm25 ≈ 0: its matched words are in nearly every chunk, so the match says almost nothing"
    return text + terms


def _vector_reason(candidate: Candidate | None, found: Candidate | None, response: SearchResponse) -> str:
    if candidate is not None and candidate.vector_rank is not None:
        cosine = candidate.cosine if candidate.cosine is not None else candidate.vector_score
        return f"vector candidate #{candidate.vector_rank} of {response.candidate_limit} (cosine {cosine or 0:.4f})"
    if found is None or found.vector_rank is None:
        return "not a vector candidate: the chunk has no usable stored embedding"
    cosine = found.cosine if found.cosine is not None else found.vector_score
    text = (f"not a vector candidate: its cosine {cosine or 0:.4f} ranks #{found.vector_rank} of all chunks, "
            f"outside the top {response.candidate_limit}")
    if response.profile == "memtui" and candidate is not None:
        text += " (the memtui profile scores a keyword candidate with its cosine anyway)"
    return text


def _stage_reason(candidate: Candidate, response: SearchResponse) -> str:
    last = response.results[-1] if response.results else None
    if candidate.stage == "returned":
        return f"returned at rank {candidate.rank} ({candidate.threshold})"
    if candidate.stage == "cut-by-max-results":
        pool = [c for c in response.candidates if c.stage != "below-min-score"]
        position = pool.index(candidate) + 1
        if response.relaxed:
            head = (f"no hit reached minScore {response.min_score:g}, so the keyword hits were kept instead "
                    f"(OpenClaw's relax rule); among those {len(pool)} it sits at #{position}")
        else:
            head = f"passed the threshold but sits at #{position} of the {len(pool)} that did"
        if last is None:
            return f"{head}; maxResults is {response.max_results}"
        if abs(last.score - candidate.score) < 5e-5:
            return (f"{head}; maxResults is {response.max_results}: tied with #{last.rank} at {last.score:.4f}, "
                    "the list order put it after")
        return (f"{head}; maxResults is {response.max_results}: score {candidate.score:.4f} vs {last.score:.4f} of "
                f"#{last.rank}, the last returned (short by {last.score - candidate.score:.4f})")
    by_score = 1 + sum(1 for c in response.candidates if c.score > candidate.score)
    within = "within" if by_score <= response.max_results else "still past"
    rank = f"; by score it is #{by_score} of {len(response.candidates)}: {within} maxResults {response.max_results}"
    if response.relaxed and candidate.text_rank is None:
        return (f"no hit reached minScore {response.min_score:g}: the relax rule then keeps only keyword "
                "candidates, and it is not one")
    if response.threshold_rule != "score >= minScore":
        keyword = bm25_rank_to_score(candidate.bm25) if candidate.bm25 is not None else 0.0
        return (f"neither its keyword score {keyword:.3f} nor its cosine {candidate.cosine or 0:.3f} reaches "
                f"minScore (both < minScore {response.min_score:.3f}){rank}")
    return (f"score {candidate.score:.4f} < minScore {response.min_score:.4f} (short by "
            f"{response.min_score - candidate.score:.4f}){rank}")


def _explain(row: ChunkRow, candidate: Candidate | None, found: Candidate | None, response: SearchResponse,
             wide: SearchResponse | None) -> WhyNot:
    """One chunk's fate: `candidate` is it in `response` (None: not a candidate), `found` in the same search with
    every chunk a candidate (`wide`, run when a side did not have it)."""
    shown = candidate or found
    why = WhyNot(chunk_id=row.id, path=row.path, start_line=row.start_line, end_line=row.end_line,
                 stage=candidate.stage if candidate is not None else "not-a-candidate", mode=response.mode)
    if shown is not None:
        why.rank, why.sorted_rank, why.mmr_rank = (candidate.rank, candidate.sorted_rank, candidate.mmr_rank) \
            if candidate is not None else (None, None, None)
        why.keyword_candidate = candidate is not None and candidate.text_rank is not None
        why.vector_candidate = candidate is not None and candidate.vector_rank is not None
        why.bm25, why.text_score, why.vector_score = shown.bm25, shown.text_score, shown.vector_score
        why.base_score, why.decay, why.score = shown.base_score, shown.decay, shown.score
    reasons = why.reasons
    reasons.append(_keyword_reason(candidate, found, response, wide))
    if response.mode != "fts-only":
        reasons.append(_vector_reason(candidate, found, response))
    if shown is None:
        return why
    if shown.decay < 1.0:
        pool = response.candidates if candidate is not None else (wide.candidates if wide else [])
        overtaken = sum(1 for other in pool if other.id != shown.id and shown.score < other.score <= shown.base_score)
        reasons.append(f"temporal decay ×{shown.decay:.3f} (age {shown.age_days or 0:.1f} d) lowered "
                       f"{shown.base_score:.3f} → {shown.score:.3f}"
                       + (f", letting {overtaken} chunk(s) pass it" if overtaken else ""))
    if candidate is not None and candidate.mmr_rank is not None and candidate.mmr_rank > candidate.sorted_rank:
        reasons.append(f"MMR pushed it down from #{candidate.sorted_rank} to #{candidate.mmr_rank}")
    if candidate is not None:
        reasons.append(formula_text(candidate, response))
        reasons.append(_stage_reason(candidate, response))
        if found is not None and wide is not None and abs(found.score - candidate.score) > 5e-5:
            reasons.append(_wide_reason(found, wide, response, "with the side it missed"))
        return why
    assert wide is not None and found is not None
    reasons.append(_wide_reason(found, wide, response, "as a candidate"))
    return why


def _wide_reason(found: Candidate, wide: SearchResponse, response: SearchResponse, how: str) -> str:
    """What the same search with every chunk a candidate makes of the chunk: its score and where that leaves it."""
    by_score = 1 + sum(1 for c in wide.candidates if c.score > found.score)
    text = f"{how} it would score {formula_text(found, wide)}: #{by_score} of {len(wide.candidates)} by score"
    if found.stage == "returned":
        return (f"{text}, returned at rank {found.rank}: the candidate limit {response.candidate_limit} alone kept "
                "it out (raise candidateMultiplier or maxResults)")
    if found.stage == "below-min-score":
        return f"{text}, still below minScore {response.min_score:g}"
    last = wide.results[-1] if wide.results else None
    short = f" (short by {last.score - found.score:.4f} of #{last.rank})" if last is not None else ""
    return f"{text}, still cut by maxResults {response.max_results}{short}"


def chunks_at(manager: IndexView, path: str, line: int) -> list[ChunkRow]:
    """Every indexed chunk of `path` that covers `line` (overlapping chunks share lines)."""
    rows = manager.store.chunks_for_path(path)
    if not rows:
        raise PathError(f"{path} is not in the index; check the path or re-index")
    covering = [row for row in rows if row.start_line <= line <= row.end_line]
    if not covering:
        raise PathError(f"{path} has no chunk at line {line}; indexed lines are 1-{rows[-1].end_line}")
    return covering


def explain_chunk(manager: IndexView, response: SearchResponse, chunk_id: str, *,
                  settings: MemorySearchSettings | None = None, now: datetime | None = None,
                  query_vector: Sequence[float] | None = None, sources: Sequence[str] | None = None) -> WhyNot:
    """Where `chunk_id` stands in `response`: its stage, its scores, and why it was dropped. A side that did not
    have the chunk is explained by the ranking code itself: the same search with every chunk a candidate."""
    if response.generation is not None:
        return explain_agent_db(manager, response, lambda c: c.id == chunk_id, chunk_id, now=now,
                                query_vector=query_vector)
    rows = manager.store.chunks_by_ids([chunk_id])
    if chunk_id not in rows:
        raise PathError(f"chunk {chunk_id} is not in the index; re-index and try again")
    candidate = next((c for c in response.candidates if c.id == chunk_id), None)
    complete = candidate is not None and candidate.text_rank is not None and (
        response.mode == "fts-only" or candidate.vector_rank is not None)
    wide = None if complete else manager.search(
        response.query, max_results=response.max_results, min_score=response.min_score,
        sources=list(sources) if sources else None,
        profile=CLASSIC_PROFILE if response.profile == "openclaw" else response.profile, settings=settings,
        now=now, candidate_limit=max(1, manager.store.chunk_count()),
        query_vector=list(query_vector) if query_vector is not None else None)
    found = next((c for c in wide.candidates if c.id == chunk_id), None) if wide is not None else None
    return _explain(rows[chunk_id], candidate, found, response, wide)


def _agent_db_chunk_exists(database: Path, path: str, line: int) -> None:
    """Raise PathError, as `chunks_at` does for memtui's index, when the agent database has no chunk of `path` at
    `line` (the file is not indexed, or not that far)."""
    from memtui.agentdb.index_summary import chunk_ranges

    ranges = chunk_ranges(database, path)
    if not ranges:
        raise PathError(f"{path} is not in OpenClaw's index (the agent database): no such file is indexed; check "
                        "the path (a new file is indexed at OpenClaw's next sync)")
    if not any(start <= line <= end for start, end in ranges):
        raise PathError(f"{path} has no chunk at line {line} in OpenClaw's index; indexed lines are "
                        f"{ranges[0][0]}-{max(end for _start, end in ranges)}")


def explain_agent_db(manager: IndexView, response: SearchResponse, wanted: Callable[[Candidate], bool], where: str,
                     *, now: datetime | None = None, query_vector: Sequence[float] | None = None) -> WhyNot:
    """Why-not for a search OpenClaw 2026.9's agent database answered: the same search with maxResults 200 and
    minScore 0 (2026.9.6's whole candidate universe), then where the chunk `wanted` picks stands in it."""
    wide = manager.search(response.query, max_results=200, min_score=0.0, profile="openclaw", now=now,
                          query_vector=list(query_vector) if query_vector is not None else None)
    found = next((c for c in wide.results if wanted(c)), None)
    if found is None:
        path, _, line = where.rpartition(":")
        if response.database is not None and path and line.isdigit():
            _agent_db_chunk_exists(Path(response.database), path, int(line))
        why = WhyNot(chunk_id="", path=path or where, start_line=int(line or 0) if line.isdigit() else 0,
                     end_line=int(line or 0) if line.isdigit() else 0, stage="not-a-candidate", mode=response.mode)
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

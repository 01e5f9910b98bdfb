"""Profile `openclaw` on an OpenClaw 2026.9 agent: OpenClaw's own index (the agent database), ranked as 2026.9.6
ranks it (`memtui.agentdb.search`), as the `SearchResponse` every surface shows — the CLI, the TUI, the MCP server
and `memtui eval` give the same list for the same query.

Each hit's 2026.9 trace is kept on the candidate (`Candidate.openclaw`) with the formula its printed terms make:
`formula_terms` recomputes the final score from them, so what is shown adds up.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.agentdb.index_summary import AgentIndexSummary, read_agent_index
from memtui.search.response import Candidate, SearchResponse

if TYPE_CHECKING:  # the 2026.9 ranking (and `regex`) is loaded by the first search of an agent database
    from memtui.agentdb.search import AgentHit

GENERATION = "2026.9"
VECTOR_WEIGHT, TEXT_WEIGHT = 0.7, 0.3
NOT_INDEXED = ("OpenClaw 2026.9 has not indexed this agent yet; ranking memtui's index with the 2026.4 rules "
               "(openclaw-2026.4)")


def _stamp(path: Path) -> tuple[int, int, int, int]:
    """What changes when OpenClaw writes the database: its size and mtime, and its -wal's."""
    stamps = []
    for name in (str(path), f"{path}-wal"):
        try:
            st = os.stat(name)
        except OSError:
            stamps.extend((-1, -1))
            continue
        stamps.extend((st.st_mtime_ns, st.st_size))
    return stamps[0], stamps[1], stamps[2], stamps[3]


@dataclass
class AgentDatabase:
    """The agent database of one 2026.9 agent, its index summary read again only when the file changed."""

    path: Path
    _stamp: tuple[int, int, int, int] | None = None
    _summary: AgentIndexSummary | None = None

    def summary(self) -> AgentIndexSummary:
        """The index summary (StoreError naming the file when it cannot be read)."""
        stamp = _stamp(self.path)
        if self._summary is None or stamp != self._stamp:
            self._summary, self._stamp = read_agent_index(self.path), stamp
        return self._summary

    def indexed(self) -> AgentIndexSummary | None:
        """The summary when OpenClaw has indexed this agent (chunks in the database), else None."""
        if not self.path.is_file():
            return None
        summary = self.summary()
        return summary if summary.chunks > 0 else None


def candidate_limit(max_results: int) -> int:
    """How many keyword and vector candidates 2026.9.6 fetches for a search of `max_results`."""
    from memtui.agentdb.search import CANDIDATE_MULTIPLIER, CANDIDATE_UNIVERSE

    return min(200, max(1, math.floor(max(CANDIDATE_UNIVERSE, max_results) * CANDIDATE_MULTIPLIER)))


def search_response(database: AgentDatabase, query: str, *, max_results: int | None, min_score: float | None,
                    query_vector: Sequence[float] | None, vector_skipped: str | None, workspace_dir: Path,
                    now: datetime | None = None) -> SearchResponse:
    """Search the agent database as 2026.9.6 does (hybrid with `query_vector`, else keyword-only) and describe it
    as a `SearchResponse`; `vector_skipped` says why there is no query vector when the index has vectors."""
    from memtui.agentdb.search import DEFAULT_MAX_RESULTS, DEFAULT_MIN_SCORE, search_agent_db

    started = time.perf_counter()
    limit = DEFAULT_MAX_RESULTS if max_results is None else max_results
    threshold = DEFAULT_MIN_SCORE if min_score is None else min_score
    now_ms = int((now.timestamp() if now is not None else time.time()) * 1000)
    hits = search_agent_db(database.path, query, max_results=limit, min_score=threshold, now_ms=now_ms,
                           query_vector=query_vector, workspace_dir=workspace_dir)
    hybrid = query_vector is not None
    results = [_candidate(hit, position) for position, hit in enumerate(hits, start=1)]
    terms = list(hits[0].trace.get("fallbackTerms", [])) if hits else []
    return SearchResponse(
        query=query, profile="openclaw", mode="hybrid" if hybrid else "fts-only", results=results,
        candidates=list(results), keyword=None, keyword_fallback_terms=terms, min_score=threshold,
        max_results=limit, candidate_limit=candidate_limit(limit),
        vector_weight=VECTOR_WEIGHT if hybrid else 0.0, text_weight=TEXT_WEIGHT if hybrid else 1.0,
        relaxed=False, filtered_count=0, vector_skipped=None if hybrid else vector_skipped,
        elapsed_ms=(time.perf_counter() - started) * 1000,
        threshold_rule="score >= minScore, else every score >= 0 (2026.9.6)",
        generation=GENERATION, database=str(database.path))


def _candidate(hit: AgentHit, position: int) -> Candidate:
    decay = hit.trace.get("decay") or {}
    return Candidate(
        id=hit.chunk_id, path=hit.path, source=hit.source, start_line=hit.start_line, end_line=hit.end_line,
        text=hit.snippet, vector_score=hit.vector_score, text_score=hit.text_score,
        matched_by=[str(term) for term in hit.trace.get("foundBy", [])],
        base_score=float(hit.trace.get("preDecayScore") or 0.0), decay=float(decay.get("factor", 1.0)),
        age_days=decay.get("ageDays"), score=hit.score, sorted_rank=position, rank=position,
        threshold=None, stage="returned",
        openclaw={"importance": hit.importance, "triggers": hit.triggers, "projectKey": hit.project_key,
                  "provenance": hit.provenance, "trace": hit.trace})


def formula_terms(candidate: Candidate) -> list[tuple[str, float]]:
    """The factors of a 2026.9 hit's ranking score in the order 2026.9.6 applies them, each (label, value); the
    product of the values is the ranking score. Empty for a hit of memtui's own engine."""
    if candidate.openclaw is None:
        return []
    trace = candidate.openclaw["trace"]
    decay = trace.get("decay") or {}
    why = str(decay.get("why", ""))
    age = decay.get("ageDays")
    decay_label = f"decay ({why}, {age:.1f} days)" if isinstance(age, (int, float)) else f"decay ({why})"
    terms = [(_base_label(trace), float(trace.get("preDecayScore") or 0.0)), (decay_label, float(decay.get(
        "factor", 1.0))), ("importance", float(trace.get("importanceMultiplier", 1.0)))]
    project = float(trace.get("projectMultiplier", 1.0))
    if project != 1.0:
        terms.append(("project", project))
    return terms


def _base_label(trace: dict[str, Any]) -> str:
    if "contentScore" in trace:
        content = (f"{VECTOR_WEIGHT}×vec {float(trace.get('vectorScore') or 0.0):.4f} + "
                   f"{TEXT_WEIGHT}×keyword {float(trace.get('keywordScore') or 0.0):.4f}")
        if trace.get("exactTier"):
            return f"exact path: (1 + ({content}))/2"
        return f"({content})"
    if trace.get("exactTier"):
        return f"exact path: (1 + body {float(trace.get('bodyScore') or 0.0):.4f})/2"
    return "keyword (bm25 → rank score + lexical boost)"


def formula_text(candidate: Candidate) -> str:
    """`ranking 1.1500 = keyword 1.0000 × decay (evergreen) 1.0000 × importance 1.1500`, and what the shown
    score is when it is not the ranking score (exact path hits show their tier's fixed score)."""
    terms = formula_terms(candidate)
    trace = candidate.openclaw["trace"] if candidate.openclaw else {}
    ranking = float(trace.get("rankingScore", candidate.score))
    text = f"ranking {ranking:.4f} = " + " × ".join(f"{label} {value:.4f}" for label, value in terms)
    if trace.get("exactTier"):
        text += f"; exact path tier {trace['exactTier']} → shown score {candidate.score:.4f}, listed first"
    elif trace.get("contentScore") == 0:
        text += "; no vector or keyword content → shown score 0"
    return text


def agent_hit(candidate: Candidate) -> AgentHit:
    """The 2026.9 hit a candidate of `search_response` was made from (for OpenClaw's JSON shapes)."""
    from memtui.agentdb.search import AgentHit

    extra = candidate.openclaw or {}
    return AgentHit(path=candidate.path, start_line=candidate.start_line, end_line=candidate.end_line,
                    score=candidate.score, text_score=candidate.text_score or 0.0,
                    vector_score=candidate.vector_score, source=candidate.source, snippet=candidate.text,
                    chunk_id=candidate.id, importance=extra.get("importance"), triggers=extra.get("triggers"),
                    project_key=extra.get("projectKey"), provenance=extra.get("provenance"),
                    trace=extra.get("trace") or {})


def cli_json(response: SearchResponse) -> dict[str, Any]:
    """What `openclaw memory search --json` prints for this response."""
    from memtui.agentdb.search import memory_search_json

    return memory_search_json([agent_hit(hit) for hit in response.results])

"""Search an OpenClaw 2026.9.6 agent database the way `openclaw memory search --json` ranks it, read-only.

The steps restate `manager-search.ts`, `manager-keyword-retrieval.ts`, `manager-search-orchestration.ts`,
`hybrid.ts`, `temporal-decay.ts`, `importance.ts`, `project-ranking.ts` and `mmr.ts` of the 2026.9.6 dist
(benchmarks/openclaw_record/OPENCLAW-2026.9.6.md §5):

1. Keyword search of the full query: FTS5 body hits (bm25 → `textScore`, then the lexical boost) and path hits
   (path FTS bm25 → `pathScore`, exact path tiers 3/2/1), merged by chunk id.
2. Unless the full query already has 200 non-exact hits: one more keyword search per `extractKeywords` term (at
   most 6), ranked against the full query, merged in.
3. Keyword-only: exact hits scored `(1 + body)/2`, temporal decay (half-life 30 days, `now_ms` stands for
   OpenClaw's `Date.now()`), importance, project ranking, sort, min-score selection.
   Hybrid (a query vector is given): `0.7·cosine + 0.3·keyword`, the same multipliers, exact tiers first, MMR
   (λ 0.7) inside each group, then the hybrid selection that tops up with keyword-only hits below minScore.

Every hit carries a `trace` of the numbers that placed it. The database is opened with
`ownership.open_read_only` (an immutable snapshot or `mode=ro`, `query_only`) and never written; the SQL
functions `agent_index` registers live only on that connection.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.agentdb.agent_index import AgentIndex
from memtui.agentdb.candidates import Hit
from memtui.agentdb.collation import locale_compare
from memtui.agentdb.exact_path import exact_path_matcher
from memtui.agentdb.hybrid_rank import merge_hybrid, select_hybrid
from memtui.agentdb.keyword_search import finalize_keyword_only, keyword_with_fallback
from memtui.agentdb.multipliers import importance_multiplier
from memtui.agentdb.ownership import open_read_only
from memtui.jscompat import js_trim

DEFAULT_MAX_RESULTS = 6
DEFAULT_MIN_SCORE = 0.35
CANDIDATE_UNIVERSE = 200  # SEARCH_CANDIDATE_UNIVERSE
CANDIDATE_MULTIPLIER = 4

__all__ = [
    "AgentHit",
    "exact_path_matcher",
    "importance_multiplier",
    "locale_compare",
    "memory_search_json",
    "search_agent_db",
]


@dataclass(frozen=True)
class AgentHit:
    """One result as OpenClaw returns it (`score`, `text_score`, `vector_score` — None in keyword-only mode), the
    chunk's recall metadata, and `trace`: every number that changed its rank."""

    path: str
    start_line: int
    end_line: int
    score: float
    text_score: float
    vector_score: float | None
    source: str
    snippet: str
    chunk_id: str
    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None
    provenance: dict[str, Any] | None = None
    trace: dict[str, Any] = field(default_factory=dict, compare=False)


def _index_meta(conn: Any) -> dict[str, Any]:
    row = conn.execute("SELECT value FROM memory_index_meta WHERE key = 'memory_index_meta_v1'").fetchone()
    if row is None or not isinstance(row[0], str):
        return {}
    try:
        meta = json.loads(row[0])
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def search_agent_db(path: Path, query: str, *, max_results: int | None = None, min_score: float | None = None,
                    now_ms: int, query_vector: Sequence[float] | None = None,
                    sources: tuple[str, ...] = ("memory",), active_project_keys: Sequence[str] = (),
                    workspace_dir: Path | None = None) -> list[AgentHit]:
    """Rank the chunks of OpenClaw 2026.9.6's agent database at `path` for `query` as `openclaw memory search`
    does: keyword-only when `query_vector` is None, hybrid otherwise (the query's embedding from the index's
    provider, normalised or not). `now_ms` is the clock temporal decay measures age against (OpenClaw's
    `Date.now()` at search time); `max_results` / `min_score` default to OpenClaw's 6 and 0.35."""
    cleaned = js_trim(query)
    if not cleaned:
        return []
    limit_out = DEFAULT_MAX_RESULTS if max_results is None else max_results
    threshold = DEFAULT_MIN_SCORE if min_score is None else min_score
    active = frozenset(active_project_keys)
    universe = CANDIDATE_UNIVERSE if active else max(CANDIDATE_UNIVERSE, limit_out)
    candidates = min(200, max(1, math.floor(universe * CANDIDATE_MULTIPLIER)))
    conn = open_read_only(Path(path))
    try:
        meta = _index_meta(conn)
        if conn.execute("SELECT 1 FROM memory_index_chunks LIMIT 1").fetchone() is None:
            return []
        index = AgentIndex(conn, sources, meta.get("model"), str(meta.get("ftsTokenizer") or "unicode61"))
        keyword, terms = keyword_with_fallback(index, cleaned, candidates)
        if query_vector is None:
            final = finalize_keyword_only(index, keyword, now_ms=now_ms, min_score=threshold, universe=universe,
                                          active=active, workspace_dir=workspace_dir)
            hybrid = False
        else:
            vector = index.attach_metadata(index.vector_search(query_vector, candidates))
            merged = merge_hybrid(index, cleaned, vector, keyword, now_ms=now_ms, active=active,
                                  workspace_dir=workspace_dir)
            final = select_hybrid(merged, keyword, universe, threshold)
            hybrid = True
    finally:
        conn.close()
    return [_public(hit, hybrid, terms, position) for position, hit in enumerate(final[:limit_out], start=1)]


def _public(hit: Hit, hybrid: bool, terms: list[str], position: int) -> AgentHit:
    trace = {"position": position, "exactTier": hit.tier, "hasBodyMatch": hit.has_body,
             "textScore": hit.text_score, "pathScore": hit.path_score, "boost": hit.boost,
             "foundBy": list(hit.found_by), "fallbackTerms": list(terms), **hit.trace}
    if hybrid:
        trace["vectorScore"] = hit.vector_score
    return AgentHit(path=hit.path, start_line=hit.start_line, end_line=hit.end_line, score=hit.score,
                    text_score=hit.text_score, vector_score=hit.vector_score if hybrid else None, source=hit.source,
                    snippet=hit.snippet, chunk_id=hit.id, importance=hit.importance, triggers=hit.triggers,
                    project_key=hit.project_key, provenance=hit.provenance, trace=trace)


def memory_search_json(hits: Sequence[AgentHit]) -> dict[str, Any]:
    """What `openclaw memory search --json` prints for `hits`: `{"results": [...]}`, each result with OpenClaw's
    keys in OpenClaw's order (`vectorScore` only in hybrid mode; importance, triggers and projectKey only when
    set)."""
    results = []
    for hit in hits:
        item: dict[str, Any] = {"path": hit.path, "startLine": hit.start_line, "endLine": hit.end_line,
                                "score": hit.score}
        if hit.vector_score is not None:
            item["vectorScore"] = hit.vector_score
        item["textScore"] = hit.text_score
        item["snippet"] = hit.snippet
        item["source"] = hit.source
        if hit.importance is not None:
            item["importance"] = hit.importance
        if hit.triggers is not None:
            item["triggers"] = hit.triggers
        if hit.project_key is not None:
            item["projectKey"] = hit.project_key
        if hit.provenance is not None:
            item["provenance"] = dict(hit.provenance)
        results.append(item)
    return {"results": results}

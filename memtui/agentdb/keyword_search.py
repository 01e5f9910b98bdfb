"""The keyword-only path: the full query, its per-term fallback, and the final keyword-only ranking."""

from __future__ import annotations

from pathlib import Path

from memtui.agentdb.agent_index import AgentIndex
from memtui.agentdb.candidates import Hit
from memtui.agentdb.keyword_rank import KEYWORD_ORDER_DECAY, limit_keyword, merge_keyword
from memtui.agentdb.keywords import build_fts_query, extract_keywords, js_lower
from memtui.agentdb.multipliers import apply_decay, importance_multiplier, project_eligible, project_multiplier
from memtui.jscompat import js_trim

KEYWORD_FALLBACK_TERM_LIMIT = 6


def _keyword_search(index: AgentIndex, query: str, limit: int, *, exact_query: str | None = None,
                    ranking_query: str | None = None) -> list[Hit]:
    """`searchKeyword` (body + path) for one query, merged and limited."""
    exact = exact_query if exact_query is not None else query
    body = index.body_search(query, ranking_query if ranking_query is not None else query, limit)
    paths = index.path_search(query, exact, limit)
    return limit_keyword(merge_keyword([body, paths], exact), limit)


def keyword_with_fallback(index: AgentIndex, query: str, limit: int) -> tuple[list[Hit], list[str]]:
    """`searchKeywordWithFallback`: the full query, then each `extractKeywords` term (ranked against the full
    query) unless the full query already filled the limit or the terms would repeat it. Returns the hits with
    their recall metadata and the fallback terms that ran."""
    full = _keyword_search(index, query, limit)
    if sum(1 for h in full if h.tier == 0) >= limit:
        return index.attach_metadata(full), []
    lowered = js_lower(js_trim(query))
    terms = [t for t in extract_keywords(query, fts_tokenizer=index.tokenizer) if t != lowered]
    terms = terms[:KEYWORD_FALLBACK_TERM_LIMIT]
    if not terms:
        return index.attach_metadata(full), []
    strict = build_fts_query(query)
    relaxed = build_fts_query(" ".join(terms))
    if full and (strict.lower() if strict else None) == (relaxed.lower() if relaxed else None):
        return index.attach_metadata(full), []
    per_term = [_keyword_search(index, term, limit, exact_query=query, ranking_query=query) for term in terms]
    merged = limit_keyword(merge_keyword([full, *per_term], query), limit)
    return index.attach_metadata(merged), terms



def finalize_keyword_only(index: AgentIndex, hits: list[Hit], *, now_ms: int, min_score: float,
                          universe: int, active: frozenset[str], workspace_dir: Path | None) -> list[Hit]:
    """`finalizeKeywordOnlyResults` with temporal decay on."""
    for hit in hits:
        hit.trace["bodyScore"] = hit.score if hit.has_body else None
        if hit.tier > 0:
            content = hit.score if hit.has_body else 0.0
            hit.score = (1 + max(0.0, min(1.0, content))) / 2
            hit.trace["exactTieScore"] = hit.score
        hit.trace["preDecayScore"] = hit.score
    apply_decay(index, hits, now_ms, workspace_dir, lambda h: h, lambda h: h.score,
                lambda h, s: setattr(h, "score", s))
    for hit in hits:
        multiplier = importance_multiplier(hit.importance)
        hit.trace["importanceMultiplier"] = multiplier
        hit.score = hit.score * multiplier
    eligible = [h for h in hits if project_eligible(h)]
    for hit in eligible:
        multiplier = project_multiplier(hit.project_key, active)
        hit.trace["projectMultiplier"] = multiplier
        if active:
            hit.score = hit.score * multiplier
    ranked = sorted(eligible, key=KEYWORD_ORDER_DECAY)
    for hit in ranked:
        hit.trace["rankingScore"] = hit.score
        if hit.tier > 0:
            hit.score = project_multiplier(hit.project_key, active)
    strict = [h for h in ranked if h.score >= min_score]
    selected = strict if strict else [h for h in ranked if h.score >= 0]
    return selected[:universe]

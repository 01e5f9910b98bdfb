"""The hybrid path: merging vector and keyword hits, MMR inside each exact tier, and the hybrid selection."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.agentdb.agent_index import AgentIndex
from memtui.agentdb.candidates import Hit
from memtui.agentdb.collation import compare_numbers, locale_compare
from memtui.agentdb.exact_path import exact_path_matcher
from memtui.agentdb.mmr import MmrStep, mmr_rerank
from memtui.agentdb.multipliers import apply_decay, importance_multiplier, project_eligible, project_multiplier

VECTOR_WEIGHT = 0.7
TEXT_WEIGHT = 0.3
MMR_LAMBDA = 0.7


def _range_key(hit: Hit) -> tuple[str, str, int, int]:
    return hit.source, hit.path, hit.start_line, hit.end_line


@dataclass
class _HybridEntry:
    hit: Hit
    score: float
    content: float
    lexical_rank: float
    ranking: float = 0.0


def merge_hybrid(index: AgentIndex, query: str, vector: list[Hit], keyword: list[Hit], *, now_ms: int,
                 active: frozenset[str], workspace_dir: Path | None) -> list[Hit]:
    """`mergeHybridResults` with MMR and temporal decay on."""
    tier_of = exact_path_matcher(query)
    by_id: dict[str, Hit] = {}
    keyword_rank: dict[str, float] = {}
    for v in vector:
        v.tier = tier_of(v.path)
        by_id[v.id] = v
    for k in keyword:
        known = by_id.get(k.id)
        keyword_rank[k.id] = k.score
        if known is not None:
            known.text_score = k.text_score
            known.has_body = k.has_body
            known.path_score = k.path_score
            known.tier = max(known.tier, k.tier)
            known.has_keyword = True
            known.boost = k.boost
            known.found_by.extend(q for q in k.found_by if q not in known.found_by)
            if k.snippet:
                known.snippet = k.snippet
        else:
            k.vector_score = 0.0
            k.has_keyword = True
            by_id[k.id] = k
    entries: list[_HybridEntry] = []
    for hit in by_id.values():
        ranking_kw = keyword_rank.get(hit.id, 0.0)
        keyword_score = ranking_kw if hit.text_score > 0 else (0.0 if hit.tier > 0 else hit.path_score)
        content = VECTOR_WEIGHT * hit.vector_score + TEXT_WEIGHT * keyword_score
        lexical_rank = ranking_kw if hit.has_body and hit.text_score == 0 else 0.0
        exact_tie = (1 + max(0.0, min(1.0, content))) / 2
        score = exact_tie if hit.tier > 0 else (lexical_rank if content == 0 else content)
        hit.trace.update({"keywordScore": keyword_score, "bodyScore": ranking_kw if hit.has_body else None,
                          "contentScore": content, "lexicalRank": lexical_rank, "preDecayScore": score})
        entries.append(_HybridEntry(hit, score, content, lexical_rank))
    apply_decay(index, entries, now_ms, workspace_dir, lambda e: e.hit, lambda e: e.score,
                lambda e, s: setattr(e, "score", s))
    for entry in entries:
        multiplier = importance_multiplier(entry.hit.importance)
        entry.hit.trace["importanceMultiplier"] = multiplier
        entry.score = entry.score * multiplier
    rankable = [e for e in entries if project_eligible(e.hit)]
    for entry in rankable:
        multiplier = project_multiplier(entry.hit.project_key, active)
        entry.hit.trace["projectMultiplier"] = multiplier
        if active:
            entry.score = entry.score * multiplier
        entry.ranking = entry.score
        entry.hit.trace["rankingScore"] = entry.ranking
        if entry.hit.tier > 0:
            entry.score = multiplier
        elif entry.content == 0:
            entry.score = 0.0

    def by_ranking(a: _HybridEntry, b: _HybridEntry) -> int:
        return (compare_numbers(b.ranking, a.ranking) or compare_numbers(b.lexical_rank, a.lexical_rank)
                or locale_compare(a.hit.path, b.hit.path) or compare_numbers(a.hit.start_line, b.hit.start_line)
                or compare_numbers(a.hit.end_line, b.hit.end_line))

    def by_score(a: _HybridEntry, b: _HybridEntry) -> int:
        return compare_numbers(b.score, a.score) or by_ranking(a, b)

    def rerank(group: list[_HybridEntry], relevance: Callable[[_HybridEntry], float], label: str) -> list[Hit]:
        out = []
        for entry, step in mmr_rerank(group, relevance, lambda e: e.hit.snippet, MMR_LAMBDA):
            entry.hit.trace["mmr"] = _mmr_trace(step, label)
            out.append(entry)
        return [_hybrid_hit(e) for e in out]

    ordered: list[Hit] = []
    for tier in (3, 2, 1):
        group = sorted((e for e in rankable if e.hit.tier == tier), key=functools.cmp_to_key(by_ranking))
        hits = rerank(group, lambda e: e.ranking, f"exact tier {tier}")
        for hit in hits:
            hit.score = project_multiplier(hit.project_key, active)
        ordered.extend(hits)
    non_exact = sorted((e for e in rankable if e.hit.tier == 0), key=functools.cmp_to_key(by_score))
    ordered.extend(rerank(non_exact, lambda e: e.score, "non-exact"))
    return ordered


def _hybrid_hit(entry: _HybridEntry) -> Hit:
    entry.hit.score = entry.score
    return entry.hit


def _mmr_trace(step: MmrStep | None, group: str) -> dict[str, Any]:
    if step is None:
        return {"group": group, "applied": False}
    return {"group": group, "position": step.position, "relevance": step.relevance,
            "maxSimilarity": step.max_similarity, "mmrScore": step.mmr_score}


def select_hybrid(merged: list[Hit], keyword: list[Hit], universe: int, min_score: float) -> list[Hit]:
    """`selectHybridSearchResults`: hits at or above minScore; with none, keyword-backed hits ≥ 0; with too few,
    topped up with keyword-only hits (vectorScore 0) below minScore."""
    strict = [h for h in merged if h.score >= min_score]
    selected = strict[:universe]
    if not keyword or len(selected) == universe:
        return selected
    keyword_keys = {_range_key(h) for h in keyword}
    if not strict:
        return [h for h in merged if h.score >= 0 and _range_key(h) in keyword_keys][:universe]
    seen = {_range_key(h) for h in selected}
    for hit in merged:
        if len(selected) == universe:
            break
        key = _range_key(hit)
        if hit.score < min_score and hit.vector_score == 0 and key in keyword_keys and key not in seen:
            seen.add(key)
            hit.trace["belowMinScoreTopUp"] = True
            selected.append(hit)
    return selected

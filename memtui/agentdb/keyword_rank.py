"""Keyword ranking: the lexical boost, the keyword hit orders, and merging and limiting keyword hits."""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from typing import Any

from memtui.agentdb.candidates import Hit
from memtui.agentdb.collation import compare_numbers, locale_compare
from memtui.agentdb.exact_path import exact_path_matcher
from memtui.agentdb.keywords import search_tokens
from memtui.jscompat import js_length

EXACT_PATH_CANDIDATE_LIMIT = 200


def boosted_score(text_score: float, text: str, path: str,
                  matchers: Sequence[tuple[str, Any, Any]]) -> tuple[float, dict[str, Any] | None]:
    """`scoreFallbackKeywordResult`: bm25 score plus 0.45·overlap/|Q| + 0.2·overlap/|T| + 0.18 per query token
    in the path + min(length/160, 0.18), capped at 1."""
    if not matchers:
        return text_score, None
    text_tokens = search_tokens(text)
    distinct = len(set(text_tokens))
    overlap_terms = [t for t, word, _sub in matchers if any(word.match(token) for token in text_tokens)]
    overlap = len(overlap_terms)
    query_overlap = overlap / len(matchers)
    density = overlap / max(distinct, 1)
    nfc_path = unicodedata.normalize("NFC", path)
    path_boost = 0.0
    path_terms = []
    for term, _word, substring in matchers:
        hit = substring.search(nfc_path) is not None
        path_boost = path_boost + (0.18 if hit else 0)
        if hit:
            path_terms.append(term)
    length_boost = min(js_length(text) / 160, 0.18)
    lexical = query_overlap * 0.45 + density * 0.2 + path_boost + length_boost
    score = min(1.0, text_score + lexical)
    return score, {"queryTokens": [t for t, _w, _s in matchers], "overlap": overlap_terms,
                   "distinctTextTokens": distinct, "overlapBoost": query_overlap * 0.45,
                   "densityBoost": density * 0.2, "pathTokens": path_terms, "pathBoost": path_boost,
                   "lengthBoost": length_boost, "capped": text_score + lexical > 1}


def _tie_order(a: Hit, b: Hit) -> int:
    return (locale_compare(a.path, b.path) or compare_numbers(a.start_line, b.start_line)
            or locale_compare(a.id, b.id))


def compare_path_hits(a: Hit, b: Hit) -> int:
    """`comparePathKeywordSearchResults`."""
    if a.tier != b.tier:
        return b.tier - a.tier
    if a.tier == 0 and a.path_score != b.path_score:
        return compare_numbers(b.path_score, a.path_score)
    return _tie_order(a, b)


def _compare_keyword(a: Hit, b: Hit, prefer_exact_body: bool = True) -> int:
    """`compareKeywordSearchHits`: tier, (body-backed exact hits first), score, textScore, pathScore (non-exact),
    path, start line, id."""
    if a.tier != b.tier:
        return b.tier - a.tier
    if prefer_exact_body and a.tier > 0 and a.has_body != b.has_body:
        return int(b.has_body) - int(a.has_body)
    if a.score != b.score:
        return compare_numbers(b.score, a.score)
    if a.text_score != b.text_score:
        return compare_numbers(b.text_score, a.text_score)
    if a.tier == 0 and a.path_score != b.path_score:
        return compare_numbers(b.path_score, a.path_score)
    return _tie_order(a, b)


_KEYWORD_ORDER = functools.cmp_to_key(_compare_keyword)
# The order after decay: body-backed exact hits no longer come first within their tier.
KEYWORD_ORDER_DECAY = functools.cmp_to_key(lambda a, b: _compare_keyword(a, b, False))


def merge_keyword(result_sets: Sequence[Sequence[Hit]], exact_query: str) -> list[Hit]:
    """`mergeKeywordSearchHits`: one hit per chunk id; body scores take the max, path-only hits score 1 when
    exact, else their pathScore."""
    tier_of = exact_path_matcher(exact_query)
    seen: dict[str, Hit] = {}
    for results in result_sets:
        for hit in results:
            known = seen.get(hit.id)
            if known is None:
                hit.tier = tier_of(hit.path)
                seen[hit.id] = hit
                continue
            known_body = known.score if known.has_body else 0.0
            new_body = hit.score if hit.has_body else 0.0
            known.text_score = max(known.text_score, hit.text_score)
            known.path_score = max(known.path_score, hit.path_score)
            had_body = known.has_body
            known.has_body = known.has_body or hit.has_body
            body = max(known_body, new_body)
            known.score = body if body > 0 else known.path_score
            if new_body > known_body:
                known.boost = hit.boost
            known.found_by.extend(q for q in hit.found_by if q not in known.found_by)
            if (hit.has_body and not had_body) or (
                    hit.has_body == had_body and js_length(hit.snippet) > js_length(known.snippet)):
                known.snippet = hit.snippet
    merged = list(seen.values())
    for hit in merged:
        if not hit.has_body:
            hit.score = 1.0 if hit.tier > 0 else hit.path_score
    return sorted(merged, key=_KEYWORD_ORDER)


def limit_keyword(hits: Sequence[Hit], limit: int) -> list[Hit]:
    """`limitKeywordSearchHits`: every exact-path hit (body-backed ones capped, at most 200 paths) plus the top
    `limit` others."""
    ranked = sorted(hits, key=_KEYWORD_ORDER)
    exact_body = [h for h in ranked if h.tier > 0 and h.has_body][:limit]
    exact_only = [h for h in ranked if h.tier > 0 and not h.has_body]
    bounded = sorted(exact_body + exact_only, key=_KEYWORD_ORDER)
    paths: set[tuple[str, str]] = set()
    for hit in bounded:
        paths.add((hit.source, hit.path))
        if len(paths) == EXACT_PATH_CANDIDATE_LIMIT:
            break
    exact = [h for h in bounded if (h.source, h.path) in paths]
    return exact + [h for h in ranked if h.tier == 0][:limit]

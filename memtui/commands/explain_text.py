"""What `--explain` prints of a search, in words: the query-level lines and each hit's trace (`memtui search`,
`memtui search --fleet`)."""

from __future__ import annotations

from memtui.search.formula import formula_text, number_text
from memtui.search.response import Candidate, SearchResponse


def _text_side(hit: Candidate, response: SearchResponse) -> str:
    """How the hit's text score comes from its bm25: over the divisor (memtui, hybrid) or r/(1+r)."""
    if hit.bm25 is None:
        return f"text #{hit.text_rank} (LIKE match → {hit.text_score or 0:.4f})"
    divisor = response.text_divisor
    if divisor is not None:
        return (f"text #{hit.text_rank} (bm25 {number_text(hit.bm25)} / {number_text(divisor)} → "
                f"{hit.text_score or 0:.4f})")
    return f"text #{hit.text_rank} (bm25 {number_text(hit.bm25)} → r/(1+r) {hit.text_score or 0:.4f})"


def _vector_side(hit: Candidate, response: SearchResponse) -> str | None:
    """The hit's cosine and, when the list is normalised, the best cosine it is divided by."""
    rank = f"vector #{hit.vector_rank}" if hit.vector_rank is not None else "cosine only"
    divisor = response.vector_divisor
    if hit.cosine is not None and divisor is not None:
        return f"{rank} (cos {hit.cosine:.4f} / {divisor:.4f} → {hit.vector_score or 0:.4f})"
    return None if hit.vector_rank is None else rank


def trace_line(hit: Candidate, response: SearchResponse) -> str:
    """A hit's `--explain` line: its formula, then how each side's score was made, MMR, threshold, origin."""
    parts = [formula_text(hit, response)]
    ranks = [_text_side(hit, response)] if hit.text_rank is not None else []
    if (vector := _vector_side(hit, response)) is not None:
        ranks.append(vector)
    if ranks:
        parts.append("· " + ", ".join(ranks))
    if hit.mmr_rank is not None:
        parts.append(f"· MMR {hit.sorted_rank}→{hit.mmr_rank}")
    parts.append(f"· {hit.threshold or 'n/a'} minScore {response.min_score:g}")
    parts.append(f"· via {'+'.join(hit.matched_by)}")
    return "  " + " ".join(parts)


def explain_header(response: SearchResponse, profile: str, provider: str) -> list[str]:
    """The query-level lines of `--explain`: what `--json --explain` holds that changes a rank, in words."""
    info = response.explain()
    mode = info["mode"] + (f" (vector side skipped: {info['vectorSkipped']}; keyword scores only)"
                           if info["vectorSkipped"] else "")
    lines = [f"Profile: {profile} · mode: {mode} · provider: {provider}", f"FTS query: {info['ftsQuery'] or '(none)'}"]
    if info["droppedTerms"]:
        lines.append(f"Dropped terms: {', '.join(info['droppedTerms'])}")
    if info["keywordFallbackTerms"]:
        lines.append(f"Keyword fallback terms: {', '.join(info['keywordFallbackTerms'])}")
    if info["textNormalization"]:
        divisor = number_text(info["textDivisor"]) if info["textDivisor"] is not None else None
        said = divisor is None or f"/ {divisor} " in info["textNormalization"]  # the floor names itself
        lines.append(f"Text score: −{info['textNormalization']}" + ("" if said else f" = {divisor}"))
    elif any(hit.bm25 is not None for hit in response.candidates):
        lines.append("Text score: r/(1+r) of r = −bm25")
    if info["vectorNormalization"]:
        divisor = f" = {info['vectorDivisor']:.4f}" if info["vectorDivisor"] is not None else ""
        lines.append(f"Vector score: {info['vectorNormalization']}{divisor}")
    if info["skippedVectors"]:
        lines.append(f"Stored vectors skipped: {info['skippedVectors']} (no direction: all zeros or NaN; their chunks "
                     "rank by keywords only; memtui index --force embeds them again)")
    lines.append(f"Candidates: {info['candidates']} (limit {info['candidateLimit']}) · below minScore "
                 f"{info['minScore']:g}: {info['filteredByMinScore']}" + (" · relaxed" if info["relaxed"] else ""))
    return lines

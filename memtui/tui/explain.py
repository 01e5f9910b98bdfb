"""Readable views of the engine's explanations (Rich text, no Textual): the query (`x`), the index status (`i`)
and why a query found nothing."""

from __future__ import annotations

import textwrap
from typing import Any

from rich.text import Text

from memtui.search.engine import Candidate, SearchResponse
from memtui.search.ranking import bm25_rank_to_score

SCORE_RULE = "score >= minScore"  # the engine's plain rule; memtui's hybrid profile thresholds the evidence


LABEL = 22  # label column
VALUE = 44  # value column: long values wrap inside it, so they read at 80 columns too


def _section(text: Text, title: str) -> None:
    text.append(f"\n{title}\n" if text else f"{title}\n", style="bold underline")


def _row(text: Text, label: str, value: object, style: str = "") -> None:
    text.append(f"  {label:<{LABEL}}", style="dim")
    lines = textwrap.wrap(str(value), VALUE, break_long_words=False, break_on_hyphens=False) or [""]
    text.append(("\n" + " " * (LABEL + 2)).join(lines) + "\n", style=style)


def _tick(ok: bool) -> tuple[str, str]:
    return ("✓", "green") if ok else ("✗", "red")


def query_explanation(response: SearchResponse) -> Text:
    """What the engine did with the query: the keyword query, dropped terms, weights, thresholds, counts."""
    info = response.explain()
    text = Text()
    _section(text, "Keyword query")
    _row(text, "FTS5 match", info["ftsQuery"] or "(none: no usable terms)")
    _row(text, "terms", ", ".join(info["terms"]) or "–")
    if info["droppedTerms"]:
        _row(text, "dropped", ", ".join(info["droppedTerms"]) + "  (stop words or too short)")
    if info["keywordFallbackTerms"]:
        _row(text, "fallback terms", ", ".join(info["keywordFallbackTerms"]))
    _section(text, "Ranking")
    _row(text, "profile · mode", f"{info['profile']} · {info['mode']}")
    if info["mode"] == "hybrid":
        _row(text, "weights", f"vector {info['vectorWeight']:.2f} · text {info['textWeight']:.2f}")
    if info["textNormalization"]:
        _row(text, "text score", info["textNormalization"])
    if info["vectorSkipped"]:
        _row(text, "vector search", f"skipped: {info['vectorSkipped']}", "yellow")
    _row(text, "candidates", f"{info['candidates']} (limit {info['candidateLimit']} per list)")
    _section(text, "Thresholds")
    _row(text, "minScore", f"{info['minScore']:.2f}" + ("  relaxed (no hit reached it)" if info["relaxed"] else ""))
    _row(text, "below minScore", info["filteredByMinScore"])
    _row(text, "maxResults", info["maxResults"])
    _row(text, "shown", len(response.results))
    _row(text, "search time", f"{info['searchMs']:.1f} ms")
    return text


def status_view(status: dict[str, Any]) -> Text:
    """Every status field people look for, in sections, with ✓ / ✗ and the reasons."""
    text = Text()
    _section(text, "Index")
    _row(text, "agent", status["agentId"])
    _row(text, "files · chunks", f"{status['files']:,} · {status['chunks']:,}")
    if status["scan"]["memoryFiles"] is not None:
        _row(text, "on disk", f"{status['scan']['memoryFiles']:,} memory files")
    _row(text, "state", "dirty (a sync is due)" if status["dirty"] else "clean", "yellow" if status["dirty"] else "")
    _row(text, "database", status["dbPath"])
    _row(text, "workspace", status["workspaceDir"])
    if status["readOnly"]:
        _row(text, "mode", "read-only", "yellow")
    last = status.get("lastSync")
    if last:
        _row(text, "last sync", sync_summary(last))
    _section(text, "Embeddings")
    _row(text, "provider", f"{status['provider']} (requested {status['requestedProvider']}, "
                           f"from {status['providerSource']})")
    _row(text, "model", status["model"])
    reason = status["custom"].get("providerUnavailableReason")
    if reason:
        _row(text, "keyword-only because", reason, "yellow")
    if status.get("fallback"):
        fallback = status["fallback"]
        _row(text, "fallback", f"from {fallback.get('from')}: {fallback.get('reason', '')}", "yellow")
    _section(text, "Search")
    mark, style = _tick(status["fts"]["available"])
    _row(text, "FTS5 (BM25)", f"{mark} {status['fts'].get('error') or ''}".rstrip(), style)
    mark, style = _tick(status["vector"]["available"])
    detail = f"dims {status['vector']['dims']}" if status["vector"]["available"] else \
        status["vector"].get("loadError") or "cosine computed in Python"
    _row(text, "sqlite-vec", f"{mark} {detail}", style)
    _row(text, "search mode · profile", f"{status['custom']['searchMode']} · {status['profile']}")
    _row(text, "sources", ", ".join(status["sources"]))
    if status["extraPaths"]:
        _row(text, "extra paths", ", ".join(status["extraPaths"]))
    cache = status["cache"]
    _row(text, "embedding cache", f"{cache['entries']:,} entries" + (" (off)" if not cache["enabled"] else ""))
    issues = status.get("issues") or []
    _section(text, f"File issues ({len(issues)})")
    for issue in issues[:50]:
        text.append(f"  {issue.get('path', '?')}: {issue.get('reason') or issue.get('message') or issue}\n",
                    style="yellow")
    if not issues:
        text.append("  none\n", style="dim")
    return text


def sync_summary(last: dict[str, Any]) -> str:
    """The last sync in words: why, full or incremental, files checked and changed, chunks, time."""
    kind = f"full rebuild ({last['fullReason']})" if last.get("full") and last.get("fullReason") else \
        "full rebuild" if last.get("full") else "incremental"
    parts = [str(last.get("reason") or "sync"), kind + (" · index repaired" if last.get("repaired") else ""),
             f"{last.get('filesTotal', 0):,} files checked, {last.get('filesChanged', 0):,} changed, "
             f"{last.get('filesDeleted', 0):,} deleted" + (f", {last['filesSkipped']:,} skipped"
                                                          if last.get("filesSkipped") else ""),
             f"{last.get('chunksWritten', 0):,} chunks written, {last.get('embedded', 0):,} embedded"
             + (f" ({last['cacheHits']:,} from the cache)" if last.get("cacheHits") else ""),
             f"{last.get('elapsedMs', 0):,.0f} ms"]
    return " · ".join(parts)


def no_hits_text(response: SearchResponse) -> Text:
    """Why a query shows nothing, and what to try."""
    text = Text(f"No hits for “{response.query}”.\n\n", style="bold")
    keyword = response.keyword
    if keyword is None or not keyword.match:
        text.append("• No keyword query could be built from it (only stop words or symbols).\n")
    else:
        text.append(f"• Keyword query: {keyword.match}")
        text.append(f"  (dropped: {', '.join(keyword.dropped)})\n" if keyword.dropped else "\n")
    # With no hit returned every candidate fell short of minScore (whatever stage the engine left on them).
    below = [c for c in response.candidates if c.stage == "below-min-score"] or \
        (response.candidates if response.filtered_count and not response.results else [])
    if below:
        what = "evidence (keyword r/(1+r) or cosine)" if response.threshold_rule != SCORE_RULE else "score"
        best = max(evidence(c) if response.threshold_rule != SCORE_RULE else c.score for c in below)
        text.append(f"• {len(below)} candidate(s) fell below minScore {response.min_score:.2f}; best {what} "
                    f"{best:.3f}: lower minScore in the tuning panel (t).\n")
    elif not response.candidates:
        text.append("• No chunk matched the keywords" + (" or came close in meaning" if response.mode != "fts-only"
                                                         else "") + ".\n")
    text.append("• W explains why a given chunk (path:line) is not found; x shows the whole query.\n")
    return text


def evidence(candidate: Candidate) -> float:
    """A candidate's strongest single piece of evidence, which memtui's hybrid profile holds against minScore:
    its keyword score r/(1+r) (1 for a LIKE match) or its cosine."""
    if candidate.bm25 is not None:
        keyword = bm25_rank_to_score(candidate.bm25)
    else:
        keyword = 1.0 if "like" in candidate.matched_by else 0.0
    return max(keyword, candidate.cosine or 0.0)

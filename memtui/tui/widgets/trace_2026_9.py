"""The trace of a hit from OpenClaw 2026.9's agent database: the factors of its ranking score (they multiply to
it), the keyword boost, decay, importance, project, MMR, the threshold, its recall metadata and provenance."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memtui.search.agent_db import formula_text
from memtui.search.response import Candidate, SearchResponse
from memtui.tools import format_citation


def _num(value: Any, digits: int = 4) -> str:
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "–"


def _when(ms: Any) -> str:
    if not isinstance(ms, (int, float)):
        return "unknown"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _keyword(trace: dict[str, Any]) -> str:
    boost = trace.get("boost") or {}
    parts = [f"text {_num(trace.get('textScore'))}"]
    if trace.get("pathScore"):
        parts.append(f"path {_num(trace.get('pathScore'))}")
    pieces = [f"{name} +{_num(boost.get(key), 3)}" for name, key in (
        ("overlap", "overlapBoost"), ("density", "densityBoost"), ("path", "pathBoost"), ("length", "lengthBoost"))
        if boost.get(key)]
    if pieces:
        parts.append("boost " + ", ".join(pieces) + (" (capped)" if boost.get("capped") else ""))
    if trace.get("bodyScore") is not None:
        parts.append(f"→ keyword score {_num(trace.get('bodyScore'))}")
    found = trace.get("foundBy") or []
    if found:
        parts.append("found by " + ", ".join(str(f) for f in found))
    return " · ".join(parts)


def _decay(trace: dict[str, Any]) -> str:
    decay = trace.get("decay") or {}
    if decay.get("timestamp") is None:
        return f"×1 ({decay.get('why', 'no date')}: no decay)"
    return (f"×{_num(decay.get('factor'))} ({decay.get('why')}, {_num(decay.get('ageDays'), 1)} days old; "
            "half-life 30 days, fixed in 2026.9)")


def _threshold(hit: Candidate, response: SearchResponse, trace: dict[str, Any]) -> str:
    if trace.get("belowMinScoreTopUp"):
        return (f"{hit.score:.3f} < minScore {response.min_score:.2f}: kept to fill the list (a keyword hit, "
                "2026.9.6's hybrid top-up)")
    if hit.score >= response.min_score:
        return f"{hit.score:.3f} ≥ minScore {response.min_score:.2f}"
    return f"{hit.score:.3f} < minScore {response.min_score:.2f}: kept because no hit reached it (every score ≥ 0)"


def openclaw_trace_lines(hit: Candidate, response: SearchResponse) -> list[tuple[str, str]]:
    """(label, value) rows for a 2026.9 agent database hit."""
    extra = hit.openclaw or {}
    trace: dict[str, Any] = extra.get("trace") or {}
    rows = [("rank", f"#{hit.rank} of {len(response.results)} · OpenClaw 2026.9's own index, ranked as "
                     f"2026.9.6 ranks it ({'hybrid' if response.mode == 'hybrid' else 'keyword-only'})"),
            ("score", formula_text(hit)), ("keyword", _keyword(trace))]
    if response.mode == "hybrid":
        rows.append(("vector", f"cosine {_num(hit.vector_score)} · weights 0.7 vector, 0.3 keyword (fixed)"))
    rows.append(("decay", _decay(trace)))
    importance = extra.get("importance")
    rows.append(("importance", f"{importance} → ×{_num(trace.get('importanceMultiplier'), 2)} (0.75 + 0.05·N)"
                 if importance is not None else "none (×1)"))
    if extra.get("triggers"):
        rows.append(("triggers", str(extra["triggers"])))
    if extra.get("projectKey"):
        rows.append(("project", f"{extra['projectKey']} → ×{_num(trace.get('projectMultiplier'), 2)}"))
    mmr = trace.get("mmr") or {}
    if mmr.get("applied", True) and mmr:
        rows.append(("MMR", f"{mmr.get('group')}: #{mmr.get('position')} · relevance {_num(mmr.get('relevance'))}"
                            f" · max similarity {_num(mmr.get('maxSimilarity'))} → {_num(mmr.get('mmrScore'))}"))
    rows.append(("threshold", _threshold(hit, response, trace)))
    provenance = extra.get("provenance") or {}
    if provenance:
        origin, kind = provenance.get("originClass", "?"), provenance.get("sessionKind", "?")
        rows.append(("provenance", f"{origin} · session {kind} · observed {_when(provenance.get('observedAt'))}"))
    if hit.source != "memory":
        rows.append(("source", hit.source))
    rows.append(("citation", format_citation(hit.path, hit.start_line, hit.end_line)))
    return rows

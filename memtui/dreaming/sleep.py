"""What the light and REM phases write, as OpenClaw 2026.4.29's `dreaming-phases.ts` builds it (§12.7):
near-duplicate merging, the staged-candidate block, REM reflections (recurring concept tags) and possible
lasting truths."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from memtui.dreaming.recall_store import RecallEntry, parse_iso
from memtui.jscompat import js_locale_key, js_to_fixed

REM_TAG_BLACKLIST = frozenset({"assistant", "user", "system", "subagent", "the"})
TRUTH_DEDUPE_SIMILARITY = 0.88
TRUTH_MIN_CONFIDENCE = 0.45
_ASCII_TOKEN_SPLIT = re.compile(r"[^a-z0-9]+", re.IGNORECASE)


def average_score(entry: RecallEntry) -> float:
    """totalScore / (recall + daily + grounded), clamped to [0, 1]; 0 without signals."""
    signals = entry.signal_count
    return max(0.0, min(1.0, entry.total_score / signals)) if signals > 0 else 0.0


def _tokens(snippet: str) -> set[str]:
    return {t for t in _ASCII_TOKEN_SPLIT.split(snippet.lower()) if t.strip()}


def jaccard(left: str, right: str) -> float:
    """Token Jaccard over ASCII letters and digits; equal trimmed text counts 1 when either has no token."""
    a, b = _tokens(left), _tokens(right)
    if not a or not b:
        return 1.0 if left.strip().lower() == right.strip().lower() else 0.0
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def dedupe_entries(entries: list[RecallEntry], threshold: float) -> list[RecallEntry]:
    """Merge entries of the same path whose snippets are at least `threshold` similar into the first one."""
    kept: list[RecallEntry] = []
    for entry in entries:
        twin = next((k for k in kept if k.path == entry.path and jaccard(k.snippet, entry.snippet) >= threshold),
                    None)
        if twin is None:
            kept.append(replace(entry, query_hashes=list(entry.query_hashes), recall_days=list(entry.recall_days),
                                concept_tags=list(entry.concept_tags)))
            continue
        twin.recall_count = max(twin.recall_count, entry.recall_count)
        twin.total_score = max(twin.total_score, entry.total_score)
        twin.max_score = max(twin.max_score, entry.max_score)
        twin.query_hashes = list(dict.fromkeys(twin.query_hashes + entry.query_hashes))
        twin.recall_days = sorted(dict.fromkeys(twin.recall_days + entry.recall_days))
        twin.concept_tags = list(dict.fromkeys(twin.concept_tags + entry.concept_tags))
        newer, older = parse_iso(entry.last_recalled_at), parse_iso(twin.last_recalled_at)
        if newer is not None and older is not None and newer > older:
            twin.last_recalled_at = entry.last_recalled_at
    return kept


def within_lookback(entry: RecallEntry, now: datetime, lookback_days: int) -> bool:
    """A recall day (its end, UTC) or the last recall time falls inside the lookback window."""
    cutoff = now - timedelta(days=max(0, lookback_days))
    for day in entry.recall_days:
        end = parse_iso(f"{day}T23:59:59.999Z")
        if end is not None and end >= cutoff:
            return True
    last = parse_iso(entry.last_recalled_at)
    return last is not None and last >= cutoff


def light_body(entries: list[RecallEntry]) -> list[str]:
    """The staged-candidate lines of the light phase."""
    if not entries:
        return ["- No notable updates."]
    lines = []
    for entry in entries:
        lines += [
            f"- Candidate: {entry.snippet or '(no snippet captured)'}",
            f"  - confidence: {js_to_fixed(average_score(entry), 2)}",
            f"  - evidence: {entry.path}:{entry.start_line}-{entry.end_line}",
            f"  - recalls: {entry.recall_count}",
            "  - status: staged",
        ]
    return lines


def truth_confidence(entry: RecallEntry) -> float:
    """0.45·average + 0.25·recall strength + 0.2·days/3 + 0.1·tags/6, clamped to [0, 1]."""
    strength = min(1.0, math.log1p(entry.recall_count) / math.log1p(6))
    days = min(1.0, len(entry.recall_days) / 3)
    tags = min(1.0, len(entry.concept_tags) / 6)
    return max(0.0, min(1.0, average_score(entry) * 0.45 + strength * 0.25 + days * 0.2 + tags * 0.1))


@dataclass(frozen=True)
class Truth:
    """A possible lasting truth of the REM phase."""

    key: str
    snippet: str
    confidence: float
    evidence: str


def candidate_truths(entries: list[RecallEntry], limit: int) -> list[Truth]:
    """Unpromoted, merged entries with confidence ≥ 0.45, most confident first."""
    if limit <= 0:
        return []
    merged = dedupe_entries([e for e in entries if not e.promoted_at], TRUTH_DEDUPE_SIMILARITY)
    truths = [Truth(e.key, e.snippet or "(no snippet captured)", truth_confidence(e),
                    f"{e.path}:{e.start_line}-{e.end_line}") for e in merged]
    truths = [t for t in truths if t.confidence >= TRUTH_MIN_CONFIDENCE]
    truths.sort(key=lambda t: (-t.confidence, js_locale_key(t.snippet)))
    return truths[:limit]


def reflections(entries: list[RecallEntry], limit: int, min_strength: float) -> list[str]:
    """Concept tags shared by enough entries, as `Theme` lines with their evidence."""
    stats: dict[str, tuple[int, list[str]]] = {}
    for entry in entries:
        for tag in entry.concept_tags:
            if not tag or tag.lower() in REM_TAG_BLACKLIST:
                continue
            count, evidence = stats.get(tag, (0, []))
            where = f"{entry.path}:{entry.start_line}-{entry.end_line}"
            stats[tag] = (count + 1, evidence if where in evidence else [*evidence, where])
    ranked = []
    for tag, (count, evidence) in stats.items():
        strength = min(1.0, count / max(1, len(entries)) * 2)
        if strength >= min_strength:
            ranked.append((tag, strength, count, evidence))
    ranked.sort(key=lambda r: (-r[1], -r[2], js_locale_key(r[0])))
    if not ranked[:limit]:
        return ["- No strong patterns surfaced."]
    lines = []
    for tag, strength, count, evidence in ranked[:limit]:
        lines += [
            f"- Theme: `{tag}` kept surfacing across {count} memories.",
            f"  - confidence: {js_to_fixed(strength, 2)}",
            f"  - evidence: {', '.join(evidence[:3])}",
            "  - note: reflection",
        ]
    return lines


@dataclass(frozen=True)
class RemPreview:
    """The REM phase's reflections, truths, the keys it revisits and its report lines."""

    reflections: list[str]
    truths: list[Truth]
    keys: list[str]
    body: list[str]


def rem_preview(entries: list[RecallEntry], limit: int, min_strength: float) -> RemPreview:
    """`previewRemDreaming`: reflections and up to three possible lasting truths."""
    lines = reflections(entries, limit, min_strength)
    truths = candidate_truths(entries, max(1, min(3, limit)))
    body = ["### Reflections", *lines, "", "### Possible Lasting Truths"]
    body += [f"- {t.snippet} [confidence={js_to_fixed(t.confidence, 2)} evidence={t.evidence}]" for t in truths] \
        or ["- No strong candidate truths surfaced."]
    return RemPreview(lines, truths, list(dict.fromkeys(t.key for t in truths)), body)

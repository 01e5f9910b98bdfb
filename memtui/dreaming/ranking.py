"""Deep ranking of short-term recall entries (§12.5), with a per-candidate component breakdown."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from memtui.dreaming.contamination import is_contaminated_snippet
from memtui.dreaming.recall_store import PhaseSignal, RecallEntry, is_short_term_path, parse_iso
from memtui.jscompat import js_locale_key

DEFAULT_WEIGHTS = {
    "frequency": 0.24,
    "relevance": 0.30,
    "diversity": 0.15,
    "recency": 0.15,
    "consolidation": 0.10,
    "conceptual": 0.06,
}
LIGHT_BOOST_MAX = 0.06
REM_BOOST_MAX = 0.09
PHASE_HALF_LIFE_DAYS = 14.0
DAY_SECONDS = 86400.0


@dataclass(frozen=True)
class Components:
    """The six component scores, each in [0, 1]."""

    frequency: float
    relevance: float
    diversity: float
    recency: float
    consolidation: float
    conceptual: float


@dataclass(frozen=True)
class PhaseBoost:
    """`0.06·lightStrength·lightRecency + 0.09·remStrength·remRecency`, clamped to [0, 1]."""

    light_strength: float = 0.0
    light_recency: float = 0.0
    rem_strength: float = 0.0
    rem_recency: float = 0.0

    @property
    def total(self) -> float:
        """The boost added to the weighted sum."""
        value = LIGHT_BOOST_MAX * self.light_strength * self.light_recency
        return _clamp01(value + REM_BOOST_MAX * self.rem_strength * self.rem_recency)


@dataclass
class Candidate:
    """A scored short-term entry: its evidence, components, boost, final score and why it is (in)eligible."""

    key: str
    path: str
    start_line: int
    end_line: int
    snippet: str
    recall_count: int
    daily_count: int
    grounded_count: int
    signal_count: int
    avg_score: float
    max_score: float
    unique_queries: int
    context_diversity: int
    age_days: float
    first_recalled_at: str
    last_recalled_at: str
    recall_days: list[str]
    concept_tags: list[str]
    components: Components
    weights: dict[str, float]
    phase_boost: PhaseBoost
    score: float
    claim_hash: str | None = None
    promoted_at: str | None = None
    rejected: list[str] = field(default_factory=list)

    @property
    def source(self) -> str:
        """`path:start-end`."""
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def to_json(self) -> dict[str, Any]:
        """camelCase JSON for `--json` output and tools."""
        return {
            "key": self.key,
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "snippet": self.snippet,
            "score": self.score,
            "recallCount": self.recall_count,
            "dailyCount": self.daily_count,
            "groundedCount": self.grounded_count,
            "signalCount": self.signal_count,
            "avgScore": self.avg_score,
            "maxScore": self.max_score,
            "uniqueQueries": self.unique_queries,
            "contextDiversity": self.context_diversity,
            "ageDays": self.age_days,
            "firstRecalledAt": self.first_recalled_at,
            "lastRecalledAt": self.last_recalled_at,
            "recallDays": self.recall_days,
            "conceptTags": self.concept_tags,
            "components": asdict(self.components),
            "weights": self.weights,
            "phaseBoost": {**asdict(self.phase_boost), "total": self.phase_boost.total},
            "claimHash": self.claim_hash,
            "promotedAt": self.promoted_at,
            "eligible": not self.rejected,
            "rejected": self.rejected,
        }


@dataclass(frozen=True)
class RankOptions:
    """Gates and knobs of a ranking pass (defaults: the manual `promote` command)."""

    min_score: float = 0.75
    min_recall_count: int = 3
    min_unique_queries: int = 2
    max_age_days: float | None = None
    recency_half_life_days: float = 14.0
    include_promoted: bool = False
    include_rejected: bool = False
    limit: int | None = None
    weights: dict[str, float] | None = None


def _clamp01(value: float) -> float:
    return 0.0 if not math.isfinite(value) else max(0.0, min(1.0, value))


def normalize_weights(weights: dict[str, float] | None) -> dict[str, float]:
    """Merge over the defaults, drop negatives, scale to sum 1."""
    merged = {
        name: max(0.0, float((weights or {}).get(name, default))) for name, default in DEFAULT_WEIGHTS.items()
    }
    total = sum(merged.values())
    if total <= 0:
        return dict(DEFAULT_WEIGHTS)
    return {name: value / total for name, value in merged.items()}


def recency_score(age_days: float, half_life_days: float) -> float:
    """`exp(-ln2/halfLife · ageDays)`; 1 for a negative age or a non-positive half-life."""
    if age_days < 0 or half_life_days <= 0:
        return 1.0
    return math.exp(-math.log(2) / half_life_days * age_days)


def consolidation_score(recall_days: list[str], grounded_count: int) -> float:
    """`max(spacing-span score, groundedCount/3)`; the spacing-span score is 0.2 for a single day."""
    days = sorted(d for d in (parse_iso(f"{day}T00:00:00Z") for day in recall_days) if d is not None)
    if not recall_days:
        spacing_span = 0.0
    elif len(recall_days) == 1 or len(days) <= 1:
        spacing_span = 0.2
    else:
        span_days = (days[-1] - days[0]).total_seconds() / DAY_SECONDS
        spacing = _clamp01(math.log1p(len(days) - 1) / math.log1p(4))
        spacing_span = _clamp01(0.55 * spacing + 0.45 * _clamp01(span_days / 7))
    return max(spacing_span, _clamp01(grounded_count / 3))


def _age_days(stamp: str | None, now: datetime) -> float | None:
    parsed = parse_iso(stamp) if stamp else None
    return None if parsed is None else max(0.0, (now - parsed).total_seconds() / DAY_SECONDS)


def phase_boost(signal: PhaseSignal | None, now: datetime) -> PhaseBoost:
    """Light/REM strengths `log1p(hits)/log1p(6)` times their 14-day-half-life recency."""
    if signal is None:
        return PhaseBoost()
    light_age = _age_days(signal.last_light_at, now)
    rem_age = _age_days(signal.last_rem_at, now)
    return PhaseBoost(
        light_strength=_clamp01(math.log1p(max(0, signal.light_hits)) / math.log1p(6)),
        light_recency=0.0 if light_age is None else _clamp01(recency_score(light_age, PHASE_HALF_LIFE_DAYS)),
        rem_strength=_clamp01(math.log1p(max(0, signal.rem_hits)) / math.log1p(6)),
        rem_recency=0.0 if rem_age is None else _clamp01(recency_score(rem_age, PHASE_HALF_LIFE_DAYS)),
    )


def score_entry(
    entry: RecallEntry, signal: PhaseSignal | None, now: datetime, options: RankOptions
) -> Candidate:
    """Score one entry and list every gate it fails (empty `rejected` means eligible)."""
    weights = normalize_weights(options.weights)
    signals = entry.signal_count
    avg = _clamp01(entry.total_score / max(1, signals))
    unique_queries = len(entry.query_hashes)
    diversity_count = max(unique_queries, len(entry.recall_days))
    age = _age_days(entry.last_recalled_at, now) or 0.0
    components = Components(
        frequency=_clamp01(math.log1p(signals) / math.log1p(10)),
        relevance=avg,
        diversity=_clamp01(diversity_count / 5),
        recency=_clamp01(recency_score(age, options.recency_half_life_days)),
        consolidation=consolidation_score(entry.recall_days, entry.grounded_count),
        conceptual=_clamp01(len(entry.concept_tags) / 6),
    )
    boost = phase_boost(signal, now)
    weighted = sum(weights[name] * getattr(components, name) for name in weights)
    raw_score = weighted + boost.total
    score = _clamp01(raw_score)
    rejected = []
    if not is_short_term_path(entry.path):
        rejected.append("not a short-term path (slug files and dreaming reports are not)")
    if is_contaminated_snippet(entry.snippet):
        rejected.append("dreaming output, not memory")
    if entry.promoted_at and not options.include_promoted:
        rejected.append(f"already promoted at {entry.promoted_at}")
    if signals <= 0 or signals < options.min_recall_count:
        rejected.append(f"signals {signals} < minRecallCount {options.min_recall_count}")
    if diversity_count < options.min_unique_queries:
        rejected.append(
            f"max(uniqueQueries, recallDays) {diversity_count} < "
            f"minUniqueQueries {options.min_unique_queries}"
        )
    if options.max_age_days is not None and options.max_age_days >= 0 and age > math.floor(options.max_age_days):
        rejected.append(f"age {age:.1f} d > maxAgeDays {math.floor(options.max_age_days)}")
    if raw_score < options.min_score:
        rejected.append(f"score {score:.3f} < minScore {options.min_score:g}")
    return Candidate(
        key=entry.key,
        path=entry.path,
        start_line=entry.start_line,
        end_line=entry.end_line,
        snippet=entry.snippet,
        recall_count=entry.recall_count,
        daily_count=entry.daily_count,
        grounded_count=entry.grounded_count,
        signal_count=signals,
        avg_score=avg,
        max_score=_clamp01(entry.max_score),
        unique_queries=unique_queries,
        context_diversity=diversity_count,
        age_days=age,
        first_recalled_at=entry.first_recalled_at,
        last_recalled_at=entry.last_recalled_at,
        recall_days=list(entry.recall_days),
        concept_tags=list(entry.concept_tags),
        components=components,
        weights=weights,
        phase_boost=boost,
        score=score,
        claim_hash=entry.claim_hash,
        promoted_at=entry.promoted_at,
        rejected=rejected,
    )


def rank_entries(
    entries: dict[str, RecallEntry], signals: dict[str, PhaseSignal], now: datetime, options: RankOptions
) -> list[Candidate]:
    """Eligible candidates (all of them, each with its failed gates, with `include_rejected`), best first
    (score, then recallCount, then path), cut to `limit`."""
    scored = [score_entry(entry, signals.get(key), now, options) for key, entry in entries.items()]
    eligible = [c for c in scored if not c.rejected or options.include_rejected]
    eligible.sort(key=lambda c: (-c.score, -c.recall_count, js_locale_key(c.path)))
    return eligible if options.limit is None else eligible[: max(0, options.limit)]

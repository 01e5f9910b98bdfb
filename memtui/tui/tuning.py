"""Live search tuning: the knobs, the settings they produce, rank movement and the JSON5 snippet."""

from __future__ import annotations

from dataclasses import dataclass, replace

from memtui.search.engine import Candidate, hybrid_weights
from memtui.settings.config import MemorySearchSettings, with_weights


@dataclass(frozen=True)
class Tuning:
    """Every live-tunable query knob (a snapshot of the configured values to start from)."""

    vector_weight: float
    text_weight: float
    candidate_multiplier: float
    min_score: float
    max_results: int
    mmr_enabled: bool
    mmr_lambda: float
    decay_enabled: bool
    half_life_days: int
    profile: str

    @classmethod
    def from_settings(cls, settings: MemorySearchSettings, profile: str) -> Tuning:
        """The knobs as configured."""
        hybrid = settings.query.hybrid
        vector_weight, text_weight = hybrid_weights(settings, profile)
        return cls(
            vector_weight=vector_weight, text_weight=text_weight,
            candidate_multiplier=hybrid.candidate_multiplier, min_score=settings.query.min_score,
            max_results=settings.query.max_results, mmr_enabled=hybrid.mmr.enabled, mmr_lambda=hybrid.mmr.lambda_,
            decay_enabled=hybrid.temporal_decay.enabled, half_life_days=hybrid.temporal_decay.half_life_days,
            profile=profile,
        )

    def apply(self, settings: MemorySearchSettings) -> MemorySearchSettings:
        """`settings` with these knobs (weights normalised like the config resolver)."""
        weighted = with_weights(settings, self.vector_weight, self.text_weight)
        hybrid = weighted.query.hybrid
        hybrid = replace(
            hybrid,
            candidate_multiplier=max(1.0, min(20.0, self.candidate_multiplier)),
            mmr=replace(hybrid.mmr, enabled=self.mmr_enabled, lambda_=max(0.0, min(1.0, self.mmr_lambda))),
            temporal_decay=replace(hybrid.temporal_decay, enabled=self.decay_enabled,
                                   half_life_days=max(1, self.half_life_days)),
        )
        query = replace(weighted.query, hybrid=hybrid, min_score=max(0.0, min(1.0, self.min_score)),
                        max_results=max(1, self.max_results))
        return replace(weighted, query=query)

    def json5_snippet(self, settings: MemorySearchSettings) -> str:
        """The `openclaw.json` block that makes these knobs permanent."""
        tuned = self.apply(settings)
        query = tuned.query
        hybrid = query.hybrid
        return "\n".join([
            "// openclaw.json: agents.defaults.memorySearch",
            f"// memtui ranking profile: {self.profile} (memtui --profile {self.profile} or MEMTUI_PROFILE)",
            "{",
            "  agents: {",
            "    defaults: {",
            "      memorySearch: {",
            "        query: {",
            f"          maxResults: {query.max_results},",
            f"          minScore: {_num(query.min_score)},",
            "          hybrid: {",
            f"            enabled: {_bool(hybrid.enabled)},",
            f"            vectorWeight: {_num(hybrid.vector_weight)},",
            f"            textWeight: {_num(hybrid.text_weight)},",
            f"            candidateMultiplier: {_num(hybrid.candidate_multiplier)},",
            f"            mmr: {{ enabled: {_bool(hybrid.mmr.enabled)}, lambda: {_num(hybrid.mmr.lambda_)} }},",
            f"            temporalDecay: {{ enabled: {_bool(hybrid.temporal_decay.enabled)}, "
            f"halfLifeDays: {hybrid.temporal_decay.half_life_days} }},",
            "          },",
            "        },",
            "      },",
            "    },",
            "  },",
            "}",
        ])


def _num(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return text or "0"


def _bool(value: bool) -> str:
    return "true" if value else "false"


def movement_marks(previous: list[str] | None, current: list[Candidate]) -> dict[str, str]:
    """chunk id → ▲n / ▼n / = / new, comparing result order with the previous run of the same query."""
    if previous is None:
        return {}
    before = {chunk_id: position for position, chunk_id in enumerate(previous, start=1)}
    marks: dict[str, str] = {}
    for position, candidate in enumerate(current, start=1):
        old = before.get(candidate.id)
        if old is None:
            marks[candidate.id] = "new"
        elif old > position:
            marks[candidate.id] = f"▲{old - position}"
        elif old < position:
            marks[candidate.id] = f"▼{position - old}"
        else:
            marks[candidate.id] = "="
    return marks


def gone_ids(previous: list[str] | None, current: list[Candidate]) -> list[str]:
    """Ids that were in the previous results and are not any more."""
    if previous is None:
        return []
    now = {c.id for c in current}
    return [chunk_id for chunk_id in previous if chunk_id not in now]

"""Live search tuning: the knobs, the settings they produce, rank movement and the JSON5 snippet."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from dataclasses import field as dataclass_field

from memtui.errors import ConfigError
from memtui.search.engine import hybrid_weights
from memtui.search.response import Candidate
from memtui.settings.config import PROFILES, MemorySearchSettings, with_weights
from memtui.settings.openclaw_2026_9 import FIXED_HYBRID


@dataclass(frozen=True)
class Knob:
    """One tunable field: its label (as in openclaw.json), and for numbers the step and the allowed range."""

    field: str
    label: str
    step: float = 0.0
    low: float = 0.0
    high: float = 1.0
    integer: bool = False

    @property
    def numeric(self) -> bool:
        """True for numbers (stepped and typed); False for switches and the profile."""
        return self.step > 0


KNOBS: tuple[Knob, ...] = (
    Knob("profile", "profile"),
    Knob("vector_weight", "vectorWeight", 0.05),
    Knob("text_weight", "textWeight", 0.05),
    Knob("candidate_multiplier", "candidateMultiplier", 1, 1, 20),
    Knob("min_score", "minScore", 0.05),
    Knob("max_results", "maxResults", 1, 1, 100, integer=True),
    Knob("mmr_enabled", "MMR"),
    Knob("mmr_lambda", "MMR lambda", 0.05),
    Knob("decay_enabled", "temporal decay"),
    Knob("half_life_days", "halfLifeDays", 5, 1, 3650, integer=True),
)
KNOBS_BY_FIELD = {knob.field: knob for knob in KNOBS}


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
    # (profile, vector weight, text weight) as configured: switching the profile searches with its weights,
    # the ones `memtui search --profile` uses
    profile_weights: tuple[tuple[str, float, float], ...] = dataclass_field(default=(), compare=False, repr=False)

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
            profile_weights=tuple((name, *hybrid_weights(settings, name)) for name in PROFILES),
        )

    def value_text(self, field: str) -> str:
        """The knob's value as shown: numbers trimmed (`0.7`, `4`), switches `on`/`off`."""
        value = getattr(self, field)
        if isinstance(value, bool):
            return "on" if value else "off"
        return value if isinstance(value, str) else _num(value)

    def with_value(self, field: str, value: float | bool | str) -> Tuning:
        """A copy with one knob set, clamped to its range; the two weights always sum to 1 (as the engine
        normalises them), so setting one sets the other."""
        knob = KNOBS_BY_FIELD[field]
        if knob.numeric and not isinstance(value, bool | str):
            value = max(knob.low, min(knob.high, round(float(value), 4)))
            value = int(value) if knob.integer else value
        if field == "profile":
            weights = {name: (vector, text) for name, vector, text in self.profile_weights}
            if value in weights:
                vector, text = weights[str(value)]
                return replace(self, profile=str(value), vector_weight=vector, text_weight=text)
        if field == "vector_weight":
            return replace(self, vector_weight=float(value), text_weight=round(1 - float(value), 4))
        if field == "text_weight":
            return replace(self, text_weight=float(value), vector_weight=round(1 - float(value), 4))
        return replace(self, **{field: value})

    def stepped(self, field: str, direction: int) -> Tuning:
        """One step up (+1) or down (-1); switches flip and the profile cycles."""
        knob = KNOBS_BY_FIELD[field]
        value = getattr(self, field)
        if knob.numeric:
            return self.with_value(field, value + direction * knob.step)
        if isinstance(value, bool):
            return self.with_value(field, not value)
        return self.with_value(field, PROFILES[(PROFILES.index(value) + direction) % len(PROFILES)])

    def parsed(self, field: str, text: str) -> Tuning:
        """A copy with a typed value; a clear error when it is not a number in the knob's range."""
        knob = KNOBS_BY_FIELD[field]
        try:
            number = int(text) if knob.integer else float(text)
            if not math.isfinite(number):
                raise ValueError(text)
        except ValueError:
            kind = "a whole number" if knob.integer else "a number"
            raise ConfigError(f"{knob.label} must be {kind} from {_num(knob.low)} to {_num(knob.high)}, "
                              f"not {text.strip()!r}") from None
        return self.with_value(field, number)

    def changed_from(self, other: Tuning) -> list[str]:
        """Labels of the knobs whose values differ from `other` (the configured values)."""
        return [KNOBS_BY_FIELD[f.name].label for f in fields(self)
                if f.name in KNOBS_BY_FIELD and getattr(self, f.name) != getattr(other, f.name)]

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

    def json5_snippet(self, settings: MemorySearchSettings, layout: str = "2026.4") -> str:
        """The `openclaw.json` block that makes these knobs permanent, in the keys of the agent's OpenClaw
        generation (2026.9 accepts only maxResults and minScore; it says which tuned knobs it fixed)."""
        if layout == "2026.9":
            return self._snippet_2026_9(settings)
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


    def _snippet_2026_9(self, settings: MemorySearchSettings) -> str:
        tuned = self.apply(settings)
        hybrid = tuned.query.hybrid
        fixed = [(f"vectorWeight {_num(hybrid.vector_weight)}", hybrid.vector_weight != FIXED_HYBRID.vector_weight),
                 (f"textWeight {_num(hybrid.text_weight)}", hybrid.text_weight != FIXED_HYBRID.text_weight),
                 (f"candidateMultiplier {_num(hybrid.candidate_multiplier)}",
                  hybrid.candidate_multiplier != FIXED_HYBRID.candidate_multiplier),
                 (f"MMR {'on' if hybrid.mmr.enabled else 'off'} λ {_num(hybrid.mmr.lambda_)}",
                  hybrid.mmr != FIXED_HYBRID.mmr),
                 (f"decay {'on' if hybrid.temporal_decay.enabled else 'off'} "
                  f"{hybrid.temporal_decay.half_life_days} d", hybrid.temporal_decay != FIXED_HYBRID.temporal_decay)]
        lost = [label for label, changed in fixed if changed]
        lines = ["// openclaw.json (OpenClaw 2026.9): memory.search",
                 f"// memtui ranking profile: {self.profile} (memtui --profile {self.profile} or MEMTUI_PROFILE)",
                 "// fixed in 2026.9, so not written: hybrid 0.7/0.3 ×4, MMR λ 0.7, temporal decay 30 days"]
        if lost:
            lines.append(f"// tuned here but OpenClaw 2026.9 cannot keep: {', '.join(lost)}")
        return "\n".join([*lines, "{", "  memory: {", "    search: {", "      query: {",
                          f"        maxResults: {tuned.query.max_results},",
                          f"        minScore: {_num(tuned.query.min_score)},",
                          "      },", "    },", "  },", "}"])


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

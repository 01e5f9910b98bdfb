"""The tuning panel: weights, candidate multiplier, thresholds, MMR, decay and profile, changed live."""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Label, Select, Switch

from memtui.settings.config import PROFILES
from memtui.tui.tuning import Tuning

_NUMBER_FIELDS = {
    "tune-vector": ("vector_weight", float),
    "tune-text": ("text_weight", float),
    "tune-multiplier": ("candidate_multiplier", float),
    "tune-min-score": ("min_score", float),
    "tune-max-results": ("max_results", int),
    "tune-lambda": ("mmr_lambda", float),
    "tune-half-life": ("half_life_days", int),
}


class TuningPanel(VerticalScroll):
    """Editable knobs; posts `TuningPanel.Changed` with the new `Tuning`."""

    @dataclass
    class Changed(Message):
        """The user changed a knob."""

        tuning: Tuning

    def __init__(self, tuning: Tuning, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.tuning = tuning

    def compose(self) -> ComposeResult:
        """One labelled field per knob."""
        t = self.tuning
        values = {
            "tune-vector": t.vector_weight, "tune-text": t.text_weight, "tune-multiplier": t.candidate_multiplier,
            "tune-min-score": t.min_score, "tune-max-results": t.max_results, "tune-lambda": t.mmr_lambda,
            "tune-half-life": t.half_life_days,
        }
        labels = {
            "tune-vector": "vectorWeight", "tune-text": "textWeight", "tune-multiplier": "candidateMultiplier",
            "tune-min-score": "minScore", "tune-max-results": "maxResults", "tune-lambda": "MMR λ",
            "tune-half-life": "half-life (days)",
        }
        yield Label("profile")
        yield Select([(name, name) for name in PROFILES], value=t.profile, allow_blank=False, id="tune-profile")
        for field_id in ("tune-vector", "tune-text", "tune-multiplier", "tune-min-score", "tune-max-results"):
            yield Label(labels[field_id])
            kind = _NUMBER_FIELDS[field_id][1]
            yield Input(_show(values[field_id]), type="integer" if kind is int else "number", id=field_id,
                        compact=True)
        with Horizontal(classes="switch-row"):
            yield Switch(t.mmr_enabled, id="tune-mmr")
            yield Label("MMR")
        yield Label(labels["tune-lambda"])
        yield Input(_show(t.mmr_lambda), type="number", id="tune-lambda", compact=True)
        with Horizontal(classes="switch-row"):
            yield Switch(t.decay_enabled, id="tune-decay")
            yield Label("temporal decay")
        yield Label(labels["tune-half-life"])
        yield Input(_show(t.half_life_days), type="integer", id="tune-half-life", compact=True)

    @on(Input.Changed)
    def _number_changed(self, event: Input.Changed) -> None:
        event.stop()
        field = _NUMBER_FIELDS.get(event.input.id or "")
        if field is None:
            return
        name, kind = field
        try:
            value = kind(event.value)
        except ValueError:
            return
        self._update(**{name: value})

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()

    @on(Switch.Changed)
    def _switch_changed(self, event: Switch.Changed) -> None:
        event.stop()
        if event.switch.id == "tune-mmr":
            self._update(mmr_enabled=event.value)
        elif event.switch.id == "tune-decay":
            self._update(decay_enabled=event.value)

    @on(Select.Changed, "#tune-profile")
    def _profile_changed(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str):
            self._update(profile=event.value)

    def _update(self, **changes: object) -> None:
        tuning = replace(self.tuning, **changes)  # type: ignore[arg-type]
        if tuning != self.tuning:
            self.tuning = tuning
            self.post_message(self.Changed(tuning))


def _show(value: float) -> str:
    return f"{value:g}"

"""The tuning panel: one line per knob (weights, candidate multiplier, thresholds, MMR, decay, profile), changed
live with the arrow keys or by typing a value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from memtui.tui.actions import bindings_for
from memtui.tui.tuning import KNOBS, KNOBS_BY_FIELD, Tuning

LABEL_WIDTH = 20


class TuningPanel(OptionList):
    """Editable knobs; posts `TuningPanel.Changed` with the new `Tuning` and `TuningPanel.EditRequested` when a
    number should be typed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("left,h,minus", "step(-1)", "−", show=False),
        Binding("right,l,plus", "step(1)", "+", show=False),
        *bindings_for("tuning"),
    ]

    @dataclass
    class Changed(Message):
        """The user changed a knob."""

        tuning: Tuning

    @dataclass
    class EditRequested(Message):
        """Enter on a number: the app asks for the value."""

        field: str

    def __init__(self, tuning: Tuning, configured: Tuning, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.tuning = tuning
        self.configured = configured

    def on_mount(self) -> None:
        """One option per knob, the first highlighted."""
        self.add_options([Option(self._prompt(knob.field), id=knob.field) for knob in KNOBS])
        self.highlighted = 0

    def _prompt(self, field: str) -> Text:
        """`label  value (configured value)`; the gap after the label narrows when the line would not fit the
        panel's width (a wrapped line read as a knob of its own)."""
        knob = KNOBS_BY_FIELD[field]
        value = self.tuning.value_text(field)
        changed = value != self.configured.value_text(field)
        configured = f" ({self.configured.value_text(field)})" if changed else ""
        room = self.scrollable_content_region.width
        label_width = LABEL_WIDTH if not room else max(len(knob.label) + 1,
                                                        min(LABEL_WIDTH, room - len(value) - len(configured)))
        line = Text(knob.label.ljust(label_width), style="bold" if changed else "")
        line.append(value, style="bold" if changed else "")
        line.append(configured, style="dim")
        return line

    def on_resize(self) -> None:
        """Fit the lines to the new width."""
        self.show(self.tuning)

    def show(self, tuning: Tuning) -> None:
        """Display `tuning` (after a reset or a typed value) without posting a change."""
        self.tuning = tuning
        if self.option_count != len(KNOBS):
            return
        for index, knob in enumerate(KNOBS):
            self.replace_option_prompt_at_index(index, self._prompt(knob.field))

    @property
    def field(self) -> str:
        """The highlighted knob's field."""
        return KNOBS[self.highlighted or 0].field

    def set_value(self, tuning: Tuning) -> None:
        """Show new knobs and post the change (nothing when they are the same)."""
        if tuning != self.tuning:
            self.show(tuning)
            self.post_message(self.Changed(tuning))

    def action_step(self, direction: int) -> None:
        """Step the highlighted knob (switches flip, the profile cycles)."""
        self.set_value(self.tuning.stepped(self.field, direction))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        """Enter: numbers ask for a value; switches and the profile step."""
        event.stop()
        if KNOBS_BY_FIELD[self.field].numeric:
            self.post_message(self.EditRequested(self.field))
        else:
            self.action_step(1)

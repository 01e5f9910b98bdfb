"""The tuning area: the live knobs panel, applying them to the search, reset, and the JSON5 snippet."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.containers import Horizontal
from textual.widget import Widget

from memtui.errors import MemtuiError
from memtui.tui.controllers.base import MemtuiBase
from memtui.tui.screens import PromptModal
from memtui.tui.tuning import KNOBS_BY_FIELD, Tuning
from memtui.tui.widgets import IndexStatusBar, TuningPanel


class TuningController(MemtuiBase):
    """Holds the live tuning (starting from the configured values) and re-ranks the query when it changes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.configured_tuning = Tuning.from_settings(self.manager.settings, self.manager.env.profile)
        self.tuning = self.configured_tuning
        self._focus_before_tuning: Widget | None = None

    @property
    def tuning_panel(self) -> TuningPanel | None:
        """The panel, once it was opened."""
        return next(self.query("#tuning").results(TuningPanel), None)

    def show_tuning(self) -> TuningPanel:
        """Show the panel (built on first use: most sessions never open it) and focus it (a new one once it is
        mounted)."""
        body = self.query_one("#body", Horizontal)
        panel = self.tuning_panel
        if panel is None:
            panel = self._new_tuning_panel()
            body.mount(panel)
            self.call_after_refresh(panel.focus)
        panel.display = True
        body.add_class("-tuning")
        return panel

    async def action_toggle_tuning(self) -> None:
        """Show or hide the tuning panel; the next key typed goes to the panel, even typed at once."""
        panel = self.tuning_panel
        if panel is not None and panel.display:
            panel.display = False
            self.query_one("#body", Horizontal).remove_class("-tuning")
            back = self._focus_before_tuning
            # Back where the user was (the file they were reading stays on the screen), else the results.
            self.focus_now(back if back is not None and back.is_attached and back.display else self.results)
            return
        focused = self.focused
        self._focus_before_tuning = focused if focused is not None and focused.screen is self.screen_stack[0] \
            else None
        if panel is None:
            await self.query_one("#body", Horizontal).mount(self._new_tuning_panel())
        self.focus_now(self.show_tuning())

    def _new_tuning_panel(self) -> TuningPanel:
        panel = TuningPanel(self.tuning, self.configured_tuning, id="tuning")
        panel.border_title = "5 Tuning"
        return panel

    @on(TuningPanel.Changed)
    def _tuning_changed(self, message: TuningPanel.Changed) -> None:
        self.set_tuning(message.tuning)

    @on(TuningPanel.EditRequested)
    def _edit_knob(self, message: TuningPanel.EditRequested) -> None:
        knob = KNOBS_BY_FIELD[message.field]

        def typed(value: str | None) -> None:
            panel = self.tuning_panel
            if value is None or not value.strip() or panel is None:
                return
            try:
                tuning = self.tuning.parsed(message.field, value)
            except MemtuiError as exc:
                self.notify(str(exc), severity="error")
                return
            panel.set_value(tuning)

        bounds = f"{knob.low:g}–{knob.high:g}"
        self.push_screen(PromptModal(f"{knob.label} ({bounds})", bounds, self.tuning.value_text(message.field)),
                         typed)

    def set_tuning(self, tuning: Tuning) -> None:
        """Use new knobs, mark the status bar when they differ from the config, and re-rank the query."""
        self.tuning = tuning
        self.query_one("#status-bar", IndexStatusBar).show_tuned(tuning.changed_from(self.configured_tuning))
        if self.query_input.value.strip():
            self.schedule_search(retune=True, delay=self.debounce)

    def action_reset_tuning(self) -> None:
        """Back to the configured values."""
        panel = self.tuning_panel
        if panel is not None:
            panel.show(self.configured_tuning)
        self.set_tuning(self.configured_tuning)
        self.notify("Tuning reset to the configured values")

    def action_copy_tuning(self) -> None:
        """Copy the JSON5 snippet for openclaw.json."""
        self.copy_text(self.tuning.json5_snippet(self.manager.settings, self.manager.env.openclaw_layout),
                       "JSON5 config snippet")

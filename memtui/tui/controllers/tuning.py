"""The tuning area: the live knobs panel, applying them to the search, reset, and the JSON5 snippet."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.containers import Horizontal
from textual.widgets import Input

from memtui.tui.controllers.base import MemtuiBase
from memtui.tui.tuning import Tuning
from memtui.tui.widgets import TuningPanel


class TuningController(MemtuiBase):
    """Holds the live tuning (starting from the configured values) and re-ranks the query when it changes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.configured_tuning = Tuning.from_settings(self.manager.settings, self.manager.env.profile)
        self.tuning = self.configured_tuning

    def action_toggle_tuning(self) -> None:
        """Show or hide the tuning panel."""
        body = self.query_one("#body", Horizontal)
        panels = self.query("#tuning").results(TuningPanel)
        panel = next(panels, None)
        if panel is None:
            # Built on first use: it is the costliest widget, and most sessions never open it.
            panel = TuningPanel(self.tuning, id="tuning")
            body.mount(panel)
        else:
            panel.display = not panel.display
        body.set_class(panel.display, "-tuning")
        if panel.display:
            self.call_after_refresh(lambda: panel.query_one("#tune-vector", Input).focus())

    @on(TuningPanel.Changed)
    def _tuning_changed(self, message: TuningPanel.Changed) -> None:
        self.set_tuning(message.tuning)

    def set_tuning(self, tuning: Tuning) -> None:
        """Use new knobs and re-rank the current query."""
        self.tuning = tuning
        self.refresh_status()
        if self.query_input.value.strip():
            self.schedule_search(retune=True, delay=self.debounce)

    def action_reset_tuning(self) -> None:
        """Back to the configured values."""
        panel = next(self.query("#tuning").results(TuningPanel), None)
        if panel is not None:
            shown = panel.display
            panel.remove()
            fresh = TuningPanel(self.configured_tuning, id="tuning")
            self.query_one("#body", Horizontal).mount(fresh)
            fresh.display = shown
        self.set_tuning(self.configured_tuning)
        self.notify("Tuning reset to the configured values")

    def action_copy_tuning(self) -> None:
        """Copy the JSON5 snippet for openclaw.json."""
        self.copy_text(self.tuning.json5_snippet(self.manager.settings), "JSON5 config snippet")

"""The panes: numbered focus targets, Esc out of text boxes, maximising the focused pane, the collapsible
sidebar, and the layout classes that follow the terminal's size."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.dom import NoScreen
from textual.widget import Widget
from textual.widgets import TabbedContent

from memtui.tui.controllers.base import MemtuiBase
from memtui.tui.widgets import SearchInput, TracePanel

NARROW = 100  # columns at or under which the sidebar folds away
WIDE = 160  # columns from which the wide layout (snippet column, trace side by side) applies
SHORT = 26  # rows at or under which panes give up spacing


class PaneController(MemtuiBase):
    """Where the focus goes, and how much room each pane gets."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sidebar_wanted: bool | None = None  # None: follow the terminal's width

    def on_resize(self, event: events.Resize) -> None:
        """Layout classes on the main screen: -narrow, -wide, -short; the sidebar follows unless toggled."""
        main = self.screen_stack[0] if self.screen_stack else None
        if main is None:
            return
        width, height = event.size
        main.set_class(width <= NARROW, "-narrow")
        main.set_class(width >= WIDE, "-wide")
        main.set_class(height <= SHORT, "-short")
        self._apply_sidebar(width)

    def _apply_sidebar(self, width: int | None = None) -> None:
        width = self.size.width if width is None else width
        shown = self.sidebar_wanted if self.sidebar_wanted is not None else width > NARROW
        side = self.query_one("#side")
        if side.display != shown:
            side.display = shown
            if not shown and self.focused is not None and side in self.focused.ancestors_with_self:
                self.focus_now(self.results)

    def action_toggle_sidebar(self) -> None:
        """Show or hide the file browser."""
        self.sidebar_wanted = not self.query_one("#side").display
        self._apply_sidebar()
        if self.sidebar_wanted:
            self.focus_now(self.browser)

    def pane_widget(self, name: str) -> Widget | None:
        """The widget that takes the focus for a numbered pane."""
        if name == "search":
            return self.query_input
        if name == "files":
            if not self.query_one("#side").display:
                self.sidebar_wanted = True
                self._apply_sidebar()
            return self.browser
        if name == "results":
            return self.results
        if name == "detail":
            tabs = self.query_one("#detail", TabbedContent)
            return self.viewer.content_widget if tabs.active == "tab-file" else self.query_one("#trace", TracePanel)
        return self.show_tuning()

    def action_focus_pane(self, name: str) -> None:
        """Jump to a pane (1 search, 2 files, 3 results, 4 trace / file, 5 tuning)."""
        if self.screen.maximized is not None:
            self.screen.minimize()
        widget = self.pane_widget(name)
        if widget is not None:
            self.screen.set_focus(widget)  # at once: keys typed right after the jump go to the pane

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A key that moves the focus out of the maximised pane (`/`, `t`, Enter on a hit) restores the layout:
        the focus never sits in a pane that is not on the screen. A widget already gone (the palette's input,
        closed before its focus event arrived) has no screen to restore."""
        try:
            screen = event.widget.screen
        except NoScreen:
            return
        if screen.maximized is not None and screen.maximized not in event.widget.ancestors_with_self:
            screen.minimize()

    async def on_event(self, event: events.Event) -> None:
        """Outside the text boxes letters are commands (as in k9s or lazygit); a letter that is no command where
        the focus is goes to the search box and starts a new query there, as `/` and that key would (the
        box selects its text when it takes the focus; the last query is a ↑ away), so nothing typed vanishes. It
        is decided as the key arrives, before it is passed on, so keys typed at once after it follow it in order."""
        if isinstance(event, events.Key) and not event.is_forwarded and self._no_command(event):
            self.focus_now(self.query_one("#query", SearchInput))
        await super().on_event(event)

    def _no_command(self, event: events.Key) -> bool:
        """True for a letter (or digit, of any script) that nothing on the main screen would do anything with where
        the focus is."""
        if self.screen is not self.screen_stack[0] or self.typing() or not event.character \
                or not event.character.isalnum():
            return False
        bound = self.active_bindings.get(event.key)
        return bound is None or not bound.enabled

    def action_toggle_zoom(self) -> None:
        """Maximise the focused pane, or restore the layout."""
        if self.screen.maximized is not None:
            self.screen.minimize()
            return
        focused = self.focused
        if focused is None:
            return
        detail = self.query_one("#detail", TabbedContent)
        for pane in (detail, self.query_one("#side"), self.results, self.tuning_panel):
            if pane is not None and pane in focused.ancestors_with_self:
                self.screen.maximized = pane
                return
        self.notify("Focus a pane first (2 files, 3 results, 4 trace / file, 5 tuning)", severity="warning")

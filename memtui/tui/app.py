"""MemtuiApp: the main screen (browser, viewer, live search, trace, tuning, status), composed of one controller
per screen area (`memtui.tui.controllers`).

Invariant: workers never touch widgets. They post messages (`memtui.tui.messages`); the controllers' handlers
own all UI state.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, Static, TabbedContent, TabPane

from memtui.tui.actions import ACTIONS, bindings
from memtui.tui.commands import MemtuiCommands
from memtui.tui.controllers import (
    BrowserController,
    CurationController,
    IndexController,
    SearchController,
    TuningController,
)
from memtui.tui.screens import HelpScreen
from memtui.tui.widgets import FileViewer, FilterInput, IndexStatusBar, MemoryBrowser, ResultsTable, TracePanel

SCREEN_INDEPENDENT = frozenset({"help", "quit"})
MAIN_SCREEN_ACTIONS = frozenset(a.action for a in ACTIONS) - SCREEN_INDEPENDENT
EDITOR_ACTIONS = frozenset({"save", "leave_edit"})
SCREENSHOT_IDLE_TICKS = 12  # 1.2 s idle: the footer, rebuilt on focus changes, paints late headless


class MemtuiApp(SearchController, BrowserController, TuningController, CurationController, IndexController):
    """See, search, tune and curate one agent's memory."""

    CSS_PATH = "app.tcss"
    TITLE = "memtui"
    COMMANDS = App.COMMANDS | {MemtuiCommands}
    BINDINGS = bindings()
    _idle_ticks = 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Main-screen actions are off (and out of the footer) while another screen is on top."""
        if action in SCREEN_INDEPENDENT:
            return True
        if self.screen is not self.screen_stack[0]:
            return action not in MAIN_SCREEN_ACTIONS
        if action in EDITOR_ACTIONS:
            return self.viewer.editing
        return True

    def compose(self) -> ComposeResult:
        """Search row, browser | results + detail | tuning, status bar, footer."""
        with Horizontal(id="search-row"):
            yield Input(placeholder="Search memory…  (/ to focus, Enter to jump to the results)", id="query")
            yield Static("", id="search-info")
        with Horizontal(id="body"):
            with Vertical(id="side"):
                yield FilterInput(placeholder="filter files", id="browser-filter")
                yield MemoryBrowser(id="browser")
            with Vertical(id="center"):
                yield ResultsTable(id="results")
                with TabbedContent(id="detail", initial="tab-trace"):
                    with TabPane("Trace", id="tab-trace"):
                        yield TracePanel(id="trace")
                    with TabPane("File", id="tab-file"):
                        yield FileViewer(id="viewer")
        yield IndexStatusBar(id="status-bar")
        yield Footer()

    def on_mount(self) -> None:
        """Apply the keymap, fill the browser and status, start indexing when needed."""
        if self.keymap_overrides:
            self.set_keymap(self.keymap_overrides)
        self.query_one("#search-row", Horizontal).border_title = "Search"
        self.refresh_browser()
        self.refresh_status()
        self.listen_to_engine()
        self.query_input.focus()
        if self.initial_query:
            self.query_input.value = self.initial_query
        if self.screenshot_path is not None:
            self.set_interval(0.1, self._screenshot_when_idle)

    # -- screens ------------------------------------------------------------------------------

    def action_help(self) -> None:
        """Open the help screen."""
        rows = [(self.keymap_overrides.get(a.id, a.keys), a.id, a.title) for a in ACTIONS]
        self.push_screen(HelpScreen(rows))

    def action_sessions(self) -> None:
        """Open the sessions screen (when the session engine is installed)."""
        try:
            from memtui.tui.screens.sessions import SessionsScreen
        except ImportError as exc:
            self.notify(f"Sessions view unavailable: {exc}", severity="warning")
            return
        self.push_screen(SessionsScreen(self.manager.env, now=self.now))

    def action_dreams(self) -> None:
        """Open the dreams view (when the dreaming engine is installed)."""
        try:
            from memtui.tui.screens.dreams import DreamsScreen
        except ImportError as exc:
            self.notify(f"Dreams view unavailable: {exc}", severity="warning")
            return
        self.push_screen(DreamsScreen(self.manager.env.workspace_dir, now=self.now))

    # -- screenshot ---------------------------------------------------------------------------

    def _screenshot_when_idle(self) -> None:
        busy = any(w.is_running or w.state.name == "PENDING" for w in self.workers)
        if busy or self.search_pending or self.screenshot_path is None:
            self._idle_ticks = 0
            return
        self._idle_ticks += 1
        if self._idle_ticks < SCREENSHOT_IDLE_TICKS:
            return
        path = self.screenshot_path
        self.screenshot_path = None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.export_screenshot(), encoding="utf-8")
        self.exit(0)

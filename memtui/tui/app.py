"""MemtuiApp: the main screen (browser, viewer, live search, trace, tuning, status), composed of one controller
per screen area (`memtui.tui.controllers`).

Invariant: workers never touch widgets. They post messages (`memtui.tui.messages`); the controllers' handlers
own all UI state.
"""

from __future__ import annotations

import gc
import sys

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import TabbedContent, TabPane

from memtui.tui.actions import ACTIONS, PRIORITY_ACTIONS, SCREEN_INDEPENDENT, bindings_for, bound_keys
from memtui.tui.commands import MemtuiCommands
from memtui.tui.controllers import (
    BrowserController,
    CurationController,
    IndexController,
    PaneController,
    SearchController,
    TuningController,
)
from memtui.tui.keys import keys_display
from memtui.tui.lag import LagProbe
from memtui.tui.screens import HelpScreen
from memtui.tui.screens.help import help_intro, key_rows, live_bindings
from memtui.tui.widgets import (
    FileViewer,
    FilterInput,
    HotKeysFooter,
    IndexStatusBar,
    MemoryBrowser,
    ResultsTable,
    SearchInfo,
    SearchInput,
    TracePanel,
)

MAIN_SCREEN_ACTIONS = frozenset(a.name for a in ACTIONS) - SCREEN_INDEPENDENT
EDITOR_ACTIONS = frozenset({"save", "leave_edit"})
GIL_SWITCH = 0.001  # seconds a worker thread may hold the GIL while the UI thread waits (Python's default: 5 ms)
SCREENSHOT_IDLE_TICKS = 12  # 1.2 s idle: the footer, rebuilt on focus changes, paints late headless
# The panes of the main screen's help, in screen order: (title, selectors of the widgets holding its keys).
HELP_PANES = (("Search box", ("#query",)), ("Files", ("#browser",)), ("Results", ("#results",)),
              ("Trace", ("#trace",)), ("File viewer and editor", ("#viewer", "#viewer-text")))


class MemtuiApp(PaneController, SearchController, BrowserController, TuningController, CurationController,
                IndexController):
    """See, search, tune and curate one agent's memory."""

    CSS_PATH = "app.tcss"
    TITLE = "memtui"
    COMMANDS = App.COMMANDS | {MemtuiCommands}
    BINDINGS = bindings_for("app")
    _idle_ticks = 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Main-screen actions are off (and out of the footer) while another screen is on top; on a dialog,
        `q` and `?` belong to the dialog."""
        if action in SCREEN_INDEPENDENT:
            return not isinstance(self.screen, ModalScreen)
        if self.screen is not self.screen_stack[0]:
            return action not in MAIN_SCREEN_ACTIONS
        if action in PRIORITY_ACTIONS and self.typing():
            return False
        if action in EDITOR_ACTIONS:
            return self.viewer.editing
        if action == "clear_file_filter":
            return bool(self.browser.filter_text) or self.query_one("#browser-filter").display
        return True

    def get_key_display(self, binding: Binding) -> str:
        """Keys as people write them (`/`, `?`, `F1`, `Esc`)."""
        return binding.key_display or keys_display(binding.key, first=True)

    def compose(self) -> ComposeResult:
        """Search row, browser | results + detail | tuning, status bar, footer."""
        with Horizontal(id="search-row"):
            back = keys_display(bound_keys("search.focus", self.keymap_overrides), first=True)
            yield SearchInput(placeholder=f"Search memory…  ({back} to come back here, Enter for the results, Esc to "
                                          "leave)", id="query")
            yield SearchInfo("", id="search-info")
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
        yield HotKeysFooter()

    def on_mount(self) -> None:
        """Apply the keymap, title the panes and listen to the engine; once the first frame is on the screen, list
        the files in a worker, and once the tree is drawn, read the status and start indexing when needed (their
        threads would slow those frames)."""
        if self.keymap_overrides:
            self.set_keymap(self.keymap_overrides)
        self.query_one("#search-row").border_title = "1 Search"
        self.query_one("#browser").border_title = "2 Files"
        self.results.border_title = "3 Results"
        self.query_one("#detail").border_title = "4 Trace · File"
        sys.setswitchinterval(GIL_SWITCH)
        self.listen_to_engine()
        self.call_after_refresh(self._start_workers)
        self._apply_sidebar()
        if self.initial_query:
            self.query_input.value = self.initial_query
        self.focus_now(self.browser if self.query_one("#side").display else self.results)
        if self.screenshot_path is not None:
            self.set_interval(0.1, self._screenshot_when_idle)

    def _start_workers(self) -> None:
        # What start-up built (modules, classes, the widgets) lives as long as the app: out of the collector's
        # sight, a full collection no longer walks it (~70-100 ms on 2 slow cores, a stall of the screen each
        # time the indexer's garbage triggers one). `run_app` starts the app with the collector off; from here
        # on it collects what the session leaves behind.
        gc.freeze()
        gc.enable()
        self.list_files_first(then=self.start_engine)
        probe = LagProbe.from_env()  # from the first frame on (the time to it is measured on its own)
        if probe is not None:
            probe.start(lambda: self.indexing)

    # -- screens ------------------------------------------------------------------------------

    def action_help(self) -> None:
        """Open the help of the screen on top: its keys as they are bound now, grouped by pane."""
        keymap = self._keymap
        close = bound_keys("app.help", self.keymap_overrides).split(",")
        if self.screen is self.screen_stack[0]:
            groups = [(title, key_rows([binding for selector in selectors
                                        for binding in live_bindings(self.query_one(selector), keymap)]))
                      for title, selectors in HELP_PANES]
            panel = self.tuning_panel
            if panel is not None:
                groups.append(("Tuning", key_rows(live_bindings(panel, keymap))))
            groups.append(("Everywhere on this screen", key_rows(live_bindings(self, keymap))))
            self.push_screen(HelpScreen("memtui: keys", groups, intro=help_intro("main", self.keymap_overrides),
                                        close_keys=close))
            return
        screen = self.screen
        name = type(screen).__name__.removesuffix("Screen").lower()
        own = live_bindings(screen, keymap)
        taken = {key for binding in own for key in binding.key.split(",")}
        everywhere = [b.with_key(",".join(k for k in b.key.split(",") if k not in taken))
                      for b in live_bindings(self, keymap) if b.action.split("(")[0] in SCREEN_INDEPENDENT]
        groups = [(f"{name.title()} screen", key_rows(own)),
                  ("Everywhere", key_rows([b for b in everywhere if b.key]))]
        self.push_screen(HelpScreen(f"memtui: {name}", groups, intro=help_intro(name, self.keymap_overrides),
                                    close_keys=close))

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
        self.push_screen(DreamsScreen(self.manager.env.workspace_dir, now=self.now,
                                      read_only=self.manager.env.read_only))

    def action_recalls(self) -> None:
        """Open the agent's memory calls."""
        from memtui.tui.screens.recalls import RecallsScreen

        self.push_screen(RecallsScreen(self.manager, now=self.now))

    def action_fleet(self) -> None:
        """Open the fleet view (the PostgreSQL store only); a file of this agent chosen there opens in the viewer."""
        store = self.manager.env.settings.store
        if store.driver != "postgres":
            self.notify(f"The fleet view needs the PostgreSQL store: this agent's store.driver is {store.driver}. "
                        'Set memorySearch.store {"driver": "postgres", "url": …} in its config.',
                        title="No fleet", severity="warning", timeout=8)
            return
        from memtui.tui.screens.fleet import FleetScreen

        def chosen(picked: tuple[str, tuple[int, int] | None] | None) -> None:
            if picked is not None:
                self.open_file(picked[0], self.manager.env.workspace_dir / picked[0], picked[1])

        self.push_screen(FleetScreen(self.manager), chosen)

    def action_index_health(self) -> None:
        """Open the index health check; the file of the row chosen there opens in the viewer."""
        from memtui.tui.screens.health import HealthScreen

        def chosen(rel: str | None) -> None:
            if rel is not None:
                self.open_file(rel, self.manager.env.workspace_dir / rel)

        self.push_screen(HealthScreen(self.manager.env), chosen)

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

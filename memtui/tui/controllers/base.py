"""What every controller shares: the engine facade, the app's options, the clock, the clipboard, the main widgets."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TypeVar

import pyperclip
from textual.app import App
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, TextArea

from memtui.index.workspace import memory_location
from memtui.manager import MemoryManager
from memtui.tui.actions import bound_keys
from memtui.tui.clipboard import osc52_outcome
from memtui.tui.keys import keys_display
from memtui.tui.tuning import Tuning
from memtui.tui.widgets import FileViewer, MemoryBrowser, ResultsTable

AppT = TypeVar("AppT", bound="MemtuiBase")
MessageT = TypeVar("MessageT", bound=Message)


def while_running(handler: Callable[[AppT, MessageT], None]) -> Callable[[AppT, MessageT], None]:
    """Drop a worker's message that arrives once the app is shutting down (its widgets are gone by then)."""

    @functools.wraps(handler)
    def guarded(app: AppT, message: MessageT) -> None:
        if app.is_running:
            handler(app, message)

    return guarded


class MemtuiBase(App[int]):
    """The app's options and shared helpers; the controllers add one screen area each."""

    # State every area reads, set by the controller that owns it.
    indexing: bool  # IndexController
    tuning: Tuning  # TuningController

    def __init__(self, manager: MemoryManager, *, now: datetime | None = None, keymap: dict[str, str] | None = None,
                 debounce: float = 0.0, system_clipboard: bool = True, initial_query: str = "",
                 auto_index: bool = True, screenshot_path: Path | None = None,
                 provider_note: str | None = None, start_watching: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.manager = manager
        self.fixed_now = now
        self.keymap_overrides = dict(keymap or {})
        self.debounce = debounce
        self.system_clipboard = system_clipboard
        self.initial_query = initial_query
        self.auto_index = auto_index
        self.screenshot_path = screenshot_path
        self.provider_note = provider_note
        self.start_watching = start_watching  # started in a worker after the first frame

    # -- time ---------------------------------------------------------------------------------

    @property
    def now(self) -> datetime:
        """The frozen time under test, else the wall clock (UTC)."""
        return self.fixed_now or datetime.now(UTC)

    @property
    def today(self) -> date:
        """Today's date (local to `now`)."""
        return self.now.date()

    # -- widgets ------------------------------------------------------------------------------

    @property
    def browser(self) -> MemoryBrowser:
        """The memory browser."""
        return self.query_one("#browser", MemoryBrowser)

    @property
    def results(self) -> ResultsTable:
        """The results table."""
        return self.query_one("#results", ResultsTable)

    @property
    def viewer(self) -> FileViewer:
        """The file viewer."""
        return self.query_one("#viewer", FileViewer)

    @property
    def query_input(self) -> Input:
        """The search box."""
        return self.query_one("#query", Input)

    def typing(self) -> bool:
        """True while a text box (the query, the filter, the editor) has the focus: printable keys type."""
        focused = self.focused
        return isinstance(focused, Input) or (isinstance(focused, TextArea) and not focused.read_only)

    def key_for(self, action_id: str) -> str:
        """The first key an action is bound to (after the user's keymap), as people write it."""
        return keys_display(bound_keys(action_id, self.keymap_overrides), first=True)

    def focus_now(self, widget: Widget) -> None:
        """Focus `widget` at once (not on the next message), so keys typed right after a key that moved the
        focus reach the new pane."""
        if self.screen is self.screen_stack[0]:
            self.screen.set_focus(widget)
        else:
            widget.focus()

    def viewer_focused(self) -> bool:
        """True when the focus is in the file viewer."""
        return self.focused is not None and self.viewer in self.focused.ancestors_with_self

    def resolve_rel(self, rel: str) -> Path:
        """Absolute path of a workspace-relative memory path (a session transcript's `sessions/<name>.jsonl` is
        in the agent's sessions folder)."""
        if rel.startswith("sessions/") and rel.endswith(".jsonl"):
            return self.manager.env.sessions_dir / rel.removeprefix("sessions/")
        return Path(os.path.normpath(self.manager.env.workspace_dir / rel)) if not rel.startswith("/") else Path(rel)

    def confining_root(self, rel: str, abs_path: Path) -> Path:
        """The folder a file opened in the viewer is confined to (no symlink below it is followed): the workspace,
        or an extra path's folder, for memory files; its own folder for a session transcript."""
        if not rel.endswith(".md"):
            return abs_path.parent
        return memory_location(self.manager.env.workspace_dir, rel, self.manager.settings.memory_paths).root

    # -- clipboard ----------------------------------------------------------------------------

    def copy_text(self, text: str, what: str) -> None:
        """Copy to the system clipboard (pyperclip) and send it to the terminal's (OSC 52); the toast claims only
        what is known: a copy to the system clipboard, or OSC 52 sent (and dropped, when tmux says it drops it)."""
        self.copy_to_clipboard(text)
        if self.system_clipboard:
            try:
                pyperclip.copy(text)
            except pyperclip.PyperclipException:
                pass
            else:
                self.notify(f"Copied {what} to the system clipboard")
                return
        message, dropped = osc52_outcome(what)
        self.notify(message, severity="warning" if dropped else "information", timeout=8 if dropped else 4)

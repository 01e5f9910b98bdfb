"""The browser and the viewer: the file list and its filter, opening files, rendered / raw, reloads on change."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.widgets import Input, TabbedContent, TextArea, Tree

from memtui.errors import MemtuiError
from memtui.tui.controllers.base import MemtuiBase
from memtui.tui.messages import FilesChanged, IndexFinished
from memtui.tui.screens import ErrorModal
from memtui.tui.widgets import BrowserEntry


class BrowserController(MemtuiBase):
    """Lists the memory files, opens one in the viewer, and keeps the open file in step with the disk."""

    def refresh_browser(self) -> None:
        """Re-list the memory files."""
        env = self.manager.env
        self.browser.populate(env.workspace_dir, self.manager.settings.extra_paths, env.sessions_dir, self.today)

    @on(IndexFinished)
    def _relist_after_index(self, _message: IndexFinished) -> None:
        self.refresh_browser()

    @on(FilesChanged)
    def _files_changed(self, message: FilesChanged) -> None:
        self.refresh_browser()
        viewer = self.viewer
        if viewer.rel is not None and viewer.rel in message.paths:
            if viewer.dirty:
                self.notify(f"{viewer.rel} changed on disk; you have unsaved edits (saving will ask)",
                            severity="warning")
            else:
                viewer.reload()
                self.notify(f"Reloaded {viewer.rel}")

    # -- the file filter ----------------------------------------------------------------------

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.browser.set_filter(event.value)
        self.browser.border_subtitle = f"{self.browser.shown} match" if event.value.strip() else ""

    @on(Input.Submitted, "#browser-filter")
    def _filter_submitted(self, _event: Input.Submitted) -> None:
        entries = self.browser.entries()
        if entries:
            self.browser.move_cursor(self.browser.find(entries[0].rel))
        self.browser.focus()

    def action_filter_files(self) -> None:
        """Show and focus the file filter above the browser (escape clears and hides it)."""
        box = self.query_one("#browser-filter", Input)
        box.display = True
        box.focus()

    def action_clear_file_filter(self) -> None:
        """Clear and hide the file filter and go back to the full file list."""
        box = self.query_one("#browser-filter", Input)
        box.value = ""
        box.display = False
        self.browser.set_filter("")
        self.browser.border_subtitle = ""
        self.browser.focus()

    # -- the viewer ---------------------------------------------------------------------------

    @on(Tree.NodeSelected, "#browser")
    def _node_selected(self, event: Tree.NodeSelected[BrowserEntry]) -> None:
        entry = event.node.data
        if entry is not None:
            self.open_file(entry.rel, entry.abs_path)

    def open_file(self, rel: str, abs_path: Path, lines: tuple[int, int] | None = None) -> None:
        """Show a file in the viewer (raw with `lines` selected when given)."""
        viewer = self.viewer
        if viewer.dirty and viewer.rel != rel:
            self.notify(f"{viewer.rel} has unsaved edits; save (ctrl+s) or leave the editor (escape) first",
                        severity="warning")
            return
        try:
            viewer.open(rel, abs_path, lines=lines)
        except (OSError, MemtuiError) as exc:
            self.push_screen(ErrorModal(f"Cannot open {rel}", str(exc)))
            return
        self.query_one("#detail", TabbedContent).active = "tab-file"

    def action_toggle_view(self) -> None:
        """Rendered ↔ raw."""
        viewer = self.viewer
        if viewer.rel is None or viewer.editing:
            return
        viewer.set_mode("raw" if viewer.mode == "rendered" else "rendered")
        self.query_one("#detail", TabbedContent).active = "tab-file"

    @on(TextArea.Changed, "#viewer-text")
    def _text_changed(self, _event: TextArea.Changed) -> None:
        self.viewer.refresh_title()

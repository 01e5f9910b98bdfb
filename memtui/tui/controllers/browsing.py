"""The browser and the viewer: the file list (read from disk in a worker, kept current by file events) and its
filter, opening files, rendered / raw, reloads on change."""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.widgets import Input, TabbedContent, TextArea, Tree

from memtui.tui.browser_model import BrowserEntry, entry_for, list_entries
from memtui.tui.controllers.base import MemtuiBase
from memtui.tui.messages import FilesChanged, FilesListed, IndexFinished
from memtui.tui.screens import ErrorModal
from memtui.tui.widgets import TracePanel


class BrowserController(MemtuiBase):
    """Lists the memory files, opens one in the viewer, and keeps the open file in step with the disk."""

    def refresh_browser(self) -> None:
        """Re-read the file list from disk in a worker; the tree takes only the differences."""
        self._listing_worker()

    @work(thread=True, exclusive=True, group="listing", exit_on_error=False, description="Listing files")
    def _listing_worker(self) -> None:
        env = self.manager.env
        self.post_message(FilesListed(list_entries(env.workspace_dir, self.manager.settings.extra_paths,
                                                   env.sessions_dir)))

    @on(FilesListed)
    def _files_listed(self, message: FilesListed) -> None:
        first = not self.browser.listed
        self.browser.show_listing(message.entries, self.today)
        self.browser.border_subtitle = f"{len(self.browser.listing.entries):,} files"
        if first and not self.query_input.value.strip():
            self.query_one("#trace", TracePanel).show(None, None, hint=self.idle_hint())

    @on(IndexFinished)
    def _relist_after_index(self, message: IndexFinished) -> None:
        if message.report.files_changed or message.report.files_deleted:
            self.refresh_browser()

    def track_file(self, rel: str) -> None:
        """Show a file memtui just wrote (or removed) without re-reading the whole list."""
        path = self.resolve_rel(rel)
        if path.is_file():
            self.browser.apply([entry_for(self.manager.env.workspace_dir, rel, path)], [])
        else:
            self.browser.apply([], [rel])

    @on(FilesChanged)
    def _files_changed(self, message: FilesChanged) -> None:
        for rel in message.paths:
            if not rel.startswith("/"):
                self.track_file(rel)
        viewer = self.viewer
        if viewer.rel is not None and viewer.rel in message.paths:
            if viewer.dirty:
                self.notify(f"{viewer.rel} changed on disk; you have unsaved edits (saving will ask)",
                            severity="warning")
            elif viewer.abs_path is not None and viewer.abs_path.exists():
                viewer.reload()
                self.notify(f"Reloaded {viewer.rel}")

    # -- the file filter ----------------------------------------------------------------------

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.browser.set_filter(event.value)
        self.browser.border_subtitle = f"{self.browser.shown:,} match" if event.value.strip() else \
            f"{len(self.browser.listing.entries):,} files"

    @on(Input.Submitted, "#browser-filter")
    def _filter_submitted(self, _event: Input.Submitted) -> None:
        entries = self.browser.entries()
        if entries:
            node = self.browser.find(entries[0].rel)
            if node is not None:
                self.browser.move_cursor(node)
        self.focus_now(self.browser)

    def action_filter_files(self) -> None:
        """Show and focus the file filter above the browser (escape clears and hides it)."""
        box = self.query_one("#browser-filter", Input)
        box.display = True
        self.focus_now(box)

    def action_clear_file_filter(self) -> None:
        """Clear and hide the file filter and go back to the full file list."""
        box = self.query_one("#browser-filter", Input)
        box.value = ""
        box.display = False
        self.browser.set_filter("")
        self.browser.border_subtitle = f"{len(self.browser.listing.entries):,} files"
        self.focus_now(self.browser)

    # -- the viewer ---------------------------------------------------------------------------

    @on(Tree.NodeSelected, "#browser")
    def _node_selected(self, event: Tree.NodeSelected[object]) -> None:
        entry = event.node.data
        if isinstance(entry, BrowserEntry):
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
        except OSError as exc:
            self.push_screen(ErrorModal(f"Cannot open {rel}", str(exc)))
            return
        self.query_one("#detail", TabbedContent).active = "tab-file"

    def action_toggle_view(self) -> None:
        """Rendered ↔ raw; the focus stays on the file."""
        viewer = self.viewer
        if viewer.rel is None or viewer.editing:
            return
        viewer.set_mode("raw" if viewer.mode == "rendered" else "rendered")
        self.query_one("#detail", TabbedContent).active = "tab-file"
        self.focus_now(viewer.content_widget)

    @on(TextArea.Changed, "#viewer-text")
    def _text_changed(self, _event: TextArea.Changed) -> None:
        self.viewer.refresh_title()

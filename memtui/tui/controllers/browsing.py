"""The browser and the viewer: the file list (read from disk in a worker, kept current by file events) and its
filter, opening files, rendered / raw, reloads on change."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.timer import Timer
from textual.widgets import Input, TabbedContent, TextArea, Tree
from textual.worker import Worker, WorkerState

from memtui.errors import MemtuiError
from memtui.tui.browser_model import BrowserEntry, Listing, diff_entries, entry_for, list_entries
from memtui.tui.controllers.base import MemtuiBase, while_running
from memtui.tui.explain import counted
from memtui.tui.messages import FilesChanged, FilesListed, FilesTracked, IndexFinished
from memtui.tui.screens import ErrorModal
from memtui.tui.widgets import TracePanel

if TYPE_CHECKING:  # the indexer loads with the first sync, after the first frame
    from memtui.index.indexer import SyncReport

TRACK_DELAY = 0.1  # seconds of file events gathered into one tree update
TRACK_EVERY = 0.5  # at least this many seconds between two tree updates while events keep coming
TRACK_HOLD = 2.0  # while a sync runs, tree updates wait for its end, this long at most
SUBTITLE_ROOM = 24  # the browser's border at its narrowest (30 columns) less its corners and dashes


class BrowserController(MemtuiBase):
    """Lists the memory files, opens one in the viewer, and keeps the open file in step with the disk."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._changed_paths: set[str] = set()
        self._track_timer: Timer | None = None
        self._shown_listing: Listing | None = None  # the browser's model, set on the UI thread
        self._tracked_at = 0.0  # when the last batch of file events went to the tree
        self._held_since = 0.0  # when the oldest file event not yet in the tree came
        self._tracking = 0  # tracking workers whose result the tree has not taken yet
        self._relist_check: SyncReport | None = None  # a complete sync to compare the tree with
        self._after_listing: Callable[[], None] | None = None

    def refresh_browser(self) -> None:
        """Re-read the file list from disk in a worker; the tree takes only the differences."""
        self._listing_worker()

    def list_files_first(self, then: Callable[[], None]) -> None:
        """List the files for the tree's first draw; `then` runs once that frame is on the screen (or the listing
        failed). Threads started alongside would share the interpreter with that frame: at 3,000 notes its ~60 ms
        of work took 110-180 ms while the status and the start-up sync ran."""
        self._after_listing = then
        self._listing_worker()

    def _first_listing_drawn(self) -> None:
        then, self._after_listing = self._after_listing, None
        if then is not None:
            then()

    @on(Worker.StateChanged)
    def _listing_failed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "listing" and event.state == WorkerState.ERROR:
            self.notify(f"Could not list the files: {event.worker.error}", severity="error")
            self._first_listing_drawn()

    @work(thread=True, exclusive=True, group="listing", exit_on_error=False, description="Listing files")
    def _listing_worker(self) -> None:
        env = self.manager.env
        shown = self._shown_listing
        before = dict(shown.entries) if shown is not None else None  # one copy, made under the GIL
        listing = Listing(list_entries(env.workspace_dir, self.manager.settings.memory_paths, env.sessions_dir))
        if before is None:
            listing.group_counts()  # group (and sort) here, not on the UI thread
            self.post_message(FilesListed(listing))
        else:  # compare 10,000 entries here too: the tree takes the few differences
            self.post_message(FilesListed(listing, diff_entries(before, listing.entries.values())))

    @on(FilesListed)
    @while_running
    def _files_listed(self, message: FilesListed) -> None:
        first = not self.browser.listed
        self.browser.show_listing(message.listing, self.today, message.changes)
        self._shown_listing = self.browser.listing
        self.browser.border_subtitle = self.files_subtitle()
        if first and not self.query_input.value.strip():
            self.query_one("#trace", TracePanel).show(None, None, hint=self.idle_hint())
        if first:
            gc.freeze()  # the listing lives as long as the app, like what start-up built (see `_start_workers`)
            self.call_after_refresh(self._first_listing_drawn)

    @on(IndexFinished)
    @while_running
    def _relist_after_index(self, message: IndexFinished) -> None:
        # File events keep the list current; a sync that saw every file tells whether they missed one.
        if self._track_timer is not None and self._changed_paths:  # held for the sync: show them now
            self._track_timer.stop()
            self._flush_changes(hold=False)
        if message.report.complete:
            self._relist_check = message.report
            self._check_listing()

    def _check_listing(self) -> None:
        """Re-read the list when the last complete sync saw other files than the tree shows, once the file
        events still in flight are in the tree (they would explain the difference)."""
        report = self._relist_check
        if report is None or self._track_timer is not None or self._changed_paths or self._tracking:
            return
        self._relist_check = None
        indexed = sum(1 for e in self.browser.listing.entries.values() if e.kind in ("memory", "daily", "note",
                                                                                       "extra"))
        if report.files_deleted or (self.browser.listed and indexed != report.files_total):
            self.refresh_browser()

    def track_files(self, rels: tuple[str, ...] | list[str]) -> None:
        """Show files memtui (or the watcher) saw written or removed: paths gathered for a tenth of a second
        (half a second after the last update, while events keep coming: each update redraws the tree), checked
        on disk in a worker, then one update of the tree (no re-listing). While a sync runs, the update waits
        for its end (two seconds at most): redrawing the tree while the sync walks the files would stall both."""
        if not self._changed_paths:
            self._held_since = time.monotonic()
        self._changed_paths.update(rel for rel in rels if not rel.startswith("/"))
        if self._track_timer is None:
            wait = max(TRACK_DELAY, self._tracked_at + TRACK_EVERY - time.monotonic())
            self._track_timer = self.set_timer(wait, self._flush_changes)

    def _flush_changes(self, hold: bool = True) -> None:
        self._track_timer = None
        held = time.monotonic() - self._held_since
        if hold and self.indexing and self._changed_paths and held < TRACK_HOLD:
            self._track_timer = self.set_timer(min(TRACK_EVERY, TRACK_HOLD - held), self._flush_changes)
            return
        self._tracked_at = time.monotonic()
        paths, self._changed_paths = sorted(self._changed_paths), set()
        if paths:
            self._tracking += 1
            self._track_worker(paths)
        else:
            self._check_listing()

    @work(thread=True, group="tracking", exit_on_error=False, description="Checking changed files")
    def _track_worker(self, rels: list[str]) -> None:
        workspace = self.manager.env.workspace_dir
        added: list[BrowserEntry] = []
        removed: list[str] = []
        try:
            for rel in rels:
                path = workspace / rel
                if path.is_file():
                    added.append(entry_for(workspace, rel, path))
                else:
                    removed.append(rel)
        finally:  # always answer, so the tree knows this worker is done
            self.post_message(FilesTracked(added, removed))

    @on(FilesTracked)
    @while_running
    def _files_tracked(self, message: FilesTracked) -> None:
        self._tracking -= 1
        was_empty = not self.browser.listing.entries
        self.browser.apply(message.added, message.removed)
        self.browser.border_subtitle = self.files_subtitle()
        if was_empty != (not self.browser.listing.entries) and not self.query_input.value.strip():
            self.query_one("#trace", TracePanel).show(None, None, hint=self.idle_hint())
        self._check_listing()

    @on(FilesChanged)
    @while_running
    def _files_changed(self, message: FilesChanged) -> None:
        self.track_files(message.paths)
        viewer = self.viewer
        if viewer.rel is None or viewer.rel not in message.paths:
            return
        state = viewer.disk_state()
        if state == viewer.seen_on_disk:  # a second event for the same change (or the app's own save)
            return
        viewer.seen_on_disk = state
        if state == "gone":
            if not viewer.deleted:
                viewer.mark_deleted()
                self.notify(f"{viewer.rel} was deleted on disk; saving from the editor writes it again",
                            severity="warning")
            return
        if viewer.deleted:
            viewer.mark_deleted(False)
        if state == viewer.digest:  # the file put back as the viewer holds it
            return
        if viewer.dirty:
            self.notify(f"{viewer.rel} changed on disk; you have unsaved edits (saving will ask)",
                        severity="warning")
        elif viewer.reload(keep_editing=True):
            self.notify(f"Reloaded {viewer.rel}")

    def files_subtitle(self) -> str:
        """`35 files · 1 not indexed`: the files listed, and how many of them the index leaves out by rule, so the
        count adds up to the status bar's indexed files."""
        listing = self.browser.listing
        left_out = listing.not_indexed("sessions" in self.manager.settings.sources)
        files = counted(len(listing.entries), "file")
        if not left_out:
            return files
        text = f"{files} · {left_out:,} not indexed"
        return text if len(text) <= SUBTITLE_ROOM else f"{len(listing.entries):,} · {left_out:,} not indexed"

    # -- the file filter ----------------------------------------------------------------------

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.browser.set_filter(event.value)
        self.browser.border_subtitle = f"{self.browser.shown:,} match" if event.value.strip() else \
            self.files_subtitle()

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
        self.browser.border_subtitle = self.files_subtitle()
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
            viewer.open(rel, abs_path, root=self.confining_root(rel, abs_path), lines=lines)
        except (OSError, MemtuiError) as exc:
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

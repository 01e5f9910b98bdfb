"""The index area: engine events turned into messages, the sync worker, the status bar and the status view."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from typing import Any

from textual import on, work
from textual.worker import get_current_worker

from memtui.index.events import IndexEvent
from memtui.tui.controllers.base import MemtuiBase, while_running
from memtui.tui.explain import status_view
from memtui.tui.messages import (
    FilesChanged,
    IndexFailed,
    IndexFinished,
    IndexProgress,
    IndexStarted,
    StatusReady,
    WatcherFailed,
)
from memtui.tui.screens import ErrorModal, TextModal
from memtui.tui.widgets import IndexStatusBar
from memtui.tui.widgets.status_bar import sync_summary

TUI_SYNC_REASON = "tui"
PROGRESS_EVERY = 0.1  # seconds between progress messages from the engine's thread


class IndexController(MemtuiBase):
    """Listens to the engine, runs syncs in a worker, and keeps the status bar current."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.indexing = False
        self.last_status: dict[str, Any] | None = None
        self._quiet_sync = False
        self._progress_posted_at = 0.0
        self._unsubscribe: Callable[[], None] | None = None

    def listen_to_engine(self) -> None:
        """Subscribe to the engine's events (file events from now on reach the screen) and tell whether the
        index is to be built at start: the app counts as indexing from now on, so a query typed before the sync
        starts waits for it."""
        self._unsubscribe = self.manager.subscribe(self._relay_index_event)
        needs_index = self.manager.dirty or self.manager.store.read_meta() is None
        self.indexing = self.auto_index and needs_index and not self.manager.env.read_only

    def start_engine(self) -> None:
        """Start indexing when the index is missing or dirty (the status is read when it is done), else read the
        status now; then start watching the files (its first sync looks for what changed while the app was
        closed)."""
        self._warm_up_worker()
        if self.indexing:
            self._quiet_sync = True
            self.run_sync(force=False)
        else:
            self.refresh_status()
            self._start_watching()

    @work(thread=True, group="warm-up", exit_on_error=False, description="Loading the embedding provider")
    def _warm_up_worker(self) -> None:
        """The provider's SDK or model, loaded after the first frame (0.4-0.6 s of imports for the OpenAI SDK,
        which held the first frame back) and before the first query needs it; what it loaded lives as long as the
        app, so it goes out of the collector's sight like start-up's heap (a full collection walking the SDK's
        classes stalled typing 100-134 ms)."""
        self.manager.warm_up()
        gc.freeze()

    def _start_watching(self) -> None:
        """Start the watcher once (after the start-up sync, when there is one: its walk would compete with it),
        or once the workspace folder exists (a first note makes it; a later sync's end starts the watcher)."""
        if self.start_watching is None or not self.manager.env.workspace_dir.is_dir():
            return
        start, self.start_watching = self.start_watching, None
        self._watch_worker(start)

    @work(thread=True, group="watch", exit_on_error=False, description="Starting the file watcher")
    def _watch_worker(self, start: Callable[[], None]) -> None:
        try:
            start()
        except Exception as exc:
            self.post_message(WatcherFailed(f"the file watcher did not start: {exc}"))

    @on(WatcherFailed)
    @while_running
    def _watcher_failed(self, message: WatcherFailed) -> None:
        self.push_screen(ErrorModal("File watcher", message.error))

    def on_unmount(self) -> None:
        """Stop listening to the engine."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    def refresh_status(self, *, verified: bool = False) -> None:
        """Recompute `MemoryManager.status()` in a worker (without the walk that counts files on disk, and
        without comparing every file with the index when a sync has just `verified` them all); the status bar
        redraws when it arrives."""
        self._status_worker(False, verify=not verified)

    @work(thread=True, exclusive=True, group="status", exit_on_error=False, description="Reading the status")
    def _status_worker(self, full: bool, verify: bool = True) -> None:
        try:
            status = self.manager.status(scan=full, verify=verify or full)
        except Exception as exc:
            self.post_message(IndexFailed(f"cannot read the index status: {exc}"))
            return
        self.post_message(StatusReady(status, full))

    @on(StatusReady)
    @while_running
    def _status_ready(self, message: StatusReady) -> None:
        self.last_status = message.status
        self.query_one("#status-bar", IndexStatusBar).show_status(message.status, self.provider_note)
        if message.full:
            body = json.dumps(message.status, indent=2, ensure_ascii=False, default=str)
            self.push_screen(TextModal("Index status", status_view(message.status), copy_text=body))

    def _relay_index_event(self, event: IndexEvent) -> None:
        """Called from any thread: turn engine events into messages."""
        if event.kind == "started":
            self.post_message(IndexStarted(event.reason))
        elif event.kind == "progress" and event.progress is not None:
            # One message per file would cost the UI thread a dispatch each: post a few per second.
            now = time.monotonic()
            done = event.progress.files_done >= event.progress.files_total
            if done or now - self._progress_posted_at >= PROGRESS_EVERY:
                self._progress_posted_at = now
                self.post_message(IndexProgress(event.progress))
        elif event.kind == "finished" and event.report is not None:
            self.post_message(IndexFinished(event.report))
        elif event.kind == "failed" and event.reason != TUI_SYNC_REASON:
            self.post_message(IndexFailed(event.error or "unknown error"))
        elif event.kind == "file-changed":
            self.post_message(FilesChanged(tuple(event.paths)))

    def run_sync(self, *, force: bool) -> None:
        """Start (or restart) the indexing worker."""
        self.indexing = True
        self.query_one("#status-bar", IndexStatusBar).start()
        self._sync_worker(force)

    @work(thread=True, exclusive=True, group="indexer", exit_on_error=False, description="Indexing memory")
    def _sync_worker(self, force: bool) -> None:
        worker = get_current_worker()
        try:
            self.manager.sync(force=force, reason=TUI_SYNC_REASON, should_stop=lambda: worker.is_cancelled)
        except Exception as exc:
            self.post_message(IndexFailed(str(exc) or type(exc).__name__))

    @on(IndexStarted)
    @while_running
    def _index_started(self, _message: IndexStarted) -> None:
        self.indexing = True
        self.query_one("#status-bar", IndexStatusBar).start()

    @on(IndexProgress)
    @while_running
    def _index_progress(self, message: IndexProgress) -> None:
        self.query_one("#status-bar", IndexStatusBar).show_progress(message.progress)

    @on(IndexFinished)
    @while_running
    def _index_finished(self, message: IndexFinished) -> None:
        self.indexing = False
        self.query_one("#status-bar", IndexStatusBar).stop()
        report = message.report
        self.refresh_status(verified=report.complete)
        self._start_watching()
        if not self._quiet_sync:
            # In the status line, not a toast: a toast is composed, styled and laid out anew each time (~60 ms of
            # the UI thread), and the watcher syncs after every save.
            self.query_one("#status-bar", IndexStatusBar).show_synced(sync_summary(report))
        self._quiet_sync = False

    @on(IndexFailed)
    @while_running
    def _index_failed(self, message: IndexFailed) -> None:
        self.indexing = False
        self.query_one("#status-bar", IndexStatusBar).stop()
        self.refresh_status()
        self._start_watching()
        self.push_screen(ErrorModal("Indexing failed", message.error))

    def action_sync(self) -> None:
        """Incremental re-index."""
        if self.manager.env.read_only:
            self.notify("Read-only index: sync is disabled", severity="warning")
            return
        self.run_sync(force=False)

    def action_rebuild(self) -> None:
        """Full rebuild."""
        if self.manager.env.read_only:
            self.notify("Read-only index: rebuild is disabled", severity="warning")
            return
        self.run_sync(force=True)

    def action_index_status(self) -> None:
        """Read the full status in a worker and show it, readable (`c` copies it as JSON)."""
        self._status_worker(True)

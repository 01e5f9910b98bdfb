"""The background sync queue: one indexing thread, requests in order, an unscoped request covering every later
one, and a watcher's request dropped when a complete sync begun after its changes were seen has covered them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple


class SyncRequest(NamedTuple):  # a tuple: ~7× cheaper to define than a frozen dataclass
    """A queued sync: its reason, its scope (None: every transcript / memory file) and, for the watcher's, when
    its last change was seen (`time.monotonic()`)."""

    reason: str
    session_files: tuple[Path, ...] | None
    memory_paths: frozenset[str] | None
    seen_at: float | None = None

    @property
    def unscoped(self) -> bool:
        """Whether it syncs everything (and so covers any later request)."""
        return self.session_files is None and self.memory_paths is None


class SyncQueue:
    """Runs queued syncs one at a time on a daemon thread; `write_lock` is the lock every sync holds."""

    def __init__(self, run: Callable[[SyncRequest], object], write_lock: threading.Lock) -> None:
        self._run = run
        self._write_lock = write_lock
        self._queue: list[SyncRequest] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._complete_from = float("-inf")  # when the latest complete memory sync began

    def put(self, request: SyncRequest) -> None:
        """Queue a request (none when an unscoped one is already queued) and make sure the thread runs."""
        with self._lock:
            if any(queued.unscoped for queued in self._queue):
                return
            self._queue.append(request)
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._drain, name="memtui-sync", daemon=True)
            self._thread.start()

    def covered(self, began: float) -> None:
        """A sync begun at `began` compared every memory file: changes seen before then are in the index."""
        self._complete_from = max(self._complete_from, began)

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._thread = None
                    return
                request = self._queue.pop(0)
            if request.memory_paths is not None and request.session_files is None and request.seen_at is not None:
                with self._write_lock:  # after the sync running now, which may be a complete one
                    if request.seen_at < self._complete_from:
                        continue
            try:
                self._run(request)
            except Exception:  # reported to listeners through the "failed" event
                continue

    def busy(self) -> bool:
        """Whether a queued sync is running or waiting to run."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until queued syncs have finished; False on timeout."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

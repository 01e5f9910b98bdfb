"""Keeps the index fresh: a watchdog observer, OpenClaw's ignore rules and debounce (§5.1, §6.4)."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)

from memtui.index.events import IndexEvent
from memtui.index.workspace import MEMORY_DIR, ROOT_MEMORY_FILE, rel_path, resolve_extra_path
from memtui.settings.agent import AgentEnv
from memtui.settings.config import MemorySearchSettings

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver

# The longest a burst of changes waits for its sync: max(4 × the debounce, 5 s).
MAX_WAIT_FACTOR = 4
MIN_MAX_WAIT_S = 5.0
IGNORED_SEGMENTS = frozenset({".git", "node_modules", ".pnpm-store", ".venv", "venv", ".tox", "__pycache__"})
SESSION_DEBOUNCE_S = 5.0
WALK_RECURSION_LIMIT = 12_000
# The events a sync needs. The kernel then does not report every open and read-only close: the sync's own reads
# of thousands of files were as many events for the observer thread to decode and drop.
WATCHED_EVENTS = [FileCreatedEvent, FileModifiedEvent, FileClosedEvent, FileDeletedEvent, FileMovedEvent,
                  DirCreatedEvent, DirDeletedEvent, DirMovedEvent]


def is_ignored(path: str) -> bool:
    """§5.1: ignored directories anywhere in the path, and files with a non-`.md` extension."""
    parts = Path(path).parts
    if any(part in IGNORED_SEGMENTS for part in parts):
        return True
    name = parts[-1] if parts else ""
    suffix = os.path.splitext(name)[1]
    return bool(suffix) and suffix != ".md"


class _Debouncer:
    """Runs `action` once, `delay` seconds after the last `poke()`, but at most `max_wait` seconds after the
    first poke of a burst: steady writes (one a second, forever) still get synced."""

    def __init__(self, delay: float, action: Callable[[], None], max_wait: float | None = None):
        self.delay = delay
        self.max_wait = max(delay, max_wait if max_wait is not None else max(MAX_WAIT_FACTOR * delay, MIN_MAX_WAIT_S))
        self.action = action
        self._timer: threading.Timer | None = None
        self._first: float | None = None
        self._lock = threading.Lock()

    def poke(self) -> None:
        with self._lock:
            now = time.monotonic()
            if self._first is None:
                self._first = now
            if self._timer is not None:
                self._timer.cancel()
            due = min(now + self.delay, self._first + self.max_wait)
            self._timer = threading.Timer(max(0.0, due - now), self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            self._first = None
            self._timer = None
        self.action()

    def cancel(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._first = None


@contextlib.contextmanager
def _recursion_room() -> Iterator[None]:
    """Room for watchdog's recursive `os.walk` (one frame per folder level in Python 3.11): a path can only
    hold about 2,000 levels before PATH_MAX stops the walk, and the default limit of 1,000 stops it first."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, WALK_RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


class _Handler(FileSystemEventHandler):
    def __init__(self, accept: Callable[[str], bool], on_change: Callable[[str], None]):
        self.accept = accept
        self.on_change = on_change

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory and event.event_type == "modified":
            return
        paths = [event.src_path, getattr(event, "dest_path", "") or ""]
        for raw in paths:
            path = os.fsdecode(raw) if raw else ""
            if path and self.accept(path):
                self.on_change(path)


class WatchedIndex(Protocol):
    """What the watcher drives: the facade's settings, dirty flag, events and sync queue."""

    env: AgentEnv
    settings: MemorySearchSettings
    dirty: bool

    def emit(self, event: IndexEvent) -> None: ...

    def request_sync(self, reason: str, *, session_files: list[Path] | None = None,
                     memory_paths: set[str] | None = None, seen_at: float | None = None) -> None: ...


class MemoryWatcher:
    """Watches MEMORY.md, memory/, extra paths (and transcripts when sessions are indexed)."""

    def __init__(self, manager: WatchedIndex, *, debounce_ms: int | None = None,
                 session_debounce_s: float = SESSION_DEBOUNCE_S, max_wait_s: float | None = None):
        self.manager = manager
        settings = manager.settings
        self.workspace = manager.env.workspace_dir
        delay = (settings.sync.watch_debounce_ms if debounce_ms is None else debounce_ms) / 1000
        self._memory_debounce = _Debouncer(delay, self._flush_memory, max_wait_s)
        self._memory_handler: _Handler | None = None
        self._memory_watch: object | None = None
        self._watch_lock = threading.Lock()
        self._changed: set[str] = set()
        self._changed_all = False
        self._seen_at = 0.0  # when the last memory change was seen (time.monotonic())
        self._changed_lock = threading.Lock()
        self._session_debounce = _Debouncer(session_debounce_s, self._flush_sessions)
        self._observer: BaseObserver | None = None
        self._interval: threading.Timer | None = None
        self._stopped = threading.Event()
        self._lifecycle = threading.Lock()  # start and stop, which may come from two threads
        self._extras = self._extra_targets()
        self._tracker = None
        if "sessions" in settings.sources:
            from memtui.index.session_deltas import SessionDeltaTracker

            self._tracker = SessionDeltaTracker(delta_bytes=settings.sync.sessions.delta_bytes,
                                                delta_messages=settings.sync.sessions.delta_messages)

    # -- targets ----------------------------------------------------------------------------

    def _extra_targets(self) -> list[Path]:
        targets = []
        for raw in self.manager.settings.memory_paths:
            path = resolve_extra_path(self.workspace, raw)
            if path.exists() and not path.is_symlink() and (path.is_dir() or path.suffix == ".md"):
                targets.append(path)
        return targets

    def _accept_memory(self, path: str) -> bool:
        """Events of memory files, folders and extra paths. A symlink's too: it is not indexed, but what it
        replaced (a note, or `memory/` itself) must leave the index."""
        target = Path(path)
        relative = rel_path(self.workspace, target)
        if is_ignored(relative):
            return False
        if target == self.workspace / ROOT_MEMORY_FILE:
            return True
        memory_dir = self.workspace / MEMORY_DIR
        if target.is_relative_to(memory_dir):
            return True
        return any(target == extra or (extra.is_dir() and target.is_relative_to(extra)) for extra in self._extras)

    def _on_memory_change(self, path: str) -> None:
        if Path(path) == self.workspace / MEMORY_DIR:
            self._watch_memory_dir(renew=True)
        rel = rel_path(self.workspace, Path(path))
        with self._changed_lock:
            if path.endswith(".md") and not os.path.isdir(path):
                self._changed.add(rel)
            else:
                self._changed_all = True  # a directory moved or vanished: rescan everything
            self._seen_at = time.monotonic()
        self.manager.dirty = True
        self.manager.emit(IndexEvent("file-changed", reason="watch", paths=(rel,)))
        self._memory_debounce.poke()

    def _flush_memory(self) -> None:
        """Debounce fired: sync just the changed files (or everything after a directory event)."""
        with self._changed_lock:
            paths = None if self._changed_all else set(self._changed)
            self._changed.clear()
            self._changed_all = False
            seen_at = self._seen_at
        # A complete sync begun after the last change was seen (the app's ctrl+r, say) makes this one moot.
        self.manager.request_sync("watch", memory_paths=paths, seen_at=seen_at)

    def _accept_session(self, path: str) -> bool:
        return path.endswith(".jsonl") and not os.path.islink(path)

    def _on_session_change(self, path: str) -> None:
        if self._tracker is None:
            return
        if not os.path.exists(path):
            self._tracker.forget(Path(path))
            return
        result = self._tracker.observe(Path(path))
        if result.dirty:
            self._session_debounce.poke()

    def _flush_sessions(self) -> None:
        if self._tracker is None:
            return
        files = self._tracker.take_dirty()
        if files:
            self.manager.request_sync("session-delta", session_files=sorted(files), memory_paths=set())

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Start observing and run the session-start sync; no-op when `sync.watch` is off, or once stopped (a
        start from another thread that comes after the stop)."""
        with self._lifecycle:
            if not self._stopped.is_set():
                self._start()

    def _start(self) -> None:
        settings = self.manager.settings
        if settings.sync.watch and "memory" in settings.sources:
            # Imported here: its inotify backend (ctypes, ~13 ms) is not on the way to the app's first frame.
            from watchdog.observers import Observer

            observer = Observer()
            memory_handler = _Handler(self._accept_memory, self._on_memory_change)
            self._observer, self._memory_handler = observer, memory_handler
            observer.schedule(memory_handler, str(self.workspace), recursive=False, event_filter=WATCHED_EVENTS)
            sessions_dir = self.manager.env.sessions_dir
            if self._tracker is not None and sessions_dir.is_dir():
                for transcript in sessions_dir.glob("*.jsonl"):
                    self._tracker.baseline(transcript, transcript.stat().st_size)
                observer.schedule(_Handler(self._accept_session, self._on_session_change), str(sessions_dir),
                                  recursive=False, event_filter=WATCHED_EVENTS)
            observer.daemon = True
            observer.start()
            # Recursive watches walk their tree when scheduled on a running observer: guarded one by one.
            self._watch_memory_dir()
            for target in self._extras:
                self._schedule(target if target.is_dir() else target.parent, target.is_dir())
        if settings.sync.on_session_start:
            self.manager.request_sync("session-start")
        self._schedule_interval()

    def _watch_memory_dir(self, *, renew: bool = False) -> None:
        """Watch `memory/` recursively: at start, and anew (`renew`) on any event of the folder itself, as one
        created after the start, or deleted and made again (maybe with the same inode number), needs a new
        watch; a symlinked one is not watched, as it is not indexed."""
        memory_dir = self.workspace / MEMORY_DIR
        with self._watch_lock:
            if self._observer is None or self._memory_handler is None:
                return
            if renew and self._memory_watch is not None:
                with contextlib.suppress(KeyError, OSError):
                    self._observer.unschedule(self._memory_watch)  # type: ignore[arg-type]
                self._memory_watch = None
            if self._memory_watch is not None:
                return
            try:
                if not stat.S_ISDIR(os.lstat(memory_dir).st_mode):
                    return
            except OSError:
                return
            self._memory_watch = self._schedule(memory_dir, True)

    def _schedule(self, folder: Path, recursive: bool) -> object | None:
        """Watch `folder`; when its tree cannot be walked, say so in a "failed" event and go on without it."""
        assert self._observer is not None and self._memory_handler is not None
        try:
            with _recursion_room():
                return self._observer.schedule(self._memory_handler, str(folder), recursive=recursive,
                                               event_filter=WATCHED_EVENTS)
        except (RecursionError, OSError) as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else exc.strerror
            where = rel_path(self.workspace, folder)
            self.manager.emit(IndexEvent("failed", reason="watch", error=f"cannot watch {where} ({reason}); "
                                         "changes there are indexed by the next `memtui index`"))
            return None

    def _schedule_interval(self) -> None:
        minutes = self.manager.settings.sync.interval_minutes
        if minutes <= 0 or self._stopped.is_set():
            return

        def tick() -> None:
            self.manager.request_sync("interval")
            self._schedule_interval()

        self._interval = threading.Timer(minutes * 60, tick)
        self._interval.daemon = True
        self._interval.start()

    def stop(self) -> None:
        """Stop observing and cancel pending timers (a running sync finishes)."""
        with self._lifecycle:
            self._stop()

    def _stop(self) -> None:
        self._stopped.set()
        self._memory_debounce.cancel()
        self._session_debounce.cancel()
        if self._interval is not None:
            self._interval.cancel()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    @property
    def running(self) -> bool:
        """Whether the observer is active."""
        return self._observer is not None

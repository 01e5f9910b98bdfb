"""What the index did, as events, and the thread-safe hub that delivers them to subscribers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.index.indexer import Progress, SyncReport


@dataclass(frozen=True)
class IndexEvent:
    """Something the index did: started / progress / finished / failed / file-changed."""

    kind: str
    reason: str = ""
    progress: Progress | None = None
    report: SyncReport | None = None
    error: str | None = None
    paths: tuple[str, ...] = ()
    at: float = field(default_factory=time.time)


Listener = Callable[[IndexEvent], None]


class EventHub:
    """Thread-safe IndexEvent subscriptions, shared by the builtin and the QMD managers."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._listeners_lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` for every IndexEvent (from whatever thread emits it); returns an unsubscribe."""
        with self._listeners_lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._listeners_lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: IndexEvent) -> None:
        """Deliver an event to every listener."""
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)

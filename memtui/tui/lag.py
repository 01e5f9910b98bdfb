"""An event-loop stall probe for benchmarks: with `MEMTUI_LAG_LOG=FILE`, the app's asyncio loop runs a callback
every 10 ms and appends, every half second, the longest gap beyond the tick (ms) and whether an index sync was
running. A bare `loop.call_later`, not a Textual timer: the probe costs the app next to nothing."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

TICK = 0.01
WINDOW = 0.5
LAG_ENV = "MEMTUI_LAG_LOG"


class LagProbe:
    """Measures how late the event loop runs a 10 ms timer; `sample(indexing)` runs on each tick."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.last = time.perf_counter()
        self.window_start = self.last
        self.worst = 0.0
        self.busy = False

    @classmethod
    def from_env(cls) -> LagProbe | None:
        """A probe when `MEMTUI_LAG_LOG` names a file, else None."""
        target = os.environ.get(LAG_ENV)
        return cls(Path(target)) if target else None

    def start(self, indexing: Callable[[], bool]) -> None:
        """Tick on the running loop from now on (until it stops); `indexing()` says whether a sync is running."""
        loop = asyncio.get_running_loop()

        def tick() -> None:
            self.sample(indexing())
            loop.call_later(TICK, tick)

        self.last = self.window_start = time.perf_counter()
        loop.call_later(TICK, tick)

    def sample(self, indexing: bool) -> None:
        """One tick: keep the worst lateness of the window; write the window out when it is over."""
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last - TICK)
        self.busy = self.busy or indexing
        self.last = now
        if now - self.window_start >= WINDOW:
            with self.path.open("a", encoding="utf-8") as log:
                log.write(f"{now:.3f} {self.worst * 1000:.1f} {int(self.busy)}\n")
            self.window_start, self.worst, self.busy = now, 0.0, False

"""An event-loop stall probe for benchmarks: with `MEMTUI_LAG_LOG=FILE`, the app ticks every 10 ms and appends,
every half second, the longest gap beyond the tick (ms) and whether an index sync was running."""

from __future__ import annotations

import os
import time
from pathlib import Path

TICK = 0.01
WINDOW = 0.5
LAG_ENV = "MEMTUI_LAG_LOG"


class LagProbe:
    """Measures how late the event loop runs a 10 ms timer; `sample(indexing)` is called on each tick."""

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

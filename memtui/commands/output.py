"""Small helpers for command output: JSON printing, JS-style number formatting, a progress line."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

from memtui.jscompat import js_stringify

if TYPE_CHECKING:
    from memtui.index.indexer import Progress


def print_json(data: Any) -> None:
    """Pretty JSON on stdout, numbers formatted as JavaScript's JSON.stringify does (like OpenClaw's CLI)."""
    print(js_stringify(data, indent=2, drop_none=False))


def fixed3(value: float) -> str:
    """JavaScript `value.toFixed(3)`."""
    return f"{value:.3f}"


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


class ProgressLine:
    """A one-line progress bar on stderr (only when stderr is a terminal), with elapsed and eta."""

    def __init__(self, label: str, stream: TextIO | None = None):
        self.label = label
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.enabled = self.stream.isatty()

    def __call__(self, progress: Progress) -> None:
        """Redraw for a progress event."""
        if not self.enabled or progress.files_total == 0:
            return
        elapsed = time.monotonic() - self.started
        share = progress.files_done / progress.files_total
        eta = elapsed / share - elapsed if share > 0 else 0.0
        width = 24
        filled = int(width * share)
        bar = "█" * filled + "░" * (width - filled)
        self.stream.write(
            f"\r{self.label} {bar} {progress.files_done}/{progress.files_total} files · {progress.chunks} chunks"
            f" · elapsed {_clock(elapsed)} · eta {_clock(eta)}"
        )
        self.stream.flush()

    def finish(self) -> None:
        """End the line."""
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()

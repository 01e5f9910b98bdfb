"""Per-transcript append tracking that decides when a session file is worth re-indexing (§6.4).

No timers here: the watcher debounces transcript events (OpenClaw: 5000 ms) and then calls `observe`.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from memtui.atomic import EscapeError, open_for_read

READ_BLOCK_BYTES = 64 * 1024
DEFAULT_DELTA_BYTES = 100_000
DEFAULT_DELTA_MESSAGES = 50


@dataclass
class _FileDelta:
    last_size: int = 0
    pending_bytes: int = 0
    pending_messages: int = 0


@dataclass(frozen=True)
class DeltaResult:
    """What one `observe` saw: bytes and newlines counted, the counters after it, and whether it is dirty."""

    path: Path
    size: int
    counted_bytes: int
    counted_messages: int
    pending_bytes: int
    pending_messages: int
    dirty: bool
    shrank: bool = False
    missing: bool = False


def count_newlines(path: Path, start: int, end: int) -> int:
    """Number of `\\n` bytes in `path[start:end]`, read in 64 KiB blocks (a symlink or FIFO at `path` is refused:
    EscapeError)."""
    count = 0
    with open_for_read(path.parent, (path.name,)) as handle:
        handle.seek(start)
        remaining = end - start
        while remaining > 0:
            block = handle.read(min(READ_BLOCK_BYTES, remaining))
            if not block:
                break
            count += block.count(b"\n")
            remaining -= len(block)
    return count


def _reached(pending: int, threshold: int) -> bool:
    return pending > 0 if threshold <= 0 else pending >= threshold


def _consume(pending: int, threshold: int) -> int:
    return max(0, pending - threshold) if threshold > 0 else 0


class SessionDeltaTracker:
    """Tracks `last_size`, `pending_bytes` and `pending_messages` per transcript; thread-safe."""

    def __init__(
        self, delta_bytes: int = DEFAULT_DELTA_BYTES, delta_messages: int = DEFAULT_DELTA_MESSAGES
    ) -> None:
        self.delta_bytes = delta_bytes
        self.delta_messages = delta_messages
        self._lock = threading.Lock()
        self._files: dict[Path, _FileDelta] = {}
        self._dirty: set[Path] = set()

    def observe(self, path: Path) -> DeltaResult:
        """Count what was appended to `path` since the last call and mark it dirty past a threshold.

        A file seen for the first time counts from byte 0; a file that shrank counts as a whole again.
        When a threshold is reached it is subtracted from its counter (a threshold ≤ 0 clears it).
        """
        path = Path(path)
        with self._lock:
            try:
                info = os.lstat(path)
                # A symlink, FIFO or device is not a transcript the indexer reads: neither followed nor counted.
                if not stat.S_ISREG(info.st_mode):
                    self._files.pop(path, None)
                    return DeltaResult(path, 0, 0, 0, 0, 0, dirty=False)
                size = info.st_size
                state = self._files.setdefault(path, _FileDelta())
                shrank = size < state.last_size
                start = 0 if shrank else state.last_size
                counted_bytes = size - start
                counted_messages = count_newlines(path, start, size) if counted_bytes else 0
            except (OSError, EscapeError):  # gone, or replaced by a symlink or FIFO since the lstat
                self._files.pop(path, None)
                return DeltaResult(path, 0, 0, 0, 0, 0, dirty=False, missing=True)
            state.last_size = size
            state.pending_bytes += counted_bytes
            state.pending_messages += counted_messages
            dirty = _reached(state.pending_bytes, self.delta_bytes) or _reached(
                state.pending_messages, self.delta_messages
            )
            if dirty:
                self._dirty.add(path)
                state.pending_bytes = _consume(state.pending_bytes, self.delta_bytes)
                state.pending_messages = _consume(state.pending_messages, self.delta_messages)
            return DeltaResult(
                path=path,
                size=size,
                counted_bytes=counted_bytes,
                counted_messages=counted_messages,
                pending_bytes=state.pending_bytes,
                pending_messages=state.pending_messages,
                dirty=dirty,
                shrank=shrank,
            )

    def dirty_files(self) -> set[Path]:
        """Files marked dirty and not yet taken."""
        with self._lock:
            return set(self._dirty)

    def take_dirty(self) -> set[Path]:
        """Return the dirty files and clear the set (the indexer then re-indexes exactly these)."""
        with self._lock:
            taken, self._dirty = self._dirty, set()
            return taken

    def baseline(self, path: Path, size: int) -> None:
        """Record `size` as already indexed (e.g. after a full sync) so only later appends count."""
        with self._lock:
            self._files[Path(path)] = _FileDelta(last_size=size)

    def forget(self, path: Path) -> None:
        """Drop all state for a deleted transcript."""
        with self._lock:
            self._files.pop(Path(path), None)
            self._dirty.discard(Path(path))

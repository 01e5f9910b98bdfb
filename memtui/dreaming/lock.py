"""`short-term-promotion.lock` (§12.3): one dreaming writer per workspace, across processes."""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memtui.dreaming.recall_store import dreams_dir, refuse_2026_4_state
from memtui.errors import MemtuiError

LOCK_NAME = "short-term-promotion.lock"
STALE_SECONDS = 60.0
WAIT_SECONDS = 10.0
_RETRY_SECONDS = 0.04

_held: dict[Path, int] = {}
_held_guard = threading.RLock()


class LockBusyError(MemtuiError):
    """Another process holds the short-term promotion lock."""


def lock_path(workspace_dir: Path) -> Path:
    """`<ws>/memory/.dreams/short-term-promotion.lock`."""
    return dreams_dir(workspace_dir) / LOCK_NAME


def _owner_pid(path: Path) -> int | None:
    try:
        head = path.read_text(encoding="utf-8").strip().split(":", 1)[0]
    except OSError:
        return None
    return int(head) if head.isdigit() and int(head) > 0 else None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _try_steal_stale(path: Path, stale_seconds: float) -> bool:
    """Remove a lock older than `stale_seconds` whose owner is gone (or unreadable)."""
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return True
    if age <= stale_seconds:
        return False
    pid = _owner_pid(path)
    if pid is not None and _pid_alive(pid):
        return False
    path.unlink(missing_ok=True)
    return True


@contextmanager
def short_term_lock(
    workspace_dir: Path, *, wait_seconds: float = WAIT_SECONDS, stale_seconds: float = STALE_SECONDS
) -> Iterator[Path]:
    """Hold the workspace's promotion lock (`<pid>:<ms>`); re-entrant within this process.

    Waits up to `wait_seconds` for another holder, steals a lock older than `stale_seconds` whose
    process is gone, and raises `LockBusyError` naming the holder when the wait runs out.
    """
    refuse_2026_4_state(workspace_dir)  # every writer of the dreaming state holds this lock
    path = lock_path(workspace_dir).absolute()
    with _held_guard:
        if path in _held:
            _held[path] += 1
            try:
                yield path
            finally:
                _held[path] -= 1
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + max(0.0, wait_seconds)
        while True:
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
                break
            except OSError as exc:
                if exc.errno != errno.EEXIST:
                    raise MemtuiError(f"cannot create lock {path}: {exc.strerror}") from exc
            if _try_steal_stale(path, stale_seconds):
                continue
            if time.monotonic() >= deadline:
                pid = _owner_pid(path)
                holder = f"process {pid}" if pid else "another process"
                raise LockBusyError(
                    f"another dreaming sweep or promotion ({holder}) holds {path}",
                    f"wait for it to finish; if {holder} is not running, the lock goes stale after "
                    f"{int(stale_seconds)} s, or delete the file",
                )
            time.sleep(_RETRY_SECONDS)
        try:
            os.write(fd, f"{os.getpid()}:{int(time.time() * 1000)}\n".encode())
        finally:
            os.close(fd)
        _held[path] = 1
        try:
            yield path
        finally:
            del _held[path]
            path.unlink(missing_ok=True)

"""Full rebuilds: a temporary index file beside the live one, copied into the live file in one transaction;
the writer lock; moving a damaged index aside; removing index files and what killed rebuilds left behind."""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import time
from pathlib import Path
from typing import Any

from memtui.errors import StoreError
from memtui.index.store.schema import Connection, DriverError, sqlite_driver

_SUFFIXES = ("", "-wal", "-shm", "-journal")


def temp_index_path(target: Path) -> Path:
    """A fresh path beside `target` to build a full rebuild in."""
    return Path(f"{target}.tmp-{os.urandom(16).hex()}")


def copy_database(source: Path, destination: Connection) -> None:
    """Replace everything in `destination`'s database by `source`'s pages, in one write transaction (the
    SQLite backup API). Unlike renaming files, other processes' open connections stay valid: a rename
    leaves them on the deleted file, and the old `-wal`/`-shm` beside the new one."""
    reader = sqlite_driver.connect(str(source))
    try:
        reader.backup(destination)
    finally:
        reader.close()


def shrink_wal(conn: Connection) -> None:
    """Checkpoint and truncate the write-ahead log after a big write (skipped while readers hold it)."""
    with contextlib.suppress(DriverError):
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()


def move_aside(path: Path, label: str = "damaged") -> Path:
    """Rename an index file (and its -wal/-shm) to `<path>.<label>-<time>` so a fresh one can take its
    place; nothing is deleted. Returns the new name of the main file."""
    aside = Path(f"{path}.{label}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    for suffix in _SUFFIXES:
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    return aside


def remove_database_files(path: Path) -> None:
    """Delete an index file and its -wal/-shm companions."""
    for suffix in _SUFFIXES:
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")


def remove_leftovers(target: Path) -> list[str]:
    """Delete the temp files of killed full rebuilds of `target` (`<target>.tmp-*`, and the `.backup-*` of
    the swap older versions did, restored first when the index itself is missing). Call only while holding
    the index's writer lock, so no rebuild is running. Returns the names removed."""
    removed: list[str] = []
    backups = sorted(p for p in glob.glob(f"{glob.escape(str(target))}.backup-*") if not p.endswith(_SUFFIXES[1:]))
    if backups and not target.exists():
        newest = Path(backups.pop())
        for suffix in _SUFFIXES:
            with contextlib.suppress(FileNotFoundError):
                os.replace(f"{newest}{suffix}", f"{target}{suffix}")
    for pattern in (".tmp-*", ".backup-*"):
        for name in glob.glob(f"{glob.escape(str(target))}{pattern}"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(name)
                removed.append(os.path.basename(name))
    return removed


class WriterLock:
    """An exclusive advisory lock on a file: one index writer per store across processes."""

    def __init__(self, path: Path):
        self.path = path
        self.handle: Any = None

    def __enter__(self) -> WriterLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.handle = open(self.path, "a+")
        except OSError as exc:
            raise StoreError(f"cannot create the index lock {self.path}: {exc.strerror}",
                             "use --store FILE on a writable disk, or --read-only") from None
        fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.handle.fileno(), fcntl.LOCK_UN)
        self.handle.close()

"""The SQLite index: OpenClaw's schema (§2.2), FTS5, sqlite-vec, meta row and embedding cache.

`Store` is the one public face; its parts live in `schema` (shape, connecting), `reads`, `writes` and `swap`
(full rebuilds).
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Any

from memtui.agentdb.ownership import DatabaseKind, ForeignDatabaseError, identify_database
from memtui.errors import StoreError
from memtui.index.store.reads import StoreReads
from memtui.index.store.schema import (
    ISSUES_KEY,
    META_KEY,
    REVISION_KEY,
    STEMMED_FTS,
    Capabilities,
    ChunkRow,
    Connection,
    DamagedIndexError,
    DriverError,
    connect,
    is_damage,
    sqlite_driver,
    vector_blob,
)
from memtui.index.store.swap import (
    WriterLock,
    copy_database,
    move_aside,
    remove_database_files,
    remove_leftovers,
    shrink_wal,
    temp_index_path,
)
from memtui.index.store.writes import BATCH_COMMIT_S, StoreWrites

__all__ = [
    "BATCH_COMMIT_S",
    "ISSUES_KEY",
    "META_KEY",
    "REVISION_KEY",
    "STEMMED_FTS",
    "Capabilities",
    "ChunkRow",
    "Connection",
    "DamagedIndexError",
    "DatabaseKind",
    "DriverError",
    "ForeignDatabaseError",
    "Store",
    "WriterLock",
    "connect",
    "identify_database",
    "is_damage",
    "move_aside",
    "remove_database_files",
    "remove_leftovers",
    "sqlite_driver",
    "temp_index_path",
    "vector_blob",
]


class Store(StoreReads, StoreWrites):
    """One index file. Thread-safe: one connection guarded by a lock (WAL lets other processes read)."""

    def __init__(self, path: Path, *, read_only: bool = False, fts_tokenizer: str = "unicode61",
                 vector_enabled: bool = True, extension_path: str | None = None, cache_enabled: bool = True):
        self.path = path
        self.read_only = read_only
        self.fts_tokenizer = fts_tokenizer
        self.cache_enabled = cache_enabled
        self.vector_enabled = vector_enabled
        self.extension_path = extension_path
        self.lock = threading.RLock()
        self._batch_until: float | None = None
        foreign = read_only and _refuse_unknown_layout(path).kind != "memtui"
        self.conn = connect(path, read_only=read_only, foreign=foreign)
        self._vec_state = None
        self.identity = _identity(path, snapshot=read_only)
        self._fts_error: str | None = None
        self._dims: int | None = None
        self._kinds: dict[tuple[str | None, tuple[str, ...] | None], bool] | None = None
        self._data_version: int | None = None
        self._stamp_pending = False
        self._external: str | None = None
        self._stemmed = False
        self.repairs = 0
        try:
            if read_only:
                self._check_schema()
                self._fts_error = None if self._has_table("chunks_fts") else "no chunks_fts table in this index"
            else:
                self._ensure_schema()
                if self.revision() is None:
                    with self.lock, self.conn:
                        self._bump_revision()
                        self._stamp()
            with self.lock:
                self._forget_if_changed()
            if not read_only:
                self.repair_external_writes()
        except BaseException as exc:
            self.conn.close()
            if is_damage(exc):
                raise DamagedIndexError(path, str(exc)) from None
            raise

    def replaced(self) -> bool:
        """Whether the file at `path` is no longer the one this store has open (replaced or deleted by
        another program), so the store should be reopened; a read-only store (maybe an immutable snapshot:
        `connect`) also when the file or its -wal changed since."""
        return _identity(self.path, snapshot=self.read_only) != self.identity

    def replace_with(self, source: Path) -> None:
        """Make this index's content that of the index file `source`, in one transaction on the live file:
        every connection, in any process, keeps working and sees the old index or the new one, never a
        missing, empty or half-copied one."""
        self._check_writable()
        with self.lock:
            if self.conn.in_transaction:
                self.conn.commit()
            copy_database(source, self.conn)
            self._fts_error = None if self._has_table("chunks_fts") else "no chunks_fts table in this index"
            self._data_version = None
            self._forget_if_changed()
            shrink_wal(self.conn)

    def reader_args(self) -> dict[str, Any]:
        """Keyword arguments that open this index read-only in another process: `Store(**reader_args())`."""
        return {"path": self.path, "read_only": True, "fts_tokenizer": self.fts_tokenizer,
                "vector_enabled": self.vector_enabled, "extension_path": self.extension_path,
                "cache_enabled": self.cache_enabled}

    def sync_lock(self) -> contextlib.AbstractContextManager[None]:
        """Nothing more: a sync already holds the index file's writer lock (`<index>.lock`)."""
        return contextlib.nullcontext()

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            self.conn.close()


def _refuse_unknown_layout(path: Path) -> DatabaseKind:
    """What a database opened read-only is; one that is not an index of memtui's layout is refused with what the
    file is."""
    kind = identify_database(path)
    if kind.kind in ("openclaw-agent-db", "foreign"):
        raise StoreError(f"{path} is {kind.describe()}, not an index of memtui's layout",
                         "leave out --store: memtui finds an OpenClaw 2026.9 agent's database itself and shows its "
                         "index in `memtui status`" if kind.kind == "openclaw-agent-db" else None)
    return kind


def _identity(path: Path, *, snapshot: bool) -> tuple[object, ...] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not snapshot:
        return info.st_dev, info.st_ino
    try:
        wal = os.stat(f"{path}-wal")
        changes: tuple[int, int] | None = (wal.st_size, wal.st_mtime_ns)
    except OSError:
        changes = None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, changes

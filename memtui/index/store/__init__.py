"""The SQLite index: OpenClaw's schema (§2.2), FTS5, sqlite-vec, meta row and embedding cache.

`Store` is the one public face; its parts live in `schema` (shape, connecting), `reads`, `writes` and `swap`
(full rebuilds).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from memtui.index.store.reads import StoreReads
from memtui.index.store.schema import (
    ISSUES_KEY,
    META_KEY,
    REVISION_KEY,
    STEMMED_FTS,
    Capabilities,
    ChunkRow,
    Connection,
    DriverError,
    connect,
    sqlite_driver,
    vector_blob,
)
from memtui.index.store.swap import remove_database_files, swap_database, temp_index_path
from memtui.index.store.writes import BATCH_COMMIT_S, StoreWrites

__all__ = [
    "BATCH_COMMIT_S", "ISSUES_KEY", "META_KEY", "REVISION_KEY", "STEMMED_FTS", "Capabilities", "ChunkRow",
    "Connection", "DriverError", "Store", "connect", "remove_database_files", "sqlite_driver", "swap_database",
    "temp_index_path", "vector_blob",
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
        self.conn, self._vector_error = connect(
            path, read_only=read_only, vector_enabled=vector_enabled, extension_path=extension_path
        )
        self._fts_error: str | None = None
        self._dims: int | None = None
        self._kinds: tuple[set[str], set[str]] | None = None
        self._stamp_pending = False
        self._data_version: int | None = None
        self._external: str | None = None
        self._stemmed = False
        self.repairs = 0
        if read_only:
            self._fts_error = None if self._has_table("chunks_fts") else "no chunks_fts table in this index"
            self.check_external_writes()
        else:
            self._ensure_schema()
            if self.revision() is None:
                with self.lock, self.conn:
                    self._bump_revision()
                    self._stamp()
            self._stemmed = self._fts_error is None and self._has_table(STEMMED_FTS)
            self.repair_external_writes()

    def reader_args(self) -> dict[str, Any]:
        """Keyword arguments that open this index read-only in another process: `Store(**reader_args())`."""
        return {"path": self.path, "read_only": True, "fts_tokenizer": self.fts_tokenizer,
                "vector_enabled": self.vector_enabled, "extension_path": self.extension_path,
                "cache_enabled": self.cache_enabled}

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            self.conn.close()

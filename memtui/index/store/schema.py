"""The index file's shape: OpenClaw's schema (§2.2), FTS5 tables, sqlite-vec loading, connecting."""

from __future__ import annotations

import hashlib
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.errors import ReadOnlyError, StoreError

try:
    import sqlean as sqlite_driver
except ImportError:  # pragma: no cover - sqlean-py is a hard dependency; stdlib keeps FTS working
    import sqlite3 as sqlite_driver

META_KEY = "memory_index_meta_v1"
# memtui's own addition to OpenClaw's schema: a Porter-stemmed, contentless FTS5 index over the same
# chunks (rowid = chunks.rowid), used by the `memtui` ranking profile.
STEMMED_FTS = "memtui_chunks_fts_porter"
ISSUES_KEY = "memtui_sync_issues_v1"
# A fresh random token written inside every transaction that changes `chunks`, so in-memory
# accelerators (in this or another process) can tell whether what they hold is still current.
REVISION_KEY = "memtui_chunks_revision_v1"
# What memtui last saw of the index, stamped at every commit of its own writes: a digest of the `files` rows
# (OpenClaw changes one with every chunk it writes) and the chunk count. A different digest on the next look
# means another program (OpenClaw, on a shared index) wrote: the Porter table and the revision are stale.
FINGERPRINT_KEY = "memtui_files_fingerprint_v1"
DriverError = sqlite_driver.Error
Connection = Any

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, source TEXT NOT NULL DEFAULT 'memory', "
    "hash TEXT NOT NULL, mtime INTEGER NOT NULL, size INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS chunks (id TEXT PRIMARY KEY, path TEXT NOT NULL, "
    "source TEXT NOT NULL DEFAULT 'memory', start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, "
    "hash TEXT NOT NULL, model TEXT NOT NULL, text TEXT NOT NULL, embedding TEXT NOT NULL, "
    "updated_at INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS idx_chunks_path ON chunks(path)",
    "CREATE INDEX IF NOT EXISTS idx_chunks_source ON chunks(source)",
)
_CACHE_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS embedding_cache (provider TEXT NOT NULL, model TEXT NOT NULL, "
    "provider_key TEXT NOT NULL, hash TEXT NOT NULL, embedding TEXT NOT NULL, dims INTEGER, "
    "updated_at INTEGER NOT NULL, PRIMARY KEY (provider, model, provider_key, hash))",
    "CREATE INDEX IF NOT EXISTS idx_embedding_cache_updated_at ON embedding_cache(updated_at)",
)


@dataclass(frozen=True)
class ChunkRow:
    """One row of `chunks`, as search and the tools see it."""

    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    hash: str
    model: str
    text: str


@dataclass(frozen=True)
class Capabilities:
    """What this connection can do, with the reason when it cannot."""

    fts_available: bool
    fts_error: str | None
    vector_available: bool
    vector_error: str | None
    driver: str


def vector_blob(vector: Sequence[float]) -> bytes:
    """Float32 little-endian BLOB, as `Buffer.from(new Float32Array(v).buffer)`."""
    return struct.pack(f"<{len(vector)}f", *vector)


def _load_vec(conn: Connection, extension_path: str | None) -> str | None:
    """Load sqlite-vec; return None on success or the reason it is unavailable."""
    if not hasattr(conn, "enable_load_extension"):
        return f"the SQLite driver ({sqlite_driver.__name__}) cannot load extensions; install sqlean-py"
    try:
        conn.enable_load_extension(True)
        if extension_path:
            conn.load_extension(extension_path)
        else:
            import sqlite_vec

            sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute("SELECT vec_version()").fetchone()
    except ImportError:
        return "the sqlite-vec package is not installed (pip install sqlite-vec)"
    except Exception as exc:
        return f"sqlite-vec failed to load: {exc}"
    return None


def connect(path: Path, *, read_only: bool = False, vector_enabled: bool = True,
            extension_path: str | None = None) -> tuple[Connection, str | None]:
    """Open `path` (WAL, busy timeout 5 s) and try to load sqlite-vec; returns (conn, vector error)."""
    try:
        if read_only:
            pending = Path(f"{path}-wal").exists()
            uri = f"file:{path}?{'mode=ro' if pending else 'immutable=1'}"
            conn = sqlite_driver.connect(uri, uri=True, check_same_thread=False, timeout=5.0)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite_driver.connect(str(path), check_same_thread=False, timeout=5.0)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA wal_autocheckpoint = 1000")
        conn.execute("PRAGMA busy_timeout = 5000")
    except DriverError as exc:
        raise StoreError(f"cannot open index {path}: {exc}") from None
    vector_error = _load_vec(conn, extension_path) if vector_enabled else "disabled by store.vector.enabled"
    return conn, vector_error



def files_fingerprint(conn: Connection) -> str:
    """sha256 over every (path, source, hash) of `files`, in order, and the number of chunks."""
    digest = hashlib.sha256()
    for path, source, file_hash in conn.execute("SELECT path, source, hash FROM files ORDER BY path, source"):
        digest.update(f"{path}\0{source}\0{file_hash}\n".encode("utf-8", "surrogatepass"))
    digest.update(f"chunks {conn.execute('SELECT COUNT(*) FROM chunks').fetchone()[0]}".encode())
    return digest.hexdigest()


class StoreBase:
    """The connection, its lock and what the schema offers; the reads and writes build on it."""

    path: Path
    read_only: bool
    fts_tokenizer: str
    cache_enabled: bool
    conn: Connection
    lock: threading.RLock
    _vector_error: str | None
    _fts_error: str | None
    _dims: int | None
    _stemmed: bool
    _stamp_pending: bool
    _data_version: int | None
    _external: str | None
    repairs: int

    def _ensure_schema(self) -> None:
        with self.lock, self.conn:
            for statement in _SCHEMA:
                self.conn.execute(statement)
            if self.cache_enabled:
                for statement in _CACHE_SCHEMA:
                    self.conn.execute(statement)
            for table in ("files", "chunks"):
                columns = {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}
                if "source" not in columns:
                    self.conn.execute(f"ALTER TABLE {table} ADD COLUMN source TEXT NOT NULL DEFAULT 'memory'")
            tokenize = ", tokenize='trigram case_sensitive 0'" if self.fts_tokenizer == "trigram" else ""
            try:
                self.conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, id UNINDEXED, "
                    f"path UNINDEXED, source UNINDEXED, model UNINDEXED, start_line UNINDEXED, "
                    f"end_line UNINDEXED{tokenize})"
                )
            except DriverError as exc:
                self._fts_error = f"FTS5 unavailable: {exc}"
            if self._fts_error is None and not self._has_table(STEMMED_FTS):
                # External content (the text stays in `chunks`), readable by any FTS5 SQLite.
                self.conn.execute(
                    f"CREATE VIRTUAL TABLE {STEMMED_FTS} USING fts5(text, content='chunks', "
                    "tokenize='porter unicode61')"
                )
                # An index written before this table existed (or by OpenClaw) already has chunks.
                self.conn.execute(f"INSERT INTO {STEMMED_FTS} ({STEMMED_FTS}) VALUES ('rebuild')")
                self._stamp_pending = True
            self._stamp()

    def _stamp(self) -> None:
        """Inside a write transaction, before its commit: record the fingerprint of what memtui wrote."""
        if self._stamp_pending:
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                              (FINGERPRINT_KEY, files_fingerprint(self.conn)))
            self._stamp_pending = False

    def _has_table(self, name: str) -> bool:
        row = self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
        return row is not None

    @property
    def capabilities(self) -> Capabilities:
        """FTS and vector availability with reasons."""
        return Capabilities(
            fts_available=self._fts_error is None,
            fts_error=self._fts_error,
            vector_available=self._vector_error is None,
            vector_error=self._vector_error,
            driver=sqlite_driver.__name__,
        )

    def vector_dims(self) -> int | None:
        """Dimension of the `chunks_vec` table, if it exists."""
        with self.lock:
            row = self.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_vec'").fetchone()
        if not row or not row[0]:
            return None
        sql = row[0].lower()
        start = sql.find("float[")
        if start < 0:
            return None
        return int(sql[start + 6 : sql.index("]", start)])

    def ensure_vector_table(self, dims: int) -> None:
        """Create `chunks_vec` for `dims`, recreating it when the dimension changed."""
        if self._vector_error is not None:
            return
        self._check_writable()
        with self.lock, self.conn:
            current = self.vector_dims()
            if current == dims:
                return
            self._dims = dims
            if current is not None:
                self.conn.execute("DROP TABLE chunks_vec")
            self.conn.execute(
                f"CREATE VIRTUAL TABLE chunks_vec USING vec0(id TEXT PRIMARY KEY, embedding FLOAT[{dims}])"
            )

    def _check_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(f"index {self.path} is open read-only")

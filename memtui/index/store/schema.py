"""The index file's shape: OpenClaw's schema (§2.2), FTS5 tables, sqlite-vec loading, connecting."""

from __future__ import annotations

import hashlib
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.agentdb.ownership import ForeignDatabaseError, identify_database, open_read_only
from memtui.errors import ReadOnlyError, StoreError
from memtui.index.terms import VERSION as TERMS_VERSION
from memtui.index.terms import index_text

try:
    import sqlean as sqlite_driver
except ImportError:  # pragma: no cover - sqlean-py is a hard dependency; stdlib keeps FTS working
    import sqlite3 as sqlite_driver

META_KEY = "memory_index_meta_v1"
# memtui's own addition to OpenClaw's schema: the `memtui` ranking profile's keyword table over the same chunks
# (rowid = chunks.rowid). It indexes `memtui.index.terms.index_text` of each chunk (CJK bigrams, Snowball stems
# of Cyrillic, Greek, Arabic and Armenian words) through FTS5's Porter stemmer; the name carries the version of
# that rewriting, and the older Porter-only table is dropped when this one is built.
STEMMED_FTS = f"memtui_chunks_fts_terms_v{TERMS_VERSION}"
_OLD_STEMMED_FTS = ("memtui_chunks_fts_porter",)
ISSUES_KEY = "memtui_sync_issues_v1"
# A fresh random token written inside every transaction that changes `chunks`, so in-memory
# accelerators (in this or another process) can tell whether what they hold is still current.
REVISION_KEY = "memtui_chunks_revision_v1"
# What memtui last saw of the index, stamped at every commit of its own writes: a digest of the `files` rows
# (OpenClaw changes one with every chunk it writes) and the chunk count. A different digest on the next look
# means another program (OpenClaw, on a shared index) wrote: the Porter table, the change journal and the
# revision are stale until a memtui writer repairs them.
FINGERPRINT_KEY = "memtui_files_fingerprint_v1"
# memtui's addition: every chunk row added or removed by an incremental write, in order, so an accelerator can
# apply just those changes (`seq` grows; the oldest entries beyond `JOURNAL_KEEP` are dropped).
JOURNAL = "memtui_chunk_changes"
JOURNAL_KEEP = 200_000
# memtui's addition for an OpenClaw 2026.9 agent: each chunk's recall metadata (`memory_index_chunk_recall_metadata`
# in 2026.9's agent database), a row only for a chunk with one set; written with the chunk, deleted with it.
RECALL = "memtui_chunk_recall"
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
    f"CREATE TABLE IF NOT EXISTS {JOURNAL} (seq INTEGER PRIMARY KEY, chunk_rowid INTEGER NOT NULL, "
    "added INTEGER NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS {RECALL} (id TEXT PRIMARY KEY, importance INTEGER, triggers TEXT, project_key TEXT)",
)
# Created once the tables' columns are known to be memtui's (a foreign `chunks` may lack them).
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS idx_chunks_path ON chunks(path)",
    "CREATE INDEX IF NOT EXISTS idx_chunks_source ON chunks(source)",
    # memtui's addition: lets a search tell in a few page reads whether rows of another model exist.
    "CREATE INDEX IF NOT EXISTS idx_chunks_model ON chunks(model)",
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


class DamagedIndexError(StoreError):
    """The index file is not a usable memtui/OpenClaw index (not SQLite, truncated, or a foreign schema)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"index {path} is damaged ({reason})")
        self.reason = reason


# SQLite's words for a file that is not (or no longer) a database it can read.
_DAMAGE_MESSAGES = ("file is not a database", "database disk image is malformed", "malformed database schema")
# Columns memtui reads; a table without them belongs to some other program.
_REQUIRED_COLUMNS = {
    "meta": {"key", "value"},
    "files": {"path", "source", "hash", "mtime", "size"},
    "chunks": {"id", "path", "source", "start_line", "end_line", "hash", "model", "text", "embedding", "updated_at"},
}


def is_damage(exc: BaseException) -> bool:
    """Whether a driver error says the file is damaged (rather than busy, locked or read-only)."""
    return isinstance(exc, DriverError) and any(m in str(exc).lower() for m in _DAMAGE_MESSAGES)


def _check_columns(conn: Connection, path: Path) -> None:
    """DamagedIndexError when an existing table memtui reads lacks a column (a file of some other program)."""
    for table, required in _REQUIRED_COLUMNS.items():
        columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not columns:
            continue
        if table != "meta":
            columns.add("source")  # added by the migration in `_ensure_schema` (indexes from before 2026.1)
        if not required <= columns:
            missing = ", ".join(sorted(required - columns))
            raise DamagedIndexError(path, f"a foreign schema: table {table} lacks {missing}")


def chunks_fts_sql(tokenizer: str) -> str:
    """The CREATE statement of OpenClaw 2026.4's keyword table `chunks_fts` (`unicode61`, or `trigram`)."""
    tokenize = ", tokenize='trigram case_sensitive 0'" if tokenizer == "trigram" else ""
    return ("CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, id UNINDEXED, path UNINDEXED, "
            f"source UNINDEXED, model UNINDEXED, start_line UNINDEXED, end_line UNINDEXED{tokenize})")


# One chunk into `chunks_fts`, under the rowid of its `chunks` row.
FTS_INSERT = ("INSERT INTO chunks_fts (rowid, text, id, path, source, model, start_line, end_line) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")


def connect(path: Path, *, read_only: bool = False, foreign: bool = False) -> Connection:
    """Open `path` (WAL, busy timeout 5 s); sqlite-vec is loaded later, when a vector table is first used. A file
    that is not an index (not SQLite, damaged) raises DamagedIndexError, untouched; writable, a database memtui
    did not create (OpenClaw's own, another program's) raises ForeignDatabaseError before a byte is written.
    Read-only, such a `foreign` database is opened without a byte written beside it (`open_read_only`: a private
    copy with the WAL folded in while its `-wal` holds frames, where SQLite's own reader writes the `-shm`)."""
    conn = None
    try:
        if read_only and foreign:
            conn = open_read_only(path)
        elif read_only:
            # Without a -wal no process has the index open: an immutable snapshot leaves no -wal/-shm behind
            # (the store reopens it when the file changes). Percent-encoded: a `#`, `?` or `%` in the path
            # would otherwise cut or change it (and drop the mode).
            pending = Path(f"{path}-wal").exists()
            uri = f"{path.absolute().as_uri()}?{'mode=ro' if pending else 'immutable=1'}"
            conn = sqlite_driver.connect(uri, uri=True, check_same_thread=False, timeout=5.0)
        else:
            kind = identify_database(path)
            if not kind.memtui_may_write and kind.kind != "not-sqlite":
                raise ForeignDatabaseError(path, kind)
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite_driver.connect(str(path), check_same_thread=False, timeout=5.0)
        conn.execute("PRAGMA busy_timeout = 5000")
        if not read_only:
            # Read before anything is written, so a file that is not an index is refused untouched.
            _check_columns(conn, path)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA wal_autocheckpoint = 1000")
    except (OSError, DriverError, StoreError) as exc:
        if conn is not None:
            conn.close()
        raise _open_failure(path, exc) from None
    return conn


def _open_failure(path: Path, exc: Exception) -> StoreError:
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, OSError):
        return StoreError(f"cannot create the index folder {path.parent}: {exc.strerror}",
                          "use --store FILE on a writable disk, or --read-only to open an existing index")
    if is_damage(exc):
        return DamagedIndexError(path, str(exc))
    hint = "use --store FILE on a writable disk, or --read-only" if "readonly" in str(exc).lower() else None
    return StoreError(f"cannot open index {path}: {exc}", hint)


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
    vector_enabled: bool
    extension_path: str | None
    _vec_state: tuple[str | None] | None
    _fts_error: str | None
    _dims: int | None
    _stemmed: bool
    _kinds: dict[tuple[str | None, tuple[str, ...] | None], bool] | None
    _data_version: int | None
    _stamp_pending: bool
    _external: str | None
    repairs: int

    def _check_schema(self) -> None:
        """DamagedIndexError when a table memtui reads lacks a column (a file written by another program)."""
        _check_columns(self.conn, self.path)

    def _forget_if_changed(self) -> None:
        """Drop what this connection cached about the schema and rows once another connection (another
        process's sync or full rebuild) has committed: `PRAGMA data_version` moves exactly then."""
        version = self.conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._data_version = version
            self._kinds = None
            self._dims = None
            self._external = self._changed_elsewhere()
            self._stemmed = self._fts_error is None and self._has_table(STEMMED_FTS) and self._external is None

    def _changed_elsewhere(self) -> str | None:
        """The index's fingerprint when it is not the one memtui stamped (another program wrote since), else
        None; an index with none of memtui's tables has nothing of memtui's to go stale."""
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (FINGERPRINT_KEY,)).fetchone()
            if row is None and not self._has_table(STEMMED_FTS):
                return None
            current = files_fingerprint(self.conn)
        except DriverError:
            return None
        return None if row is not None and row[0] == current else current

    def _stamp(self) -> None:
        """Inside a write transaction, before its commit: record the fingerprint of what memtui wrote."""
        if self._stamp_pending:
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                              (FINGERPRINT_KEY, files_fingerprint(self.conn)))
            self._stamp_pending = False

    def _fill_stemmed(self) -> None:
        """(Re)write every chunk's text into the Porter table."""
        self.conn.execute(f"DELETE FROM {STEMMED_FTS}")
        after = -1
        page = "SELECT rowid, text FROM chunks WHERE rowid > ? ORDER BY rowid LIMIT 5000"
        while batch := self.conn.execute(page, (after,)).fetchall():
            self.conn.executemany(f"INSERT INTO {STEMMED_FTS} (rowid, text) VALUES (?, ?)",
                                  [(rowid, index_text(text)) for rowid, text in batch])
            after = batch[-1][0]
        self._stamp_pending = True

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
            self._check_schema()
            for statement in _INDEXES:
                self.conn.execute(statement)
            try:
                self.conn.execute(chunks_fts_sql(self.fts_tokenizer))
            except DriverError as exc:
                self._fts_error = f"FTS5 unavailable: {exc}"
            if self._fts_error is None and not self._has_table(STEMMED_FTS):
                # It holds its own (rewritten) text, so it is readable by any FTS5 SQLite.
                self.conn.execute(f"CREATE VIRTUAL TABLE {STEMMED_FTS} USING fts5(text, tokenize='porter unicode61')")
                # An index written before this table existed (or by OpenClaw) already has chunks.
                self._fill_stemmed()
                for old in _OLD_STEMMED_FTS:
                    self.conn.execute(f"DROP TABLE IF EXISTS {old}")
            self._stamp()

    @property
    def _vector_error(self) -> str | None:
        """Why vector search is unavailable (None: sqlite-vec is loaded). The extension loads on first asking, so
        a keyword-only search never pays for it."""
        state = self._vec_state
        if state is None:
            with self.lock:
                state = self._vec_state
                if state is None:
                    error = _load_vec(self.conn, self.extension_path) if self.vector_enabled else \
                        "disabled by store.vector.enabled"
                    state = self._vec_state = (error,)
        return state[0]

    @property
    def fts_available(self) -> bool:
        """Whether keyword search works (without loading sqlite-vec, as `capabilities` does)."""
        return self._fts_error is None

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

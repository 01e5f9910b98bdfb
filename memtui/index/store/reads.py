"""The SQLite index: OpenClaw's schema (§2.2), FTS5, sqlite-vec, meta row and embedding cache."""

from __future__ import annotations

import contextlib
import json
import os
import struct
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
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
# Longest a `batch()` keeps written files uncommitted (other processes see them at the commit).
BATCH_COMMIT_S = 0.25
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


class Store:
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
        if read_only:
            self._fts_error = None if self._has_table("chunks_fts") else "no chunks_fts table in this index"
        else:
            self._ensure_schema()
            if self.revision() is None:
                with self.lock, self.conn:
                    self._bump_revision()
        self._stemmed = self._fts_error is None and self._has_table(STEMMED_FTS)

    # -- schema -----------------------------------------------------------------------------

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

    # -- meta -------------------------------------------------------------------------------

    def read_meta(self) -> dict[str, Any] | None:
        """The parsed `memory_index_meta_v1` row, or None."""
        with self.lock:
            try:
                row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
            except DriverError:
                return None
        if not row:
            return None
        try:
            value = json.loads(row[0])
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def write_meta(self, value: str, key: str = META_KEY) -> None:
        """Write a meta row (the index meta is already serialized as OpenClaw would)."""
        self._check_writable()
        with self.lock, self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def read_issues(self) -> list[dict[str, Any]]:
        """File issues recorded by the last sync (memtui's own meta row)."""
        with self.lock:
            try:
                row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (ISSUES_KEY,)).fetchone()
            except DriverError:
                return []
        try:
            value = json.loads(row[0]) if row else []
        except ValueError:
            return []
        return value if isinstance(value, list) else []

    # -- files and chunks -------------------------------------------------------------------

    def file_hashes(self, source: str) -> dict[str, str]:
        """path → hash of indexed files of one source."""
        with self.lock:
            rows = self.conn.execute("SELECT path, hash FROM files WHERE source = ?", (source,)).fetchall()
        return {path: digest for path, digest in rows}

    def replace_file(self, *, path: str, source: str, digest: str, mtime: float, size: int,
                     rows: Sequence[tuple[ChunkRow, str, Sequence[float] | None]], updated_at: int,
                     fresh: bool = False) -> None:
        """Atomically replace a file's chunks (rows: chunk, embedding JSON, vector) and upsert its files row.

        `fresh` skips deleting old rows (a store being built from scratch has none). Inside `batch()` the
        file is a savepoint of the batch's transaction; otherwise it is its own transaction.
        """
        self._check_writable()
        self._kinds = None
        args = (path, source, digest, mtime, size, rows, updated_at, fresh)
        with self.lock:
            if self._batch_until is None:
                with self.conn:
                    self._write_file(*args)
                return
            if not self.conn.in_transaction:
                self.conn.execute("BEGIN")
            self.conn.execute("SAVEPOINT memtui_file")
            try:
                self._write_file(*args)
            except BaseException:
                self.conn.execute("ROLLBACK TO memtui_file")
                self.conn.execute("RELEASE memtui_file")
                raise
            self.conn.execute("RELEASE memtui_file")
            if time.monotonic() >= self._batch_until:
                self.commit_batch()

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Group the `replace_file` calls made inside into a commit every `BATCH_COMMIT_S` at most: FTS5
        writes a segment per transaction, so one commit per file dominated indexing time. Each file stays
        atomic; everything written is committed on exit, also when the block raises."""
        self._batch_until = time.monotonic() + BATCH_COMMIT_S
        try:
            yield
        finally:
            self._batch_until = None
            with self.lock:
                if self.conn.in_transaction:
                    self.conn.commit()

    def commit_batch(self) -> None:
        """Commit what the current batch has written, before slow work (embedding) that would otherwise keep
        the write transaction, and other processes' writes, waiting."""
        with self.lock:
            if self._batch_until is not None and self.conn.in_transaction:
                self.conn.commit()
                self._batch_until = time.monotonic() + BATCH_COMMIT_S

    def _write_file(self, path: str, source: str, digest: str, mtime: float, size: int,
                    rows: Sequence[tuple[ChunkRow, str, Sequence[float] | None]], updated_at: int,
                    fresh: bool) -> None:
        if not fresh:
            self._delete_file_rows(path, source)
        dims = self._dims_cache()
        for chunk, embedding_json, vector in rows:
            cursor = self.conn.execute(
                "INSERT OR REPLACE INTO chunks (id, path, source, start_line, end_line, hash, model, text, "
                "embedding, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (chunk.id, chunk.path, chunk.source, chunk.start_line, chunk.end_line, chunk.hash,
                 chunk.model, chunk.text, embedding_json, updated_at),
            )
            if self._fts_error is None:
                self.conn.execute(
                    "INSERT INTO chunks_fts (rowid, text, id, path, source, model, start_line, end_line) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (cursor.lastrowid, chunk.text, chunk.id, chunk.path, chunk.source, chunk.model,
                     chunk.start_line, chunk.end_line),
                )
            if self._stemmed:
                self.conn.execute(f"INSERT INTO {STEMMED_FTS} (rowid, text) VALUES (?, ?)",
                                  (cursor.lastrowid, chunk.text))
            if vector is not None and dims == len(vector):
                self.conn.execute(
                    "INSERT INTO chunks_vec (id, embedding) VALUES (?, ?)", (chunk.id, vector_blob(vector))
                )
        self.conn.execute(
            "INSERT OR REPLACE INTO files (path, source, hash, mtime, size) VALUES (?, ?, ?, ?, ?)",
            (path, source, digest, mtime, size),
        )
        self._bump_revision()

    def _dims_cache(self) -> int | None:
        if self._vector_error is not None:
            return None
        if self._dims is None:
            self._dims = self.vector_dims()
        return self._dims

    def _delete_file_rows(self, path: str, source: str) -> None:
        rows = self.conn.execute(
            "SELECT rowid, id, text FROM chunks WHERE path = ? AND source = ?", (path, source)).fetchall()
        if self._dims_cache() is not None and rows:
            self.conn.executemany("DELETE FROM chunks_vec WHERE id = ?", [(chunk_id,) for _, chunk_id, _ in rows])
        if self._fts_error is None:
            # memtui writes FTS rows with the chunk's rowid (a direct delete); an index written by
            # OpenClaw does not, so any row left over is removed by the (slower) path scan.
            deleted = 0
            for rowid, chunk_id, _ in rows:
                deleted += self.conn.execute(
                    "DELETE FROM chunks_fts WHERE rowid = ? AND id = ?", (rowid, chunk_id)).rowcount
            if deleted < len(rows):
                self.conn.execute("DELETE FROM chunks_fts WHERE path = ? AND source = ?", (path, source))
        if self._stemmed and rows:
            self.conn.executemany(f"INSERT INTO {STEMMED_FTS} ({STEMMED_FTS}, rowid, text) VALUES ('delete', ?, ?)",
                                  [(rowid, text) for rowid, _, text in rows])
        self.conn.execute("DELETE FROM chunks WHERE path = ? AND source = ?", (path, source))

    def delete_files(self, paths: Iterable[str], source: str) -> int:
        """Remove files (and all their chunk rows) that are no longer on disk."""
        self._check_writable()
        self._kinds = None
        count = 0
        with self.lock, self.conn:
            for path in paths:
                self._delete_file_rows(path, source)
                self.conn.execute("DELETE FROM files WHERE path = ? AND source = ?", (path, source))
                count += 1
            if count:
                self._bump_revision()
        return count

    def _bump_revision(self) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (REVISION_KEY, uuid.uuid4().hex))

    def revision(self) -> str | None:
        """The chunks revision token (changes with every write; None for an index never written by memtui)."""
        with self.lock:
            try:
                row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (REVISION_KEY,)).fetchone()
            except DriverError:
                return None
        return row[0] if row else None

    def counts(self) -> dict[str, dict[str, int]]:
        """source → {files, chunks}."""
        result: dict[str, dict[str, int]] = {}
        with self.lock:
            for source, files in self.conn.execute("SELECT source, COUNT(*) FROM files GROUP BY source"):
                result.setdefault(source, {"files": 0, "chunks": 0})["files"] = files
            for source, chunks in self.conn.execute("SELECT source, COUNT(*) FROM chunks GROUP BY source"):
                result.setdefault(source, {"files": 0, "chunks": 0})["chunks"] = chunks
        return result

    def chunk_count(self) -> int:
        """Total rows in `chunks`."""
        with self.lock:
            return int(self.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])

    def vector_count(self) -> int:
        """Rows in `chunks_vec` (0 without the table)."""
        if self._vector_error is not None or self.vector_dims() is None:
            return 0
        with self.lock:
            return int(self.conn.execute("SELECT COUNT(*) FROM chunks_vec").fetchone()[0])

    def chunks_by_ids(self, ids: Sequence[str]) -> dict[str, ChunkRow]:
        """Fetch chunk rows by id."""
        result: dict[str, ChunkRow] = {}
        with self.lock:
            for start in range(0, len(ids), 500):
                part = list(ids[start : start + 500])
                marks = ",".join("?" * len(part))
                for row in self.conn.execute(
                    "SELECT id, path, source, start_line, end_line, hash, model, text FROM chunks "
                    f"WHERE id IN ({marks})",
                    part,
                ):
                    result[row[0]] = ChunkRow(*row)
        return result

    def chunks_for_path(self, path: str) -> list[ChunkRow]:
        """All chunks of one file, in line order."""
        with self.lock:
            rows = self.conn.execute(
                "SELECT id, path, source, start_line, end_line, hash, model, text FROM chunks WHERE path = ? "
                "ORDER BY start_line, end_line",
                (path,),
            ).fetchall()
        return [ChunkRow(*row) for row in rows]

    def chunks_by_rowids(self, rowids: Sequence[int]) -> dict[int, ChunkRow]:
        """Fetch chunk rows by SQLite rowid (the accelerator's document keys)."""
        result: dict[int, ChunkRow] = {}
        with self.lock:
            for start in range(0, len(rowids), 500):
                part = list(rowids[start : start + 500])
                for r in self.conn.execute(
                    "SELECT rowid, id, path, source, start_line, end_line, model, text FROM chunks "
                    f"WHERE rowid IN ({','.join('?' * len(part))})",
                    part,
                ):
                    result[r[0]] = ChunkRow(r[1], r[2], r[3], int(r[4]), int(r[5]), "", r[6], r[7])
        return result

    def chunk_batch(self, after_rowid: int, size: int) -> list[tuple[int, str, str, str]]:
        """(rowid, model, source, text) of up to `size` chunks with rowid > `after_rowid`, in rowid order."""
        with self.lock:
            return [tuple(r) for r in self.conn.execute(
                "SELECT rowid, model, source, text FROM chunks WHERE rowid > ? ORDER BY rowid LIMIT ?",
                (after_rowid, size))]

    def vector_blobs(self) -> list[tuple[str, bytes]]:
        """(chunk id, float32 BLOB) of every row of `chunks_vec` (empty without the table)."""
        if self._vector_error is not None or self.vector_dims() is None:
            return []
        with self.lock:
            return [(r[0], r[1]) for r in self.conn.execute("SELECT id, embedding FROM chunks_vec")]

    def chunk_ids(self) -> list[tuple[int, str]]:
        """(rowid, id) of every chunk."""
        with self.lock:
            return [(r[0], r[1]) for r in self.conn.execute("SELECT rowid, id FROM chunks")]

    def embedding_json(self, after_rowid: int, size: int) -> list[tuple[int, str]]:
        """(rowid, embedding JSON) of up to `size` chunks after `after_rowid` (when sqlite-vec is absent)."""
        with self.lock:
            return [(r[0], r[1]) for r in self.conn.execute(
                "SELECT rowid, embedding FROM chunks WHERE rowid > ? ORDER BY rowid LIMIT ?", (after_rowid, size))]

    def file_rows(self) -> list[tuple[str, str, str, float, int]]:
        """(path, source, hash, mtime, size) of every indexed file."""
        with self.lock:
            return [tuple(row) for row in self.conn.execute("SELECT path, source, hash, mtime, size FROM files")]

    # -- search -----------------------------------------------------------------------------

    @staticmethod
    def _filters(model: str | None, sources: Sequence[str] | None, alias: str = "") -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if model is not None:
            clauses.append(f"{alias}model = ?")
            params.append(model)
        if sources:
            clauses.append(f"{alias}source IN ({','.join('?' * len(sources))})")
            params.extend(sources)
        return "".join(f" AND {c}" for c in clauses), params

    def keyword_search(self, match: str, limit: int, *, model: str | None, sources: Sequence[str] | None,
                       like_terms: Sequence[str] = ()) -> list[tuple[ChunkRow, float]]:
        """FTS5 MATCH ordered by bm25 (raw rank, more negative = better).

        Ranks are computed on ids alone, then the few winning rows are fetched: FTS5 materialises
        every selected column of every match before sorting, so selecting the text up front is slow.
        """
        where, params = self._filters(model, sources)
        like_sql = "".join(" AND text LIKE ? ESCAPE '\\'" for _ in like_terms)
        like_params = [f"%{_escape_like(t)}%" for t in like_terms]
        sql = (
            "SELECT rowid, bm25(chunks_fts) AS rank FROM chunks_fts "
            f"WHERE chunks_fts MATCH ?{like_sql}{where} ORDER BY rank ASC LIMIT ?"
        )
        with self.lock:
            ranked = self.conn.execute(sql, [match, *like_params, *params, limit]).fetchall()
            return self._fetch_ranked(ranked, "chunks_fts")

    def _fetch_ranked(self, ranked: list[tuple[int, float]], table: str) -> list[tuple[ChunkRow, float]]:
        """The rows behind (rowid, bm25) pairs, in rank order; `table` is where those rowids live."""
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        rows = {
            r[0]: r
            for r in self.conn.execute(
                f"SELECT rowid, id, path, source, start_line, end_line, model, text FROM {table} "
                f"WHERE rowid IN ({marks})",
                [rowid for rowid, _ in ranked],
            )
        }
        return [
            (ChunkRow(r[1], r[2], r[3], int(r[4]), int(r[5]), "", r[6], r[7]), float(rank))
            for rowid, rank in ranked
            if (r := rows.get(rowid)) is not None
        ]

    def _row_kinds(self) -> tuple[set[str], set[str]]:
        """(models, sources) present in `chunks`, cached until the next write."""
        if self._kinds is None:
            with self.lock:
                models = {r[0] for r in self.conn.execute("SELECT DISTINCT model FROM chunks")}
                sources = {r[0] for r in self.conn.execute("SELECT DISTINCT source FROM chunks")}
            self._kinds = (models, sources)
        return self._kinds

    @property
    def has_stemmed_index(self) -> bool:
        """Whether the Porter-stemmed FTS table exists (absent in indexes written by OpenClaw)."""
        return self._stemmed

    def stemmed_search(self, match: str, limit: int, *, model: str | None,
                       sources: Sequence[str] | None) -> list[tuple[ChunkRow, float]]:
        """MATCH on the Porter-stemmed table, ordered by bm25; rows come from `chunks` by rowid."""
        models, present = self._row_kinds()
        needs_filter = (model is not None and models != {model}) or (
            sources is not None and not present <= set(sources))
        if needs_filter:
            where, params = self._filters(model, sources, alias="c.")
            sql = (
                f"SELECT f.rowid, bm25({STEMMED_FTS}) AS rank FROM {STEMMED_FTS} f JOIN chunks c "
                f"ON c.rowid = f.rowid WHERE {STEMMED_FTS} MATCH ?{where} ORDER BY rank ASC LIMIT ?"
            )
        else:
            params = []
            sql = f"SELECT rowid, bm25({STEMMED_FTS}) AS rank FROM {STEMMED_FTS} WHERE {STEMMED_FTS} MATCH ? " \
                  "ORDER BY rank ASC LIMIT ?"
        with self.lock:
            ranked = self.conn.execute(sql, [match, *params, limit]).fetchall()
            return self._fetch_ranked(ranked, "chunks")

    def like_search(self, terms: Sequence[str], limit: int, *, model: str | None,
                    sources: Sequence[str] | None) -> list[ChunkRow]:
        """Fallback when MATCH fails: every term as `LIKE '%term%'`."""
        where, params = self._filters(model, sources)
        like_sql = " AND ".join("text LIKE ? ESCAPE '\\'" for _ in terms) or "1"
        sql = (f"SELECT id, path, source, start_line, end_line, model, text FROM chunks WHERE {like_sql}{where} "
               "LIMIT ?")
        with self.lock:
            rows = self.conn.execute(sql, [*(f"%{_escape_like(t)}%" for t in terms), *params, limit]).fetchall()
        return [ChunkRow(r[0], r[1], r[2], int(r[3]), int(r[4]), "", r[5], r[6]) for r in rows]

    def bm25_for_ids(self, match: str, ids: Sequence[str], *, stemmed: bool = False) -> dict[str, float]:
        """Raw bm25 of specific chunks for a MATCH expression (for "why not" explanations), on OpenClaw's
        FTS table or, with `stemmed`, on memtui's Porter-stemmed one."""
        if not ids or self._fts_error is not None or (stemmed and not self._stemmed):
            return {}
        marks = ",".join("?" * len(ids))
        if stemmed:
            sql = (f"SELECT c.id, bm25({STEMMED_FTS}) FROM {STEMMED_FTS} JOIN chunks c ON c.rowid = "
                   f"{STEMMED_FTS}.rowid WHERE {STEMMED_FTS} MATCH ? AND c.id IN ({marks})")
        else:
            sql = f"SELECT id, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ? AND id IN ({marks})"
        with self.lock:
            try:
                rows = self.conn.execute(sql, [match, *ids]).fetchall()
            except DriverError:
                return {}
        return {row[0]: float(row[1]) for row in rows}

    def vector_knn(self, query: Sequence[float], limit: int, *, model: str,
                   sources: Sequence[str] | None) -> list[tuple[ChunkRow, float]]:
        """sqlite-vec KNN (k = limit × 8, retried with every row when too few match); returns (row, 1 - dist)."""
        where, params = self._filters(model, sources, alias="c.")
        blob = vector_blob(query)
        sql = (
            "SELECT c.id, c.path, c.source, c.start_line, c.end_line, c.model, c.text, "
            "vec_distance_cosine(v.embedding, ?) AS dist FROM chunks_vec v JOIN chunks c ON c.id = v.id "
            f"WHERE v.embedding MATCH ? AND k = ?{where} ORDER BY dist ASC LIMIT ?"
        )
        with self.lock:
            rows = self.conn.execute(sql, [blob, blob, limit * 8, *params, limit]).fetchall()
            if len(rows) < limit:
                total = self.vector_count()
                if total > limit * 8:
                    rows = self.conn.execute(sql, [blob, blob, total, *params, limit]).fetchall()
        return [(ChunkRow(r[0], r[1], r[2], int(r[3]), int(r[4]), "", r[5], r[6]), 1.0 - float(r[7])) for r in rows]

    def embeddings_for_model(self, model: str, sources: Sequence[str] | None) -> list[tuple[ChunkRow, str]]:
        """Every chunk of a model with its JSON embedding (the in-process cosine path)."""
        where, params = self._filters(model, sources)
        with self.lock:
            rows = self.conn.execute(
                f"SELECT id, path, source, start_line, end_line, model, text, embedding FROM chunks WHERE 1{where}",
                params,
            ).fetchall()
        return [(ChunkRow(r[0], r[1], r[2], int(r[3]), int(r[4]), "", r[5], r[6]), r[7]) for r in rows]

    def vectors_for_ids(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """Stored embeddings (from the JSON column) of specific chunks."""
        result: dict[str, list[float]] = {}
        with self.lock:
            for start in range(0, len(ids), 500):
                part = list(ids[start : start + 500])
                marks = ",".join("?" * len(part))
                for chunk_id, text in self.conn.execute(
                    f"SELECT id, embedding FROM chunks WHERE id IN ({marks})", part
                ):
                    vector = json.loads(text) if text else []
                    if vector:
                        result[chunk_id] = vector
        return result

    # -- embedding cache --------------------------------------------------------------------

    def cache_get(self, provider: str, model: str, provider_key: str, hashes: Sequence[str]) -> dict[str, list[float]]:
        """Cached vectors by chunk hash."""
        if not self.cache_enabled or not self._has_table("embedding_cache"):
            return {}
        found: dict[str, list[float]] = {}
        with self.lock:
            for start in range(0, len(hashes), 500):
                part = list(hashes[start : start + 500])
                marks = ",".join("?" * len(part))
                for digest, embedding in self.conn.execute(
                    "SELECT hash, embedding FROM embedding_cache WHERE provider = ? AND model = ? AND "
                    f"provider_key = ? AND hash IN ({marks})",
                    [provider, model, provider_key, *part],
                ):
                    found[digest] = json.loads(embedding)
        return found

    def cache_put(self, provider: str, model: str, provider_key: str,
                  entries: Iterable[tuple[str, str, int]], updated_at: int) -> None:
        """Store (hash, embedding JSON, dims) entries."""
        if not self.cache_enabled or self.read_only:
            return
        with self.lock, self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO embedding_cache (provider, model, provider_key, hash, embedding, dims, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(provider, model, provider_key, d, e, n, updated_at) for d, e, n in entries],
            )

    def cache_count(self) -> int:
        """Entries in the embedding cache."""
        if not self.cache_enabled or not self._has_table("embedding_cache"):
            return 0
        with self.lock:
            return int(self.conn.execute("SELECT COUNT(*) FROM embedding_cache").fetchone()[0])

    def cache_prune(self, max_entries: int) -> int:
        """Drop the oldest entries beyond `max_entries`; returns how many were removed."""
        if not self.cache_enabled or self.read_only:
            return 0
        with self.lock, self.conn:
            cursor = self.conn.execute(
                "DELETE FROM embedding_cache WHERE rowid IN (SELECT rowid FROM embedding_cache "
                "ORDER BY updated_at DESC LIMIT -1 OFFSET ?)",
                (max_entries,),
            )
            return cursor.rowcount

    def copy_cache_from(self, other: Path) -> None:
        """Seed this store's embedding cache from another index file (safe reindex)."""
        if not self.cache_enabled or not other.exists():
            return
        with self.lock:
            try:
                self.conn.execute("ATTACH DATABASE ? AS old", (str(other),))
            except DriverError:
                return
            try:
                has = self.conn.execute("SELECT 1 FROM old.sqlite_master WHERE name='embedding_cache'").fetchone()
                if has:
                    with self.conn:
                        self.conn.execute("INSERT OR IGNORE INTO embedding_cache SELECT * FROM old.embedding_cache")
            finally:
                self.conn.execute("DETACH DATABASE old")

    def reader_args(self) -> dict[str, Any]:
        """Keyword arguments that open this index read-only in another process: `Store(**reader_args())`."""
        return {"path": self.path, "read_only": True, "fts_tokenizer": self.fts_tokenizer,
                "vector_enabled": self.vector_enabled, "extension_path": self.extension_path,
                "cache_enabled": self.cache_enabled}

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            self.conn.close()


def _escape_like(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def remove_database_files(path: Path) -> None:
    """Delete an index file and its -wal/-shm companions."""
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")

"""Writing the index: meta rows, a file's chunks (alone or in a batch), deletions, the embedding cache."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from memtui.index.annotations import RecallMetadata
from memtui.index.store.schema import (
    FTS_INSERT,
    JOURNAL,
    JOURNAL_KEEP,
    META_KEY,
    RECALL,
    REVISION_KEY,
    STEMMED_FTS,
    ChunkRow,
    DriverError,
    StoreBase,
    vector_blob,
)
from memtui.index.terms import index_text

# Longest a `batch()` keeps written files uncommitted (other processes see them at the commit).
BATCH_COMMIT_S = 0.25
DUPLICATES_PER_CHUNK = (1 << 20) - 1


def _duplicate_fts_rowid(rowid: int, occurrence: int) -> int:
    """The FTS rowid of the `occurrence`-th repeat (1-based) of the chunk whose row is `rowid`."""
    return -(rowid << 20) - min(occurrence, DUPLICATES_PER_CHUNK)


class StoreWrites(StoreBase):
    """Changes to one index connection; each is atomic (a transaction, or a savepoint inside `batch()`)."""

    _batch_until: float | None

    def write_meta(self, value: str, key: str = META_KEY) -> None:
        """Write a meta row (the index meta is already serialized as OpenClaw would)."""
        self._check_writable()
        with self.lock, self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


    def replace_file(self, *, path: str, source: str, digest: str, mtime: float, size: int,
                     rows: Sequence[tuple[ChunkRow, str, Sequence[float] | None]], updated_at: int,
                     fresh: bool = False, recall: Mapping[str, RecallMetadata] | None = None) -> None:
        """Atomically replace a file's chunks (rows: chunk, embedding JSON, vector; `recall`: chunk id → its
        recall metadata, for the chunks that have one) and upsert its files row.

        `fresh` skips deleting old rows (a store being built from scratch has none). Inside `batch()` the
        file is a savepoint of the batch's transaction; otherwise it is its own transaction.
        """
        self._check_writable()
        self._kinds = None
        args = (path, source, digest, mtime, size, rows, updated_at, fresh, recall or {})
        with self.lock:
            if self._batch_until is None:
                with self.conn:
                    self._begin_write()
                    self._write_file(*args)
                    self._stamp()
                return
            self._begin_write()
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
                    self._stamp()
                    self.conn.commit()

    def commit_batch(self) -> None:
        """Commit what the current batch has written, before slow work (embedding) that would otherwise keep
        the write transaction, and other processes' writes, waiting."""
        with self.lock:
            if self._batch_until is not None and self.conn.in_transaction:
                self._stamp()
                self.conn.commit()
                self._batch_until = time.monotonic() + BATCH_COMMIT_S

    def _write_file(self, path: str, source: str, digest: str, mtime: float, size: int,
                    rows: Sequence[tuple[ChunkRow, str, Sequence[float] | None]], updated_at: int,
                    fresh: bool, recall: Mapping[str, RecallMetadata]) -> None:
        if not fresh:
            self._delete_file_rows(path, source)
        dims = self._dims_cache()
        added: list[tuple[int]] = []
        written: dict[str, tuple[int, int]] = {}  # chunk id → (rowid, FTS rows written for it)
        for chunk, embedding_json, vector in rows:
            if chunk.id in written:
                # The same text at the same lines twice (a long line that repeats itself): OpenClaw keeps the
                # first chunks row and adds an FTS row per occurrence; memtui numbers the extra FTS rows below
                # zero, beside the first one's rowid, so deleting the file finds them without a scan.
                rowid, count = written[chunk.id]
                written[chunk.id] = (rowid, count + 1)
                if self._fts_error is None:
                    self._insert_fts(_duplicate_fts_rowid(rowid, count), chunk)
                continue
            cursor = self.conn.execute(
                "INSERT OR REPLACE INTO chunks (id, path, source, start_line, end_line, hash, model, text, "
                "embedding, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (chunk.id, chunk.path, chunk.source, chunk.start_line, chunk.end_line, chunk.hash,
                 chunk.model, chunk.text, embedding_json, updated_at),
            )
            written[chunk.id] = (cursor.lastrowid, 1)
            if self._fts_error is None:
                self._insert_fts(cursor.lastrowid, chunk)
            if self._stemmed:
                self.conn.execute(f"INSERT INTO {STEMMED_FTS} (rowid, text) VALUES (?, ?)",
                                  (cursor.lastrowid, index_text(chunk.text)))
            added.append((cursor.lastrowid,))
            if (metadata := recall.get(chunk.id)) is not None:
                self.conn.execute(f"INSERT OR REPLACE INTO {RECALL} (id, importance, triggers, project_key) "
                                  "VALUES (?, ?, ?, ?)",
                                  (chunk.id, metadata.importance, metadata.triggers, metadata.project_key))
            if vector is not None and dims == len(vector):
                self.conn.execute(
                    "INSERT INTO chunks_vec (id, embedding) VALUES (?, ?)", (chunk.id, vector_blob(vector))
                )
        self.conn.execute(
            "INSERT OR REPLACE INTO files (path, source, hash, mtime, size) VALUES (?, ?, ?, ?, ?)",
            (path, source, digest, mtime, size),
        )
        if not fresh:  # a store built from scratch has no accelerator to keep up to date
            self.conn.executemany(f"INSERT INTO {JOURNAL} (chunk_rowid, added) VALUES (?, 1)", added)
        self._bump_revision()

    def _insert_fts(self, rowid: int, chunk: ChunkRow) -> None:
        self.conn.execute(
            FTS_INSERT,
            (rowid, chunk.text, chunk.id, chunk.path, chunk.source, chunk.model, chunk.start_line, chunk.end_line),
        )

    def _dims_cache(self) -> int | None:
        if self._vector_error is not None:
            return None
        self._forget_if_changed()
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
                self.conn.execute("DELETE FROM chunks_fts WHERE rowid BETWEEN ? AND ?",
                                  (_duplicate_fts_rowid(rowid, DUPLICATES_PER_CHUNK), _duplicate_fts_rowid(rowid, 1)))
            if deleted < len(rows):
                self.conn.execute("DELETE FROM chunks_fts WHERE path = ? AND source = ?", (path, source))
        if self._stemmed and rows:
            self.conn.executemany(f"DELETE FROM {STEMMED_FTS} WHERE rowid = ?", [(rowid,) for rowid, _, _ in rows])
        self.conn.executemany(f"DELETE FROM {RECALL} WHERE id = ?", [(chunk_id,) for _, chunk_id, _ in rows])
        self.conn.execute("DELETE FROM chunks WHERE path = ? AND source = ?", (path, source))
        self.conn.executemany(f"INSERT INTO {JOURNAL} (chunk_rowid, added) VALUES (?, 0)",
                              [(rowid,) for rowid, _, _ in rows])

    def delete_files(self, paths: Iterable[str], source: str) -> int:
        """Remove files (and all their chunk rows) that are no longer on disk."""
        self._check_writable()
        self._kinds = None
        count = 0
        with self.lock, self.conn:
            self._begin_write()
            for path in paths:
                self._delete_file_rows(path, source)
                self.conn.execute("DELETE FROM files WHERE path = ? AND source = ?", (path, source))
                count += 1
            if count:
                self._bump_revision()
            self._stamp()
        return count

    def _bump_revision(self) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                          (REVISION_KEY, os.urandom(16).hex()))
        self.conn.execute(f"DELETE FROM {JOURNAL} WHERE seq <= (SELECT MAX(seq) FROM {JOURNAL}) - ?",
                          (JOURNAL_KEEP,))
        self._stamp_pending = True

    def _begin_write(self) -> None:
        """Open the write transaction (taking the write lock first) and, when another program committed since
        memtui's last stamp, repair inside it: the Porter table refilled from `chunks`, the change journal
        restarted past every entry an accelerator may hold (they lack the other program's changes), a new
        revision. The stamp at its commit then covers only what memtui has seen."""
        if not self.conn.in_transaction:
            self.conn.execute("BEGIN IMMEDIATE")
        self._forget_if_changed()
        if self._external is None:
            return
        if self._has_table(STEMMED_FTS):
            self._fill_stemmed()
        self.conn.execute(f"INSERT INTO {JOURNAL} (seq, chunk_rowid, added) "
                          f"SELECT COALESCE(MAX(seq), 0) + 2, 0, 0 FROM {JOURNAL}")
        self.conn.execute(f"DELETE FROM {JOURNAL} WHERE seq < (SELECT MAX(seq) FROM {JOURNAL})")
        self._bump_revision()
        self._kinds = None
        self._external = None
        self._stemmed = self._fts_error is None and self._has_table(STEMMED_FTS)
        self.repairs += 1

    def repair_external_writes(self) -> bool:
        """When another program changed the index since memtui's last write (`check_external_writes`), repair
        it now (see `_begin_write`); True when it did."""
        self._check_writable()
        if not self.check_external_writes():
            return False
        with self.lock, self.conn:
            self._begin_write()
            self._stamp()
        return True


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
            except DriverError:
                pass  # a damaged old index: the rebuild starts with an empty cache
            finally:
                self.conn.execute("DETACH DATABASE old")

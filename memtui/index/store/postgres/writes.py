"""Writing a PostgreSQL index: a file's chunks and postings by COPY, deletions, meta rows, the embedding cache,
and installing a rebuilt generation. Every write holds the index's advisory lock (one writer per (agent,
workspace) across hosts); each file is atomic; a killed writer's open transaction is rolled back by the server."""

from __future__ import annotations

import contextlib
import socket
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.errors import ReadOnlyError, StoreError
from memtui.index.annotations import RecallMetadata
from memtui.index.store.postgres.packs import PACK_SHARE_DONE, PACK_SHARE_WRITING, mark_dead, settle
from memtui.index.store.postgres.reads import PostgresReads
from memtui.index.store.postgres.schema import LOCK_SPACE, SYNC_LOCK_SPACE, connect
from memtui.index.store.schema import META_KEY, ChunkRow

# Longest a batch keeps written files uncommitted (as the SQLite store's `BATCH_COMMIT_S`), and the most chunks
# it buffers before sending them (COPY) inside the open transaction.
BATCH_COMMIT_S = 0.25
BATCH_ROWS = 2000
_CHUNK_COLUMNS = ("gen", "seq", "id", "path", "source", "start_line", "end_line", "hash", "model", "text",
                  "embedding", "updated_at", "length")
# Where a prepared chunk's values (`_prepared`) hold its length in terms, its vector and its recall metadata.
_LENGTH, _VECTOR, _RECALL = 10, 11, 12


@dataclass
class _Batch:
    """An open write transaction: its generation, the chunks not yet sent, when to commit."""

    transaction: Any
    gen: int
    until: float
    dims: int | None
    pending: list[tuple[tuple[Any, ...], dict[str, list[int]]]] = field(default_factory=list)
    pending_paths: set[str] = field(default_factory=set)


class PostgresWrites(PostgresReads):
    """Changes to one index; `_batch` is the open transaction of `batch()` (None outside one)."""

    _batch: _Batch | None

    def _check_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(f"index {self.path} is open read-only")

    def _lock_key(self) -> tuple[int, int]:
        return LOCK_SPACE, self.index_id

    def _write_gen(self) -> int:
        """The generation written now (inside a transaction holding the lock: a flip cannot interleave)."""
        row = self.conn.execute(f"SELECT {self.gen}", self.params).fetchone()
        if row is None or row[0] is None:
            raise StoreError(f"index {self.path} has no generation in the database", "run `memtui index --force`")
        return int(row[0])

    @contextlib.contextmanager
    def _writing(self) -> Iterator[int]:
        """One atomic write (a savepoint of the batch's transaction, or a transaction of its own holding the
        index's lock); yields the generation written."""
        self._check_writable()
        with self.lock:
            if self._batch is not None:
                with self.conn.transaction():
                    yield self._batch.gen
                return
            with self.conn.transaction():
                self.conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", self._lock_key())
                gen = self._write_gen()
                yield gen
                settle(self.conn, gen, PACK_SHARE_DONE)
                self._sign()

    def _sign(self) -> None:
        """Record this host and the time as the index's last write, and count it (in the write's transaction)."""
        self.conn.execute("UPDATE memtui.indexes SET host = %s, written = now(), revision = revision + 1 WHERE id = %s",
                          (socket.gethostname(), self.index_id))

    def write_meta(self, value: str, key: str = META_KEY) -> None:
        """Write a meta row of the generation."""
        with self._writing() as gen:
            self.conn.execute("INSERT INTO memtui.meta (gen, key, value) VALUES (%s, %s, %s) ON CONFLICT (gen, key) "
                              "DO UPDATE SET value = excluded.value", (gen, key, value))

    # -- batches ----------------------------------------------------------------------------

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Group the writes made inside into a transaction committed every `BATCH_COMMIT_S` at most, holding the
        index's lock throughout (a writer on another host waits); everything written is committed on exit, also
        when the block raises."""
        self._check_writable()
        with self.lock:
            self.conn.execute("SELECT pg_advisory_lock(%s, %s)", self._lock_key())
            try:
                self._begin_batch()
                try:
                    yield
                finally:
                    self._end_batch(PACK_SHARE_DONE)
            finally:
                self.conn.execute("SELECT pg_advisory_unlock(%s, %s)", self._lock_key())

    def _begin_batch(self) -> None:
        transaction = self.conn.transaction()
        transaction.__enter__()
        self._batch = _Batch(transaction, self._write_gen(), time.monotonic() + BATCH_COMMIT_S, self.vector_dims())

    def _end_batch(self, share: float) -> None:
        """Send what is buffered, keep the packed postings within `share` of stale, and commit."""
        batch = self._batch
        if batch is None:
            return
        try:
            self._send_pending()
            settle(self.conn, batch.gen, share)
            self._sign()
        except BaseException as exc:
            self._batch = None
            batch.transaction.__exit__(type(exc), exc, exc.__traceback__)  # rolled back
            raise
        self._batch = None
        batch.transaction.__exit__(None, None, None)  # committed

    def commit_batch(self) -> None:
        """Commit what the current batch has written (before slow work such as embedding)."""
        with self.lock:
            if self._batch is not None:
                self._end_batch(PACK_SHARE_WRITING)
                self._begin_batch()

    @contextlib.contextmanager
    def sync_lock(self) -> Iterator[None]:
        """Hold the index's sync lock, on a connection of its own, for a whole sync: a sync on another host (an
        incremental one) waits until this one (a rebuild, say) has flipped its generation, so it cannot write
        into the generation being replaced. The server releases it when this process dies."""
        self._check_writable()
        conn, _ = connect(self.url)
        try:
            conn.execute("SELECT pg_advisory_lock(%s, %s)", (SYNC_LOCK_SPACE, self.index_id))
            yield
        finally:
            conn.close()

    # -- files ------------------------------------------------------------------------------

    def replace_file(self, *, path: str, source: str, digest: str, mtime: float, size: int,
                     rows: Sequence[tuple[ChunkRow, str, Sequence[float] | None]], updated_at: int,
                     fresh: bool = False, recall: Mapping[str, RecallMetadata] | None = None) -> None:
        """Atomically replace a file's chunks (rows: chunk, embedding JSON, vector; `recall`: chunk id → its recall
        metadata) and upsert its files row; `fresh` skips deleting old rows. A repeated chunk id is written once
        (as the SQLite store's chunks)."""
        with self.lock:
            if self._batch is None:
                with self.batch():
                    self.replace_file(path=path, source=source, digest=digest, mtime=mtime, size=size, rows=rows,
                                      updated_at=updated_at, fresh=fresh, recall=recall)
                return
            if path in self._batch.pending_paths:
                self._send_pending()
            prepared = self._prepared(rows, updated_at, self._batch.dims, recall or {})
            with self._writing() as gen:
                if not fresh:
                    self._delete_file_rows(gen, path, source)
                self.conn.execute("INSERT INTO memtui.files (gen, path, source, hash, mtime, size) VALUES "
                                  "(%s, %s, %s, %s, %s, %s) ON CONFLICT (gen, path) DO UPDATE SET source = "
                                  "excluded.source, hash = excluded.hash, mtime = excluded.mtime, size = excluded.size",
                                  (gen, path, source, digest, mtime, size))
            self._batch.pending.extend(prepared)
            self._batch.pending_paths.add(path)
            if len(self._batch.pending) >= BATCH_ROWS:
                self._send_pending()
            if time.monotonic() >= self._batch.until:
                self.commit_batch()

    def _prepared(self, rows: Sequence[tuple[ChunkRow, str, Sequence[float] | None]], updated_at: int,
                  dims: int | None,
                  recall: Mapping[str, RecallMetadata]) -> list[tuple[tuple[Any, ...], dict[str, list[int]]]]:
        """Per distinct chunk: its row values (without gen and seq; then its vector, kept when it has the
        generation's `dims`, and its recall metadata) and each term's positions."""
        prepared = []
        seen: set[str] = set()
        for chunk, embedding_json, vector in rows:
            if chunk.id in seen:
                continue
            seen.add(chunk.id)
            terms = self.tokenizer.terms(chunk.text)
            positions: dict[str, list[int]] = {}
            for position, term in enumerate(terms):
                positions.setdefault(term, []).append(position)
            vec = None
            if vector is not None and dims == len(vector):
                vec = "[" + ",".join(repr(float(v)) for v in vector) + "]"
            values = (chunk.id, chunk.path, chunk.source, chunk.start_line, chunk.end_line, chunk.hash, chunk.model,
                      chunk.text, embedding_json, updated_at, len(terms), vec, recall.get(chunk.id))
            prepared.append((values, positions))
        return prepared

    def _send_pending(self) -> None:
        """COPY the buffered chunks and their postings into the open transaction, numbered in write order."""
        batch = self._batch
        if batch is None or not batch.pending:
            return
        pending, batch.pending, batch.pending_paths = batch.pending, [], set()
        seqs = sorted(r[0] for r in self.conn.execute("SELECT nextval('memtui.chunk_seq') FROM "
                                                      "generate_series(1, %s)", (len(pending),)).fetchall())
        cursor = self.conn.cursor()
        with cursor.copy(f"COPY memtui.chunks ({', '.join(_CHUNK_COLUMNS)}) FROM STDIN") as copy:
            for seq, (values, _) in zip(seqs, pending, strict=True):
                copy.write_row((batch.gen, seq, *values[:_VECTOR]))
        with cursor.copy("COPY memtui.vectors (gen, seq, vec) FROM STDIN") as copy:
            for seq, (values, _) in zip(seqs, pending, strict=True):
                if values[_VECTOR] is not None:
                    copy.write_row((batch.gen, seq, values[_VECTOR]))
        recalled = [(seq, metadata) for seq, (values, _) in zip(seqs, pending, strict=True)
                    if (metadata := values[_RECALL]) is not None]
        if recalled:
            columns = "gen, seq, importance, triggers, project_key"
            with cursor.copy(f"COPY memtui.chunk_recall ({columns}) FROM STDIN") as copy:
                for seq, metadata in recalled:
                    copy.write_row((batch.gen, seq, metadata.importance, metadata.triggers, metadata.project_key))
        with cursor.copy("COPY memtui.postings (gen, lexeme, seq, tf, length, positions) FROM STDIN") as copy:
            copy.write(_postings_text(batch.gen, seqs, pending))
        self.conn.execute("UPDATE memtui.generations SET chunks = chunks + %s, tokens = tokens + %s WHERE gen = %s",
                          (len(pending), sum(values[_LENGTH] for values, _ in pending), batch.gen))
        held: dict[str, list[int]] = {}  # term → [chunks, largest count, shortest chunk]
        for values, positions in pending:
            length = values[_LENGTH]
            for term, where in positions.items():
                seen = held.get(term)
                if seen is None:
                    held[term] = [1, len(where), length]
                else:
                    seen[0] += 1
                    seen[1] = max(seen[1], len(where))
                    seen[2] = min(seen[2], length)
        self._count_terms(batch.gen, list(held), [n for n, _, _ in held.values()], [t for _, t, _ in held.values()],
                          [n for _, _, n in held.values()])

    def _count_terms(self, gen: int, lexemes: list[str], changes: list[int], max_tfs: list[int] | None = None,
                     min_lengths: list[int] | None = None) -> None:
        """Add `changes` to the document frequencies of `lexemes` in `gen`, and widen their bounds to the largest
        count `max_tfs` and the shortest chunk `min_lengths` of new postings (None: a deletion, which keeps them)."""
        if not lexemes:
            return
        self.conn.execute(
            "INSERT INTO memtui.terms AS t (gen, lexeme, df, max_tf, min_length) SELECT %s, u.lexeme, u.n, u.mt, "
            "u.ml FROM unnest(%s::text[], %s::int[], %s::int[], %s::int[]) AS u(lexeme, n, mt, ml) ON CONFLICT "
            "(gen, lexeme) DO UPDATE SET df = t.df + excluded.df, max_tf = GREATEST(t.max_tf, excluded.max_tf), "
            "min_length = LEAST(t.min_length, excluded.min_length)",
            (gen, lexemes, changes, max_tfs or [0] * len(lexemes), min_lengths or [2**31 - 1] * len(lexemes)))

    def _delete_file_rows(self, gen: int, path: str, source: str) -> None:
        gone = self.conn.execute("DELETE FROM memtui.chunks WHERE gen = %s AND path = %s AND source = %s "
                                 "RETURNING seq, length", (gen, path, source)).fetchall()
        if gone:
            for table in ("vectors", "chunk_recall"):
                self.conn.execute(f"DELETE FROM memtui.{table} WHERE gen = %s AND seq = ANY(%s)",
                                  (gen, [seq for seq, _ in gone]))
            mark_dead(self.conn, gen, [seq for seq, _ in gone])
            lexemes = Counter(row[0] for row in self.conn.execute(
                "DELETE FROM memtui.postings WHERE gen = %s AND seq = ANY(%s) RETURNING lexeme",
                (gen, [seq for seq, _ in gone])))
            self._count_terms(gen, list(lexemes), [-n for n in lexemes.values()])
            self.conn.execute("UPDATE memtui.generations SET chunks = chunks - %s, tokens = tokens - %s "
                              "WHERE gen = %s", (len(gone), sum(length for _, length in gone), gen))

    def delete_files(self, paths: Iterable[str], source: str) -> int:
        """Remove files (and all their chunks) that are no longer on disk."""
        with self.lock:
            if self._batch is not None:
                self._send_pending()
            count = 0
            with self._writing() as gen:
                for path in paths:
                    self._delete_file_rows(gen, path, source)
                    self.conn.execute("DELETE FROM memtui.files WHERE gen = %s AND path = %s AND source = %s",
                                      (gen, path, source))
                    count += 1
            return count

    def ensure_vector_table(self, dims: int) -> None:
        """Vectors of `dims` for this generation; a change of size drops the stored vectors."""
        if self._vector_error is not None:
            return
        with self._writing() as gen:
            row = self.conn.execute("SELECT dims FROM memtui.generations WHERE gen = %s", (gen,)).fetchone()
            if row is not None and row[0] == dims:
                return
            if self._batch is not None:  # chunks buffered with the old size go first, then are dropped with it
                self._send_pending()
                self._batch.dims = dims
            self.conn.execute("UPDATE memtui.generations SET dims = %s WHERE gen = %s", (dims, gen))
            self.conn.execute("DELETE FROM memtui.vectors WHERE gen = %s", (gen,))

    def repair_external_writes(self) -> bool:
        """False: nothing but memtui writes memtui's schema."""
        self._check_writable()
        return False

    # -- rebuilds ---------------------------------------------------------------------------

    def replace_with(self, source: Path) -> None:
        """Make the generation a rebuild wrote through the store opened at `source` the live one: one pointer
        flip, so every reader sees the old index or the new one. Older generations of this index (the replaced
        one, those of killed rebuilds) are deleted afterwards."""
        self._check_writable()
        with self.lock:
            with self.conn.transaction():
                self.conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", self._lock_key())
                row = self.conn.execute("SELECT max(gen) FROM memtui.generations WHERE index_id = %s AND label = %s",
                                        (self.index_id, str(source))).fetchone()
                if row is None or row[0] is None:
                    raise StoreError(f"no rebuilt index {source} in the database to install")
                self.conn.execute("UPDATE memtui.indexes SET live_gen = %s, revision = revision + 1 WHERE id = %s",
                                  (row[0], self.index_id))
            self.drop_generations_before(int(row[0]))

    def drop_generations_before(self, gen: int) -> None:
        """Delete every generation of this index older than `gen` except the live one."""
        with self.lock, self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", self._lock_key())
            old = [r[0] for r in self.conn.execute(
                "SELECT gen FROM memtui.generations WHERE index_id = %s AND gen < %s AND gen <> (SELECT live_gen "
                "FROM memtui.indexes WHERE id = %s)", (self.index_id, gen, self.index_id))]
            for table in ("postings", "packs", "packed", "terms", "vectors", "chunk_recall", "chunks", "files", "meta",
                          "generations"):
                self.conn.execute(f"DELETE FROM memtui.{table} WHERE gen = ANY(%s)", (old,))

    def copy_cache_from(self, other: Path) -> None:
        """Nothing to copy: the cache belongs to the index, not to a generation, and outlives rebuilds."""

    # -- embedding cache --------------------------------------------------------------------

    def cache_put(self, provider: str, model: str, provider_key: str,
                  entries: Iterable[tuple[str, str, int]], updated_at: int) -> None:
        """Store (hash, embedding JSON, dims) entries."""
        if not self.cache_enabled or self.read_only:
            return
        rows = [(self.index_id, provider, model, provider_key, d, e, n, updated_at) for d, e, n in entries]
        with self.lock, self.conn.transaction(), self.conn.cursor() as cursor:
            cursor.executemany("INSERT INTO memtui.cache (index_id, provider, model, provider_key, hash, embedding, "
                               "dims, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (index_id, "
                               "provider, model, provider_key, hash) DO UPDATE SET embedding = excluded.embedding, "
                               "dims = excluded.dims, updated_at = excluded.updated_at", rows)

    def cache_prune(self, max_entries: int) -> int:
        """Drop the oldest entries beyond `max_entries`; returns how many were removed."""
        if not self.cache_enabled or self.read_only:
            return 0
        with self.lock, self.conn.transaction():
            return self.conn.execute(
                "DELETE FROM memtui.cache WHERE (index_id, provider, model, provider_key, hash) IN (SELECT index_id, "
                "provider, model, provider_key, hash FROM memtui.cache WHERE index_id = %s ORDER BY updated_at DESC "
                "OFFSET %s)", (self.index_id, max_entries)).rowcount


# COPY's text format escapes these four characters in a value.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _postings_text(gen: int, seqs: Sequence[int],
                   pending: Sequence[tuple[tuple[Any, ...], dict[str, list[int]]]]) -> str:
    """The postings rows of `pending` (numbered `seqs`) as one block of COPY text: a row per (term, chunk), built
    as text at once instead of a `write_row` per posting (most of a write's Python time)."""
    lines = []
    for seq, (values, positions) in zip(seqs, pending, strict=True):
        tail = f"\t{seq}\t"
        length = f"\t{values[_LENGTH]}\t{{"
        for term, where in positions.items():
            lexeme = term.translate(_COPY_ESCAPES) if _needs_escape(term) else term
            lines.append(f"{gen}\t{lexeme}{tail}{len(where)}{length}{','.join(map(str, where))}}}\n")
    return "".join(lines)


def _needs_escape(value: str) -> bool:
    return "\\" in value or "\t" in value or "\n" in value or "\r" in value

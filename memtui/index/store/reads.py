"""Reading the index: meta rows, files and chunks, keyword / stemmed / LIKE / vector search, cached vectors."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from memtui.embeddings.base import degenerate
from memtui.index.annotations import RecallMetadata
from memtui.index.store.schema import (
    ISSUES_KEY,
    JOURNAL,
    META_KEY,
    RECALL,
    REVISION_KEY,
    STEMMED_FTS,
    ChunkRow,
    DriverError,
    StoreBase,
    vector_blob,
)


class StoreReads(StoreBase):
    """Queries on one index connection (every method takes the store's lock)."""

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


    def meta_value(self, key: str) -> str | None:
        """One raw meta row (memtui's own keys), or None."""
        with self.lock:
            try:
                row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            except DriverError:
                return None
        return row[0] if row else None

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


    def revision(self) -> str | None:
        """The chunks revision token (changes with every write, another program's too; None for an index never
        written by memtui)."""
        with self.lock:
            try:
                self._forget_if_changed()
                row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (REVISION_KEY,)).fetchone()
            except DriverError:
                return None
        if not row:
            return None
        return row[0] if self._external is None else f"{row[0]}+{self._external}"

    def check_external_writes(self) -> bool:
        """Whether another program (OpenClaw, on a shared index) changed `files`/`chunks` since memtui last
        wrote: the fingerprint memtui stamped differs from the index's. Until a writer repairs it, the Porter
        table and the change journal are not used and the revision differs from the stamped one. Cheap when
        nothing was committed since the last look (`PRAGMA data_version`)."""
        with self.lock:
            try:
                self._forget_if_changed()
            except DriverError:
                return False
            return self._external is not None

    def journal_span(self) -> tuple[int, int] | None:
        """(oldest kept seq - 1, newest seq) of the chunk change journal; None without one (OpenClaw's index) or
        while another program's writes, which it does not hold, are not repaired yet."""
        with self.lock:
            try:
                self._forget_if_changed()
                if self._external is not None:
                    return None
                low, high = self.conn.execute(f"SELECT MIN(seq), MAX(seq) FROM {JOURNAL}").fetchone()
            except DriverError:
                return None
        return (0, 0) if high is None else (int(low) - 1, int(high))

    def chunk_changes(self, after_seq: int) -> list[tuple[int, int, bool]]:
        """(seq, chunk rowid, added) of every journal entry after `after_seq`, in order."""
        with self.lock:
            return [(int(seq), int(rowid), bool(added)) for seq, rowid, added in self.conn.execute(
                f"SELECT seq, chunk_rowid, added FROM {JOURNAL} WHERE seq > ? ORDER BY seq", (after_seq,))]

    def vector_blobs_for(self, ids: Sequence[str]) -> dict[str, bytes]:
        """chunk id → float32 BLOB from `chunks_vec` for specific chunks (empty without the table)."""
        if self._vector_error is not None or self.vector_dims() is None or not ids:
            return {}
        result: dict[str, bytes] = {}
        with self.lock:
            for start in range(0, len(ids), 500):
                part = list(ids[start : start + 500])
                result.update(self.conn.execute(
                    f"SELECT id, embedding FROM chunks_vec WHERE id IN ({','.join('?' * len(part))})", part))
        return result

    def recall_for_ids(self, ids: Sequence[str]) -> dict[str, RecallMetadata]:
        """chunk id → recall metadata of the chunks that have one (none in an index written before the table)."""
        result: dict[str, RecallMetadata] = {}
        with self.lock:
            if not ids or not self._has_table(RECALL):
                return result
            for start in range(0, len(ids), 500):
                part = list(ids[start : start + 500])
                for chunk_id, importance, triggers, project_key in self.conn.execute(
                        f"SELECT id, importance, triggers, project_key FROM {RECALL} WHERE id IN "
                        f"({','.join('?' * len(part))})", part):
                    result[chunk_id] = RecallMetadata(importance, triggers, project_key)
        return result

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

    def keyword_search(self, match: str, limit: int, *, model: str | None, sources: Sequence[str] | None,
                       like_terms: Sequence[str] = ()) -> list[tuple[ChunkRow, float]]:
        """FTS5 MATCH on `chunks_fts` ordered by bm25 (raw rank, more negative = better)."""
        with self.lock:
            return classic_search(self.conn, match, limit, model=model, sources=sources, like_terms=like_terms)

    def _rows_outside(self, model: str | None, sources: Sequence[str] | None) -> bool:
        """Whether some chunk has another model than `model` or a source outside `sources`, so that a search
        must filter rows. Answered by range probes on the model and source indexes (no scan of `chunks`), and
        cached until the next write."""
        with self.lock:
            self._forget_if_changed()
        key = (model, tuple(sorted(set(sources))) if sources else None)
        kinds = self._kinds if self._kinds is not None else {}
        if key not in kinds:
            probes = ([] if model is None else _outside_probes("model", [model])) + (
                [] if sources is None else _outside_probes("source", list(key[1] or ())))
            with self.lock:
                kinds[key] = any(self.conn.execute(sql, params).fetchone() for sql, params in probes)
            self._kinds = kinds
        return kinds[key]

    @property
    def has_stemmed_index(self) -> bool:
        """Whether the Porter-stemmed FTS table exists and is current (absent in indexes written by OpenClaw,
        stale after OpenClaw wrote to a shared index until memtui repairs it)."""
        with self.lock:
            self._forget_if_changed()
        return self._stemmed

    def stemmed_search(self, match: str, limit: int, *, model: str | None,
                       sources: Sequence[str] | None) -> list[tuple[ChunkRow, float]]:
        """MATCH on the Porter-stemmed table, ordered by bm25; rows come from `chunks` by rowid."""
        if self._rows_outside(model, sources):
            where, params = _filters(model, sources, alias="c.")
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
            return fetch_ranked(self.conn, ranked, "chunks")

    def like_search(self, terms: Sequence[str], limit: int, *, model: str | None,
                    sources: Sequence[str] | None) -> list[ChunkRow]:
        """Fallback when MATCH fails: every term as `LIKE '%term%'`."""
        where, params = _filters(model, sources)
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

    def vector_knn(self, query: Sequence[float], limit: int, *, model: str, sources: Sequence[str] | None,
                   skipped: list[str] | None = None) -> list[tuple[ChunkRow, float]]:
        """sqlite-vec KNN (k = limit × 8, retried with every row when too few match); returns (row, 1 - dist).

        A stored vector without a direction (all zeros, NaN: from an older memtui or another program) has no
        distance; it is left out, and its chunk id appended to `skipped` when given."""
        where, params = _filters(model, sources, alias="c.")
        blob = vector_blob(query)
        sql = (
            "SELECT c.id, vec_distance_cosine(v.embedding, ?) AS dist FROM chunks_vec v JOIN chunks c ON c.id = v.id "
            f"WHERE v.embedding MATCH ? AND k = ?{where} ORDER BY dist ASC"
        )
        with self.lock:
            ranked = self.conn.execute(sql, [blob, blob, limit * 8, *params]).fetchall()
            if sum(dist is not None for _, dist in ranked) < limit:
                total = self.vector_count()
                if total > limit * 8:
                    ranked = self.conn.execute(sql, [blob, blob, total, *params]).fetchall()
        if skipped is not None:
            skipped.extend(chunk_id for chunk_id, dist in ranked if dist is None)
        best = [(chunk_id, float(dist)) for chunk_id, dist in ranked if dist is not None][:limit]
        rows = self.chunks_by_ids([chunk_id for chunk_id, _ in best])
        return [(replace(rows[chunk_id], hash=""), 1.0 - dist) for chunk_id, dist in best if chunk_id in rows]

    def embeddings_for_model(self, model: str, sources: Sequence[str] | None) -> list[tuple[ChunkRow, str]]:
        """Every chunk of a model with its JSON embedding (the in-process cosine path)."""
        where, params = _filters(model, sources)
        with self.lock:
            rows = self.conn.execute(
                f"SELECT id, path, source, start_line, end_line, model, text, embedding FROM chunks WHERE 1{where}",
                params,
            ).fetchall()
        return [(ChunkRow(r[0], r[1], r[2], int(r[3]), int(r[4]), "", r[5], r[6]), r[7]) for r in rows]

    def vectors_for_ids(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """Stored embeddings (from the JSON column) of specific chunks (degenerate ones left out)."""
        result: dict[str, list[float]] = {}
        with self.lock:
            for start in range(0, len(ids), 500):
                part = list(ids[start : start + 500])
                marks = ",".join("?" * len(part))
                for chunk_id, text in self.conn.execute(
                    f"SELECT id, embedding FROM chunks WHERE id IN ({marks})", part
                ):
                    vector = parse_vector(text) if text else None
                    if vector:
                        result[chunk_id] = vector
        return result

    # -- embedding cache --------------------------------------------------------------------

    def cache_get(self, provider: str, model: str, provider_key: str, hashes: Sequence[str]) -> dict[str, list[float]]:
        """Cached vectors by chunk hash (entries that are not a list of numbers with a direction, see
        `degenerate`, are left out: they are embedded again)."""
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
                    vector = parse_vector(embedding)
                    if vector is not None:
                        found[digest] = vector
        return found

    def cache_count(self) -> int:
        """Entries in the embedding cache."""
        if not self.cache_enabled or not self._has_table("embedding_cache"):
            return 0
        with self.lock:
            return int(self.conn.execute("SELECT COUNT(*) FROM embedding_cache").fetchone()[0])



def parse_vector(text: str) -> list[float] | None:
    """A stored embedding as floats, or None when it is unreadable, non-numeric or degenerate (empty, not
    finite, all zeros: see `degenerate`)."""
    try:
        value = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return None
    if not isinstance(value, list) or not all(type(v) in (int, float) for v in value):
        return None
    try:
        vector = [float(v) for v in value]
    except OverflowError:  # an integer beyond a double
        return None
    return vector if degenerate(vector) is None else None


def _outside_probes(column: str, values: list[str]) -> list[tuple[str, list[str]]]:
    """Range probes, each a seek on the column's index, that find a row whose `column` is none of `values`."""
    ordered = sorted(set(values))
    probe = f"SELECT 1 FROM chunks WHERE {column} "
    probes = [(probe + "< ? LIMIT 1", [ordered[0]]), (probe + "> ? LIMIT 1", [ordered[-1]])]
    probes += [(f"{probe}> ? AND {column} < ? LIMIT 1", [low, high]) for low, high in itertools.pairwise(ordered)]
    return probes


def _filters(model: str | None, sources: Sequence[str] | None, alias: str = "") -> tuple[str, list[Any]]:
    """` AND …` conditions keeping the chunks of `model` and `sources` (columns prefixed by `alias`), and their
    parameters."""
    clauses: list[str] = []
    params: list[Any] = []
    if model is not None:
        clauses.append(f"{alias}model = ?")
        params.append(model)
    if sources:
        clauses.append(f"{alias}source IN ({','.join('?' * len(sources))})")
        params.extend(sources)
    return "".join(f" AND {c}" for c in clauses), params


def classic_search(conn: Any, match: str, limit: int, *, model: str | None, sources: Sequence[str] | None,
                   like_terms: Sequence[str] = ()) -> list[tuple[ChunkRow, float]]:
    """OpenClaw 2026.4's keyword search on the connection's `chunks_fts`: MATCH, every `like_terms` a substring,
    ordered by bm25 (raw rank, more negative = better). Ranks are computed on rowids alone, then the few winning
    rows are fetched: FTS5 materialises every selected column of every match before sorting."""
    where, params = _filters(model, sources)
    like_sql = "".join(" AND text LIKE ? ESCAPE '\\'" for _ in like_terms)
    like_params = [f"%{_escape_like(t)}%" for t in like_terms]
    sql = f"SELECT rowid, bm25(chunks_fts) AS rank FROM chunks_fts WHERE chunks_fts MATCH ?{like_sql}{where} " \
          "ORDER BY rank ASC LIMIT ?"
    return fetch_ranked(conn, conn.execute(sql, [match, *like_params, *params, limit]).fetchall(), "chunks_fts")


def fetch_ranked(conn: Any, ranked: list[tuple[int, float]], table: str) -> list[tuple[ChunkRow, float]]:
    """The rows behind (rowid, bm25) pairs, in rank order; `table` is where those rowids live."""
    if not ranked:
        return []
    marks = ",".join("?" * len(ranked))
    rows = {r[0]: r for r in conn.execute(f"SELECT rowid, id, path, source, start_line, end_line, model, text FROM "
                                          f"{table} WHERE rowid IN ({marks})", [rowid for rowid, _ in ranked])}
    return [(ChunkRow(r[1], r[2], r[3], int(r[4]), int(r[5]), "", r[6], r[7]), float(rank))
            for rowid, rank in ranked if (r := rows.get(rowid)) is not None]


def _escape_like(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


"""Reading a PostgreSQL index: meta rows, files and chunks, BM25 keyword search, exact vector search, the cache."""

from __future__ import annotations

import json
import threading
from array import array
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, Protocol

from memtui.index.annotations import RecallMetadata
from memtui.index.store.postgres.bm25 import Scope, match_phrases
from memtui.index.store.postgres.classic import COLUMNS as CLASSIC_COLUMNS
from memtui.index.store.postgres.classic import ClassicTable
from memtui.index.store.postgres.maxscore import snapshot, top_chunks
from memtui.index.store.reads import parse_vector
from memtui.index.store.schema import ISSUES_KEY, META_KEY, Capabilities, ChunkRow
from memtui.index.terms import tokens

_ROW = "c.id, c.path, c.source, c.start_line, c.end_line, c.model, c.text"
# A vector's float4s, big-endian: pgvector's binary form without its 4-byte header (no text to parse).
VECTOR_BYTES = "substring(vector_send(v.vec) FROM 5)"


class Tokenizer(Protocol):
    """The memtui keyword table's terms (`memtui.search.tokenizer.PorterTokenizer`)."""

    def term(self, token: str) -> str:
        """The indexed form of one lower-cased word token."""

    def terms(self, text: str) -> list[str]:
        """Every indexed term of `text`, in order."""


def chunk_row(row: Sequence[Any]) -> ChunkRow:
    """A ChunkRow from (id, path, source, start_line, end_line, model, text); the hash is left out, as search
    results of the SQLite store leave it."""
    return ChunkRow(row[0], row[1], row[2], int(row[3]), int(row[4]), "", row[5], row[6])


class SqlSearch:
    """What a reader of the postgres store can search with: keywords always (BM25 in SQL over the postings, the
    memtui profile's keyword table), vectors when pgvector is on the server."""

    _vector_error: str | None

    def _driver(self) -> str:
        """The driver's name in `capabilities`."""
        raise NotImplementedError

    @property
    def capabilities(self) -> Capabilities:
        """Keyword search always works; vectors need pgvector on the server."""
        return Capabilities(fts_available=True, fts_error=None, vector_available=self._vector_error is None,
                            vector_error=self._vector_error, driver=self._driver())

    @property
    def fts_available(self) -> bool:
        """Always: keyword search is SQL over the postings."""
        return True

    @property
    def has_stemmed_index(self) -> bool:
        """Always: the postings are the memtui profile's keyword table."""
        return True


class PostgresReads(SqlSearch):
    """Queries on one index connection; `gen` is the SQL of the generation read (the live one, or a rebuild's)."""

    path: Path
    read_only: bool
    fts_tokenizer: str
    cache_enabled: bool
    vector_enabled: bool
    repairs: int
    conn: Any
    lock: threading.RLock
    index_id: int
    gen: str
    params: dict[str, Any]
    tokenizer: Tokenizer
    server: str
    url: str
    agent: str
    workspace: str
    building: bool
    _vector_error: str | None
    _classic: ClassicTable | None

    def _all(self, sql: str, **params: Any) -> list[tuple[Any, ...]]:
        with self.lock:
            return self.conn.execute(sql.replace("{gen}", self.gen), {**self.params, **params}).fetchall()

    def _one(self, sql: str, **params: Any) -> tuple[Any, ...] | None:
        rows = self._all(sql, **params)
        return rows[0] if rows else None

    # -- what it can do ---------------------------------------------------------------------

    def _driver(self) -> str:
        return f"postgres ({self.server})"

    def vector_dims(self) -> int | None:
        """The dimension of the generation's vectors (set by `ensure_vector_table`)."""
        if self._vector_error is not None:
            return None
        row = self._one("SELECT dims FROM memtui.generations WHERE gen = {gen}")
        return None if row is None or row[0] is None else int(row[0])

    # -- meta and bookkeeping ---------------------------------------------------------------

    def meta_value(self, key: str) -> str | None:
        """One raw meta row of the generation, or None."""
        row = self._one("SELECT value FROM memtui.meta WHERE gen = {gen} AND key = %(key)s", key=key)
        return row[0] if row else None

    def read_meta(self) -> dict[str, Any] | None:
        """The parsed `memory_index_meta_v1` row, or None."""
        value = _json(self.meta_value(META_KEY))
        return value if isinstance(value, dict) else None

    def read_issues(self) -> list[dict[str, Any]]:
        """File issues recorded by the last sync."""
        value = _json(self.meta_value(ISSUES_KEY))
        return value if isinstance(value, list) else []

    def revision(self) -> str | None:
        """The live generation and the index's count of writes and flips (from any host): a process's in-memory
        accelerator serves searches while it is unchanged. None for a rebuild's store, and while the server cannot
        be read (a closed or lost connection: the searches that follow say why)."""
        import psycopg

        if self.building:
            return None
        try:
            row = self._one("SELECT live_gen, revision FROM memtui.indexes WHERE id = %(ix)s")
        except psycopg.Error:
            return None
        return None if row is None or row[0] is None else f"pg:{row[0]}:{row[1]}"

    def journal_span(self) -> None:
        """None: no change journal (a changed index is read anew by the accelerator)."""
        return None

    def chunk_changes(self, after_seq: int) -> list[tuple[int, int, bool]]:
        """Nothing: there is no change journal."""
        return []

    def reader_args(self) -> dict[str, Any]:
        """What opens this index read-only in another process (`memtui.search.accelerator_build`)."""
        return {"driver": "postgres", "url": self.url, "agent": self.agent, "workspace": self.workspace,
                "path": str(self.path), "read_only": True, "fts_tokenizer": self.fts_tokenizer,
                "vector_enabled": self.vector_enabled, "cache_enabled": self.cache_enabled}

    def check_external_writes(self) -> bool:
        """False: only memtui writes memtui's schema."""
        return False

    def replaced(self) -> bool:
        """False: a rebuild flips the live generation under the same store (`replace_with`)."""
        return False

    # -- rows -------------------------------------------------------------------------------

    def counts(self) -> dict[str, dict[str, int]]:
        """source → {files, chunks}."""
        result: dict[str, dict[str, int]] = {}
        for source, files in self._all("SELECT source, count(*) FROM memtui.files WHERE gen = {gen} GROUP BY 1"):
            result.setdefault(source, {"files": 0, "chunks": 0})["files"] = int(files)
        for source, chunks in self._all("SELECT source, count(*) FROM memtui.chunks WHERE gen = {gen} GROUP BY 1"):
            result.setdefault(source, {"files": 0, "chunks": 0})["chunks"] = int(chunks)
        return result

    def chunk_count(self) -> int:
        """Chunks of the generation."""
        row = self._one("SELECT chunks FROM memtui.generations WHERE gen = {gen}")
        return int(row[0]) if row else 0

    def file_rows(self) -> list[tuple[str, str, str, float, int]]:
        """(path, source, hash, mtime, size) of every indexed file (an integral mtime as an int, as SQLite
        returns what it stored)."""
        return [(path, source, digest, int(mtime) if float(mtime).is_integer() else mtime, int(size))
                for path, source, digest, mtime, size in
                self._all("SELECT path, source, hash, mtime, size FROM memtui.files WHERE gen = {gen}")]

    def chunks_by_ids(self, ids: Sequence[str]) -> dict[str, ChunkRow]:
        """Chunk rows by id (with their hash)."""
        rows = self._all("SELECT id, path, source, start_line, end_line, hash, model, text FROM memtui.chunks "
                         "WHERE gen = {gen} AND id = ANY(%(ids)s)", ids=list(ids))
        return {r[0]: ChunkRow(r[0], r[1], r[2], int(r[3]), int(r[4]), r[5], r[6], r[7]) for r in rows}

    def chunks_for_path(self, path: str) -> list[ChunkRow]:
        """All chunks of one file, in line order."""
        rows = self._all("SELECT id, path, source, start_line, end_line, hash, model, text FROM memtui.chunks "
                         "WHERE gen = {gen} AND path = %(path)s ORDER BY start_line, end_line", path=path)
        return [ChunkRow(r[0], r[1], r[2], int(r[3]), int(r[4]), r[5], r[6], r[7]) for r in rows]

    def chunks_by_rowids(self, rowids: Sequence[int]) -> dict[int, ChunkRow]:
        """Chunk rows by document number (`seq`)."""
        rows = self._all(f"SELECT c.seq, {_ROW} FROM memtui.chunks c WHERE c.gen = {{gen}} AND c.seq = ANY(%(seqs)s)",
                         seqs=list(rowids))
        return {int(r[0]): chunk_row(r[1:]) for r in rows}

    def recall_for_ids(self, ids: Sequence[str]) -> dict[str, RecallMetadata]:
        """chunk id → recall metadata of the chunks that have one."""
        if not ids:
            return {}
        rows = self._all("SELECT c.id, r.importance, r.triggers, r.project_key FROM memtui.chunks c JOIN "
                         "memtui.chunk_recall r ON r.gen = c.gen AND r.seq = c.seq WHERE c.gen = {gen} AND "
                         "c.id = ANY(%(ids)s)", ids=list(ids))
        return {chunk_id: RecallMetadata(importance, triggers, project_key)
                for chunk_id, importance, triggers, project_key in rows}

    def chunk_batch(self, after_rowid: int, size: int) -> list[tuple[int, str, str, str]]:
        """(seq, model, source, text) of up to `size` chunks after `after_rowid`, in seq order."""
        return [(int(r[0]), r[1], r[2], r[3]) for r in self._all(
            "SELECT seq, model, source, text FROM memtui.chunks WHERE gen = {gen} AND seq > %(after)s ORDER BY seq "
            "LIMIT %(size)s", after=after_rowid, size=size)]

    def chunk_ids(self) -> list[tuple[int, str]]:
        """(seq, id) of every chunk."""
        return [(int(r[0]), r[1]) for r in self._all("SELECT seq, id FROM memtui.chunks WHERE gen = {gen}")]

    def vector_blobs(self) -> list[tuple[str, bytes]]:
        """(chunk id, float32 little-endian vector) of every vector, from pgvector's binary form (a 4-byte header,
        then big-endian float4s)."""
        if self._vector_error is not None:
            return []
        rows = self._all(f"SELECT c.id, {VECTOR_BYTES} FROM memtui.vectors v JOIN memtui.chunks c ON c.gen = v.gen "
                         "AND c.seq = v.seq WHERE v.gen = {gen}")
        return [(chunk_id, little_endian(bytes(blob))) for chunk_id, blob in rows]

    def embedding_json(self, after_rowid: int, size: int) -> list[tuple[int, str]]:
        """(seq, embedding JSON) of up to `size` chunks after `after_rowid`."""
        return [(int(r[0]), r[1]) for r in self._all(
            "SELECT seq, embedding FROM memtui.chunks WHERE gen = {gen} AND seq > %(after)s ORDER BY seq "
            "LIMIT %(size)s", after=after_rowid, size=size)]

    # -- search -----------------------------------------------------------------------------

    def _filters(self, model: str | None, sources: Sequence[str] | None) -> tuple[str, dict[str, Any]]:
        """SQL (on `c`) keeping chunks of `model` and `sources`; empty when no chunk of the generation is outside
        them (answered by seeks on the (gen, model) and (gen, source) indexes)."""
        clauses, params, gaps = [], {}, []
        if model is not None:
            clauses.append("c.model = %(model)s")
            params["model"] = model
            gaps += _gaps("model", ["model"])
        if sources:
            clauses.append("c.source = ANY(%(sources)s)")
            params["sources"] = list(sources)
            names = [f"s{i}" for i in range(len(sources))]
            params.update(zip(names, sorted(sources), strict=True))
            gaps += _gaps("source", names)
        if not clauses:
            return "", {}
        # each gap is a seek that finds nothing when no chunk is outside (a scan of the generation took 7 ms)
        outside = self._one("SELECT " + " OR ".join(f"EXISTS (SELECT 1 FROM memtui.chunks c WHERE c.gen = {{gen}} "
                                                    f"AND {gap})" for gap in gaps), **params)
        return (f" WHERE {' AND '.join(clauses)}", params) if outside and outside[0] else ("", {})

    def stemmed_search(self, match: str, limit: int, *, model: str | None,
                       sources: Sequence[str] | None) -> list[tuple[ChunkRow, float]]:
        """The chunks ranked by BM25 for a MATCH expression of the memtui profile (`fts_query.stemmed_match`),
        with FTS5's raw bm25 (more negative = better)."""
        phrases = [p for p in match_phrases(match, tokens, self.tokenizer.term) if p]
        filters, params = self._filters(model, sources)
        with self.lock, snapshot(self.conn):
            rows = top_chunks(lambda sql, query_params: self._all(sql, **query_params, **params), phrases,
                              Scope("SELECT {gen}"), filters=filters, limit=limit)
        return [(chunk_row(r[2:9]), float(r[9])) for r in rows]

    def keyword_search(self, match: str, limit: int, *, model: str | None, sources: Sequence[str] | None,
                       like_terms: Sequence[str] = ()) -> list[tuple[ChunkRow, float]]:
        """OpenClaw 2026.4's own keyword table (the classic profile): FTS5 over the generation's chunks, built in
        memory on first use (`classic`) and kept while the index's revision is unchanged."""
        with self.lock:
            return self._classic_table().search(match, limit, model=model, sources=sources, like_terms=like_terms)

    def _classic_table(self) -> ClassicTable:
        """The in-memory `chunks_fts` of the revision now live, read anew after any write (from any host)."""
        revision = self.revision()
        if self._classic is not None and revision is not None and self._classic.revision == revision:
            return self._classic
        with snapshot(self.conn):
            revision = self.revision()
            rows = self._all(f"SELECT {CLASSIC_COLUMNS} FROM memtui.chunks c WHERE c.gen = {{gen}} ORDER BY c.seq")
        if self._classic is not None:
            self._classic.close()
        self._classic = ClassicTable(revision, rows, self.fts_tokenizer)
        return self._classic

    def like_search(self, terms: Sequence[str], limit: int, *, model: str | None,
                    sources: Sequence[str] | None) -> list[ChunkRow]:
        """Every term as a case-insensitive substring of the text."""
        filters, params = self._filters(model, sources)
        where = "".join(f" AND strpos(lower(c.text), lower(%(t{i})s)) > 0" for i in range(len(terms)))
        sql = (f"SELECT {_ROW} FROM memtui.chunks c WHERE c.gen = {{gen}}{where}"
               f"{filters.replace(' WHERE ', ' AND ')} ORDER BY c.seq LIMIT %(limit)s")
        words = {f"t{i}": t for i, t in enumerate(terms)}
        return [chunk_row(r) for r in self._all(sql, limit=limit, **words, **params)]

    def vector_knn(self, query: Sequence[float], limit: int, *, model: str, sources: Sequence[str] | None,
                   skipped: list[str] | None = None) -> list[tuple[ChunkRow, float]]:
        """The `limit` nearest chunks of `model` by cosine, exactly (a scan of the generation's vector rows through
        their btree, not an approximate index); returns (row, 1 - distance). A stored vector without a direction
        has no distance: it is left out, and its id appended to `skipped`."""
        filters, params = self._filters(model, sources)
        distance = "v.vec <=> %(q)s::vector"
        if filters:  # another model's or source's rows among the generation's: read the chunk rows too
            nearest = (f"SELECT v.seq, {distance} AS d FROM memtui.vectors v JOIN memtui.chunks c ON c.gen = v.gen "
                       f"AND c.seq = v.seq{filters} AND v.gen = {{gen}} ORDER BY 2, 1 LIMIT %(limit)s")
        else:
            nearest = (f"SELECT v.seq, {distance} AS d FROM memtui.vectors v WHERE v.gen = {{gen}} ORDER BY 2, 1 "
                       "LIMIT %(limit)s")
        rows = self._all(f"SELECT {_ROW}, n.d FROM ({nearest}) n JOIN memtui.chunks c ON c.gen = {{gen}} AND "
                         "c.seq = n.seq ORDER BY n.d, n.seq", q=vector_text(query), limit=limit, **params)
        found = []
        for row in rows:
            if row[7] is None or row[7] != row[7]:  # NaN: a zero vector
                if skipped is not None:
                    skipped.append(row[0])
            else:
                found.append((chunk_row(row[:7]), 1.0 - float(row[7])))
        return found

    def vector_blobs_for(self, ids: Sequence[str]) -> dict[str, bytes]:
        """chunk id → float32 little-endian vector of specific chunks."""
        if self._vector_error is not None or not ids:
            return {}
        rows = self._all(f"SELECT c.id, {VECTOR_BYTES} FROM memtui.chunks c JOIN memtui.vectors v ON v.gen = c.gen "
                         "AND v.seq = c.seq WHERE c.gen = {gen} AND c.id = ANY(%(ids)s)", ids=list(ids))
        return {chunk_id: little_endian(bytes(blob)) for chunk_id, blob in rows}

    def vectors_for_ids(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """Stored embeddings (the JSON column) of specific chunks, degenerate ones left out."""
        rows = self._all("SELECT id, embedding FROM memtui.chunks WHERE gen = {gen} AND id = ANY(%(ids)s)",
                         ids=list(ids))
        return {chunk_id: vector for chunk_id, text in rows if text and (vector := parse_vector(text))}

    def embeddings_for_model(self, model: str, sources: Sequence[str] | None) -> list[tuple[ChunkRow, str]]:
        """Every chunk of a model with its JSON embedding."""
        source_sql = " AND c.source = ANY(%(sources)s)" if sources else ""
        rows = self._all(f"SELECT {_ROW}, c.embedding FROM memtui.chunks c WHERE c.gen = {{gen}} AND "
                         f"c.model = %(model)s{source_sql} ORDER BY c.seq", model=model, sources=list(sources or ()))
        return [(chunk_row(r[:7]), r[7]) for r in rows]

    # -- embedding cache (per index, kept across rebuilds) ----------------------------------

    def cache_get(self, provider: str, model: str, provider_key: str,
                  hashes: Sequence[str]) -> dict[str, list[float]]:
        """Cached vectors by chunk hash (unreadable or degenerate entries left out)."""
        if not self.cache_enabled or not hashes:
            return {}
        rows = self._all("SELECT hash, embedding FROM memtui.cache WHERE index_id = %(ix)s AND provider = %(p)s "
                         "AND model = %(m)s AND provider_key = %(k)s AND hash = ANY(%(h)s)",
                         p=provider, m=model, k=provider_key, h=list(hashes))
        return {digest: vector for digest, text in rows if (vector := parse_vector(text)) is not None}

    def cache_count(self) -> int:
        """Entries in this index's embedding cache."""
        if not self.cache_enabled:
            return 0
        row = self._one("SELECT count(*) FROM memtui.cache WHERE index_id = %(ix)s")
        return int(row[0]) if row else 0


def _json(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _gaps(column: str, names: list[str]) -> list[str]:
    """Conditions on `c.<column>` that together cover every value but the parameters `names` (sorted): below the
    first, between each two, above the last."""
    bounds = [f"%({name})s" for name in names]
    gaps = [f"c.{column} < {bounds[0]}", f"c.{column} > {bounds[-1]}"]
    gaps += [f"c.{column} > {low} AND c.{column} < {high}" for low, high in pairwise(bounds)]
    return gaps


def little_endian(big: bytes) -> bytes:
    """Big-endian float4s as little-endian ones (each 4-byte group reversed, whatever this machine's order)."""
    values = array("f")
    values.frombytes(big)
    values.byteswap()
    return values.tobytes()


def vector_text(vector: Sequence[float]) -> str:
    """pgvector's text form of a vector."""
    return "[" + ",".join(repr(float(v)) for v in vector) + "]"

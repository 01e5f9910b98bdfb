"""What the searcher reads (`memtui.index.store.protocol.SearchReads`) over every agent's live index of a
PostgreSQL store at once, so that a fleet search ranks as an agent's own search ranks, on the fleet's candidates.

A chunk is named `<generation>:<chunk id>` (ids repeat across agents: the same file indexed by two agents) and
`origin` gives its agent and workspace. Keywords score every agent's chunks by BM25 with the fleet's statistics
(the fleet as one corpus: a small agent's rare word weighs what it weighs in the fleet), whatever model embedded
them; vectors are compared only with the chunks of the query's model and dimension (another
model's cosines mean nothing): exactly, or through the approximate index `fleet_ann` builds for that dimension.
Searches run inside `reading()`: one snapshot, so a generation flipped meanwhile is not half seen. Given a second
connection, the vector side runs on it in that same snapshot (exported, imported) while the keywords are ranked.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from memtui.errors import StoreError
from memtui.index.annotations import RecallMetadata
from memtui.index.store.postgres.bm25 import Scope, match_phrases
from memtui.index.store.postgres.fleet_ann import ANN_SEARCH_WIDTH, ann_index
from memtui.index.store.postgres.maxscore import snapshot, top_chunks
from memtui.index.store.postgres.packs import packed_top
from memtui.index.store.postgres.reads import (
    VECTOR_BYTES,
    SqlSearch,
    Tokenizer,
    chunk_row,
    little_endian,
    vector_text,
)
from memtui.index.store.reads import parse_vector
from memtui.index.store.schema import ChunkRow
from memtui.index.terms import tokens

# every agent's live index, scored as one corpus
FLEET = Scope("SELECT live_gen FROM memtui.indexes WHERE live_gen IS NOT NULL", pooled=True)
_ROW = "c.gen, c.id, c.path, c.source, c.start_line, c.end_line, c.model, c.text"
# (generation, chunk id) pairs given as two arrays
_PAIRS = "(c.gen, c.id) IN (SELECT * FROM unnest(%(gens)s::bigint[], %(ids)s::text[]))"


def fleet_id(gen: int, chunk_id: str) -> str:
    """A chunk's name in a fleet search: unique across agents."""
    return f"{gen}:{chunk_id}"


def _split(ids: Sequence[str]) -> dict[str, Any]:
    """The parameters of `_PAIRS` for fleet ids."""
    pairs = [fleet_id_parts(i) for i in ids]
    return {"gens": [gen for gen, _ in pairs], "ids": [chunk_id for _, chunk_id in pairs]}


def fleet_id_parts(name: str) -> tuple[int, str]:
    """(generation, chunk id) of a fleet id."""
    gen, _, chunk_id = name.partition(":")
    return int(gen), chunk_id


class FleetReads(SqlSearch):
    """The search reads of every live index in the database of `conn` (autocommit, read only), for queries of
    `model` (None: keywords only); `exact` compares the query with every vector even where an hnsw index is."""

    fts_tokenizer = "porter"

    def __init__(self, conn: Any, tokenizer: Tokenizer, model: str | None, vector_error: str | None, *,
                 exact: bool = False, side: Callable[[], Any] | None = None,
                 query_vector: Sequence[float] | None = None) -> None:
        self.conn = conn
        self._side = side
        self._query_vector = list(query_vector) if query_vector is not None else None
        self._early: _Early | None = None
        self.exact = exact
        self.tokenizer = tokenizer
        self.model = model
        self._vector_error = vector_error
        self._origins: dict[int, tuple[str, str]] = {}
        self._gens_of_model: list[int] = []
        self._mixed: list[int] = []
        self._dims: int | None = None
        self._ann = False
        self._files: dict[str, tuple[int, str]] = {}  # fleet id → (generation, path) of every chunk read
        self._mtimes: dict[str, float] = {}

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """One consistent view of the fleet for the statements of one search."""
        with snapshot(self.conn):
            self._load()
            try:
                yield
            finally:
                if self._early is not None:
                    self._early.rows()
                    self._early = None

    def _load(self) -> None:
        """Every live generation's agent and workspace; which hold chunks of the query's model, and which of those
        hold other models' too (each answered by a seek on the (gen, model) index)."""
        rows = self.conn.execute(
            "SELECT i.live_gen, i.agent, i.workspace, g.dims, EXISTS (SELECT 1 FROM memtui.chunks c WHERE c.gen = "
            "i.live_gen AND c.model = %(m)s), EXISTS (SELECT 1 FROM memtui.chunks c WHERE c.gen = i.live_gen AND "
            "c.model < %(m)s) OR EXISTS (SELECT 1 FROM memtui.chunks c WHERE c.gen = i.live_gen AND c.model > %(m)s) "
            "FROM memtui.indexes i JOIN memtui.generations g ON g.gen = i.live_gen ORDER BY i.live_gen",
            {"m": self.model or ""}).fetchall()
        self._origins = {int(gen): (agent, workspace) for gen, agent, workspace, *_ in rows}
        of_model = [(int(gen), dims, other) for gen, _a, _w, dims, has, other in rows if has and self.model]
        dims = [d for _gen, d, _other in of_model if d]
        self._dims = max(set(dims), key=dims.count) if dims else None
        self._gens_of_model = [gen for gen, d, _other in of_model if d == self._dims]
        self._mixed = [gen for gen, d, other in of_model if d == self._dims and other]
        self._ann = not self.exact and self._dims is not None and self._vector_error is None and \
            ann_index(self.conn, self._dims)
        self._files, self._mtimes = {}, {}

    # -- what the fleet is ------------------------------------------------------------------

    def origin(self, name: str) -> tuple[str, str, str]:
        """(agent, workspace, chunk id) of a chunk found by this search."""
        gen, chunk_id = fleet_id_parts(name)
        agent, workspace = self._origins[gen]
        return agent, workspace, chunk_id

    def agents(self) -> int:
        """Live indexes searched."""
        return len(self._origins)

    def agents_with_vectors(self) -> int:
        """Live indexes whose chunks the query's vector is compared with (the query's model and dimension)."""
        return len(self._gens_of_model) if self._vector_error is None else 0

    @property
    def approximate(self) -> bool:
        """Whether the vector side reads the fleet's hnsw index (`fleet_ann`) rather than every vector."""
        return self._ann

    def mtimes(self) -> dict[str, float]:
        """Fleet id → indexed mtime (ms) of the file of every chunk this search has read, read in one query when
        asked (decay of undated files asks, once a search has its candidates)."""
        wanted = {name: file for name, file in self._files.items() if name not in self._mtimes}
        if wanted:
            files = set(wanted.values())
            found = self.conn.execute(
                "SELECT f.gen, f.path, f.mtime FROM memtui.files f WHERE (f.gen, f.path) IN (SELECT * FROM "
                "unnest(%s::bigint[], %s::text[]))", ([gen for gen, _ in files], [path for _, path in files])
            ).fetchall()
            mtime_of = {(int(gen), path): float(mtime) for gen, path, mtime in found}
            self._mtimes.update((name, mtime_of[file]) for name, file in wanted.items() if file in mtime_of)
        return self._mtimes

    # -- SearchReads ------------------------------------------------------------------------

    def _driver(self) -> str:
        return "postgres (fleet)"

    def vector_dims(self) -> int | None:
        """The dimension of the query model's vectors (the most common, should agents disagree)."""
        return self._dims

    def revision(self) -> str | None:
        """No in-memory accelerator reads the fleet."""
        return None

    def chunks_by_rowids(self, rowids: Sequence[int]) -> dict[int, ChunkRow]:
        """Never asked: rowids come from the in-memory accelerator, which the fleet has not."""
        raise StoreError("a fleet search has no document numbers", "search the agent's own index")

    def recall_for_ids(self, ids: Sequence[str]) -> dict[str, RecallMetadata]:
        """Fleet id → recall metadata of the chunks that have one."""
        if not ids:
            return {}
        rows = self.conn.execute(
            "SELECT c.gen, c.id, r.importance, r.triggers, r.project_key FROM memtui.chunks c JOIN "
            f"memtui.chunk_recall r ON r.gen = c.gen AND r.seq = c.seq WHERE {_PAIRS}", _split(ids)).fetchall()
        return {fleet_id(gen, chunk_id): RecallMetadata(importance, triggers, project_key)
                for gen, chunk_id, importance, triggers, project_key in rows}

    def keyword_search(self, match: str, limit: int, *, model: str | None, sources: Sequence[str] | None,
                       like_terms: Sequence[str] = ()) -> list[tuple[ChunkRow, float]]:
        """Never asked: the fleet ranks with the memtui profile."""
        raise StoreError("a fleet search ranks with the memtui profile", "drop --profile")

    def stemmed_search(self, match: str, limit: int, *, model: str | None,
                       sources: Sequence[str] | None) -> list[tuple[ChunkRow, float]]:
        """Every agent's chunks ranked by BM25 with the fleet's statistics, as if one index held them all (all
        their models and sources: each agent's index holds what its own config chose): the postings read packed
        (`packs`), a query with a phrase of several terms by MaxScore over the postings rows."""
        self._start_vectors(limit)
        phrases = [p for p in match_phrases(match, tokens, self.tokenizer.term) if p]
        if phrases and limit > 0 and all(len(phrase) == 1 for phrase in phrases):
            rows = packed_top(self.conn, [phrase[0] for phrase in phrases], FLEET, limit)
        else:
            rows = top_chunks(lambda sql, params: self.conn.execute(sql, params).fetchall(), phrases, FLEET,
                              filters="", limit=limit)
        return [(self._row((int(r[0]), *r[2:9])), float(r[9])) for r in rows]

    def like_search(self, terms: Sequence[str], limit: int, *, model: str | None,
                    sources: Sequence[str] | None) -> list[ChunkRow]:
        """Never asked: it answers a keyword table that failed, and the fleet's BM25 is SQL that does not."""
        raise StoreError("a fleet search has no substring fallback", "search the agent's own index")

    def vector_knn(self, query: Sequence[float], limit: int, *, model: str, sources: Sequence[str] | None,
                   skipped: list[str] | None = None) -> list[tuple[ChunkRow, float]]:
        """The `limit` nearest chunks of the query's model across the fleet: approximate when `fleet_ann` built an
        index for its dimension (hnsw, widened past chunks of other models), else exact; read on the side
        connection while the keywords were ranked, when the keyword side started it for this query."""
        if not self._can_compare(query, model):
            return []
        early, self._early = self._early, None
        rows = early.rows() if early is not None and early.wanted == (list(query), limit, model) else None
        if rows is None:
            rows = self._nearest(self.conn, query, limit, model)
        found = []
        for row in rows:
            if row[8] is None or math.isnan(row[8]):  # a zero vector
                if skipped is not None:
                    skipped.append(fleet_id(int(row[0]), row[1]))
            else:
                found.append((self._row(row[:8]), 1.0 - float(row[8])))
        return found

    def _can_compare(self, query: Sequence[float], model: str) -> bool:
        return bool(self._gens_of_model) and self._dims == len(query) and model == self.model

    def _start_vectors(self, limit: int) -> None:
        """Start the vector side of this search (its query vector, `limit` nearest) on the side connection, in the
        same snapshot, to run while the keywords are ranked on this one."""
        query = self._query_vector
        if self._side is None or query is None or self._early is not None or self.model is None or \
                self._vector_error is not None or not self._can_compare(query, self.model):
            return
        exported = self.conn.execute("SELECT pg_export_snapshot()").fetchone()[0]
        self._early = _Early((query, limit, self.model), self._side, exported, self._nearest)

    def _nearest(self, conn: Any, query: Sequence[float], limit: int, model: str) -> list[tuple[Any, ...]]:
        """The rows of the `limit` nearest chunks (`_ROW` and the distance), read on `conn`."""
        distance = f"v.vec::vector({self._dims}) <=> %(q)s::vector({self._dims})" if self._ann else \
            "v.vec <=> %(q)s::vector"
        where = "v.gen = ANY(%(gens)s) AND (v.gen <> ALL(%(mixed)s) OR EXISTS (SELECT 1 FROM memtui.chunks c WHERE " \
                "c.gen = v.gen AND c.seq = v.seq AND c.model = %(model)s))"
        if self._ann:
            where += f" AND vector_dims(v.vec) = {self._dims}"
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', "
                         "'relaxed_order', true)", (str(max(ANN_SEARCH_WIDTH, limit)),))
        return conn.execute(
            f"SELECT {_ROW}, n.d FROM (SELECT v.gen, v.seq, {distance} AS d FROM memtui.vectors v WHERE {where} "
            f"ORDER BY {distance} LIMIT %(limit)s) n JOIN memtui.chunks c ON c.gen = n.gen AND c.seq = n.seq "
            "ORDER BY n.d, n.gen, n.seq",
            {"q": vector_text(query), "gens": self._gens_of_model, "mixed": self._mixed, "model": model,
             "limit": limit}).fetchall()

    def vector_blobs_for(self, ids: Sequence[str]) -> dict[str, bytes]:
        """Fleet id → float32 little-endian vector, for chunks of the query's model and dimension only."""
        if self._vector_error is not None or not ids or not self._gens_of_model:
            return {}
        rows = self.conn.execute(
            f"SELECT c.gen, c.id, {VECTOR_BYTES} FROM memtui.chunks c JOIN memtui.vectors v ON v.gen = c.gen AND "
            f"v.seq = c.seq WHERE {_PAIRS} AND c.model = %(model)s AND c.gen = ANY(%(of_model)s)",
            {**_split(ids), "model": self.model, "of_model": self._gens_of_model}).fetchall()
        return {fleet_id(gen, chunk_id): little_endian(bytes(blob)) for gen, chunk_id, blob in rows}

    def vectors_for_ids(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """Fleet id → stored embedding (the JSON column) of chunks of the query's model and dimension."""
        if not ids or not self._gens_of_model:
            return {}
        rows = self.conn.execute(
            f"SELECT c.gen, c.id, c.embedding FROM memtui.chunks c WHERE {_PAIRS} AND c.model = %(model)s AND "
            "c.gen = ANY(%(of_model)s)", {**_split(ids), "model": self.model, "of_model": self._gens_of_model}
        ).fetchall()
        return {fleet_id(gen, chunk_id): vector for gen, chunk_id, text in rows
                if text and (vector := parse_vector(text))}

    def embeddings_for_model(self, model: str, sources: Sequence[str] | None) -> list[tuple[ChunkRow, str]]:
        """Never asked: without pgvector a fleet search is keywords only (every agent's vectors read into this
        process would be a million rows)."""
        raise StoreError("a fleet search compares vectors on the server", "install pgvector on the server")

    # -- rows -------------------------------------------------------------------------------

    def _row(self, row: Sequence[Any]) -> ChunkRow:
        """A ChunkRow named by its fleet id from (gen, id, path, source, start_line, end_line, model, text); its
        file is remembered for `mtimes`."""
        name = fleet_id(int(row[0]), row[1])
        self._files[name] = (int(row[0]), row[2])
        return chunk_row((name, *row[2:8]))


class _Early:
    """A vector query run in a thread on a second connection, in the snapshot `exported` from the search's own
    transaction (so it reads what the keyword side reads); `wanted`: its (query, limit, model)."""

    def __init__(self, wanted: tuple[list[float], int, str], side: Callable[[], Any], exported: str,
                 nearest: Callable[[Any, Sequence[float], int, str], list[tuple[Any, ...]]]) -> None:
        self.wanted = wanted
        self._result: list[tuple[Any, ...]] | None = None
        self._thread = threading.Thread(target=self._run, args=(side, exported, nearest), daemon=True)
        self._thread.start()

    def _run(self, side: Callable[[], Any], exported: str,
             nearest: Callable[[Any, Sequence[float], int, str], list[tuple[Any, ...]]]) -> None:
        from psycopg import sql

        try:
            conn = side()
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                conn.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(exported)))
                query, limit, model = self.wanted
                self._result = nearest(conn, query, limit, model)
        except Exception:  # the search reads them on its own connection instead
            self._result = None

    def rows(self) -> list[tuple[Any, ...]] | None:
        """The rows, once the thread is done (None if it failed)."""
        self._thread.join()
        return self._result

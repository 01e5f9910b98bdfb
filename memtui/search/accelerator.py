"""In-memory search accelerator for the `memtui` profile: BM25 postings and a normalised vector matrix.

Scores exactly what the Porter-stemmed FTS5 table would (`porter unicode61` tokens, FTS5's bm25 with
k1 = 1.2, b = 0.75 and its floored IDF) without visiting every matching row in SQLite: per query
term one `scores[docs] += idf · weight` over numpy postings, then `argpartition`. The vector side is one
matrix-vector product over L2-normalised float32 rows. An index is tied to the store's revision
token (`Store.revision`), which every write changes, so a stale index is never used.

A write does not throw the index away: `FastIndex.updated` applies the store's chunk change journal
(rows removed and added since the index was read). Removed documents are masked out, added ones go to a
small delta segment, and the BM25 statistics (document count, average length, document frequencies) are
counted over the live documents at query time, as FTS5 counts them, so scores stay identical.
"""

from __future__ import annotations

import json
import math
import pickle
import subprocess
import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import filterfalse

import numpy as np
from threadpoolctl import threadpool_limits

from memtui.index.store import ChunkRow, Store
from memtui.index.terms import token_terms, tokens
from memtui.search.fts_query import keyword_groups
from memtui.search.tokenizer import PorterTokenizer

K1 = 1.2
B = 0.75
_BATCH = 5000
_TF_MAX = np.iinfo(np.uint16).max
# The vector side is one matrix-vector product per query. On OpenBLAS's thread pool it cost 2-3× the CPU of one
# thread at 100k chunks (the threads spin while they wait) and was slower, not faster, on a shared 2-core
# machine; one thread: 3.7 ms CPU. This limits numpy's BLAS in the whole process, which only the accelerator uses.
_ONE_BLAS_THREAD = threadpool_limits(limits=1, user_api="blas")


@dataclass(frozen=True)
class _Vectors:
    matrix: np.ndarray  # (rows, dims) float32, L2-normalised (rows without a direction are zeros)
    docs: np.ndarray  # document index of each row


@dataclass(frozen=True)
class _Postings:
    """Term-major postings: the documents holding term t are docs[offsets[t]:offsets[t + 1]], with their tfs."""

    offsets: np.ndarray  # int64, one more than the terms covered
    docs: np.ndarray  # int32
    tfs: np.ndarray  # uint16 term frequencies

    def of(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(docs, tfs) of one term (empty for a term this segment does not cover)."""
        if term_id + 1 >= len(self.offsets):
            return self.docs[:0], self.tfs[:0]
        start, end = int(self.offsets[term_id]), int(self.offsets[term_id + 1])
        return self.docs[start:end], self.tfs[start:end]

    @property
    def nbytes(self) -> int:
        """Memory of the arrays."""
        return self.offsets.nbytes + self.docs.nbytes + self.tfs.nbytes


def _postings(docs: np.ndarray, terms: np.ndarray, tfs: np.ndarray, term_count: int) -> _Postings:
    """Group (doc, term, tf) triples, given in document order, by term; one stem met in several surface forms
    of a doc is summed. A stable sort on the term alone keeps each term's documents in order (and a
    document's duplicates side by side), at half the memory of sorting on both keys."""
    order = np.argsort(terms, kind="stable")
    docs, terms, tfs = docs[order], terms[order], tfs[order]
    del order
    if len(docs):
        starts = np.flatnonzero(np.r_[True, (terms[1:] != terms[:-1]) | (docs[1:] != docs[:-1])])
        tfs = np.add.reduceat(tfs, starts)
        docs, terms = docs[starts], terms[starts]
    offsets = np.zeros(term_count + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=term_count), out=offsets[1:])
    return _Postings(offsets, docs.astype(np.int32), np.minimum(tfs, _TF_MAX).astype(np.uint16))


@dataclass(frozen=True)
class _Delta:
    """Documents added since the base was read: their terms (for rebuilding the segment) and the segment."""

    first_doc: int
    doc_terms: tuple[tuple[np.ndarray, np.ndarray], ...]  # per added document: (term ids, tfs)
    postings: _Postings
    vectors: _Vectors | None


class FastIndex:
    """Postings + vectors for one store revision (an update returns a new index; this one never changes)."""

    def __init__(self, revision: str, journal_seq: int | None, rowids: np.ndarray, models: np.ndarray,
                 sources: np.ndarray, model_names: list[str], source_names: list[str], term_ids: dict[str, int],
                 base: _Postings, lengths: np.ndarray, vectors: _Vectors | None, tokenizer: PorterTokenizer | None,
                 *, alive: np.ndarray | None = None, delta: _Delta | None = None,
                 new_terms: dict[str, int] | None = None):
        self.revision = revision
        self.journal_seq = journal_seq
        self.rowids = rowids
        self._models = models
        self._sources = sources
        self._model_names = model_names
        self._source_names = source_names
        self._term_ids = term_ids
        self._new_terms = new_terms or {}
        self._base = base
        self._lengths = lengths
        self._alive = alive
        self._delta = delta
        self._vectors = vectors
        self._tokenizer = tokenizer
        live = lengths if alive is None else lengths[alive]
        self.live_count = len(live)
        average = float(live.sum()) / len(live) if len(live) else 1.0
        # Per document: k1·(1 − b + b·D/avgdl), the tf-independent part of its BM25 weight.
        self._norm = K1 * (1 - B + B * lengths / (average or 1.0))

    def __getstate__(self) -> dict[str, object]:
        """Pickled without the tokenizer (PyStemmer objects do not pickle); the receiver sets one."""
        state = dict(self.__dict__)
        state["_tokenizer"] = None
        return state

    def set_tokenizer(self, tokenizer: PorterTokenizer) -> None:
        """Attach the tokenizer after unpickling."""
        self._tokenizer = tokenizer

    @property
    def size(self) -> int:
        """Number of documents held, removed ones included."""
        return len(self.rowids)

    @property
    def delta_size(self) -> int:
        """Documents added by updates since the base was built."""
        return 0 if self._delta is None else len(self._delta.doc_terms)

    @property
    def has_vectors(self) -> bool:
        """Whether the vector matrix was loaded."""
        return self._vectors is not None

    def nbytes(self) -> int:
        """Approximate memory held by the numpy arrays."""
        arrays = [self.rowids, self._models, self._sources, self._lengths, self._norm]
        total = sum(a.nbytes for a in arrays) + self._base.nbytes
        for vectors in (self._vectors, self._delta.vectors if self._delta else None):
            if vectors is not None:
                total += vectors.matrix.nbytes + vectors.docs.nbytes
        return total + (self._delta.postings.nbytes if self._delta else 0)

    def _allowed(self, model: str | None, sources: Sequence[str] | None) -> np.ndarray | None:
        """Boolean mask of documents passing the filters, or None when every document passes."""
        mask: np.ndarray | None = None
        if model is not None and self._model_names != [model]:
            ids = [i for i, name in enumerate(self._model_names) if name == model]
            mask = np.isin(self._models, ids)
        if sources is not None and not set(self._source_names) <= set(sources):
            ids = [i for i, name in enumerate(self._source_names) if name in sources]
            source_mask = np.isin(self._sources, ids)
            mask = source_mask if mask is None else mask & source_mask
        return mask

    def _term_id(self, term: str) -> int | None:
        found = self._term_ids.get(term)
        return found if found is not None else self._new_terms.get(term)

    def _live_postings(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        docs, tfs = self._base.of(term_id)
        if self._delta is not None:
            more_docs, more_tfs = self._delta.postings.of(term_id)
            if len(more_docs):
                docs, tfs = np.concatenate((docs, more_docs)), np.concatenate((tfs, more_tfs))
        if self._alive is not None and len(docs):
            keep = self._alive[docs]
            docs, tfs = docs[keep], tfs[keep]
        return docs, tfs

    def keyword(self, terms: Sequence[str], limit: int, *, model: str | None,
                sources: Sequence[str] | None) -> list[tuple[int, float]] | None:
        """(rowid, raw bm25) of the best `limit` chunks for the OR of `terms`, as the stemmed FTS5 table
        ranks them; None when a term is a multi-token phrase (FTS5 must answer that)."""
        assert self._tokenizer is not None
        phrase_ids: list[int] = []
        for term in terms:
            parts, alternatives = keyword_groups(term)
            stems = self._tokenizer.terms(term) if term.isascii() else [self._tokenizer.term(p) for p in parts]
            if len(stems) > 1 and not alternatives:
                return None  # a phrase
            phrase_ids.extend(term_id for stem in stems if (term_id := self._term_id(stem)) is not None)
        total = self.live_count
        if not phrase_ids or not total:
            return []
        # float64 sums, as FTS5 computes bm25 in double: near-ties then order as they do there.
        scores = np.zeros(self.size, dtype=np.float64)
        for term_id in phrase_ids:
            docs, tfs = self._live_postings(term_id)
            hits = len(docs)
            idf = math.log((total - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            tf = tfs.astype(np.float64)
            scores[docs] += idf * (tf * (K1 + 1) / (tf + self._norm[docs]))
        allowed = self._allowed(model, sources)
        if allowed is not None:
            scores[~allowed] = 0.0
        return [(int(self.rowids[d]), -float(scores[d])) for d in _top(scores, limit, self.rowids)]

    def vector(self, query: Sequence[float], limit: int, *, model: str | None,
               sources: Sequence[str] | None) -> list[tuple[int, float]] | None:
        """(rowid, cosine similarity) of the `limit` nearest chunks; None without vectors of this dimension."""
        vectors = self._vectors
        if vectors is None or vectors.matrix.shape[1] != len(query):
            return None
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if not norm:
            return []
        q = q / norm
        sims, docs = vectors.matrix @ q, vectors.docs
        extra = self._delta.vectors if self._delta is not None else None
        if extra is not None and len(extra.docs) and extra.matrix.shape[1] == len(query):
            sims, docs = np.concatenate((sims, extra.matrix @ q)), np.concatenate((docs, extra.docs))
        keep = self._alive[docs] if self._alive is not None else None
        allowed = self._allowed(model, sources)
        if allowed is not None:
            keep = allowed[docs] if keep is None else keep & allowed[docs]
        if keep is not None:
            docs, sims = docs[keep], sims[keep]
        order = _best(np.arange(len(docs)), sims, limit, self.rowids[docs])
        return [(int(self.rowids[docs[i]]), float(sims[i])) for i in order]

    def similarities(self, query: Sequence[float], rowids: Sequence[int]) -> dict[int, float] | None:
        """rowid → cosine of specific live chunks (those without a vector are left out); None without vectors
        of this dimension."""
        vectors = self._vectors
        if vectors is None or vectors.matrix.shape[1] != len(query) or not len(query):
            return None
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if not norm:
            return {}
        wanted = np.isin(self.rowids, np.asarray(rowids, dtype=np.int64))
        if self._alive is not None:
            wanted &= self._alive
        result: dict[int, float] = {}
        segments = [vectors] + ([self._delta.vectors] if self._delta is not None and self._delta.vectors else [])
        for segment in segments:
            rows = np.flatnonzero(wanted[segment.docs])
            if len(rows):
                # a few rows: an element-wise product, not a BLAS call (which wakes its thread pool)
                sims = (segment.matrix[rows] * (q / norm)).sum(axis=1)
                result.update(zip(self.rowids[segment.docs[rows]].tolist(), sims.tolist(), strict=True))
        return result

    def updated(self, revision: str, journal_seq: int, removed: Sequence[int], added: Sequence[ChunkRow],
                added_rowids: Sequence[int], vectors: dict[str, np.ndarray]) -> FastIndex:
        """A new index: this one with the chunks at `removed` rowids gone and `added` (at `added_rowids`, with
        their `vectors` by chunk id) in. Raises StaleRead when a removed rowid is not a live document here."""
        assert self._tokenizer is not None
        alive = np.ones(self.size, dtype=bool) if self._alive is None else self._alive.copy()
        if removed:
            # a rowid freed by a removal can come back as a new chunk, but only one document holds it live
            gone = np.flatnonzero(np.isin(self.rowids, np.asarray(removed, dtype=np.int64)) & alive)
            if len(gone) != len(set(removed)):
                raise StaleRead("a removed chunk is not in the accelerator")
            alive[gone] = False
        model_names, source_names = list(self._model_names), list(self._source_names)
        new_terms = dict(self._new_terms)
        delta = self._delta
        doc_terms = list(delta.doc_terms) if delta is not None else []
        first = delta.first_doc if delta is not None else self.size
        lengths, models, sources, vector_rows, vector_docs = [], [], [], [], []
        for offset, row in enumerate(added):
            counts = Counter(self._tokenizer.terms(row.text))
            ids = []
            for term in counts:
                term_id = self._term_id(term)
                if term_id is None:
                    term_id = new_terms[term] = len(self._term_ids) + len(new_terms)
                ids.append(term_id)
            doc_terms.append((np.asarray(ids, dtype=np.int64), np.asarray(list(counts.values()), dtype=np.int64)))
            lengths.append(counts.total())
            models.append(_name_id(model_names, row.model))
            sources.append(_name_id(source_names, row.source))
            if (vector := vectors.get(row.id)) is not None:
                vector_rows.append(vector)
                vector_docs.append(self.size + offset)
        term_count = len(self._term_ids) + len(new_terms)
        docs = np.concatenate([np.full(len(t), first + i, dtype=np.int64) for i, (t, _) in enumerate(doc_terms)]
                              or [np.zeros(0, dtype=np.int64)])
        terms = np.concatenate([t for t, _ in doc_terms] or [np.zeros(0, dtype=np.int64)])
        tfs = np.concatenate([f for _, f in doc_terms] or [np.zeros(0, dtype=np.int64)])
        delta_vectors = delta.vectors if delta is not None else None
        if vector_rows:
            fresh = _normalised(np.stack(vector_rows).astype(np.float32))
            fresh_docs = np.asarray(vector_docs, dtype=np.int64)
            if delta_vectors is not None and delta_vectors.matrix.shape[1] == fresh.shape[1]:
                fresh = np.vstack((delta_vectors.matrix, fresh))
                fresh_docs = np.concatenate((delta_vectors.docs, fresh_docs))
            delta_vectors = _Vectors(fresh, fresh_docs)
        return FastIndex(
            revision, journal_seq, np.concatenate((self.rowids, np.asarray(added_rowids, dtype=np.int64))),
            np.concatenate((self._models, np.asarray(models, dtype=np.int16))),
            np.concatenate((self._sources, np.asarray(sources, dtype=np.int16))), model_names, source_names,
            self._term_ids, self._base, np.concatenate((self._lengths, np.asarray(lengths, dtype=np.float64))),
            self._vectors, self._tokenizer, alive=np.concatenate((alive, np.ones(len(added), dtype=bool))),
            delta=_Delta(first, tuple(doc_terms), _postings(docs, terms, tfs, term_count), delta_vectors),
            new_terms=new_terms)


def _name_id(names: list[str], name: str) -> int:
    if name not in names:
        names.append(name)
    return names.index(name)


def _normalised(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length in place; a row without a direction (zeros, NaN, an overflowing norm) becomes
    zeros, so it is similar to nothing instead of spreading NaN."""
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix[~np.isfinite(norms[:, 0])] = 0.0
    np.divide(matrix, norms, out=matrix, where=np.isfinite(norms) & (norms > 0))
    return matrix


def _top(scores: np.ndarray, limit: int, rowids: np.ndarray) -> np.ndarray:
    """Documents with the best positive scores, best first, ties by rowid."""
    matched = np.flatnonzero(scores > 0)
    return _best(matched, scores[matched], limit, rowids[matched])


def _best(items: np.ndarray, values: np.ndarray, limit: int, order: np.ndarray) -> np.ndarray:
    """The `limit` items with the highest values, best first; equal values go by `order` (their rowids, as in
    SQLite: an updated index appends documents whose rowids can be lower), also at the cut."""
    if len(items) > limit:
        kth = np.partition(values, len(values) - limit)[len(values) - limit]
        keep = values >= kth
        items, values, order = items[keep], values[keep], order[keep]
    return items[np.lexsort((order, -values))][:limit]


class StaleRead(Exception):
    """The store changed while an index was being read from it."""


def build_index(store: Store, *, vectors: bool, tokenizer: PorterTokenizer | None = None) -> FastIndex:
    """Read every chunk of `store` into a FastIndex (raises StaleRead if a write landed meanwhile)."""
    tokenizer = tokenizer or PorterTokenizer()
    revision = store.revision()
    if revision is None:
        raise StaleRead("the index has no revision token yet")
    span = store.journal_span()
    rowids: list[int] = []
    model_of: list[int] = []
    source_of: list[int] = []
    model_ids: dict[str, int] = {}
    source_ids: dict[str, int] = {}
    term_ids: dict[str, int] = {}
    # Raw (lower-cased) token → term id: the per-token work stays in C (Counter, map, array.extend);
    # Python code runs once per distinct surface form. A token indexed as several terms (a CJK run's bigrams)
    # maps to -1 and its ids are in `several`.
    token_ids: dict[str, int] = {}
    several: dict[str, tuple[int, ...]] = {}
    term_col = array("i")
    tf_col = array("i")
    distinct = array("i")
    lengths = array("i")
    after = -1
    while batch := store.chunk_batch(after, _BATCH):
        for rowid, model, source, text in batch:
            rowids.append(rowid)
            model_of.append(model_ids.setdefault(model, len(model_ids)))
            source_of.append(source_ids.setdefault(source, len(source_ids)))
            counts = Counter(tokens(text))
            for token in list(filterfalse(token_ids.__contains__, counts)):
                ids = tuple(term_ids.setdefault(tokenizer.term(part), len(term_ids)) for part in token_terms(token))
                token_ids[token] = ids[0] if len(ids) == 1 else -1
                if len(ids) != 1:
                    several[token] = ids
            ids = list(map(token_ids.__getitem__, counts))
            if -1 in ids:
                pairs = [(i, n) for token, n in counts.items()
                         for i in (several[token] if token in several else (token_ids[token],))]
                term_col.extend(i for i, _ in pairs)
                tf_col.extend(n for _, n in pairs)
                distinct.append(len(pairs))
                lengths.append(sum(n * len(several.get(token, (0,))) for token, n in counts.items()))
            else:
                term_col.extend(ids)
                tf_col.extend(counts.values())
                distinct.append(len(counts))
                lengths.append(counts.total())
        after = batch[-1][0]
    terms = np.frombuffer(term_col, dtype=np.int32) if term_col else np.zeros(0, dtype=np.int32)
    tfs = np.frombuffer(tf_col, dtype=np.int32) if tf_col else np.zeros(0, dtype=np.int32)
    docs = np.repeat(np.arange(len(rowids), dtype=np.int32), np.frombuffer(distinct, dtype=np.int32)) \
        if distinct else np.zeros(0, dtype=np.int32)
    base = _postings(docs, terms, tfs, len(term_ids))
    del terms, tfs, docs, term_col, tf_col
    doc_lengths = np.frombuffer(lengths, dtype=np.int32).astype(np.float64) if lengths else np.zeros(0)
    rowid_array = np.asarray(rowids, dtype=np.int64)
    vector_part = _load_vectors(store, rowid_array) if vectors else None
    if store.revision() != revision:
        raise StaleRead("the index changed while it was being read")
    return FastIndex(revision, None if span is None else span[1], rowid_array,
                     np.asarray(model_of, dtype=np.int16), np.asarray(source_of, dtype=np.int16), list(model_ids),
                     list(source_ids), term_ids, base, doc_lengths, vector_part, tokenizer)


def build_index_isolated(store: Store, *, vectors: bool, tokenizer: PorterTokenizer) -> FastIndex:
    """`build_index` in a child Python process (`python -m memtui.search.accelerator_build`) reading the committed
    index, so the GIL-bound tokenising does not slow the caller's other threads (a UI) and runs on another core
    (in this process when no child can be started). Raises StaleRead when the child fails or the store
    changed meanwhile."""
    request = {**store.reader_args(), "path": str(store.path), "vectors": vectors}
    try:
        child = subprocess.run([sys.executable, "-m", "memtui.search.accelerator_build"],
                               input=json.dumps(request).encode(), capture_output=True, check=False)
    except OSError:  # no usable interpreter to start (an embedded Python): build here instead
        return build_index(store, vectors=vectors, tokenizer=tokenizer)
    if child.returncode != 0:
        raise StaleRead(child.stderr.decode("utf-8", "replace").strip()[-300:] or f"exit {child.returncode}")
    index = pickle.loads(child.stdout)  # our own child's output
    if not isinstance(index, FastIndex):
        raise StaleRead(f"the index builder returned {type(index).__name__}")
    index.set_tokenizer(tokenizer)
    return index


def _load_vectors(store: Store, rowids: np.ndarray) -> _Vectors:
    """Chunk embeddings from `chunks_vec` BLOBs, or parsed from `chunks.embedding` without sqlite-vec."""
    doc_of_rowid = {int(r): i for i, r in enumerate(rowids)}
    rows: list[np.ndarray] = []
    docs: list[int] = []
    blobs = store.vector_blobs()
    dims = store.vector_dims()
    if blobs and dims:
        # straight into one preallocated matrix: no list of row arrays next to the stacked copy
        doc_of_id = {chunk_id: doc_of_rowid[rowid] for rowid, chunk_id in store.chunk_ids()
                     if rowid in doc_of_rowid}
        matrix = np.empty((len(blobs), dims), dtype=np.float32)
        filled = 0
        for chunk_id, blob in blobs:
            doc = doc_of_id.get(chunk_id)
            if doc is not None and len(blob) == 4 * dims:
                matrix[filled] = np.frombuffer(blob, dtype="<f4")
                docs.append(doc)
                filled += 1
        del blobs
        return _Vectors(_normalised(matrix[:filled]), np.asarray(docs, dtype=np.int64))
    after = -1
    while batch := store.embedding_json(after, _BATCH):
        for rowid, text in batch:
            doc = doc_of_rowid.get(rowid)
            if doc is not None and text and text != "[]":
                docs.append(doc)
                rows.append(np.asarray(json.loads(text), dtype=np.float32))
        after = batch[-1][0]
    if not rows:
        return _Vectors(np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int64))
    dims = Counter(len(r) for r in rows).most_common(1)[0][0]
    keep = [i for i, r in enumerate(rows) if len(r) == dims]
    matrix = np.stack([rows[i] for i in keep]).astype(np.float32, copy=False)
    return _Vectors(_normalised(matrix), np.asarray([docs[i] for i in keep], dtype=np.int64))

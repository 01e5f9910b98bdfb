"""In-memory search accelerator for the `memtui` profile: BM25 postings and a normalised vector matrix.

Scores exactly what the Porter-stemmed FTS5 table would (`porter unicode61` tokens, FTS5's bm25 with
k1 = 1.2, b = 0.75 and its floored IDF) without visiting every matching row in SQLite: per query
term one `scores[docs] += weights` over numpy postings, then `argpartition`. The vector side is one
matrix-vector product over L2-normalised float32 rows. An index is tied to the store's revision
token (`Store.revision`), which every write changes, so a stale index is never used.
"""

from __future__ import annotations

import json
import math
import pickle
import re
import subprocess
import sys
import unicodedata
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import filterfalse

import numpy as np
import Stemmer

from memtui.index.store import Store

K1 = 1.2
B = 0.75
# FTS5's porter tokenizer leaves tokens shorter than 3 or longer than 64 bytes unstemmed.
_PORTER_MIN_BYTES = 3
_PORTER_MAX_BYTES = 64
# unicode61's token characters: letters and numbers; callers turn the underscore (a separator there,
# a word character here) into a space first.
_WORD = re.compile(r"\w+")
_BATCH = 5000


class PorterTokenizer:
    """FTS5 `porter unicode61` tokens: Unicode words, case-folded, Latin diacritics removed, Porter-stemmed.

    Snowball's `porter` is the published algorithm; FTS5 follows Porter's reference C code, whose
    step 2 also maps `-bli` to `-ble` and `-logi` to `-log`. Those two are applied on top.
    """

    def __init__(self) -> None:
        self._stemmer = Stemmer.Stemmer("porter")
        self._cache: dict[str, str] = {}

    def term(self, token: str) -> str:
        """The indexed form of one lower-cased word token (cached)."""
        cached = self._cache.get(token)
        if cached is None:
            folded = token if token.isascii() else _fold(token)
            size = len(folded.encode("utf-8"))
            stem = folded
            if _PORTER_MIN_BYTES <= size <= _PORTER_MAX_BYTES:
                stem = self._stemmer.stemWord(folded)
                for suffix, replacement in _REFERENCE_STEP2:
                    if stem.endswith(suffix) and _measure(stem[: -len(suffix)]) > 0:
                        stem = self._stemmer.stemWord(stem[: -len(suffix)] + replacement)
                        break
            cached = self._cache[token] = stem
        return cached

    def terms(self, text: str) -> list[str]:
        """Every indexed term of `text`, in order."""
        return [self.term(token) for token in _words(text)]


_REFERENCE_STEP2 = (("bli", "ble"), ("logi", "log"))


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in `stem`."""
    kinds = []
    for i, char in enumerate(stem):
        vowel = char in "aeiou" or (char == "y" and i > 0 and kinds[-1] == "c")
        kinds.append("v" if vowel else "c")
    joined = "".join(kinds)
    return joined.count("vc")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("_", " "))


def _fold(token: str) -> str:
    """unicode61's folding of a non-ASCII token: simple (one-to-one) case folds, Latin diacritics removed."""
    out: list[str] = []
    for char in token:
        folded = char.casefold()
        char = folded if len(folded) == 1 else char
        base = unicodedata.normalize("NFD", char)
        out.append(base[0] if base[0].isascii() and base[0].isalpha() else char)
    return "".join(out)


@dataclass(frozen=True)
class _Vectors:
    matrix: np.ndarray  # (rows, dims) float32, L2-normalised (zero rows stay zero)
    docs: np.ndarray  # document index of each row


class FastIndex:
    """Immutable postings + vectors for one store revision."""

    def __init__(self, revision: str, rowids: np.ndarray, models: np.ndarray, sources: np.ndarray,
                 model_names: list[str], source_names: list[str], term_ids: dict[str, int],
                 offsets: np.ndarray, postings: np.ndarray, weights: np.ndarray, vectors: _Vectors | None,
                 tokenizer: PorterTokenizer):
        self.revision = revision
        self.rowids = rowids
        self._models = models
        self._sources = sources
        self._model_names = model_names
        self._source_names = source_names
        self._term_ids = term_ids
        self._offsets = offsets
        self._postings = postings
        self._weights = weights
        self._vectors = vectors
        self._tokenizer = tokenizer

    def __getstate__(self) -> dict[str, object]:
        """Pickled without the tokenizer (PyStemmer objects do not pickle); the receiver sets one."""
        state = dict(self.__dict__)
        state["_tokenizer"] = None
        return state

    @property
    def size(self) -> int:
        """Number of chunks indexed."""
        return len(self.rowids)

    @property
    def has_vectors(self) -> bool:
        """Whether the vector matrix was loaded."""
        return self._vectors is not None

    def nbytes(self) -> int:
        """Approximate memory held by the numpy arrays."""
        arrays = [self.rowids, self._models, self._sources, self._offsets, self._postings, self._weights]
        if self._vectors is not None:
            arrays += [self._vectors.matrix, self._vectors.docs]
        return sum(a.nbytes for a in arrays)

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

    def keyword(self, terms: Sequence[str], limit: int, *, model: str | None,
                sources: Sequence[str] | None) -> list[tuple[int, float]] | None:
        """(rowid, raw bm25) of the best `limit` chunks for the OR of `terms`, as the stemmed FTS5 table
        ranks them; None when a term is a multi-token phrase (FTS5 must answer that)."""
        phrase_ids: list[int] = []
        for term in terms:
            tokens = self._tokenizer.terms(term)
            if len(tokens) > 1:
                return None
            if tokens and (term_id := self._term_ids.get(tokens[0])) is not None:
                phrase_ids.append(term_id)
        if not phrase_ids or not self.size:
            return []
        total = self.size
        # float64 sums, as FTS5 computes bm25 in double: near-ties then order as they do there.
        scores = np.zeros(total, dtype=np.float64)
        for term_id in phrase_ids:
            start, end = int(self._offsets[term_id]), int(self._offsets[term_id + 1])
            hits = end - start
            idf = math.log((total - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            scores[self._postings[start:end]] += idf * self._weights[start:end]
        allowed = self._allowed(model, sources)
        if allowed is not None:
            scores[~allowed] = 0.0
        return [(int(self.rowids[d]), -float(scores[d])) for d in _top(scores, limit)]

    def vector(self, query: Sequence[float], limit: int, *, model: str | None,
               sources: Sequence[str] | None) -> list[tuple[int, float]] | None:
        """(rowid, cosine similarity) of the `limit` nearest chunks; None without vectors of this dimension."""
        vectors = self._vectors
        if vectors is None or vectors.matrix.shape[1] != len(query):
            return None
        if not vectors.matrix.shape[0]:
            return []
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if not norm:
            return []
        sims = vectors.matrix @ (q / norm)
        docs = vectors.docs
        allowed = self._allowed(model, sources)
        if allowed is not None:
            keep = allowed[docs]
            docs, sims = docs[keep], sims[keep]
        order = _best(np.arange(len(docs)), sims, limit)
        return [(int(self.rowids[docs[i]]), float(sims[i])) for i in order]


def _top(scores: np.ndarray, limit: int) -> np.ndarray:
    """Indices of the best positive scores, best first, ties by document order (rowid)."""
    matched = np.flatnonzero(scores > 0)
    return _best(matched, scores[matched], limit)


def _best(items: np.ndarray, values: np.ndarray, limit: int) -> np.ndarray:
    """The `limit` items with the highest values, best first; equal values keep item order, also at the cut."""
    if len(items) > limit:
        kth = np.partition(values, len(values) - limit)[len(values) - limit]
        keep = values >= kth
        items, values = items[keep], values[keep]
    return items[np.lexsort((items, -values))][:limit]


class StaleRead(Exception):
    """The store changed while an index was being read from it."""


def build_index(store: Store, *, vectors: bool, tokenizer: PorterTokenizer | None = None) -> FastIndex:
    """Read every chunk of `store` into a FastIndex (raises StaleRead if a write landed meanwhile)."""
    tokenizer = tokenizer or PorterTokenizer()
    revision = store.revision()
    if revision is None:
        raise StaleRead("the index has no revision token yet")
    rowids: list[int] = []
    model_of: list[int] = []
    source_of: list[int] = []
    model_ids: dict[str, int] = {}
    source_ids: dict[str, int] = {}
    term_ids: dict[str, int] = {}
    # Raw (lower-cased) token → term id: the per-token work stays in C (Counter, map, array.extend);
    # Python code runs once per distinct surface form.
    token_ids: dict[str, int] = {}
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
            counts = Counter(_words(text))
            for token in list(filterfalse(token_ids.__contains__, counts)):
                token_ids[token] = term_ids.setdefault(tokenizer.term(token), len(term_ids))
            term_col.extend(map(token_ids.__getitem__, counts))
            tf_col.extend(counts.values())
            distinct.append(len(counts))
            lengths.append(counts.total())
        after = batch[-1][0]
    terms = np.frombuffer(term_col, dtype=np.int32) if term_col else np.zeros(0, dtype=np.int32)
    tfs = np.frombuffer(tf_col, dtype=np.int32).astype(np.float64) if tf_col else np.zeros(0)
    docs = np.repeat(np.arange(len(rowids), dtype=np.int32), np.frombuffer(distinct, dtype=np.int32)) \
        if distinct else np.zeros(0, dtype=np.int32)
    # Several surface forms can share a stem within one chunk: merge (term, doc) duplicates.
    order = np.lexsort((docs, terms))
    docs, terms, tfs = docs[order], terms[order], tfs[order]
    if len(docs):
        starts = np.flatnonzero(np.r_[True, (terms[1:] != terms[:-1]) | (docs[1:] != docs[:-1])])
        tfs = np.add.reduceat(tfs, starts)
        docs, terms = docs[starts], terms[starts]
    # Per posting: tf·(k1 + 1) / (tf + k1·(1 − b + b·D/avgdl)); the query multiplies in the IDF.
    doc_lengths = np.frombuffer(lengths, dtype=np.int32).astype(np.float64) if lengths else np.zeros(0)
    avgdl = float(doc_lengths.sum()) / len(doc_lengths) if len(doc_lengths) else 1.0
    norm = K1 * (1 - B + B * doc_lengths[docs] / (avgdl or 1.0))
    weights = (tfs * (K1 + 1) / (tfs + norm)).astype(np.float32)
    offsets = np.zeros(len(term_ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=len(term_ids)), out=offsets[1:])
    rowid_array = np.asarray(rowids, dtype=np.int64)
    vector_part = _load_vectors(store, rowid_array) if vectors else None
    if store.revision() != revision:
        raise StaleRead("the index changed while it was being read")
    return FastIndex(revision, rowid_array, np.asarray(model_of, dtype=np.int16),
                     np.asarray(source_of, dtype=np.int16), list(model_ids), list(source_ids), term_ids, offsets,
                     docs, weights, vector_part, tokenizer)


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
    index._tokenizer = tokenizer
    return index


def _load_vectors(store: Store, rowids: np.ndarray) -> _Vectors:
    """Chunk embeddings from `chunks_vec` BLOBs, or parsed from `chunks.embedding` without sqlite-vec."""
    doc_of_rowid = {int(r): i for i, r in enumerate(rowids)}
    rows: list[np.ndarray] = []
    docs: list[int] = []
    blobs = store.vector_blobs()
    if blobs:
        doc_of_id = {chunk_id: doc_of_rowid[rowid] for rowid, chunk_id in store.chunk_ids()
                     if rowid in doc_of_rowid}
        for chunk_id, blob in blobs:
            doc = doc_of_id.get(chunk_id)
            if doc is not None and blob:
                docs.append(doc)
                rows.append(np.frombuffer(blob, dtype="<f4"))
    else:
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
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return _Vectors(matrix, np.asarray([docs[i] for i in keep], dtype=np.int64))

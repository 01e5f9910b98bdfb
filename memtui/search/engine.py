"""Keyword, vector and hybrid search with a full score trace for every candidate (§4).

Two ranking profiles: `openclaw` reproduces OpenClaw 2026.4 (AND-joined keyword query, its
formulas, thresholds and FTS-only fallback); `memtui` uses an OR-joined keyword query with stop
words removed (measured better on SciFact and LoCoMo, see README) and otherwise the same merge.
"""

from __future__ import annotations

import math
import operator
import struct
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memtui.embeddings.base import EmbeddingProvider, degenerate, embed_query_text
from memtui.index.annotations import CHUNKING_VERSION
from memtui.index.recall import hit_fields
from memtui.index.store import ChunkRow, DriverError
from memtui.index.store.protocol import SearchReads
from memtui.index.store.reads import parse_vector
from memtui.search.fts_query import (
    KeywordQuery,
    build_and_query,
    build_or_query,
    cap_query,
    contains_short_cjk,
    single_term_query,
    stemmed_match,
)
from memtui.search.ranking import (
    bm25_rank_to_score,
    decay_multiplier,
    fallback_boost,
    in_named_month,
    item_age_days,
    mmr_order,
    named_months,
    needs_mtime,
)
from memtui.search.response import Candidate, SearchOptions, SearchResponse
from memtui.settings.config import MemorySearchSettings

if TYPE_CHECKING:
    from memtui.search.accelerator import FastIndex

MAX_CANDIDATES = 200
# |bm25| under this: the query's words are in nearly every chunk (FTS5 clamps their IDF to 1e-6), so the keyword
# side tells chunks apart hardly at all; the memtui profile never normalises text scores by less.
FLAT_BM25 = 0.005


def hybrid_weights(settings: MemorySearchSettings, profile: str) -> tuple[float, float]:
    """(vector, text) weights a profile searches with: the configured ones, or the memtui profile's own defaults
    when the config sets none."""
    hybrid = settings.query.hybrid
    if profile == "memtui" and not hybrid.weights_configured:
        return settings.query.memtui_weights
    return hybrid.vector_weight, hybrid.text_weight


CLASSIC_PROFILE = "openclaw-2026.4"


class Searcher:
    """Runs searches against a store with an optional embedding provider."""

    def __init__(self, store: SearchReads, provider: EmbeddingProvider | None, settings: MemorySearchSettings,
                 profile: str, mtimes: Callable[[], dict[str, float]], fast: FastIndex | None = None):
        self.store = store
        self.fast = fast if profile == "memtui" else None
        self.provider = provider
        self.settings = settings
        # `openclaw-2026.4` names the classic rules this engine implements for `openclaw` on memtui's index.
        self.profile = "openclaw" if profile == CLASSIC_PROFILE else profile
        self._mtimes_source = mtimes
        self._mtimes: dict[str, float] | None = None
        self._rowid_of: dict[str, int] = {}  # chunk id → rowid of the accelerator's hits

    def _mtime(self, candidate: Candidate) -> float | None:
        """The indexed mtime (ms) of the candidate's file (`mtimes` maps what `_mtime_key` gives), None when
        unknown."""
        if self._mtimes is None:
            self._mtimes = self._mtimes_source()
        return self._mtimes.get(self._mtime_key(candidate))

    def _mtime_key(self, candidate: Candidate) -> str:
        """The key of the candidate's file in `mtimes`: its path."""
        return candidate.path

    def _keyword_query(self, query: str) -> KeywordQuery:
        return build_and_query(query) if self.profile == "openclaw" else build_or_query(query)

    def search(self, query: str, options: SearchOptions | None = None, *, now: datetime | None = None,
               query_vector: Sequence[float] | None = None) -> SearchResponse:
        """Search; `query_vector` skips embedding the query (tests, benchmarks, TUI re-ranking)."""
        started = time.perf_counter()
        query = cap_query(query)
        options = options or SearchOptions()
        now = now or datetime.now(UTC)
        settings = self.settings
        # As in OpenClaw: maxResults 0 returns nothing (`slice(0, 0)`), a fraction sizes the candidate pool
        # (`floor(maxResults × multiplier)`, at least one) and is truncated for the cut.
        max_results = max(0, settings.query.max_results if options.max_results is None else options.max_results)
        min_score = settings.query.min_score if options.min_score is None else options.min_score
        hybrid = settings.query.hybrid
        limit = min(MAX_CANDIDATES, max(1, math.floor(max_results * hybrid.candidate_multiplier)))
        limit = limit if options.candidate_limit is None else max(1, options.candidate_limit)
        sources = [s for s in (options.sources or settings.sources) if s in settings.sources] or list(settings.sources)
        fts_on = self.store.fts_available and hybrid.enabled
        keyword = self._keyword_query(query) if query.strip() else None
        weights = hybrid_weights(settings, self.profile)
        response = SearchResponse(
            query=query, profile=self.profile, mode="fts-only", results=[], candidates=[], keyword=keyword,
            keyword_fallback_terms=[], min_score=min_score, max_results=math.trunc(max_results), candidate_limit=limit,
            vector_weight=weights[0], text_weight=weights[1], relaxed=False, filtered_count=0,
            vector_skipped=None, elapsed_ms=0.0,
        )
        if not query.strip():
            return response
        if self.provider is None:
            self._fts_only(response, query, sources, now)
        else:
            response.mode = "hybrid" if fts_on else "vector-only"
            self._hybrid(response, query, sources, now, fts_on, query_vector)
        if settings.chunking.version == CHUNKING_VERSION:
            self._attach_recall(response.results)
        response.elapsed_ms = (time.perf_counter() - started) * 1000
        return response

    def _attach_recall(self, hits: list[Candidate]) -> None:
        """An OpenClaw 2026.9 agent's hits carry what 2026.9.6's carry: importance, triggers and project key (from
        the index) and provenance (the path's origin class, the indexed file's mtime)."""
        if not hits:
            return
        recall = self.store.recall_for_ids([hit.id for hit in hits])
        for hit in hits:
            hit.recall = hit_fields(recall.get(hit.id), hit.path, hit.source, self._mtime(hit))

    # -- keyword ----------------------------------------------------------------------------

    def _keyword(self, match: str, limit: int, sources: list[str], model: str | None,
                 terms: Sequence[str]) -> tuple[list[tuple[ChunkRow, float]], bool]:
        """(rows with raw bm25, used LIKE fallback); the memtui profile searches the stemmed index
        (through the in-memory accelerator when it is current)."""
        if self.fast is not None and self.store.has_stemmed_index:
            ranked = self.fast.keyword(terms, limit, model=model, sources=sources)
            if ranked is not None and (found := self._rows_for(ranked)) is not None:
                return found, False
        try:
            if self.profile == "memtui" and self.store.has_stemmed_index:
                stemmed = stemmed_match(terms)
                if stemmed is None:
                    return [], False
                return self.store.stemmed_search(stemmed, limit, model=model, sources=sources), False
            if self.store.fts_tokenizer == "trigram":
                return self._trigram_keyword(match, limit, sources, model, terms), False
            return self.store.keyword_search(match, limit, model=model, sources=sources), False
        except DriverError:
            rows = self.store.like_search(list(terms), limit, model=model, sources=sources)
            return [(row, 0.0) for row in rows], True

    def _trigram_keyword(self, match: str, limit: int, sources: list[str], model: str | None,
                         terms: Sequence[str]) -> list[tuple[ChunkRow, float]]:
        """`planKeywordSearch` (§4.2): CJK/kana/Hangul tokens under 3 code points cannot match a trigram
        index, so they are required with LIKE and the other tokens go into MATCH."""
        short = [t for t in terms if contains_short_cjk(t)]
        if not short:
            return self.store.keyword_search(match, limit, model=model, sources=sources)
        rest = [t for t in terms if t not in short]
        if not rest:
            return [(row, 0.0) for row in self.store.like_search(short, limit, model=model, sources=sources)]
        operator = " OR " if " OR " in match else " AND "
        rest_match = operator.join(single_term_query(t) for t in rest)
        return self.store.keyword_search(rest_match, limit, model=model, sources=sources, like_terms=short)

    # -- FTS-only ---------------------------------------------------------------------------

    def _fts_only(self, response: SearchResponse, query: str, sources: list[str], now: datetime) -> None:
        keyword = response.keyword
        if keyword is None or keyword.match is None or not self.store.fts_available:
            return
        if self.profile == "openclaw":
            found = self._openclaw_keyword_hits(response, query.strip(), sources)
        else:
            found = {}
            rows, used_like = self._keyword(keyword.match, response.candidate_limit, sources, None, keyword.terms)
            for rank, (row, bm25) in enumerate(rows, start=1):
                candidate = self._text_candidate(row, bm25, rank, used_like, "fts")
                candidate.base_score = candidate.text_score or 0.0
                found[row.id] = candidate
        candidates = list(found.values())
        self._decay_and_sort(candidates, now)
        response.candidates = candidates
        passing = [c for c in candidates if c.score >= response.min_score]
        response.filtered_count = len(candidates) - len(passing)
        if passing:
            self._select(response, passing, "passed")
        elif candidates:
            response.relaxed = True
            self._select(response, candidates, "any")

    def _openclaw_keyword_hits(self, response: SearchResponse, query: str, sources: list[str]) -> dict[str, Candidate]:
        """OpenClaw's FTS-only search: the AND query, boosted against the query; when it finds nothing, each
        keyword of `extractKeywords` on its own, boosted against that keyword. A chunk keeps its best boosted
        score and the place where it was first found."""
        assert response.keyword is not None and response.keyword.match is not None
        limit = response.candidate_limit
        rows, used_like = self._keyword(response.keyword.match, limit, sources, None, response.keyword.terms)
        searches = [(query, "fts", rows, used_like)] if rows else []
        if not rows:
            from memtui.querywords.extraction import openclaw_keywords  # regex and the stop words, when needed

            terms = openclaw_keywords(query, trigram=self.store.fts_tokenizer == "trigram") or [query]
            response.keyword_fallback_terms = terms
            for term in terms:
                term_query = build_and_query(term)
                if term_query.match is not None:
                    term_rows, term_like = self._keyword(term_query.match, limit, sources, None, term_query.terms)
                    searches.append((term, f"keyword:{term}", term_rows, term_like))
        found: dict[str, Candidate] = {}
        for boost_query, how, hits, like in searches:
            for rank, (row, bm25) in enumerate(hits, start=1):
                candidate = self._text_candidate(row, bm25, rank, like, how)
                candidate.base_score = fallback_boost(candidate.text_score or 0.0, boost_query, row.text, row.path)
                previous = found.get(row.id)
                if previous is None or candidate.base_score > previous.base_score:
                    found[row.id] = candidate
        return found

    def _text_candidate(self, row: ChunkRow, bm25: float, rank: int, used_like: bool, how: str) -> Candidate:
        text_score = 1.0 if used_like else bm25_rank_to_score(bm25)
        return Candidate(
            id=row.id, path=row.path, source=row.source, start_line=row.start_line, end_line=row.end_line,
            text=row.text, text_score=text_score, bm25=None if used_like else bm25, text_rank=rank,
            matched_by=["like" if used_like else how],
        )

    # -- hybrid -----------------------------------------------------------------------------

    def _hybrid(self, response: SearchResponse, query: str, sources: list[str], now: datetime, fts_on: bool,
                query_vector: Sequence[float] | None) -> None:
        assert self.provider is not None
        limit = response.candidate_limit
        model = self.provider.model
        keyword_hits: list[Candidate] = []
        keyword = response.keyword
        if fts_on and keyword is not None and keyword.match is not None:
            rows, used_like = self._keyword(keyword.match, limit, sources, model, keyword.terms)
            keyword_hits = [self._text_candidate(row, bm25, rank, used_like, "fts")
                            for rank, (row, bm25) in enumerate(rows, start=1)]
            if self.profile == "memtui":
                self._normalize_text_scores(response, keyword_hits)
        keyword_keys = {hit.key for hit in keyword_hits}
        # Merged in OpenClaw's order (vector hits first, then keyword-only hits), so score ties
        # keep the same order after the stable sort.
        found: dict[str, Candidate] = {}
        vector = list(query_vector) if query_vector is not None else embed_query_text(self.provider, query)
        response.vector_skipped = self._unusable(vector)
        if response.vector_skipped is not None:
            vector = []
        else:
            skipped: list[str] = []
            for rank, (row, score) in enumerate(self._vector(vector, limit, model, sources, skipped), start=1):
                found[row.id] = Candidate(id=row.id, path=row.path, source=row.source, start_line=row.start_line,
                                          end_line=row.end_line, text=row.text, vector_score=score,
                                          vector_rank=rank, matched_by=["vector"])
            response.skipped_vectors = len(skipped)
        for hit in keyword_hits:
            merged = found.get(hit.id)
            if merged is None:
                found[hit.id] = hit
                continue
            merged.text_score, merged.bm25, merged.text_rank = hit.text_score, hit.bm25, hit.text_rank
            merged.matched_by = [*hit.matched_by, "vector"]
        if self.profile == "memtui" and fts_on:
            self._memtui_fusion(response, list(found.values()), vector, now)
            return
        weights = (response.vector_weight, response.text_weight)
        for candidate in found.values():
            if fts_on:
                candidate.base_score = weights[0] * (candidate.vector_score or 0.0) + weights[1] * (
                    candidate.text_score or 0.0)
            else:
                candidate.base_score = candidate.vector_score or 0.0
        candidates = list(found.values())
        self._decay_and_sort(candidates, now)
        response.candidates = candidates
        passing = [c for c in candidates if c.score >= response.min_score]
        response.filtered_count = len(candidates) - len(passing)
        if passing or not fts_on:
            self._select(response, passing, "passed")
            return
        relaxed_min = min(response.min_score, response.text_weight)
        relaxed = [c for c in candidates if c.key in keyword_keys and c.score >= relaxed_min]
        response.relaxed = bool(relaxed)
        self._select(response, relaxed, "relaxed")

    def _memtui_fusion(self, response: SearchResponse, candidates: list[Candidate], vector: Sequence[float],
                       now: datetime) -> None:
        """memtui profile, hybrid: each side relative to its best candidate, weighted, and minScore on the evidence.

        * The vector side is the cosine over the best candidate cosine, and a keyword-only candidate gets its
          real cosine (OpenClaw counts it as 0, which buries keyword hits whenever the model is weak). The text
          side is bm25 over the best keyword hit's (`_normalize_text_scores`).
        * A daily log dated in a month the query names gets `query.month_boost` on top (its date is in its path only,
          so neither side sees it).
        * minScore is a floor on the evidence, not on the fused number: a candidate passes when its keyword
          score r/(1+r) (what FTS-only mode thresholds) or its cosine reaches it. So turning the model on never
          drops a keyword hit that keyword-only search returns, and a purely semantic hit still needs a cosine
          of minScore. With nothing passing, the keyword hits are returned (relaxed), as in FTS-only mode.
        """
        if any(vector):
            missing = [c for c in candidates if c.vector_score is None]
            cosines = self._cosines(vector, [c.id for c in missing]) if missing else {}
            for candidate in missing:
                candidate.vector_score = cosines.get(candidate.id)
        best = max((c.vector_score for c in candidates if c.vector_score is not None), default=0.0)
        for candidate in candidates:
            candidate.cosine = candidate.vector_score
            if candidate.vector_score is not None and best > 0:
                candidate.vector_score = max(0.0, candidate.vector_score) / best
        if best > 0:
            response.vector_normalization = "cosine / best candidate cosine"
        months = named_months(response.query)
        for candidate in candidates:
            boost = self.settings.query.month_boost
            candidate.date_boost = boost if boost and in_named_month(candidate.path, months) else 0.0
            candidate.base_score = response.vector_weight * (candidate.vector_score or 0.0) + (
                response.text_weight * (candidate.text_score or 0.0)) + candidate.date_boost
        self._decay_and_sort(candidates, now)
        response.candidates = candidates
        response.threshold_rule = "keyword r/(1+r) or cosine >= minScore"
        passing = [c for c in candidates if _evidence(c) >= response.min_score]
        response.filtered_count = len(candidates) - len(passing)
        if passing:
            self._select(response, passing, "evidence")
            return
        keyword_hits = [c for c in candidates if c.text_rank is not None]
        response.relaxed = bool(keyword_hits)
        self._select(response, keyword_hits, "relaxed")

    def _unusable(self, vector: Sequence[float]) -> str | None:
        """Why the query vector cannot be compared with the index's (None: it can): no direction, or another
        dimension than the stored vectors'."""
        if (why := degenerate(vector)) is not None:
            return f"query embedding {why}"
        dims = self.store.vector_dims()
        if dims is not None and dims != len(vector):
            return f"query embedding has {len(vector)} dimensions; the index's vectors have {dims}"
        return None

    def _cosines(self, vector: Sequence[float], ids: list[str]) -> dict[str, float]:
        """Cosine similarity of the query to specific chunks: from the accelerator's matrix when it holds them,
        else from their stored embeddings."""
        if self.fast is not None and all(i in self._rowid_of for i in ids):
            by_rowid = self.fast.similarities(vector, [self._rowid_of[i] for i in ids])
            if by_rowid is not None:
                return {i: by_rowid[self._rowid_of[i]] for i in ids if self._rowid_of[i] in by_rowid}
        query_norm = math.sqrt(sum(x * x for x in vector))
        result: dict[str, float] = {}
        # sqlite-vec's BLOBs where it is loaded (what vector search itself reads), else the JSON column
        blobs = self.store.vector_blobs_for(ids)
        stored_vectors: dict[str, Sequence[float]] = {
            chunk_id: struct.unpack(f"<{len(blob) // 4}f", blob) for chunk_id, blob in blobs.items()}
        missing = [i for i in ids if i not in stored_vectors]
        if missing:
            stored_vectors.update(self.store.vectors_for_ids(missing))
        for chunk_id, stored in stored_vectors.items():
            length = min(len(stored), len(vector))
            norm = math.sqrt(sum(x * x for x in stored[:length]))
            if norm and query_norm and length and math.isfinite(norm):
                result[chunk_id] = sum(map(operator.mul, stored[:length], vector[:length])) / (norm * query_norm)
        return result

    @staticmethod
    def _normalize_text_scores(response: SearchResponse, hits: list[Candidate]) -> None:
        """memtui profile, hybrid: text score = bm25 relevance / the best keyword hit's.

        OpenClaw's r/(1+r) saturates near 1 for every good hit of a many-term query, so the text side
        barely ranks; relative to the best hit it spans 0–1. SciFact train, local MiniLM, weights 0.7/0.3:
        nDCG@10 0.679 → 0.718.

        The divisor is never below `FLAT_BM25`: when every matched word is in most chunks (speaker names), FTS5
        clamps their IDF to 1e-6 and the best |bm25| is noise, which must stay noise, not become a full text score.
        """
        best = max((-h.bm25 for h in hits if h.bm25 is not None and h.bm25 < 0), default=0.0)
        if best <= 0:
            return
        for hit in hits:
            if hit.bm25 is not None:
                hit.text_score = max(0.0, -hit.bm25) / max(best, FLAT_BM25)
        response.text_normalization = ("bm25 / best keyword hit" if best >= FLAT_BM25 else
                                       f"bm25 / {FLAT_BM25} (the best keyword hit's bm25 is ≈ 0: its words are in "
                                       "nearly every chunk)")

    def _vector(self, vector: Sequence[float], limit: int, model: str, sources: list[str],
                skipped: list[str]) -> list[tuple[ChunkRow, float]]:
        """The nearest chunks by cosine (the accelerator, sqlite-vec, else the JSON column); ids of stored vectors
        without a direction met on the way are appended to `skipped`."""
        if self.fast is not None:
            ranked = self.fast.vector(vector, limit, model=model, sources=sources)
            if ranked is not None and (found := self._rows_for(ranked)) is not None:
                return found
        caps = self.store.capabilities
        if caps.vector_available and self.store.vector_dims() == len(vector):
            return self.store.vector_knn(vector, limit, model=model, sources=sources, skipped=skipped)
        rows = self.store.embeddings_for_model(model, sources)
        parsed = []
        for row, embedding in rows:
            if embedding and embedding != "[]":
                values = parse_vector(embedding)
                if values is None:
                    skipped.append(row.id)
                else:
                    parsed.append((row, values))
        if not parsed:
            return []
        import numpy as np

        query = np.asarray(vector, dtype=np.float64)
        scored: list[tuple[ChunkRow, float]] = []
        query_norm = float(np.linalg.norm(query))
        for row, values in parsed:
            length = min(len(values), len(query))
            doc = np.asarray(values[:length], dtype=np.float64)
            denominator = float(np.linalg.norm(doc)) * float(np.linalg.norm(query[:length])) if length else 0.0
            score = float(doc @ query[:length]) / denominator if denominator and query_norm else 0.0
            scored.append((row, score))
        scored.sort(key=lambda item: item[1], reverse=True)
        return scored[:limit]

    def _rows_for(self, ranked: list[tuple[int, float]]) -> list[tuple[ChunkRow, float]] | None:
        """The accelerator's hits as rows; None if a write landed since it was checked (use SQLite)."""
        assert self.fast is not None
        rows = self.store.chunks_by_rowids([rowid for rowid, _ in ranked])
        if self.store.revision() != self.fast.revision:
            return None
        self._rowid_of.update((row.id, rowid) for rowid, row in rows.items())
        return [(row, score) for rowid, score in ranked if (row := rows.get(rowid)) is not None]

    # -- shared tail ------------------------------------------------------------------------

    def _decay_and_sort(self, candidates: list[Candidate], now: datetime) -> None:
        decay = self.settings.query.hybrid.temporal_decay
        for candidate in candidates:
            if decay.enabled:
                mtime = self._mtime(candidate) if needs_mtime(candidate.path, candidate.source) else None
                age = item_age_days(candidate.path, candidate.source, now, mtime)
                candidate.age_days = age
                candidate.decay = 1.0 if age is None else decay_multiplier(age, decay.half_life_days)
            candidate.score = candidate.base_score * candidate.decay
        # Stable sort on the score alone: ties keep their insertion order (the candidate lists' own
        # order), as JavaScript's stable `Array.prototype.sort` does in OpenClaw.
        candidates.sort(key=lambda c: -c.score)
        for position, candidate in enumerate(candidates, start=1):
            candidate.sorted_rank = position
        mmr = self.settings.query.hybrid.mmr
        if mmr.enabled and len(candidates) > 1:
            order = mmr_order([c.score for c in candidates], [c.snippet for c in candidates], mmr.lambda_)
            reordered = [candidates[i] for i in order]
            candidates[:] = reordered
            for position, candidate in enumerate(candidates, start=1):
                candidate.mmr_rank = position

    def _select(self, response: SearchResponse, pool: list[Candidate], threshold: str) -> None:
        chosen_ids = {c.id for c in pool[: response.max_results]}
        pool_ids = {c.id for c in pool}
        for candidate in response.candidates:
            if candidate.id in chosen_ids:
                candidate.stage = "returned"
                candidate.threshold = threshold
            elif candidate.id in pool_ids:
                candidate.stage = "cut-by-max-results"
                candidate.threshold = threshold
            else:
                candidate.stage = "below-min-score"
        results = [c for c in response.candidates if c.id in chosen_ids]
        for position, candidate in enumerate(results, start=1):
            candidate.rank = position
        response.results = results


def _evidence(candidate: Candidate) -> float:
    """A candidate's strongest single piece of evidence: keyword r/(1+r) (1 for a LIKE match) or its cosine."""
    if candidate.bm25 is not None:
        keyword = bm25_rank_to_score(candidate.bm25)
    else:
        keyword = 1.0 if "like" in candidate.matched_by else 0.0
    return max(keyword, candidate.cosine or 0.0)

"""SQL access to an OpenClaw 2026.9.6 agent database: body, path and vector search and recall metadata."""

from __future__ import annotations

import functools
import math
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import regex

from memtui.agentdb.candidates import Hit, bm25_score, truncate
from memtui.agentdb.exact_path import exact_path_matcher, exact_path_patterns
from memtui.agentdb.keyword_rank import EXACT_PATH_CANDIDATE_LIMIT, boosted_score, compare_path_hits
from memtui.agentdb.keywords import build_fts_query, quote_terms, raw_tokens, search_tokens, unique
from memtui.agentdb.vectors import cosine_similarity, decode_embedding
from memtui.jscompat import js_trim

_ORIGIN_CLASSES = frozenset({"owner", "agent", "untrusted", "system"})
_SESSION_KINDS = frozenset({"interactive", "cron", "heartbeat", "subagent", "unknown"})
_TIER_FN = "memtui_exact_path_tier"
_CONTAINS_FN = "memtui_normalized_contains"
_FTS = "memory_index_chunks_fts"
_PATHS_FTS = "memory_index_paths_fts"


def _literal(term: str, *, whole: bool = False) -> Any:
    literal = regex.escape(unicodedata.normalize("NFC", term))
    return regex.compile(f"^(?:{literal})$" if whole else literal, regex.IGNORECASE | regex.V0)


@dataclass(frozen=True)
class _Plan:
    query: str
    match: str | None
    substrings: tuple[str, ...]


class AgentIndex:
    """The connection plus what each search step needs from it."""

    def __init__(self, conn: Any, sources: Sequence[str], model: str | None, tokenizer: str) -> None:
        self.conn = conn
        self.sources = tuple(sources)
        self.model = model
        self.trigram = tokenizer == "trigram"
        self.tokenizer = tokenizer
        self._tier: Callable[[str], int] = lambda _p: 0
        self._matchers: dict[str, Any] = {}
        conn.create_function(_TIER_FN, 1, self._sql_tier, deterministic=True)
        conn.create_function(_CONTAINS_FN, 2, self._sql_contains, deterministic=True)

    # SQL helpers ------------------------------------------------------------------------------------------------
    def _sql_tier(self, path: Any) -> int:
        return self._tier(path) if isinstance(path, str) else 0

    def _sql_contains(self, value: Any, term: Any) -> int:
        if not isinstance(value, str) or not isinstance(term, str):
            return 0
        matcher = self._matchers.get(term)
        return int(matcher is not None and matcher.search(unicodedata.normalize("NFC", value)) is not None)

    def _use_substrings(self, terms: Iterable[str]) -> None:
        self._matchers = {term: _literal(term) for term in terms}

    def _source_sql(self, column: str) -> tuple[str, list[str]]:
        if not self.sources:
            return "", []
        return f" AND {column} IN ({', '.join('?' for _ in self.sources)})", list(self.sources)

    @staticmethod
    def _contains_sql(column: str, terms: Sequence[str]) -> str:
        return "".join(f" AND {_CONTAINS_FN}({column}, ?) = 1" for _ in terms)

    # Plans -------------------------------------------------------------------------------------------------------
    def _plan(self, query: str, *, with_marks: bool = False) -> _Plan:
        """`planKeywordSearch`: unicode61 MATCHes every token; trigram MATCHes tokens of 3+ code points and
        filters by the shorter ones as substrings."""
        if not self.trigram:
            return _Plan(query, build_fts_query(query), ())
        tokens = raw_tokens(query, with_marks=with_marks)
        long_terms = [t for t in tokens if len(t) >= 3]
        short_terms = tuple(t for t in tokens if len(t) < 3)
        return _Plan(query, quote_terms(long_terms), short_terms)

    def _path_plans(self, query: str) -> list[_Plan]:
        """`planPathKeywordSearch`: the body plan, plus (unicode61) one that MATCHes the ASCII tokens and filters by
        the others as substrings, for the NFC and NFD forms."""
        forms = [query]
        if self.trigram:
            forms = list(dict.fromkeys([unicodedata.normalize("NFC", query), unicodedata.normalize("NFD", query)]))
        plans: list[_Plan] = []
        seen: set[tuple[str | None, tuple[str, ...]]] = set()

        def add(plan: _Plan) -> None:
            key = (plan.match, plan.substrings)
            if key not in seen:
                seen.add(key)
                plans.append(plan)

        for form in forms:
            add(self._plan(form, with_marks=True))
        if not self.trigram:
            for form in dict.fromkeys([unicodedata.normalize("NFC", query), unicodedata.normalize("NFD", query)]):
                tokens = raw_tokens(form, with_marks=True)
                others = tuple(t for t in tokens if not t.isascii())
                if others:
                    add(_Plan(form, quote_terms([t for t in tokens if t.isascii()]), others))
        return plans

    # Body -------------------------------------------------------------------------------------------------------
    def body_search(self, query: str, ranking_query: str, limit: int) -> list[Hit]:
        """`searchKeyword` with `boostFallbackRanking`: FTS5 bm25 hits, boosted against `ranking_query`."""
        plan = self._plan(query)
        if not plan.match and not plan.substrings:
            return []
        source_sql, source_params = self._source_sql("source")

        def load(match: str | None, terms: Sequence[str]) -> list[Any]:
            self._use_substrings(terms)
            where = f"{_FTS} MATCH ? AND {_FTS}.rank MATCH 'bm25()'" if match else "1=1"
            sql = (f"SELECT id, path, source, start_line, end_line, text, {f'{_FTS}.rank' if match else '0'} AS rank "
                   f"FROM {_FTS} WHERE {where}{self._contains_sql('text', terms)}"
                   f" AND EXISTS (SELECT 1 FROM memory_index_chunks c WHERE c.id = {_FTS}.id){source_sql}"
                   f"{' ORDER BY rank ASC' if match else ''} LIMIT ?")
            params = [*([match] if match else []), *terms, *source_params, limit]
            return self.conn.execute(sql, params).fetchall()

        used_match = False
        if plan.match:
            try:
                rows = load(plan.match, plan.substrings)
                used_match = True
            except Exception:  # FTS5 refused the MATCH: OpenClaw falls back to a substring scan
                rows = load(None, unique([*raw_tokens(query), *plan.substrings]))
        else:
            rows = load(None, plan.substrings)
        matchers = [(t, _literal(t, whole=True), _literal(t)) for t in unique(search_tokens(ranking_query))]
        hits = []
        for chunk_id, path, source, start, end, text, rank in rows:
            text_score = bm25_score(rank) if used_match else 0.0
            score, boost = boosted_score(text_score, text, path, matchers)
            hits.append(Hit(id=chunk_id, path=path, start_line=start, end_line=end, source=source,
                            snippet=truncate(text), score=score, text_score=text_score, has_body=True,
                            boost=boost, found_by=[query]))
        return hits

    # Paths ------------------------------------------------------------------------------------------------------
    def _first_chunks(self, rows: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Per (path, source, extra): the path's first chunk (lowest start line, then end line, then id)."""
        out = []
        for path, source, extra in rows:
            chunk = self.conn.execute(
                "SELECT id, start_line, end_line, text FROM memory_index_chunks WHERE path = ? AND source = ? "
                "ORDER BY start_line, end_line, id LIMIT 1", (path, source)).fetchone()
            if chunk is not None:
                out.append((chunk[0], path, source, chunk[1], chunk[2], chunk[3], extra))
        return out

    def path_search(self, query: str, exact_query: str, limit: int,
                    exact_limit: int = EXACT_PATH_CANDIDATE_LIMIT) -> list[Hit]:
        """`searchPathKeyword`: exact-path candidates and path-FTS hits, each as its path's first chunk."""
        if limit <= 0:
            return []
        plans = self._path_plans(query)
        first = plans[0] if plans else _Plan(query, None, ())
        tier_of = exact_path_matcher(exact_query)
        self._tier = tier_of
        source_sql, source_params = self._source_sql(f"{_PATHS_FTS}.source")
        patterns = exact_path_patterns(exact_query)
        live = (f" AND EXISTS (SELECT 1 FROM memory_index_chunks live WHERE live.path = {_PATHS_FTS}.path"
                f" AND live.source = {_PATHS_FTS}.source)")

        def load_exact(lexical: bool) -> list[Any]:
            self._use_substrings(first.substrings)
            like = " OR ".join(f"{_PATHS_FTS}.path LIKE ? ESCAPE '\\'" for _ in patterns)
            where = [f"({like})"]
            params: list[Any] = []
            if lexical:
                if first.match:
                    where.insert(0, f"{_PATHS_FTS} MATCH ?")
                    params.append(first.match)
                params.extend(first.substrings)
            params.extend(patterns)
            params.extend(source_params)
            sql = (f"SELECT path, source, {_TIER_FN}(path) AS tier FROM {_PATHS_FTS} WHERE "
                   + " AND ".join(where)
                   + (self._contains_sql(f"{_PATHS_FTS}.path", first.substrings) if lexical else "")
                   + f"{source_sql} AND {_TIER_FN}({_PATHS_FTS}.path) > 0{live}"
                   + " ORDER BY tier DESC, path ASC, source ASC LIMIT ?")
            return self.conn.execute(sql, [*params, exact_limit]).fetchall()

        lexical_exact = exact_query.isascii() and (first.match is not None or bool(first.substrings))
        exact_rows: list[Any] = []
        if patterns and exact_limit > 0:
            try:
                exact_rows = load_exact(lexical_exact)
            except Exception:
                if not lexical_exact:
                    raise
                exact_rows = load_exact(False)
        by_id: dict[str, Hit] = {}
        for chunk_id, path, source, start, end, text, tier in self._first_chunks(exact_rows):
            by_id[chunk_id] = Hit(id=chunk_id, path=path, start_line=start, end_line=end, source=source,
                                  snippet=truncate(text), tier=tier, found_by=[f"path:{query}"])
        if not any(plan.match or plan.substrings for plan in plans):
            return list(by_id.values())

        def load_lexical(match: str | None, terms: Sequence[str], exact: bool, cap: int) -> list[Any]:
            rank = f"bm25({_PATHS_FTS})" if match else "0"
            sql = (f"SELECT path, source, {rank} AS rank FROM {_PATHS_FTS} WHERE "
                   f"{f'{_PATHS_FTS} MATCH ?' if match else '1=1'}"
                   f"{self._contains_sql(f'{_PATHS_FTS}.path', terms)}{source_sql}"
                   f" AND {_TIER_FN}({_PATHS_FTS}.path) {'>' if exact else '='} 0{live}"
                   f" ORDER BY rank ASC, {_PATHS_FTS}.path ASC, {_PATHS_FTS}.source ASC LIMIT ?")
            return self.conn.execute(sql, [*([match] if match else []), *terms, *source_params, cap]).fetchall()

        def partitions(match: str | None, terms: Sequence[str]) -> list[Any]:
            self._use_substrings(terms)
            exact_part = load_lexical(match, terms, True, exact_limit) if exact_limit > 0 else []
            return [*exact_part, *load_lexical(match, terms, False, limit)]

        lexical: dict[str, Hit] = {}
        for plan in plans:
            if not plan.match and not plan.substrings:
                continue
            used_match = plan.match is not None
            try:
                rows = partitions(plan.match, plan.substrings)
            except Exception:
                if plan.match is None:
                    raise
                used_match = False
                rows = partitions(None, unique([*raw_tokens(plan.query, with_marks=True), *plan.substrings]))
            for chunk_id, path, source, start, end, text, rank in self._first_chunks(rows):
                path_score = bm25_score(rank) if used_match else 1.0
                hit = Hit(id=chunk_id, path=path, start_line=start, end_line=end, source=source,
                          snippet=truncate(text), score=path_score, path_score=path_score, tier=tier_of(path),
                          found_by=[f"path:{query}"])
                known = lexical.get(chunk_id)
                if known is None:
                    lexical[chunk_id] = hit
                    continue
                known.path_score = max(known.path_score, hit.path_score)
                known.score = max(known.score, hit.score)
                known.tier = max(known.tier, hit.tier)
        non_exact = 0
        for hit in sorted(lexical.values(), key=functools.cmp_to_key(compare_path_hits)):
            exact = by_id.get(hit.id)
            if hit.tier > 0:
                if exact is None:
                    continue
                exact.path_score = max(exact.path_score, hit.path_score)
                exact.score = max(exact.score, hit.score)
                exact.tier = max(exact.tier, hit.tier)
                continue
            if non_exact >= limit:
                continue
            by_id[hit.id] = hit
            non_exact += 1
        return sorted(by_id.values(), key=functools.cmp_to_key(compare_path_hits))[: exact_limit + limit]

    # Vectors ----------------------------------------------------------------------------------------------------
    def vector_search(self, query_vector: Sequence[float], limit: int) -> list[Hit]:
        """The in-process scan (`searchChunksByEmbedding`): cosine of the query and each chunk's stored vector
        (binary64 little-endian), the chunks of the index's model, best `limit` first."""
        if limit <= 0 or not query_vector or all(v == 0 for v in query_vector):
            return []
        source_sql, source_params = self._source_sql("source")
        rows = self.conn.execute(
            f"SELECT id, path, start_line, end_line, text, source, embedding FROM memory_index_chunks "
            f"WHERE model = ?{source_sql} ORDER BY chunk_rowid", [self.model, *source_params]).fetchall()
        scored: list[tuple[float, Hit]] = []
        for chunk_id, path, start, end, text, source, blob in rows:
            vector = decode_embedding(blob)
            similarity = cosine_similarity(query_vector, vector)
            if not math.isfinite(similarity):
                continue
            scored.append((similarity, Hit(id=chunk_id, path=path, start_line=start, end_line=end, source=source,
                                           snippet=truncate(text), vector_score=similarity, has_vector=True,
                                           found_by=["vector"])))
        scored.sort(key=lambda pair: -pair[0])
        return [hit for _score, hit in scored[:limit]]

    # Recall metadata --------------------------------------------------------------------------------------------
    def attach_metadata(self, hits: list[Hit]) -> list[Hit]:
        """`attachRecallMetadata`: importance, triggers, project key and provenance; hits whose chunk is gone are
        dropped."""
        if not hits:
            return hits
        ids = list(dict.fromkeys(h.id for h in hits))
        rows: dict[str, Any] = {}
        for offset in range(0, len(ids), 500):
            part = ids[offset:offset + 500]
            for row in self.conn.execute(
                    "SELECT chunk.id, metadata.importance, metadata.triggers, metadata.project_key, "
                    "provenance.origin_class, provenance.session_kind, provenance.observed_at, "
                    "provenance.supersedes_key FROM memory_index_chunks AS chunk "
                    "LEFT JOIN memory_index_chunk_recall_metadata AS metadata ON metadata.chunk_id = chunk.id "
                    "LEFT JOIN memory_index_chunk_provenance AS provenance ON provenance.chunk_id = chunk.id "
                    f"WHERE chunk.id IN ({', '.join('?' for _ in part)})", part):
                rows[row[0]] = row
        kept = []
        for hit in hits:
            row = rows.get(hit.id)
            if row is None:
                continue
            _id, importance, triggers, project, origin, kind, observed, supersedes = row
            if isinstance(importance, int) and not isinstance(importance, bool):
                hit.importance = importance
            if isinstance(triggers, str) and js_trim(triggers):
                hit.triggers = js_trim(triggers)
            if isinstance(project, str) and js_trim(project):
                hit.project_key = js_trim(project)
            if origin in _ORIGIN_CLASSES and kind in _SESSION_KINDS and isinstance(observed, int | float):
                hit.provenance = {"originClass": origin, "sessionKind": kind, "observedAt": observed}
                if isinstance(supersedes, str) and js_trim(supersedes):
                    hit.provenance["supersedesKey"] = supersedes
            kept.append(hit)
        return kept

    def source_mtime(self, source: str, path: str) -> float | None:
        """The mtime the index recorded for `path` of `source`; None when it has no row."""
        row = self.conn.execute("SELECT mtime FROM memory_index_sources WHERE source = ? AND path = ?",
                                (source, path)).fetchone()
        return None if row is None else float(row[0])

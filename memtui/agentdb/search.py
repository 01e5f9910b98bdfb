"""Search an OpenClaw 2026.9.6 agent database the way `openclaw memory search --json` ranks it, read-only.

The steps restate `manager-search.ts`, `manager-keyword-retrieval.ts`, `manager-search-orchestration.ts`,
`hybrid.ts`, `temporal-decay.ts`, `importance.ts`, `project-ranking.ts` and `mmr.ts` of the 2026.9.6 dist
(benchmarks/openclaw_record/OPENCLAW-2026.9.6.md §5):

1. Keyword search of the full query: FTS5 body hits (bm25 → `textScore`, then the lexical boost) and path hits
   (path FTS bm25 → `pathScore`, exact path tiers 3/2/1), merged by chunk id.
2. Unless the full query already has 200 non-exact hits: one more keyword search per `extractKeywords` term (at
   most 6), ranked against the full query, merged in.
3. Keyword-only: exact hits scored `(1 + body)/2`, temporal decay (half-life 30 days, `now_ms` stands for
   OpenClaw's `Date.now()`), importance, project ranking, sort, min-score selection.
   Hybrid (a query vector is given): `0.7·cosine + 0.3·keyword`, the same multipliers, exact tiers first, MMR
   (λ 0.7) inside each group, then the hybrid selection that tops up with keyword-only hits below minScore.

Every hit carries a `trace` of the numbers that placed it. The database is opened with
`ownership.open_read_only` (an immutable snapshot or `mode=ro`, `query_only`) and never written; the SQL
functions this module registers live only on that connection.
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import os
import struct
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from memtui.agentdb.keywords import (
    build_fts_query,
    extract_keywords,
    js_lower,
    quote_terms,
    raw_tokens,
    search_tokens,
    unique,
)
from memtui.agentdb.mmr import MmrStep, mmr_rerank
from memtui.agentdb.ownership import open_read_only
from memtui.jscompat import js_length, js_slice, js_trim

DEFAULT_MAX_RESULTS = 6
DEFAULT_MIN_SCORE = 0.35
CANDIDATE_UNIVERSE = 200  # SEARCH_CANDIDATE_UNIVERSE
CANDIDATE_MULTIPLIER = 4
EXACT_PATH_CANDIDATE_LIMIT = 200
KEYWORD_FALLBACK_TERM_LIMIT = 6
SNIPPET_MAX_CHARS = 700
VECTOR_WEIGHT = 0.7
TEXT_WEIGHT = 0.3
MMR_LAMBDA = 0.7
HALF_LIFE_DAYS = 30.0
DAY_MS = 86_400_000
INVALID_PROJECT_KEY = "!invalid-project-annotation"
_ORIGIN_CLASSES = frozenset({"owner", "agent", "untrusted", "system"})
_SESSION_KINDS = frozenset({"interactive", "cron", "heartbeat", "subagent", "unknown"})
_DATED_PATH = regex.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]+)?\.md$")
_ASCII_ANCHOR = regex.compile(r"[a-z0-9_]+")
_TIER_FN = "memtui_exact_path_tier"
_CONTAINS_FN = "memtui_normalized_contains"
_FTS = "memory_index_chunks_fts"
_PATHS_FTS = "memory_index_paths_fts"


@dataclass(frozen=True)
class AgentHit:
    """One result as OpenClaw returns it (`score`, `text_score`, `vector_score` — None in keyword-only mode), the
    chunk's recall metadata, and `trace`: every number that changed its rank."""

    path: str
    start_line: int
    end_line: int
    score: float
    text_score: float
    vector_score: float | None
    source: str
    snippet: str
    chunk_id: str
    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None
    provenance: dict[str, Any] | None = None
    trace: dict[str, Any] = field(default_factory=dict, compare=False)


# ----------------------------------------------------------------------------------------------------------------
# JavaScript string order (`String.prototype.localeCompare`, ICU root collation as Node 24 ships it)

# Printable ASCII in ICU root order (variable characters are not ignorable): what Node 24 sorts them into.
_ASCII_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ"
_ASCII_PRIMARY: dict[str, int] = {}
for _rank, _char in enumerate(_ASCII_ORDER):
    _ASCII_PRIMARY[_char] = _ASCII_PRIMARY.get(_char.lower(), _rank) if _char.isupper() else _rank


def _collation_key(text: str) -> tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...]]:
    """Primary (base characters, case- and accent-blind), secondary (accents), tertiary (lowercase first)
    weights. Exact for ASCII and accented Latin; other scripts sort after Latin by code point (an
    approximation of ICU's script order)."""
    primary: list[int] = []
    secondary: list[str] = []
    tertiary: list[int] = []
    for char in unicodedata.normalize("NFD", text):
        if unicodedata.combining(char):
            if secondary:
                secondary[-1] += char
            continue
        base = char.lower()
        if char in _ASCII_PRIMARY:
            weight = _ASCII_PRIMARY[char]
        elif base in _ASCII_PRIMARY:
            weight = _ASCII_PRIMARY[base]
        else:
            weight = 1000 + ord(base[0])
        primary.append(weight)
        secondary.append("")
        tertiary.append(0 if char == base else 1)
    return tuple(primary), tuple(secondary), tuple(tertiary)


def locale_compare(left: str, right: str) -> int:
    """`left.localeCompare(right)` as -1, 0 or 1."""
    if left == right:
        return 0
    a, b = _collation_key(left), _collation_key(right)
    return (a > b) - (a < b)


def _cmp(a: float, b: float) -> int:
    return (a > b) - (a < b)


# ----------------------------------------------------------------------------------------------------------------
# Candidates


@dataclass
class _Hit:
    id: str
    path: str
    start_line: int
    end_line: int
    source: str
    snippet: str
    score: float = 0.0
    text_score: float = 0.0
    path_score: float = 0.0
    tier: int = 0
    has_body: bool = False
    boost: dict[str, Any] | None = None
    found_by: list[str] = field(default_factory=list)
    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None
    provenance: dict[str, Any] | None = None
    vector_score: float = 0.0
    has_vector: bool = False
    has_keyword: bool = False
    trace: dict[str, Any] = field(default_factory=dict)


def _truncate(text: str, limit: int = SNIPPET_MAX_CHARS) -> str:
    """`truncateUtf16Safe`: at most `limit` UTF-16 units, never ending in half a surrogate pair."""
    if js_length(text) <= limit:
        return text
    cut = js_slice(text, 0, limit)
    if cut and "\ud800" <= cut[-1] <= "\udbff":
        cut = cut[:-1]
    return cut


def _normalize_path_id(value: str) -> str:
    value = js_trim(value).replace("\\", "/")
    if value.startswith("./"):
        value = value[2:]
    return js_lower(unicodedata.normalize("NFC", value))


def exact_path_matcher(query: str) -> Callable[[str], int]:
    """`prepareExactPathMatcher`: 3 = the whole path, 2 = the basename (queries without `/`), 1 = the stem."""
    wanted = _normalize_path_id(query)
    if not wanted or wanted == ".":
        return lambda _path: 0
    has_directory = "/" in wanted

    def tier(candidate: str) -> int:
        path = _normalize_path_id(candidate)
        if wanted == path:
            return 3
        if has_directory:
            return 0
        base = path.split("/")[-1]
        if wanted == base:
            return 2
        dot = base.rfind(".")
        stem = base[:dot] if dot > 0 else base
        return 1 if wanted == stem else 0

    return tier


def _like_escape(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _exact_path_patterns(query: str) -> list[str]:
    """`buildExactPathCandidatePatterns`: the LIKE patterns that pre-select exact-path candidates."""
    normalized = js_trim(query).replace("\\", "/")
    if normalized.startswith("./"):
        normalized = normalized[2:]
    if not normalized or normalized == ".":
        return []
    canonical = [unicodedata.normalize("NFC", normalized), unicodedata.normalize("NFD", normalized)]
    forms = list(dict.fromkeys(canonical))
    ascii_query = normalized.isascii()
    if not ascii_query:
        for form in canonical:
            for variant in (form.lower(), form.upper()):
                if variant not in forms:
                    forms.append(variant)
    patterns: list[str] = []
    for form in forms:
        escaped = _like_escape(form)
        variants = [escaped] if "/" in normalized else [escaped, f"{escaped}.%", f"%/{escaped}", f"%/{escaped}.%"]
        patterns.extend(variants)
    if not ascii_query:
        runs = sorted(_ASCII_ANCHOR.findall(unicodedata.normalize("NFD", normalized).lower()), key=len, reverse=True)
        if runs:
            patterns.append(f"%{_like_escape(runs[0])}%")
        if normalized.lower() != normalized.upper():
            first = next(c for c in normalized if not c.isascii())
            for anchor in dict.fromkeys([first, first.lower(), first.upper()]):
                patterns.append(f"%{_like_escape(anchor)}%")
    return list(dict.fromkeys(patterns))


def _bm25_score(rank: float | None) -> float:
    """`bm25RankToScore`."""
    if rank is None or not math.isfinite(rank):
        return 1 / 1000
    if rank < 0:
        relevance = -rank
        return relevance / (1 + relevance)
    return 1 / (1 + rank)


def _literal(term: str, *, whole: bool = False) -> Any:
    literal = regex.escape(unicodedata.normalize("NFC", term))
    return regex.compile(f"^(?:{literal})$" if whole else literal, regex.IGNORECASE | regex.V0)


@dataclass(frozen=True)
class _Plan:
    query: str
    match: str | None
    substrings: tuple[str, ...]


class _AgentIndex:
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
    def body_search(self, query: str, ranking_query: str, limit: int) -> list[_Hit]:
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
            text_score = _bm25_score(rank) if used_match else 0.0
            score, boost = _boosted(text_score, text, path, matchers)
            hits.append(_Hit(id=chunk_id, path=path, start_line=start, end_line=end, source=source,
                             snippet=_truncate(text), score=score, text_score=text_score, has_body=True,
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
                    exact_limit: int = EXACT_PATH_CANDIDATE_LIMIT) -> list[_Hit]:
        """`searchPathKeyword`: exact-path candidates and path-FTS hits, each as its path's first chunk."""
        if limit <= 0:
            return []
        plans = self._path_plans(query)
        first = plans[0] if plans else _Plan(query, None, ())
        tier_of = exact_path_matcher(exact_query)
        self._tier = tier_of
        source_sql, source_params = self._source_sql(f"{_PATHS_FTS}.source")
        patterns = _exact_path_patterns(exact_query)
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
        by_id: dict[str, _Hit] = {}
        for chunk_id, path, source, start, end, text, tier in self._first_chunks(exact_rows):
            by_id[chunk_id] = _Hit(id=chunk_id, path=path, start_line=start, end_line=end, source=source,
                                   snippet=_truncate(text), tier=tier, found_by=[f"path:{query}"])
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

        lexical: dict[str, _Hit] = {}
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
                path_score = _bm25_score(rank) if used_match else 1.0
                hit = _Hit(id=chunk_id, path=path, start_line=start, end_line=end, source=source,
                           snippet=_truncate(text), score=path_score, path_score=path_score, tier=tier_of(path),
                           found_by=[f"path:{query}"])
                known = lexical.get(chunk_id)
                if known is None:
                    lexical[chunk_id] = hit
                    continue
                known.path_score = max(known.path_score, hit.path_score)
                known.score = max(known.score, hit.score)
                known.tier = max(known.tier, hit.tier)
        non_exact = 0
        for hit in sorted(lexical.values(), key=functools.cmp_to_key(_compare_path_hits)):
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
        return sorted(by_id.values(), key=functools.cmp_to_key(_compare_path_hits))[: exact_limit + limit]

    # Vectors ----------------------------------------------------------------------------------------------------
    def vector_search(self, query_vector: Sequence[float], limit: int) -> list[_Hit]:
        """The in-process scan (`searchChunksByEmbedding`): cosine of the query and each chunk's stored vector
        (binary64 little-endian), the chunks of the index's model, best `limit` first."""
        if limit <= 0 or not query_vector or all(v == 0 for v in query_vector):
            return []
        source_sql, source_params = self._source_sql("source")
        rows = self.conn.execute(
            f"SELECT id, path, start_line, end_line, text, source, embedding FROM memory_index_chunks "
            f"WHERE model = ?{source_sql} ORDER BY chunk_rowid", [self.model, *source_params]).fetchall()
        scored: list[tuple[float, _Hit]] = []
        for chunk_id, path, start, end, text, source, blob in rows:
            vector = decode_embedding(blob)
            similarity = cosine_similarity(query_vector, vector)
            if not math.isfinite(similarity):
                continue
            scored.append((similarity, _Hit(id=chunk_id, path=path, start_line=start, end_line=end, source=source,
                                            snippet=_truncate(text), vector_score=similarity, has_vector=True,
                                            found_by=["vector"])))
        scored.sort(key=lambda pair: -pair[0])
        return [hit for _score, hit in scored[:limit]]

    # Recall metadata --------------------------------------------------------------------------------------------
    def attach_metadata(self, hits: list[_Hit]) -> list[_Hit]:
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
        row = self.conn.execute("SELECT mtime FROM memory_index_sources WHERE source = ? AND path = ?",
                                (source, path)).fetchone()
        return None if row is None else float(row[0])


def decode_embedding(blob: Any) -> list[float]:
    """`decodeMemoryEmbedding`: IEEE-754 binary64 little-endian; a length that is not a multiple of 8 or a
    non-finite coordinate makes the vector unusable (empty)."""
    if not isinstance(blob, bytes | bytearray | memoryview):
        return []
    data = bytes(blob)
    if len(data) % 8:
        return []
    values = list(struct.unpack(f"<{len(data) // 8}d", data))
    return values if all(math.isfinite(v) for v in values) else []


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """`cosineSimilarity` of embedding-vector.ts (over the shorter length; 0 for an empty or zero vector)."""
    if not a or not b:
        return 0.0
    dot = norm_a = norm_b = 0.0
    for x, y in zip(a, b, strict=False):
        dot += x * y
        norm_a += x * x
        norm_b += y * y
    if norm_a == 0 or norm_b == 0:
        return 0.0
    return dot / (math.sqrt(norm_a) * math.sqrt(norm_b))


def _boosted(text_score: float, text: str, path: str,
             matchers: Sequence[tuple[str, Any, Any]]) -> tuple[float, dict[str, Any] | None]:
    """`scoreFallbackKeywordResult`: bm25 score plus 0.45·overlap/|Q| + 0.2·overlap/|T| + 0.18 per query token
    in the path + min(length/160, 0.18), capped at 1."""
    if not matchers:
        return text_score, None
    text_tokens = search_tokens(text)
    distinct = len(set(text_tokens))
    overlap_terms = [t for t, word, _sub in matchers if any(word.match(token) for token in text_tokens)]
    overlap = len(overlap_terms)
    query_overlap = overlap / len(matchers)
    density = overlap / max(distinct, 1)
    nfc_path = unicodedata.normalize("NFC", path)
    path_boost = 0.0
    path_terms = []
    for term, _word, substring in matchers:
        hit = substring.search(nfc_path) is not None
        path_boost = path_boost + (0.18 if hit else 0)
        if hit:
            path_terms.append(term)
    length_boost = min(js_length(text) / 160, 0.18)
    lexical = query_overlap * 0.45 + density * 0.2 + path_boost + length_boost
    score = min(1.0, text_score + lexical)
    return score, {"queryTokens": [t for t, _w, _s in matchers], "overlap": overlap_terms,
                   "distinctTextTokens": distinct, "overlapBoost": query_overlap * 0.45,
                   "densityBoost": density * 0.2, "pathTokens": path_terms, "pathBoost": path_boost,
                   "lengthBoost": length_boost, "capped": text_score + lexical > 1}


# ----------------------------------------------------------------------------------------------------------------
# Ordering


def _tie_order(a: _Hit, b: _Hit) -> int:
    return locale_compare(a.path, b.path) or _cmp(a.start_line, b.start_line) or locale_compare(a.id, b.id)


def _compare_path_hits(a: _Hit, b: _Hit) -> int:
    """`comparePathKeywordSearchResults`."""
    if a.tier != b.tier:
        return b.tier - a.tier
    if a.tier == 0 and a.path_score != b.path_score:
        return _cmp(b.path_score, a.path_score)
    return _tie_order(a, b)


def _compare_keyword(a: _Hit, b: _Hit, prefer_exact_body: bool = True) -> int:
    """`compareKeywordSearchHits`: tier, (body-backed exact hits first), score, textScore, pathScore (non-exact),
    path, start line, id."""
    if a.tier != b.tier:
        return b.tier - a.tier
    if prefer_exact_body and a.tier > 0 and a.has_body != b.has_body:
        return int(b.has_body) - int(a.has_body)
    if a.score != b.score:
        return _cmp(b.score, a.score)
    if a.text_score != b.text_score:
        return _cmp(b.text_score, a.text_score)
    if a.tier == 0 and a.path_score != b.path_score:
        return _cmp(b.path_score, a.path_score)
    return _tie_order(a, b)


_KEYWORD_ORDER = functools.cmp_to_key(_compare_keyword)
_KEYWORD_ORDER_DECAY = functools.cmp_to_key(lambda a, b: _compare_keyword(a, b, False))


def _merge_keyword(result_sets: Sequence[Sequence[_Hit]], exact_query: str) -> list[_Hit]:
    """`mergeKeywordSearchHits`: one hit per chunk id; body scores take the max, path-only hits score 1 when
    exact, else their pathScore."""
    tier_of = exact_path_matcher(exact_query)
    seen: dict[str, _Hit] = {}
    for results in result_sets:
        for hit in results:
            known = seen.get(hit.id)
            if known is None:
                hit.tier = tier_of(hit.path)
                seen[hit.id] = hit
                continue
            known_body = known.score if known.has_body else 0.0
            new_body = hit.score if hit.has_body else 0.0
            known.text_score = max(known.text_score, hit.text_score)
            known.path_score = max(known.path_score, hit.path_score)
            had_body = known.has_body
            known.has_body = known.has_body or hit.has_body
            body = max(known_body, new_body)
            known.score = body if body > 0 else known.path_score
            if new_body > known_body:
                known.boost = hit.boost
            known.found_by.extend(q for q in hit.found_by if q not in known.found_by)
            if (hit.has_body and not had_body) or (
                    hit.has_body == had_body and js_length(hit.snippet) > js_length(known.snippet)):
                known.snippet = hit.snippet
    merged = list(seen.values())
    for hit in merged:
        if not hit.has_body:
            hit.score = 1.0 if hit.tier > 0 else hit.path_score
    return sorted(merged, key=_KEYWORD_ORDER)


def _limit_keyword(hits: Sequence[_Hit], limit: int) -> list[_Hit]:
    """`limitKeywordSearchHits`: every exact-path hit (body-backed ones capped, at most 200 paths) plus the top
    `limit` others."""
    ranked = sorted(hits, key=_KEYWORD_ORDER)
    exact_body = [h for h in ranked if h.tier > 0 and h.has_body][:limit]
    exact_only = [h for h in ranked if h.tier > 0 and not h.has_body]
    bounded = sorted(exact_body + exact_only, key=_KEYWORD_ORDER)
    paths: set[tuple[str, str]] = set()
    for hit in bounded:
        paths.add((hit.source, hit.path))
        if len(paths) == EXACT_PATH_CANDIDATE_LIMIT:
            break
    exact = [h for h in bounded if (h.source, h.path) in paths]
    return exact + [h for h in ranked if h.tier == 0][:limit]


# ----------------------------------------------------------------------------------------------------------------
# Search


def _keyword_search(index: _AgentIndex, query: str, limit: int, *, exact_query: str | None = None,
                    ranking_query: str | None = None) -> list[_Hit]:
    """`searchKeyword` (body + path) for one query, merged and limited."""
    exact = exact_query if exact_query is not None else query
    body = index.body_search(query, ranking_query if ranking_query is not None else query, limit)
    paths = index.path_search(query, exact, limit)
    return _limit_keyword(_merge_keyword([body, paths], exact), limit)


def _keyword_with_fallback(index: _AgentIndex, query: str, limit: int) -> tuple[list[_Hit], list[str]]:
    """`searchKeywordWithFallback`: the full query, then each `extractKeywords` term (ranked against the full
    query) unless the full query already filled the limit or the terms would repeat it. Returns the hits with
    their recall metadata and the fallback terms that ran."""
    full = _keyword_search(index, query, limit)
    if sum(1 for h in full if h.tier == 0) >= limit:
        return index.attach_metadata(full), []
    lowered = js_lower(js_trim(query))
    terms = [t for t in extract_keywords(query, fts_tokenizer=index.tokenizer) if t != lowered]
    terms = terms[:KEYWORD_FALLBACK_TERM_LIMIT]
    if not terms:
        return index.attach_metadata(full), []
    strict = build_fts_query(query)
    relaxed = build_fts_query(" ".join(terms))
    if full and (strict.lower() if strict else None) == (relaxed.lower() if relaxed else None):
        return index.attach_metadata(full), []
    per_term = [_keyword_search(index, term, limit, exact_query=query, ranking_query=query) for term in terms]
    merged = _limit_keyword(_merge_keyword([full, *per_term], query), limit)
    return index.attach_metadata(merged), terms


def _timestamp_ms(index: _AgentIndex, hit: _Hit, workspace_dir: Path | None) -> tuple[float | None, str]:
    """`extractTimestamp` for a memory file: the date in a `memory/…/YYYY-MM-DD*.md` name (UTC midnight), none for
    evergreen files (MEMORY.md, USER.md, undated memory/**), else the file's mtime (OpenClaw stats the workspace
    file; without `workspace_dir` the indexed mtime stands in)."""
    normalized = hit.path.replace("\\", "/")
    if normalized.startswith("./"):
        normalized = normalized[2:]
    if hit.source == "sessions":
        mtime = index.source_mtime(hit.source, hit.path)
        return mtime, "session mtime"
    match = _DATED_PATH.search(normalized)
    if match:
        year, month, day = (int(g) for g in match.groups())
        try:
            stamp = datetime.datetime(year, month, day, tzinfo=datetime.UTC)
        except ValueError:
            stamp = None
        if stamp is not None:
            return stamp.timestamp() * 1000, "date in path"
    if hit.source == "memory" and (normalized in ("MEMORY.md", "USER.md") or (
            normalized.startswith("memory/") and not match)):
        return None, "evergreen"
    if workspace_dir is not None:
        try:
            return os.stat(workspace_dir / hit.path).st_mtime_ns / 1e6, "file mtime"
        except OSError:
            return None, "file missing"
    return index.source_mtime(hit.source, hit.path), "indexed mtime"


def _apply_decay(index: _AgentIndex, items: Sequence[Any], now_ms: int, workspace_dir: Path | None,
                 hit_of: Callable[[Any], _Hit], score_of: Callable[[Any], float],
                 set_score: Callable[[Any, float], None]) -> None:
    """`applyTemporalDecayToHybridResults`: score × exp(−ln2/30 · age in days) for hits with a timestamp."""
    cache: dict[tuple[str, str], tuple[float | None, str]] = {}
    for item in items:
        hit = hit_of(item)
        key = (hit.source, hit.path)
        if key not in cache:
            cache[key] = _timestamp_ms(index, hit, workspace_dir)
        stamp, why = cache[key]
        if stamp is None:
            hit.trace["decay"] = {"timestamp": None, "why": why, "factor": 1.0}
            continue
        age = max(0.0, (now_ms - stamp) / DAY_MS)
        factor = math.exp(-(math.log(2) / HALF_LIFE_DAYS) * age) if math.isfinite(age) else 1.0
        hit.trace["decay"] = {"timestamp": stamp, "why": why, "ageDays": age, "factor": factor}
        set_score(item, score_of(item) * factor)


def importance_multiplier(importance: int | None) -> float:
    """`importanceMultiplier`: 0.75 + 0.05·clamp(floor(importance), 1, 10); 1 without an importance."""
    if importance is None:
        return 1.0
    return 0.75 + max(1, min(10, math.floor(importance))) * 0.05


def project_multiplier(project_key: str | None, active: frozenset[str]) -> float:
    """`projectScoreMultiplier`: ×1.15 when every key of the chunk is active, ×0.9 otherwise, ×1 without keys."""
    if not project_key or not active:
        return 1.0
    keys = [k.strip() for k in project_key.split(";") if k.strip()]
    return 1.15 if all(k in active for k in keys) else 0.9


def _project_eligible(hit: _Hit) -> bool:
    return not (hit.project_key and INVALID_PROJECT_KEY in [k.strip() for k in hit.project_key.split(";")])


def _finalize_keyword_only(index: _AgentIndex, hits: list[_Hit], *, now_ms: int, min_score: float,
                           universe: int, active: frozenset[str], workspace_dir: Path | None) -> list[_Hit]:
    """`finalizeKeywordOnlyResults` with temporal decay on."""
    for hit in hits:
        hit.trace["bodyScore"] = hit.score if hit.has_body else None
        if hit.tier > 0:
            content = hit.score if hit.has_body else 0.0
            hit.score = (1 + max(0.0, min(1.0, content))) / 2
            hit.trace["exactTieScore"] = hit.score
    _apply_decay(index, hits, now_ms, workspace_dir, lambda h: h, lambda h: h.score,
                 lambda h, s: setattr(h, "score", s))
    for hit in hits:
        multiplier = importance_multiplier(hit.importance)
        hit.trace["importanceMultiplier"] = multiplier
        hit.score = hit.score * multiplier
    eligible = [h for h in hits if _project_eligible(h)]
    for hit in eligible:
        multiplier = project_multiplier(hit.project_key, active)
        hit.trace["projectMultiplier"] = multiplier
        if active:
            hit.score = hit.score * multiplier
    ranked = sorted(eligible, key=_KEYWORD_ORDER_DECAY)
    for hit in ranked:
        hit.trace["rankingScore"] = hit.score
        if hit.tier > 0:
            hit.score = project_multiplier(hit.project_key, active)
    strict = [h for h in ranked if h.score >= min_score]
    selected = strict if strict else [h for h in ranked if h.score >= 0]
    return selected[:universe]


def _range_key(hit: _Hit) -> tuple[str, str, int, int]:
    return hit.source, hit.path, hit.start_line, hit.end_line


@dataclass
class _HybridEntry:
    hit: _Hit
    score: float
    content: float
    lexical_rank: float
    ranking: float = 0.0


def _merge_hybrid(index: _AgentIndex, query: str, vector: list[_Hit], keyword: list[_Hit], *, now_ms: int,
                  active: frozenset[str], workspace_dir: Path | None) -> list[_Hit]:
    """`mergeHybridResults` with MMR and temporal decay on."""
    tier_of = exact_path_matcher(query)
    by_id: dict[str, _Hit] = {}
    keyword_rank: dict[str, float] = {}
    for v in vector:
        v.tier = tier_of(v.path)
        by_id[v.id] = v
    for k in keyword:
        known = by_id.get(k.id)
        keyword_rank[k.id] = k.score
        if known is not None:
            known.text_score = k.text_score
            known.has_body = k.has_body
            known.path_score = k.path_score
            known.tier = max(known.tier, k.tier)
            known.has_keyword = True
            known.boost = k.boost
            known.found_by.extend(q for q in k.found_by if q not in known.found_by)
            if k.snippet:
                known.snippet = k.snippet
        else:
            k.vector_score = 0.0
            k.has_keyword = True
            by_id[k.id] = k
    entries: list[_HybridEntry] = []
    for hit in by_id.values():
        ranking_kw = keyword_rank.get(hit.id, 0.0)
        keyword_score = ranking_kw if hit.text_score > 0 else (0.0 if hit.tier > 0 else hit.path_score)
        content = VECTOR_WEIGHT * hit.vector_score + TEXT_WEIGHT * keyword_score
        lexical_rank = ranking_kw if hit.has_body and hit.text_score == 0 else 0.0
        exact_tie = (1 + max(0.0, min(1.0, content))) / 2
        score = exact_tie if hit.tier > 0 else (lexical_rank if content == 0 else content)
        hit.trace.update({"keywordScore": keyword_score, "bodyScore": ranking_kw if hit.has_body else None,
                          "contentScore": content, "lexicalRank": lexical_rank, "preDecayScore": score})
        entries.append(_HybridEntry(hit, score, content, lexical_rank))
    _apply_decay(index, entries, now_ms, workspace_dir, lambda e: e.hit, lambda e: e.score,
                 lambda e, s: setattr(e, "score", s))
    for entry in entries:
        multiplier = importance_multiplier(entry.hit.importance)
        entry.hit.trace["importanceMultiplier"] = multiplier
        entry.score = entry.score * multiplier
    rankable = [e for e in entries if _project_eligible(e.hit)]
    for entry in rankable:
        multiplier = project_multiplier(entry.hit.project_key, active)
        entry.hit.trace["projectMultiplier"] = multiplier
        if active:
            entry.score = entry.score * multiplier
        entry.ranking = entry.score
        entry.hit.trace["rankingScore"] = entry.ranking
        if entry.hit.tier > 0:
            entry.score = multiplier
        elif entry.content == 0:
            entry.score = 0.0

    def by_ranking(a: _HybridEntry, b: _HybridEntry) -> int:
        return (_cmp(b.ranking, a.ranking) or _cmp(b.lexical_rank, a.lexical_rank)
                or locale_compare(a.hit.path, b.hit.path) or _cmp(a.hit.start_line, b.hit.start_line)
                or _cmp(a.hit.end_line, b.hit.end_line))

    def by_score(a: _HybridEntry, b: _HybridEntry) -> int:
        return _cmp(b.score, a.score) or by_ranking(a, b)

    def rerank(group: list[_HybridEntry], relevance: Callable[[_HybridEntry], float], label: str) -> list[_Hit]:
        out = []
        for entry, step in mmr_rerank(group, relevance, lambda e: e.hit.snippet, MMR_LAMBDA):
            entry.hit.trace["mmr"] = _mmr_trace(step, label)
            out.append(entry)
        return [_hybrid_hit(e) for e in out]

    ordered: list[_Hit] = []
    for tier in (3, 2, 1):
        group = sorted((e for e in rankable if e.hit.tier == tier), key=functools.cmp_to_key(by_ranking))
        hits = rerank(group, lambda e: e.ranking, f"exact tier {tier}")
        for hit in hits:
            hit.score = project_multiplier(hit.project_key, active)
        ordered.extend(hits)
    non_exact = sorted((e for e in rankable if e.hit.tier == 0), key=functools.cmp_to_key(by_score))
    ordered.extend(rerank(non_exact, lambda e: e.score, "non-exact"))
    return ordered


def _hybrid_hit(entry: _HybridEntry) -> _Hit:
    entry.hit.score = entry.score
    return entry.hit


def _mmr_trace(step: MmrStep | None, group: str) -> dict[str, Any]:
    if step is None:
        return {"group": group, "applied": False}
    return {"group": group, "position": step.position, "relevance": step.relevance,
            "maxSimilarity": step.max_similarity, "mmrScore": step.mmr_score}


def _select_hybrid(merged: list[_Hit], keyword: list[_Hit], universe: int, min_score: float) -> list[_Hit]:
    """`selectHybridSearchResults`: hits at or above minScore; with none, keyword-backed hits ≥ 0; with too few,
    topped up with keyword-only hits (vectorScore 0) below minScore."""
    strict = [h for h in merged if h.score >= min_score]
    selected = strict[:universe]
    if not keyword or len(selected) == universe:
        return selected
    keyword_keys = {_range_key(h) for h in keyword}
    if not strict:
        return [h for h in merged if h.score >= 0 and _range_key(h) in keyword_keys][:universe]
    seen = {_range_key(h) for h in selected}
    for hit in merged:
        if len(selected) == universe:
            break
        key = _range_key(hit)
        if hit.score < min_score and hit.vector_score == 0 and key in keyword_keys and key not in seen:
            seen.add(key)
            hit.trace["belowMinScoreTopUp"] = True
            selected.append(hit)
    return selected


def _index_meta(conn: Any) -> dict[str, Any]:
    row = conn.execute("SELECT value FROM memory_index_meta WHERE key = 'memory_index_meta_v1'").fetchone()
    if row is None or not isinstance(row[0], str):
        return {}
    try:
        meta = json.loads(row[0])
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def search_agent_db(path: Path, query: str, *, max_results: int | None = None, min_score: float | None = None,
                    now_ms: int, query_vector: Sequence[float] | None = None,
                    sources: tuple[str, ...] = ("memory",), active_project_keys: Sequence[str] = (),
                    workspace_dir: Path | None = None) -> list[AgentHit]:
    """Rank the chunks of OpenClaw 2026.9.6's agent database at `path` for `query` as `openclaw memory search`
    does: keyword-only when `query_vector` is None, hybrid otherwise (the query's embedding from the index's
    provider, normalised or not). `now_ms` is the clock temporal decay measures age against (OpenClaw's
    `Date.now()` at search time); `max_results` / `min_score` default to OpenClaw's 6 and 0.35."""
    cleaned = js_trim(query)
    if not cleaned:
        return []
    limit_out = DEFAULT_MAX_RESULTS if max_results is None else max_results
    threshold = DEFAULT_MIN_SCORE if min_score is None else min_score
    active = frozenset(active_project_keys)
    universe = CANDIDATE_UNIVERSE if active else max(CANDIDATE_UNIVERSE, limit_out)
    candidates = min(200, max(1, math.floor(universe * CANDIDATE_MULTIPLIER)))
    conn = open_read_only(Path(path))
    try:
        meta = _index_meta(conn)
        if conn.execute("SELECT 1 FROM memory_index_chunks LIMIT 1").fetchone() is None:
            return []
        index = _AgentIndex(conn, sources, meta.get("model"), str(meta.get("ftsTokenizer") or "unicode61"))
        keyword, terms = _keyword_with_fallback(index, cleaned, candidates)
        if query_vector is None:
            final = _finalize_keyword_only(index, keyword, now_ms=now_ms, min_score=threshold, universe=universe,
                                           active=active, workspace_dir=workspace_dir)
            hybrid = False
        else:
            vector = index.attach_metadata(index.vector_search(query_vector, candidates))
            merged = _merge_hybrid(index, cleaned, vector, keyword, now_ms=now_ms, active=active,
                                   workspace_dir=workspace_dir)
            final = _select_hybrid(merged, keyword, universe, threshold)
            hybrid = True
    finally:
        conn.close()
    return [_public(hit, hybrid, terms, position) for position, hit in enumerate(final[:limit_out], start=1)]


def _public(hit: _Hit, hybrid: bool, terms: list[str], position: int) -> AgentHit:
    trace = {"position": position, "exactTier": hit.tier, "hasBodyMatch": hit.has_body,
             "textScore": hit.text_score, "pathScore": hit.path_score, "boost": hit.boost,
             "foundBy": list(hit.found_by), "fallbackTerms": list(terms), **hit.trace}
    if hybrid:
        trace["vectorScore"] = hit.vector_score
    return AgentHit(path=hit.path, start_line=hit.start_line, end_line=hit.end_line, score=hit.score,
                    text_score=hit.text_score, vector_score=hit.vector_score if hybrid else None, source=hit.source,
                    snippet=hit.snippet, chunk_id=hit.id, importance=hit.importance, triggers=hit.triggers,
                    project_key=hit.project_key, provenance=hit.provenance, trace=trace)


def memory_search_json(hits: Sequence[AgentHit]) -> dict[str, Any]:
    """What `openclaw memory search --json` prints for `hits`: `{"results": [...]}`, each result with OpenClaw's
    keys in OpenClaw's order (`vectorScore` only in hybrid mode; importance, triggers and projectKey only when
    set)."""
    results = []
    for hit in hits:
        item: dict[str, Any] = {"path": hit.path, "startLine": hit.start_line, "endLine": hit.end_line,
                                "score": hit.score}
        if hit.vector_score is not None:
            item["vectorScore"] = hit.vector_score
        item["textScore"] = hit.text_score
        item["snippet"] = hit.snippet
        item["source"] = hit.source
        if hit.importance is not None:
            item["importance"] = hit.importance
        if hit.triggers is not None:
            item["triggers"] = hit.triggers
        if hit.project_key is not None:
            item["projectKey"] = hit.project_key
        if hit.provenance is not None:
            item["provenance"] = dict(hit.provenance)
        results.append(item)
    return {"results": results}

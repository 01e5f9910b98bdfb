"""BM25 in SQL, scored exactly as FTS5's `bm25()` scores the SQLite store's memtui keyword table.

FTS5 (`fts5_aux.c`): per phrase i of the query, IDF = ln((N - n_i + 0.5) / (n_i + 0.5)), 1e-6 when not positive;
score = Σ_i IDF_i · (f_i · (k1 + 1)) / (f_i + k1 · (1 - b + b · D / avgdl)), with k1 = 1.2, b = 0.75, N the
generation's chunks, avgdl its terms per chunk, D the chunk's terms, f_i the phrase's occurrences in the chunk,
n_i the chunks holding it (N, avgdl and n_i over all the generations of a pooled `Scope`); the result is -score.
The SQL below computes the same double-precision expressions in the same order (the sum in phrase order), so
ranks and scores agree to the last bit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

_PHRASE = re.compile(r'"([^"]*)"')
K1, B = 1.2, 0.75
_K1, _B = "1.2::float8", "0.75::float8"
# One phrase's term in a chunk's score: `h` a hit (tf, length), `idf` its phrase's row in its generation.
BM25_WEIGHT = (f"idf.value * ((h.tf * ({_K1} + 1.0::float8)) / (h.tf + {_K1} * (1.0::float8 - {_B} + {_B} * "
               "h.length / idf.avgdl)))")

# One term's posting in one chunk `b` (the term's `idf` row), looked up by its key. OFFSET 0 keeps the planner from
# flattening it into a join that reads the term's every posting for each chunk (it did: 1 s for 1,900 chunks at a
# million).
SEEK = ("(SELECT p.tf, p.length FROM memtui.postings p WHERE p.gen = b.gen AND p.lexeme = idf.lexeme AND "
        "p.seq = b.seq OFFSET 0)")


@dataclass(frozen=True)
class Scope:
    """The generations a ranking reads (`gens`: SQL selecting them) and the statistics that score their chunks:
    each chunk its own generation's (an agent's search, as its SQLite store scores it), or with `pooled` those of
    all the generations as one corpus (a fleet search: N, the average length and each term's chunk count summed
    over them, so that a small agent's rare word weighs what it weighs in the fleet)."""

    gens: str
    pooled: bool = False

    def generations(self) -> str:
        """The CTE `g`: (gen, chunks, tokens) of each generation holding chunks, the counts pooled or its own."""
        counts = "sum(chunks) OVER ()::bigint, sum(tokens) OVER ()::bigint" if self.pooled else "chunks, tokens"
        return (f"g (gen, chunks, tokens) AS MATERIALIZED (SELECT gen, {counts} FROM memtui.generations WHERE gen IN "
                f"({self.gens}) AND chunks > 0)")

    def per_phrase(self, alias: str) -> str:
        """The window partition counting a phrase's chunks (`alias`: the rows with `gen` and `i`)."""
        return f"{alias}.i" if self.pooled else f"{alias}.gen, {alias}.i"


def match_phrases(match: str, tokens: Callable[[str], list[str]], term: Callable[[str], str]) -> list[list[str]]:
    """The phrases of a MATCH expression of quoted phrases joined with OR (`fts_query.stemmed_match`), each as
    the terms FTS5's `porter unicode61` tokenizer makes of it: its word `tokens`, each through `term`."""
    return [[term(token) for token in tokens(phrase)] for phrase in _PHRASE.findall(match)]


def keyword_sql(phrases: Sequence[Sequence[str]], scope: Scope, *, filters: str,
                limit: int) -> tuple[str, dict[str, Any]]:
    """SQL and parameters ranking the chunks of the generations of `scope` for the OR of `phrases`, with its
    statistics: (gen, seq, id, path, source, start_line, end_line, model, text, bm25), best first, ties by
    generation and seq; `filters` (SQL on `c`, the chunks row) is applied before the limit."""
    if phrases and all(len(phrase) == 1 for phrase in phrases):
        return _terms_sql([phrase[0] for phrase in phrases], scope, filters=filters, limit=limit)
    params: dict[str, Any] = {"limit": limit}
    parts: list[str] = []
    singles = [(i, phrase[0]) for i, phrase in enumerate(phrases) if len(phrase) == 1]
    if singles:
        params["single_i"] = [i for i, _ in singles]
        params["single_lexeme"] = [lexeme for _, lexeme in singles]
        parts.append("SELECT g.gen, q.i, p.seq, p.tf, p.length FROM g CROSS JOIN unnest(%(single_i)s::int[], "
                     "%(single_lexeme)s::text[]) AS q(i, lexeme) JOIN memtui.postings p ON p.gen = g.gen AND "
                     "p.lexeme = q.lexeme")
    for i, phrase in enumerate(phrases):
        if len(phrase) > 1:
            parts.append(phrase_hits(i, phrase, params))
    if not parts:
        return "", params
    hits = " UNION ALL ".join(parts)
    sql = (
        f"WITH {scope.generations()}, hits AS MATERIALIZED ({hits}), "
        # one row per (generation, phrase), joined to the hits by hash (its own join to g made a nested loop)
        f"idf AS MATERIALIZED ({counted_idf('hits', scope)}), "
        f"scored AS (SELECT h.gen, h.seq, sum({BM25_WEIGHT} ORDER BY h.i) AS score FROM hits h JOIN idf ON "
        f"idf.gen = h.gen AND idf.i = h.i GROUP BY h.gen, h.seq) {ranked_rows(filters)}"
    )
    return sql, params


def idf_columns(chunks: str, tokens: str, n: str) -> str:
    """`value, avgdl` of a phrase held by `n` of a generation's `chunks` chunks of `tokens` terms in all: FTS5's
    IDF (1e-6 when not positive) and the average length, for `BM25_WEIGHT`; a subquery to join LATERAL."""
    return (f"(SELECT CASE WHEN v.x <= 0 THEN 1e-6::float8 ELSE v.x END AS value, {tokens}::float8 / "
            f"{chunks}::float8 AS avgdl FROM (SELECT ln((({chunks} - {n}) + 0.5::float8) / ({n} + 0.5::float8)) AS "
            "x) v)")


def counted_idf(hits: str, scope: Scope) -> str:
    """Per (generation, phrase) of the CTE `hits` (gen, i, seq, …): i, and the `idf_columns` of the chunks it
    counts there, or in all the generations when `scope` pools them (`g` the generations)."""
    return (f"SELECT h.gen, h.i, v.value, v.avgdl FROM (SELECT gen, i, sum(count(*)) OVER (PARTITION BY "
            f"{scope.per_phrase(hits)})::bigint AS n FROM {hits} GROUP BY gen, i) h JOIN g ON g.gen = h.gen CROSS "
            f"JOIN LATERAL {idf_columns('g.chunks', 'g.tokens', 'h.n')} v")


def term_idf(scope: Scope) -> str:
    """The CTEs `g` (the generations of `scope` holding chunks) and `idf` (per generation holding a query term:
    i, lexeme, FTS5's IDF and the average length, with `scope`'s statistics), the terms `%(q_i)s` /
    `%(q_lexeme)s`, each term's chunk count read from the writer's `memtui.terms`."""
    df = "sum(t.df) OVER (PARTITION BY q.i)::bigint" if scope.pooled else "t.df"
    return (f"{scope.generations()}, held AS MATERIALIZED (SELECT g.gen, q.i, q.lexeme, g.chunks, g.tokens, {df} AS "
            "df FROM g CROSS JOIN unnest(%(q_i)s::int[], %(q_lexeme)s::text[]) AS q(i, lexeme) JOIN memtui.terms t "
            "ON t.gen = g.gen AND t.lexeme = q.lexeme AND t.df > 0), idf AS MATERIALIZED (SELECT h.gen, h.i, "
            f"h.lexeme, v.value, v.avgdl FROM held h CROSS JOIN LATERAL {idf_columns('h.chunks', 'h.tokens', 'h.df')} "
            "v)")


def ranked_rows(filters: str) -> str:
    """The result of a ranking over the CTE `scored` (gen, seq, score): the chunks rows, best first, ties by
    generation and seq, `filters` (SQL on `c`) applied before `%(limit)s`."""
    ranked = "scored s JOIN memtui.chunks c ON c.gen = s.gen AND c.seq = s.seq"
    if not filters:  # only the winners need their rows
        ranked = ("(SELECT * FROM scored ORDER BY score DESC, gen, seq LIMIT %(limit)s) s JOIN memtui.chunks c "
                  "ON c.gen = s.gen AND c.seq = s.seq")
    return ("SELECT c.gen, c.seq, c.id, c.path, c.source, c.start_line, c.end_line, c.model, c.text, -s.score AS "
            f"bm25 FROM {ranked}{filters} ORDER BY s.score DESC, s.gen, s.seq LIMIT %(limit)s")


def _terms_sql(lexemes: Sequence[str], scope: Scope, *, filters: str, limit: int) -> tuple[str, dict[str, Any]]:
    """`keyword_sql` for phrases of one term each: every posting of the terms read once, straight into the sums
    (the IDF from `memtui.terms`, the chunk count the postings would give)."""
    params = {"q_i": list(range(len(lexemes))), "q_lexeme": list(lexemes), "limit": limit}
    sql = (f"WITH {term_idf(scope)}, scored AS (SELECT h.gen, h.seq, sum({BM25_WEIGHT} ORDER BY idf.i) AS score "
           "FROM idf JOIN memtui.postings h ON h.gen = idf.gen AND h.lexeme = idf.lexeme GROUP BY h.gen, h.seq) "
           f"{ranked_rows(filters)}")
    return sql, params


def phrase_hits(i: int, phrase: Sequence[str], params: dict[str, Any], *, sizes: bool = False) -> str:
    """(gen, i, seq, occurrences, length) of the chunks where the terms of `phrase` stand one after another, and
    with `sizes` the generation's chunks and tokens (`g`) after them."""
    for j, lexeme in enumerate(phrase):
        params[f"p{i}_{j}"] = lexeme
    joins = "".join(f" JOIN memtui.postings p{j} ON p{j}.gen = p0.gen AND p{j}.lexeme = %(p{i}_{j})s "
                    f"AND p{j}.seq = p0.seq" for j in range(1, len(phrase)))
    follows = " AND ".join(f"(k.pos + {j}) = ANY(p{j}.positions)" for j in range(1, len(phrase)))
    extra = ", g.chunks, g.tokens" if sizes else ""
    return (f"SELECT p0.gen, {i}, p0.seq, count(*)::integer, p0.length{extra} FROM g JOIN memtui.postings p0 ON "
            f"p0.gen = g.gen AND p0.lexeme = %(p{i}_0)s{joins} CROSS JOIN LATERAL unnest(p0.positions) AS k(pos) "
            f"WHERE {follows} GROUP BY p0.gen, p0.seq, p0.length{extra}")

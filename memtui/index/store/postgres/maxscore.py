"""The BM25 top k without reading every posting: MaxScore (Turtle and Flood, 1995), exact.

A query term can add at most IDF · f·(k1+1) / (f + k1·(1 - b + b·D/avgdl)) to a chunk's score in a generation,
with f its largest count in a chunk and D the shortest chunk holding it (`memtui.terms` keeps both). Terms are
taken by descending bound. A first, cheap round reads the postings of the few rarest terms, takes the k chunks
best by those, and scores them fully: the k-th score found, θ, is a lower bound of the real k-th. Then the
*essential* terms are the fewest leading ones whose followers' bounds add up to less than θ: a chunk holding no
essential term cannot reach the top k. The second round reads the essential terms' postings in full, keeps the
chunks whose partial score plus the other terms' bounds can still reach θ, looks those up in the other terms'
postings by key, and scores them with the same SQL expression as the exhaustive ranking: the same chunks, the same
scores to the last bit, without reading most postings of the query's common words.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from memtui.index.store.postgres.bm25 import BM25_WEIGHT, K1, B, keyword_sql, ranked_rows, term_idf

Run = Callable[[str, dict[str, Any]], list[tuple[Any, ...]]]
# Below this many postings in all, reading them all costs less than the rounds.
EXHAUSTIVE_BELOW = 4000
# When the essential terms hold more than this share of the postings, the exhaustive ranking is cheaper.
EXHAUSTIVE_SHARE = 0.6
# The first round reads the fewest top-bound terms whose postings reach this many times k.
PROBE_SPREAD = 8
# Bounds are widened by this much, far beyond the rounding of a sum of a few doubles.
_SLACK = 1e-9


@contextlib.contextmanager
def snapshot(conn: Any) -> Iterator[None]:
    """Run the statements inside in one snapshot (a read-only repeatable-read transaction), so a write or a
    generation flip between them cannot make the bounds of one round disagree with the postings of the next;
    inside a transaction already open (a writer's batch) they run in it."""
    import psycopg

    if not conn.autocommit or conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        yield
        return
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def top_chunks(run: Run, phrases: Sequence[Sequence[str]], gens: str, *, filters: str,
               limit: int) -> list[tuple[Any, ...]]:
    """The rows `keyword_sql` gives for the OR of `phrases` over the generations `gens` (SQL selecting them, run
    with `run`'s parameters), reading only the postings that can change them. Phrases of several terms, filtered
    searches and small ones run exhaustively."""
    if filters or limit <= 0 or len(phrases) < 2 or any(len(phrase) != 1 for phrase in phrases):
        return _exhaustive(run, phrases, gens, filters, limit)
    lexemes = [phrase[0] for phrase in phrases]
    bounds, postings = _bounds(run, lexemes, gens)
    total = sum(postings)
    if not bounds or total < EXHAUSTIVE_BELOW:
        return _exhaustive(run, phrases, gens, filters, limit)
    order = sorted(range(len(lexemes)), key=lambda i: (-max(b[i] for b in bounds.values()), postings[i], i))
    probe, reached = 0, 0
    while probe < len(order) and reached < PROBE_SPREAD * limit:
        reached += postings[order[probe]]
        probe += 1
    scores = [float(row[0]) for row in run(*_probe_sql(lexemes, set(order[:probe]), gens, limit))]
    if len(scores) < limit:
        return _exhaustive(run, phrases, gens, filters, limit)
    threshold = min(scores)
    count = 0
    while count < len(order) and _rest_bound(bounds, order, count) >= threshold:
        count += 1
    if count == len(order) or sum(postings[i] for i in order[:count]) > EXHAUSTIVE_SHARE * total:
        return _exhaustive(run, phrases, gens, filters, limit)
    return run(*_pruned_sql(lexemes, set(order[:count]), bounds, threshold, gens, limit))


def _exhaustive(run: Run, phrases: Sequence[Sequence[str]], gens: str, filters: str,
                limit: int) -> list[tuple[Any, ...]]:
    sql, params = keyword_sql(phrases, gens, filters=filters, limit=limit)
    return run(sql, params) if sql else []


def _bounds(run: Run, lexemes: list[str], gens: str) -> tuple[dict[int, list[float]], list[int]]:
    """Per generation, the most each term can add to a chunk's score (0 where it is absent); each term's postings
    over all of them."""
    rows = run(f"SELECT g.gen, g.chunks, g.tokens, t.lexeme, t.df, t.max_tf, t.min_length FROM "
               f"memtui.generations g LEFT JOIN memtui.terms t ON t.gen = g.gen AND t.lexeme = ANY(%(ms_lexemes)s) "
               f"AND t.df > 0 WHERE g.gen IN ({gens}) AND g.chunks > 0", {"ms_lexemes": lexemes})
    bounds: dict[int, list[float]] = {}
    postings = [0] * len(lexemes)
    for gen, chunks, tokens, lexeme, df, max_tf, min_length in rows:
        bound = bounds.setdefault(int(gen), [0.0] * len(lexemes))
        if lexeme is None:
            continue
        x = math.log(((int(chunks) - int(df)) + 0.5) / (int(df) + 0.5))
        idf = x if x > 0 else 1e-6
        avgdl = int(tokens) / int(chunks)
        most = max_tf * (K1 + 1.0) / (max_tf + K1 * (1.0 - B + B * min_length / avgdl))
        for i, wanted in enumerate(lexemes):
            if wanted == lexeme:
                bound[i] = idf * most * (1 + _SLACK) + _SLACK
                postings[i] += int(df)
    return bounds, postings


def _rest_bound(bounds: dict[int, list[float]], order: list[int], essential: int) -> float:
    """The most a chunk holding none of the first `essential` terms of `order` can score, in any generation."""
    return max(sum(bound[i] for i in order[essential:]) for bound in bounds.values())


def _params(lexemes: list[str], essential: set[int], limit: int) -> dict[str, Any]:
    return {"q_i": list(range(len(lexemes))), "q_lexeme": lexemes,
            "ms_ess": [i in essential for i in range(len(lexemes))], "limit": limit}


def _probe_sql(lexemes: list[str], probed: set[int], gens: str, limit: int) -> tuple[str, dict[str, Any]]:
    """The full scores of the `limit` chunks best by the `probed` terms alone (their k-th bounds the real one)."""
    sql = (
        f"WITH {term_idf(gens)}, "
        "part AS (SELECT h.gen, h.seq, sum(" + BM25_WEIGHT + ") AS score FROM idf JOIN memtui.postings h ON "
        "h.gen = idf.gen AND h.lexeme = idf.lexeme WHERE (%(ms_ess)s::bool[])[idf.i + 1] GROUP BY h.gen, h.seq), "
        "best AS MATERIALIZED (SELECT gen, seq FROM part ORDER BY score DESC LIMIT %(limit)s) "
        f"SELECT sum({BM25_WEIGHT}) FROM best b JOIN idf ON idf.gen = b.gen JOIN memtui.postings h ON h.gen = b.gen "
        "AND h.lexeme = idf.lexeme AND h.seq = b.seq GROUP BY b.gen, b.seq"
    )
    return sql, _params(lexemes, probed, limit)


def _pruned_sql(lexemes: list[str], essential: set[int], bounds: dict[int, list[float]], threshold: float,
                gens: str, limit: int) -> tuple[str, dict[str, Any]]:
    """The top `limit`: the chunks holding an essential term whose partial score plus the other terms' bounds
    reaches `threshold`, fully scored."""
    rest = [i for i in range(len(lexemes)) if i not in essential]
    params = {**_params(lexemes, essential, limit), "ms_gen": list(bounds), "ms_threshold": threshold,
              "ms_rest": [sum(bound[i] for i in rest) for bound in bounds.values()]}
    sql = (
        f"WITH {term_idf(gens)}, "
        "rest AS MATERIALIZED (SELECT * FROM unnest(%(ms_gen)s::bigint[], %(ms_rest)s::float8[]) AS r(gen, bound)), "
        "ehits AS MATERIALIZED (SELECT h.gen, idf.i, h.seq, h.tf, h.length FROM idf JOIN memtui.postings h ON "
        "h.gen = idf.gen AND h.lexeme = idf.lexeme WHERE (%(ms_ess)s::bool[])[idf.i + 1]), "
        f"cands AS MATERIALIZED (SELECT h.gen, h.seq FROM ehits h JOIN idf ON idf.gen = h.gen AND idf.i = h.i "
        f"JOIN rest r ON r.gen = h.gen GROUP BY h.gen, h.seq, r.bound HAVING sum({BM25_WEIGHT}) + r.bound >= "
        "%(ms_threshold)s), "
        "hits AS (SELECT h.gen, h.i, h.seq, h.tf, h.length FROM ehits h JOIN cands c ON c.gen = h.gen AND "
        "c.seq = h.seq UNION ALL SELECT c.gen, idf.i, h.seq, h.tf, h.length FROM cands c JOIN idf ON "
        "idf.gen = c.gen AND NOT (%(ms_ess)s::bool[])[idf.i + 1] JOIN memtui.postings h ON h.gen = c.gen AND "
        "h.lexeme = idf.lexeme AND h.seq = c.seq), "
        f"scored AS (SELECT h.gen, h.seq, sum({BM25_WEIGHT} ORDER BY h.i) AS score FROM hits h JOIN idf ON "
        f"idf.gen = h.gen AND idf.i = h.i GROUP BY h.gen, h.seq) {ranked_rows('')}"
    )
    return sql, params

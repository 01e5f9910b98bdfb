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
EXHAUSTIVE_BELOW = 50_000
# When the essential terms hold more than this share of the postings, the exhaustive ranking is cheaper.
EXHAUSTIVE_SHARE = 0.3
# The first round reads the fewest top-bound terms whose postings reach this many times k.
PROBE_SPREAD = 8
# Bounds are widened by this much, far beyond the rounding of a sum of a few doubles.
_SLACK = 1e-9
# One term's posting in one chunk `b`, looked up by its key. OFFSET 0 keeps the planner from flattening it into a
# join that reads the term's every posting for each chunk (it did: 1 s for 1,900 chunks at a million).
_SEEK = ("(SELECT p.tf, p.length FROM memtui.postings p WHERE p.gen = b.gen AND p.lexeme = idf.lexeme AND "
         "p.seq = b.seq OFFSET 0)")


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
    return run(*_pruned_sql(lexemes, order, count, bounds, threshold, gens, limit))


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
        f"SELECT sum({BM25_WEIGHT}) FROM best b JOIN idf ON idf.gen = b.gen CROSS JOIN LATERAL {_SEEK} h "
        "GROUP BY b.gen, b.seq"
    )
    return sql, _params(lexemes, probed, limit)


def _pruned_sql(lexemes: list[str], order: list[int], essential: int, bounds: dict[int, list[float]],
                threshold: float, gens: str, limit: int) -> tuple[str, dict[str, Any]]:
    """The top `limit`. One pass over the postings of the first `essential` terms of `order` gives each chunk
    holding one its partial score; a chunk stays a candidate while that score plus the bounds of the terms not
    yet looked up reaches `threshold`; the other terms are looked up by key one at a time (highest bound first),
    each for the candidates left; the survivors are scored in full, by key, in term order."""
    # lowered by the slack: a sum in another order may come out an ulp below the same chunk's score in the probe
    params = {**_params(lexemes, set(order[:essential]), limit), "ms_gen": list(bounds),
              "ms_threshold": threshold - _SLACK * max(1.0, abs(threshold))}
    ctes = [f"part AS (SELECT h.gen, h.seq, sum({BM25_WEIGHT}) AS score FROM idf JOIN memtui.postings h ON "
            "h.gen = idf.gen AND h.lexeme = idf.lexeme WHERE (%(ms_ess)s::bool[])[idf.i + 1] GROUP BY h.gen, h.seq)"]
    previous = "part"
    for stage, term in enumerate([None, *order[essential:]]):
        # per generation: the term looked up at this stage (its IDF row) and the bounds of the terms after it
        params[f"ms_rest{stage}"] = [sum(bound[i] for i in order[essential + stage:]) for bound in bounds.values()]
        params[f"ms_t{stage}"] = -1 if term is None else term
        ctes.append(f"t{stage} AS MATERIALIZED (SELECT r.gen, r.bound, idf.lexeme, idf.value, idf.avgdl FROM "
                    f"unnest(%(ms_gen)s::bigint[], %(ms_rest{stage})s::float8[]) AS r(gen, bound) LEFT JOIN idf ON "
                    f"idf.gen = r.gen AND idf.i = %(ms_t{stage})s)")
        gained = "0::float8" if term is None else f"coalesce({BM25_WEIGHT}, 0::float8)"
        seek = "" if term is None else f" LEFT JOIN LATERAL {_SEEK} h ON true"
        ctes.append(f"b{stage} AS MATERIALIZED (SELECT b.gen, b.seq, b.score + {gained} AS score FROM {previous} b "
                    f"JOIN t{stage} idf ON idf.gen = b.gen{seek} WHERE b.score + {gained} + idf.bound >= "
                    "%(ms_threshold)s)")
        previous = f"b{stage}"
    sql = (
        f"WITH {term_idf(gens)}, {', '.join(ctes)}, "
        f"scored AS (SELECT b.gen, b.seq, sum({BM25_WEIGHT} ORDER BY idf.i) AS score FROM {previous} b JOIN idf ON "
        f"idf.gen = b.gen CROSS JOIN LATERAL {_SEEK} h GROUP BY b.gen, b.seq) {ranked_rows('')}"
    )
    return sql, params

"""The BM25 top k without reading every posting: MaxScore (Turtle and Flood, 1995), exact.

A query term can add at most IDF · f·(k1+1) / (f + k1·(1 - b + b·D/avgdl)) to a chunk's score in a generation,
with f its largest count in a chunk and D the shortest chunk holding it (`memtui.terms` keeps both). A first,
cheap round reads the postings of the few rarest terms, takes the chunks best by those, and scores them fully:
the k-th score found, θ, is a lower bound of the real k-th. Then, in each generation (each agent's statistics
differ), the *essential* terms are the fewest of highest bound whose followers' bounds add up to less than θ: a
chunk holding no essential term cannot reach the top k, and a generation whose bounds all add up to less than θ is
not read. The second round reads the essential terms' postings in full, keeps the chunks whose partial score plus
the other terms' bounds can still reach θ, adds the other terms one at a time (looked up by key, or read whole and
merged by hashing when that reads less), and scores the survivors with the same SQL expression as the exhaustive
ranking: the same chunks, the same scores to the last bit, without reading most postings of the query's common
words.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from memtui.index.store.postgres.bm25 import (
    BM25_WEIGHT,
    K1,
    SEEK,
    B,
    Scope,
    idf_columns,
    keyword_sql,
    phrase_hits,
    ranked_rows,
    term_idf,
)

Run = Callable[[str, dict[str, Any]], list[tuple[Any, ...]]]
# Below this many postings in all, reading them all costs less than the rounds.
EXHAUSTIVE_BELOW = 50_000
# When the essential terms hold more than this share of the postings, the exhaustive ranking is cheaper.
EXHAUSTIVE_SHARE = 0.3
# The first round reads the fewest top-bound terms whose postings reach this many times k.
PROBE_SPREAD = 8
# ... and scores in full this many times k of the chunks best by those terms: the k-th of the full scores, not of
# the first k, bounds the real k-th from below (closer to it, for a few more lookups by key).
PROBE_POOL = 32
# ... reading at most this many postings of a term in a generation (any chunks' full scores bound the k-th from
# below; reading all of a common word's, when the query's other words are absent, took 0.4 s at a million chunks).
PROBE_CAP = 256
# Bounds are widened by this much, far beyond the rounding of a sum of a few doubles.
_SLACK = 1e-9
# A posting looked up by key costs about this many postings read in key order (measured at a million chunks:
# 1.2 µs against 0.3 µs with the hashing).
SEEK_COST = 4


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


def top_chunks(run: Run, phrases: Sequence[Sequence[str]], scope: Scope, *, filters: str,
               limit: int) -> list[tuple[Any, ...]]:
    """The rows `keyword_sql` gives for the OR of `phrases` over `scope` (its SQL run with `run`'s parameters),
    reading only the postings that can change them. The matches of phrases of several
    terms are all read (they are rare: each needs its terms in a row); filtered searches, small ones and those of
    phrases alone run exhaustively."""
    singles = {i: phrase[0] for i, phrase in enumerate(phrases) if len(phrase) == 1}
    if filters or limit <= 0 or len(phrases) < 2 or not singles:
        return _exhaustive(run, phrases, scope, filters, limit)
    terms = _bounds(run, singles, len(phrases), scope)
    postings = [sum(term.df[i] for term in terms.values()) for i in range(len(phrases))]
    total = sum(postings)
    if not terms or total < EXHAUSTIVE_BELOW:
        return _exhaustive(run, phrases, scope, filters, limit)
    order = sorted(singles, key=lambda i: (-max(t.bound[i] for t in terms.values()), postings[i], i))
    probe, reached = 0, 0
    while probe < len(order) and reached < PROBE_SPREAD * limit:
        reached += postings[order[probe]]
        probe += 1
    scores = sorted((float(row[0]) for row in run(*_probe_sql(singles, set(order[:probe]), scope,
                                                               PROBE_POOL * limit))), reverse=True)
    if len(scores) < limit:
        return _exhaustive(run, phrases, scope, filters, limit)
    threshold = scores[limit - 1]
    plans = {gen: term.plan(threshold) for gen, term in terms.items()}
    read = sum(terms[gen].df[i] for gen, (order_g, essential) in plans.items() for i in order_g[:essential])
    if read > EXHAUSTIVE_SHARE * total:
        return _exhaustive(run, phrases, scope, filters, limit)
    multis = {i: phrase for i, phrase in enumerate(phrases) if len(phrase) > 1}
    return run(*_pruned_sql(singles, multis, terms, plans, threshold, scope, limit))


@dataclass(frozen=True)
class _GenTerms:
    """One generation's view of the query terms: the most each can add to a chunk's score (0 where absent) and
    the chunks holding it."""

    bound: list[float]
    df: list[int]

    def plan(self, threshold: float) -> tuple[list[int], int]:
        """The terms present here, by descending bound, and how many leading ones are essential: the fewest whose
        followers' bounds add up to less than `threshold` (0 when no chunk here can reach it)."""
        order = sorted((i for i, df in enumerate(self.df) if df), key=lambda i: (-self.bound[i], self.df[i], i))
        essential = 0
        while essential < len(order) and sum(self.bound[i] for i in order[essential:]) >= threshold:
            essential += 1
        return order, essential


def _exhaustive(run: Run, phrases: Sequence[Sequence[str]], scope: Scope, filters: str,
                limit: int) -> list[tuple[Any, ...]]:
    sql, params = keyword_sql(phrases, scope, filters=filters, limit=limit)
    return run(sql, params) if sql else []


def _bounds(run: Run, singles: dict[int, str], count: int, scope: Scope) -> dict[int, _GenTerms]:
    """Per generation holding chunks, the bound and chunk count of each of the `count` phrases that is a single
    term (`singles`: its index and term; the others' stay 0), with `scope`'s statistics."""
    rows = run(f"WITH {scope.generations()} SELECT g.gen, g.chunks, g.tokens, t.lexeme, t.df, sum(t.df) OVER "
               "(PARTITION BY t.lexeme), t.max_tf, t.min_length FROM g LEFT JOIN memtui.terms t ON t.gen = g.gen AND "
               "t.lexeme = ANY(%(ms_lexemes)s) AND t.df > 0", {"ms_lexemes": list(singles.values())})
    terms: dict[int, _GenTerms] = {}
    for gen, chunks, tokens, lexeme, df, pooled_df, max_tf, min_length in rows:
        term = terms.setdefault(int(gen), _GenTerms([0.0] * count, [0] * count))
        if lexeme is None:
            continue
        n = int(pooled_df) if scope.pooled else int(df)
        x = math.log(((int(chunks) - n) + 0.5) / (n + 0.5))
        idf = x if x > 0 else 1e-6
        avgdl = int(tokens) / int(chunks)
        most = max_tf * (K1 + 1.0) / (max_tf + K1 * (1.0 - B + B * min_length / avgdl))
        for i, wanted in singles.items():
            if wanted == lexeme:
                term.bound[i] = idf * most * (1 + _SLACK) + _SLACK
                term.df[i] = int(df)
    return terms


def _params(singles: dict[int, str], limit: int) -> dict[str, Any]:
    return {"q_i": list(singles), "q_lexeme": list(singles.values()), "limit": limit}


def _probe_sql(singles: dict[int, str], probed: set[int], scope: Scope, limit: int) -> tuple[str, dict[str, Any]]:
    """The scores by every single term of the `limit` chunks best by the `probed` terms alone: each is at most
    the chunk's full score, so their k-th best bounds the real k-th from below."""
    sql = (
        f"WITH {term_idf(scope)}, "
        "part AS (SELECT idf.gen, h.seq, sum(" + BM25_WEIGHT + ") AS score FROM idf CROSS JOIN LATERAL (SELECT "
        "p.seq, p.tf, p.length FROM memtui.postings p WHERE p.gen = idf.gen AND p.lexeme = idf.lexeme LIMIT "
        "%(ms_cap)s) h WHERE idf.i = ANY(%(ms_probed)s) GROUP BY idf.gen, h.seq), "
        "best AS MATERIALIZED (SELECT gen, seq FROM part ORDER BY score DESC LIMIT %(limit)s) "
        f"SELECT sum({BM25_WEIGHT}) FROM best b JOIN idf ON idf.gen = b.gen CROSS JOIN LATERAL {SEEK} h "
        "GROUP BY b.gen, b.seq"
    )
    return sql, {**_params(singles, limit), "ms_probed": sorted(probed), "ms_cap": PROBE_CAP}


def _pruned_sql(singles: dict[int, str], multis: dict[int, Sequence[str]], terms: dict[int, _GenTerms],
                plans: dict[int, tuple[list[int], int]], threshold: float, scope: Scope,
                limit: int) -> tuple[str, dict[str, Any]]:
    """The top `limit`. In each generation, one pass over the postings of its essential terms, and over the
    matches of the phrases of several terms, gives each chunk holding one its partial score; a chunk stays a
    candidate while that score plus the bounds of the terms not yet looked up reaches `threshold`; the
    generation's other terms are looked up by key one at a time (highest bound first), each for the candidates
    left; the survivors are scored in full, in phrase order. A generation where no chunk can reach `threshold`
    (and no phrase matches) is not read at all."""
    live = {gen: plan for gen, plan in plans.items() if plan[1] or multis}
    essential = [(gen, i) for gen, (order, count) in live.items() for i in order[:count]]
    read = sum(terms[gen].df[i] for gen, i in essential)
    # lowered by the slack: a sum in another order may come out an ulp below the same chunk's score in the probe
    params = {**_params(singles, limit), "ms_ess_gen": [gen for gen, _ in essential],
              "ms_ess_i": [i for _, i in essential], "ms_gen": list(live),
              "ms_threshold": threshold - _SLACK * max(1.0, abs(threshold))}
    read_terms = (f"SELECT h.gen, h.seq, {BM25_WEIGHT} AS w FROM unnest(%(ms_ess_gen)s::bigint[], "
                  "%(ms_ess_i)s::int[]) AS e(gen, i) JOIN idf ON idf.gen = e.gen AND idf.i = e.i JOIN memtui.postings "
                  "h ON h.gen = idf.gen AND h.lexeme = idf.lexeme")
    ctes = []
    if multis:
        # each match weighed where it stands (a window counts the phrase's chunks): the planner, which expects one
        # row from a CTE, joined one to another by nested loops (0.5 s at 10k matches)
        matches = " UNION ALL ".join(phrase_hits(i, phrase, params, sizes=True) for i, phrase in multis.items())
        ctes += [f"ph (gen, i, seq, tf, length, chunks, tokens) AS MATERIALIZED ({matches})",
                 f"phw AS MATERIALIZED (SELECT h.gen, h.i, h.seq, {BM25_WEIGHT} AS w FROM (SELECT p.*, count(*) OVER "
                 f"(PARTITION BY {scope.per_phrase('p')}) AS n FROM ph p) h CROSS JOIN LATERAL "
                 f"{idf_columns('h.chunks', 'h.tokens', 'h.n')} idf)"]
        read_terms += " UNION ALL SELECT gen, seq, w FROM phw"
    ctes.append(f"part AS (SELECT u.gen, u.seq, sum(u.w) AS score FROM ({read_terms}) u GROUP BY u.gen, u.seq)")
    previous = "part"
    stages = max((len(order) - count for order, count in live.values()), default=0)
    for stage in range(stages + 1):
        # per generation: the term looked up at this stage (none at the first) and the bounds of the terms after it
        looked = [order[count + stage - 1] if 0 < stage <= len(order) - count else -1
                  for order, count in live.values()]
        params[f"ms_t{stage}"] = looked
        params[f"ms_rest{stage}"] = [sum((terms[gen].bound[i] for i in order[count + stage:]), 0.0)
                                     for gen, (order, count) in live.items()]
        ctes.append(f"t{stage} AS MATERIALIZED (SELECT r.gen, r.bound, idf.lexeme, idf.value, idf.avgdl FROM "
                    f"unnest(%(ms_gen)s::bigint[], %(ms_t{stage})s::int[], %(ms_rest{stage})s::float8[]) AS "
                    "r(gen, i, bound) LEFT JOIN idf ON idf.gen = r.gen AND idf.i = r.i)")
        # the first lookup meets about every posting read (the bounds of all the other terms rarely rule one out)
        scanned = sum(terms[gen].df[i] for gen, i in zip(live, looked, strict=True) if i >= 0)
        ctes.append(_stage_cte(stage, previous, merge=stage == 1 and scanned < (SEEK_COST - 1) * read))
        previous = f"b{stage}"
    weights = f"SELECT b.gen, b.seq, idf.i, {BM25_WEIGHT} AS w, true AS kept FROM {previous} b JOIN idf ON " \
              f"idf.gen = b.gen CROSS JOIN LATERAL {SEEK} h"
    if multis:  # the candidates' phrase weights summed in by grouping with every match (not by a join: see phw)
        weights += f" UNION ALL SELECT gen, seq, -1, NULL, true FROM {previous} UNION ALL SELECT gen, seq, i, w, " \
                   "false FROM phw"
    sql = (
        f"WITH {term_idf(scope)}, {', '.join(ctes)}, "
        f"scored AS (SELECT x.gen, x.seq, sum(x.w ORDER BY x.i) AS score FROM ({weights}) x GROUP BY x.gen, x.seq "
        f"HAVING bool_or(x.kept)) {ranked_rows('')}"
    )
    return sql, params


def _stage_cte(stage: int, previous: str, *, merge: bool) -> str:
    """`b<stage>`: the candidates of `previous` that can still reach the threshold once the stage's term (none at
    stage 0) is added: looked up by key for each candidate, or, when the term holds few postings against the
    candidates (`merge`), its postings read whole and summed in with the candidates' by hashing."""
    if stage == 0:
        return (f"b0 AS MATERIALIZED (SELECT b.gen, b.seq, b.score FROM {previous} b JOIN t0 idf ON idf.gen = b.gen "
                "WHERE b.score + idf.bound >= %(ms_threshold)s)")
    if merge:
        return (f"b{stage} AS MATERIALIZED (SELECT u.gen, u.seq, sum(u.score) AS score FROM (SELECT b.gen, b.seq, "
                f"b.score, idf.bound FROM {previous} b JOIN t{stage} idf ON idf.gen = b.gen UNION ALL SELECT idf.gen, "
                f"h.seq, {BM25_WEIGHT}, NULL FROM t{stage} idf JOIN memtui.postings h ON h.gen = idf.gen AND "
                "h.lexeme = idf.lexeme) u GROUP BY u.gen, u.seq HAVING count(u.bound) > 0 AND sum(u.score) + "
                "max(u.bound) >= %(ms_threshold)s)")
    gained = f"coalesce({BM25_WEIGHT}, 0::float8)"
    return (f"b{stage} AS MATERIALIZED (SELECT b.gen, b.seq, b.score + {gained} AS score FROM {previous} b JOIN "
            f"t{stage} idf ON idf.gen = b.gen LEFT JOIN LATERAL {SEEK} h ON true WHERE b.score + {gained} + "
            "idf.bound >= %(ms_threshold)s)")

"""Packed postings: each generation's postings of a term in one value, read whole by a fleet search.

A fleet search of a long query touches a million postings or more; read as rows, each costs the server about
a microsecond, and MaxScore prunes little when the query's words are spread evenly over every agent. Packed, a
term's postings in a generation are one `bytea` of 16-byte records (seq, tf, length; big-endian, as `int8send` and
`int4send` write them) that the server hands over without looking inside, and numpy scores them all.

`memtui.packs` holds the postings of a generation's chunks up to `memtui.packed.upto` (a seq: chunk numbers
only grow, and one writer at a time writes a generation, so every later chunk is above it); the chunks deleted
since are listed in `memtui.packed.dead`. A search reads the packs, drops the dead, and reads the postings above
`upto` (the tail) from the postings table. The writer repacks a generation, in the write's transaction, when its
tail and dead together outgrow a share of what is packed, so the tail stays small and the packs exact.

numpy only chooses the candidates: every chunk within a hair of the k-th best score, by an expression that may
round differently from the server's; the server then scores them with the exhaustive ranking's SQL, so the
result is that ranking's, score for score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from memtui.index.store.postgres.bm25 import BM25_WEIGHT, K1, B, Scope, ranked_rows, term_idf
from memtui.index.store.postgres.schema import LOCK_SPACE

# A generation is repacked when its tail and dead chunks outnumber this many and this share of its packed ones:
# between the commits of a long write, half (so a large write packs a few times, growing geometrically), at the
# end of a write a tenth.
PACK_MIN = 256
PACK_SHARE_WRITING = 0.5
PACK_SHARE_DONE = 0.1
_RECORD = np.dtype([("seq", ">i8"), ("tf", ">i4"), ("length", ">i4")])
_PACKED = "int8send(p.seq) || int4send(p.tf) || int4send(p.length)"
# Candidates keep every chunk scored this close (relative) to the k-th: far beyond a sum's rounding differences.
_MARGIN = 1e-9
# FTS5's IDF of a term that half the chunks or more hold.
_FLOOR = 1e-6
# Sums go into an array indexed by seq when the seqs span at most this many times their count, else by sorting.
_DENSE = 16


def settle(conn: Any, gen: int, share: float) -> bool:
    """Repack generation `gen` if its tail and dead chunks outgrow `share` of its packed ones (inside the
    writer's transaction, holding the index's lock); True if it did."""
    chunks, upto, dead = conn.execute(
        "SELECT g.chunks, coalesce(k.upto, 0), coalesce(length(k.dead), 0) / 8 FROM memtui.generations g LEFT JOIN "
        "memtui.packed k ON k.gen = g.gen WHERE g.gen = %s", (gen,)).fetchone() or (0, 0, 0)
    tail = conn.execute("SELECT count(*) FROM memtui.chunks WHERE gen = %s AND seq > %s", (gen, upto)).fetchone()[0]
    stale = tail + dead
    if stale <= max(PACK_MIN, share * (chunks - tail)):
        return False
    repack(conn, gen)
    return True


def pack_fleet(conn: Any) -> int:
    """Repack every live generation whose packs are stale (as its next write would), each under its index's lock
    in a transaction of its own; how many were repacked. `conn` must be autocommit."""
    done = 0
    for index_id, gen in conn.execute("SELECT id, live_gen FROM memtui.indexes WHERE live_gen IS NOT NULL "
                                      "ORDER BY id").fetchall():
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, index_id))
            live = conn.execute("SELECT live_gen FROM memtui.indexes WHERE id = %s", (index_id,)).fetchone()
            if live is not None and live[0] == gen:
                done += settle(conn, gen, PACK_SHARE_DONE)
    return done


def repack(conn: Any, gen: int) -> None:
    """Pack every posting of generation `gen` anew (its tail in, its dead out)."""
    conn.execute("DELETE FROM memtui.packs WHERE gen = %s", (gen,))
    conn.execute(f"INSERT INTO memtui.packs (gen, lexeme, data) SELECT p.gen, p.lexeme, string_agg({_PACKED}, "
                 "''::bytea) FROM memtui.postings p WHERE p.gen = %s GROUP BY p.gen, p.lexeme", (gen,))
    conn.execute("INSERT INTO memtui.packed (gen, upto, dead) VALUES (%(gen)s, coalesce((SELECT max(seq) FROM "
                 "memtui.chunks WHERE gen = %(gen)s), 0), ''::bytea) ON CONFLICT (gen) DO UPDATE SET upto = "
                 "excluded.upto, dead = excluded.dead", {"gen": gen})


def mark_dead(conn: Any, gen: int, seqs: Sequence[int]) -> None:
    """Record deleted chunks `seqs` of generation `gen` that its packs still hold."""
    conn.execute("UPDATE memtui.packed k SET dead = k.dead || coalesce((SELECT string_agg(int8send(s), ''::bytea) "
                 "FROM unnest(%s::bigint[]) AS u(s) WHERE u.s <= k.upto), ''::bytea) WHERE k.gen = %s",
                 (list(seqs), gen))


def packed_top(conn: Any, lexemes: Sequence[str], scope: Scope, limit: int) -> list[tuple[Any, ...]]:
    """The rows `bm25.keyword_sql` ranks for the OR of single-term phrases `lexemes` over `scope`, unfiltered:
    the postings of the terms read packed, the candidates chosen with numpy, scored by the server. A term that half
    the chunks or more hold (FTS5's IDF is then 1e-6) is left out of the choice, and the candidates are widened by
    the most it can add, unless fewer than `limit` chunks hold another term."""
    params: dict[str, Any] = {"q_i": list(range(len(lexemes))), "q_lexeme": list(lexemes), "limit": limit}
    weights: dict[tuple[int, int], tuple[float, float]] = {}
    strongest: dict[str, float] = {}
    for gen, i, value, avgdl in conn.execute(f"WITH {term_idf(scope)} SELECT gen, i, value, avgdl FROM idf", params):
        weights[int(gen), int(i)] = float(value), float(avgdl)
        strongest[lexemes[i]] = max(strongest.get(lexemes[i], 0.0), float(value))
    faint = {lexeme for lexeme, value in strongest.items() if value <= _FLOOR}
    slack = sum(_FLOOR * (K1 + 1.0) for lexeme in lexemes if lexeme in faint)
    gens, seqs, scores = _scores(_packed(conn, set(strongest) - faint, scope), lexemes, weights)
    if faint and len(scores) < limit:
        gens, seqs, scores = _scores(_packed(conn, set(strongest), scope), lexemes, weights)
        slack = 0.0
    if len(scores) > limit:
        kth = float(np.partition(scores, len(scores) - limit)[len(scores) - limit])
        keep = scores >= kth - slack - _MARGIN * max(1.0, abs(kth))
        gens, seqs = gens[keep], seqs[keep]
    params.update(pk_gen=gens.tolist(), pk_seq=seqs.tolist())
    return conn.execute(
        f"WITH {term_idf(scope)}, scored AS (SELECT b.gen, b.seq, sum({BM25_WEIGHT} ORDER BY idf.i) AS score FROM "
        "unnest(%(pk_gen)s::bigint[], %(pk_seq)s::bigint[]) AS b(gen, seq) JOIN idf ON idf.gen = b.gen CROSS JOIN "
        "LATERAL (SELECT p.tf, p.length FROM memtui.postings p WHERE p.gen = b.gen AND p.lexeme = idf.lexeme AND "
        f"p.seq = b.seq OFFSET 0) h GROUP BY b.gen, b.seq) {ranked_rows('')}", params).fetchall()


def _packed(conn: Any, lexemes: set[str], scope: Scope) -> list[tuple[Any, ...]]:
    """(gen, lexeme, postings) of `lexemes` in each generation of `scope`, packed (its packs and its tail), and
    (gen, NULL, seqs) of each generation's dead chunks."""
    if not lexemes:
        return []
    return conn.cursor(binary=True).execute(
        f"WITH {scope.generations()}, w AS MATERIALIZED (SELECT g.gen, coalesce(k.upto, 0) AS upto, k.dead FROM g "
        "LEFT JOIN memtui.packed k ON k.gen = g.gen), q AS (SELECT unnest(%(lexemes)s::text[]) AS lexeme) "
        "SELECT w.gen, q.lexeme, k.data FROM w CROSS JOIN q JOIN memtui.packs k ON k.gen = w.gen AND k.lexeme = "
        f"q.lexeme UNION ALL SELECT w.gen, q.lexeme, string_agg({_PACKED}, ''::bytea) FROM w CROSS JOIN q JOIN "
        "memtui.postings p ON p.gen = w.gen AND p.lexeme = q.lexeme AND p.seq > w.upto GROUP BY w.gen, q.lexeme "
        "UNION ALL SELECT w.gen, NULL, w.dead FROM w WHERE length(w.dead) > 0",
        {"lexemes": sorted(lexemes)}).fetchall()


def _scores(rows: Sequence[tuple[Any, ...]], lexemes: Sequence[str],
            weights: dict[tuple[int, int], tuple[float, float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gen, seq, score) of every live chunk holding a term, from the packed `rows` (gen, lexeme, postings; a
    NULL lexeme: the generation's dead seqs) and each (generation, phrase)'s (IDF, average length). A term
    repeated in the query counts as often as it stands there. Chunk numbers are unique across generations (one
    sequence numbers them all), so the sums are by seq alone."""
    repeats = Counter(lexemes)
    first = {lexeme: lexemes.index(lexeme) for lexeme in repeats}
    blobs, gens, values, avgdls, sizes, dead = [], [], [], [], [], []
    for gen, lexeme, data in rows:
        if lexeme is None:
            dead.append(data)
            continue
        idf = weights.get((int(gen), first[lexeme]))
        if idf is None or not data:
            continue
        blobs.append(data)
        gens.append(int(gen))
        values.append(idf[0] * repeats[lexeme])
        avgdls.append(idf[1])
        sizes.append(len(data) // _RECORD.itemsize)
    postings = np.frombuffer(b"".join(blobs), _RECORD)
    seq = postings["seq"].astype(np.int64)
    tf = postings["tf"].astype(np.float64)
    length = postings["length"].astype(np.float64)
    weight = np.repeat(values, sizes) * ((tf * (K1 + 1.0)) / (tf + K1 * (1.0 - B + B * length / np.repeat(avgdls,
                                                                                                        sizes))))
    gen = np.repeat(np.asarray(gens, dtype=np.int64), sizes)
    if dead:
        live = ~np.isin(seq, np.frombuffer(b"".join(dead), ">i8"))
        seq, weight, gen = seq[live], weight[live], gen[live]
    if not len(seq):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    low = int(seq.min())
    span = int(seq.max()) - low + 1
    if span <= _DENSE * len(seq):
        totals = np.bincount(seq - low, weights=weight, minlength=span)
        held = np.flatnonzero(totals)  # every weight is positive (an IDF is at least 1e-6)
        owner = np.zeros(span, dtype=np.int64)
        owner[seq - low] = gen
        return owner[held], held + low, totals[held]
    chunk, first_at, where = np.unique(seq, return_index=True, return_inverse=True)
    return gen[first_at], chunk, np.bincount(where, weights=weight, minlength=len(chunk))

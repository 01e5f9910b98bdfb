"""Packed postings: each generation's postings of a term in one value, read whole by a fleet search.

A fleet search of a long query touches a million postings or more; read as rows, each costs the server about
a microsecond, and MaxScore prunes little when the query's words are spread evenly over every agent. Packed, a
term's postings in a generation are one `bytea` of 8-byte records (seq above the generation's base, tf, length;
big-endian, as `int4send` and `int2send` write them; 16 bytes when a generation's do not fit) that the server hands
over without looking inside, and numpy scores them all.

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
from dataclasses import dataclass
from typing import Any

import numpy as np

from memtui.index.store.postgres.bm25 import BM25_WEIGHT, K1, SEEK, B, Scope, ranked_rows, term_idf
from memtui.index.store.postgres.schema import LOCK_SPACE

# A generation is repacked when its tail and dead chunks outnumber this many and this share of its packed ones:
# between the commits of a long write, half (so a large write packs a few times, growing geometrically), at the
# end of a write a tenth.
PACK_MIN = 256
PACK_SHARE_WRITING = 0.5
PACK_SHARE_DONE = 0.1
# A posting packed: 16 bytes (seq, tf, length), or 8 (seq above the generation's `base`, tf, length) when each
# fits (seqs of the generation within 2^31 of each other, no count or chunk length above 32,767).
_WIDE = np.dtype([("seq", ">i8"), ("tf", ">i4"), ("length", ">i4")])
_NARROW = np.dtype([("seq", ">i4"), ("tf", ">i2"), ("length", ">i2")])
_PACKED = "int8send(p.seq) || int4send(p.tf) || int4send(p.length)"
_PACKED_NARROW = "int4send((p.seq - %(base)s)::int4) || int2send(p.tf::int2) || int2send(p.length::int2)"
_SMALL = 32767
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
    """Pack every posting of generation `gen` anew (its tail in, its dead out), narrow when every posting fits."""
    low, high, longest = conn.execute("SELECT min(seq), max(seq), max(length) FROM memtui.chunks WHERE gen = %s",
                                      (gen,)).fetchone()
    most = conn.execute("SELECT max(max_tf) FROM memtui.terms WHERE gen = %s", (gen,)).fetchone()[0]
    narrow = low is not None and high - low <= 2**31 - 1 and max(longest, most or 0) <= _SMALL
    conn.execute("DELETE FROM memtui.packs WHERE gen = %s", (gen,))
    conn.execute(f"INSERT INTO memtui.packs (gen, lexeme, data) SELECT p.gen, p.lexeme, string_agg("
                 f"{_PACKED_NARROW if narrow else _PACKED}, ''::bytea) FROM memtui.postings p WHERE p.gen = %(gen)s "
                 "GROUP BY p.gen, p.lexeme", {"gen": gen, "base": low})
    conn.execute("INSERT INTO memtui.packed (gen, upto, dead, base) VALUES (%(gen)s, coalesce(%(high)s, 0), "
                 "''::bytea, %(base)s) ON CONFLICT (gen) DO UPDATE SET upto = excluded.upto, dead = excluded.dead, "
                 "base = excluded.base", {"gen": gen, "high": high, "base": low if narrow else None})


def mark_dead(conn: Any, gen: int, seqs: Sequence[int]) -> None:
    """Record deleted chunks `seqs` of generation `gen` that its packs still hold."""
    conn.execute("UPDATE memtui.packed k SET dead = k.dead || coalesce((SELECT string_agg(int8send(s), ''::bytea) "
                 "FROM unnest(%s::bigint[]) AS u(s) WHERE u.s <= k.upto), ''::bytea) WHERE k.gen = %s",
                 (list(seqs), gen))


def packed_top(conn: Any, lexemes: Sequence[str], scope: Scope, limit: int) -> list[tuple[Any, ...]]:
    """The rows `bm25.keyword_sql` ranks for the OR of single-term phrases `lexemes` over `scope`, unfiltered:
    the postings of the terms read packed, the candidates chosen with numpy, scored by the server. A term that half
    the chunks or more hold (FTS5's IDF is then 1e-6) is left out of the choice, and the candidates are widened by
    the most it can add, unless a chunk holding only such terms could rank; then every term is read."""
    params: dict[str, Any] = {"q_i": list(range(len(lexemes))), "q_lexeme": list(lexemes)}
    weights: dict[tuple[int, int], tuple[float, float]] = {}
    strongest: dict[str, float] = {}
    for gen, i, value, avgdl in conn.cursor(binary=True).execute(
            f"WITH {term_idf(scope)} SELECT gen, i, value, avgdl FROM idf", params):
        weights[int(gen), int(i)] = float(value), float(avgdl)
        strongest[lexemes[i]] = max(strongest.get(lexemes[i], 0.0), float(value))
    faint = {lexeme for lexeme, value in strongest.items() if value <= _FLOOR}
    slack = sum(_FLOOR * (K1 + 1.0) for lexeme in lexemes if lexeme in faint)
    scored = _scores(_packed(conn, set(strongest) - faint, scope), lexemes, weights)
    floor = scored.floor(limit, slack)
    if faint and floor <= 0.0:  # a chunk holding only the left-out terms could rank
        scored = _scores(_packed(conn, set(strongest), scope), lexemes, weights)
        floor = scored.floor(limit, 0.0)
    seqs = scored.chosen(floor)
    gens = scored.gens_of(seqs)
    # the candidates' generations' IDF rows as the first query read them (binary: the same doubles)
    chosen = set(gens.tolist())
    held = [(gen, i, value, avgdl) for (gen, i), (value, avgdl) in weights.items() if gen in chosen]
    return conn.execute(
        "WITH idf AS (SELECT * FROM unnest(%(f_gen)s::bigint[], %(f_i)s::int[], %(f_lexeme)s::text[], "
        "%(f_value)s::float8[], %(f_avgdl)s::float8[]) AS idf(gen, i, lexeme, value, avgdl)), scored AS (SELECT "
        f"b.gen, b.seq, sum({BM25_WEIGHT} ORDER BY idf.i) AS score FROM unnest(%(pk_gen)s::bigint[], "
        f"%(pk_seq)s::bigint[]) AS b(gen, seq) JOIN idf ON idf.gen = b.gen CROSS JOIN LATERAL {SEEK} h GROUP BY "
        f"b.gen, b.seq) {ranked_rows('')}",
        {"f_gen": [row[0] for row in held], "f_i": [row[1] for row in held],
         "f_lexeme": [lexemes[row[1]] for row in held], "f_value": [row[2] for row in held],
         "f_avgdl": [row[3] for row in held], "pk_gen": gens.tolist(), "pk_seq": seqs.tolist(),
         "limit": limit}).fetchall()


def _packed(conn: Any, lexemes: set[str], scope: Scope) -> list[tuple[Any, ...]]:
    """(gen, lexeme, postings, base) of `lexemes` in each generation of `scope`, packed (its packs, narrow above
    `base` unless it is NULL, and its tail, wide), and (gen, NULL, seqs, NULL) of each generation's dead chunks."""
    if not lexemes:
        return []
    return conn.cursor(binary=True).execute(
        f"WITH {scope.generations()}, w AS MATERIALIZED (SELECT g.gen, coalesce(k.upto, 0) AS upto, k.dead, k.base "
        "FROM g LEFT JOIN memtui.packed k ON k.gen = g.gen), q AS (SELECT unnest(%(lexemes)s::text[]) AS lexeme) "
        "SELECT w.gen, q.lexeme, k.data, w.base FROM w CROSS JOIN q JOIN memtui.packs k ON k.gen = w.gen AND "
        f"k.lexeme = q.lexeme UNION ALL SELECT w.gen, q.lexeme, string_agg({_PACKED}, ''::bytea), NULL FROM w CROSS "
        "JOIN q JOIN memtui.postings p ON p.gen = w.gen AND p.lexeme = q.lexeme AND p.seq > w.upto GROUP BY w.gen, "
        "q.lexeme UNION ALL SELECT w.gen, NULL, w.dead, NULL FROM w WHERE length(w.dead) > 0",
        {"lexemes": sorted(lexemes)}).fetchall()


def _scores(rows: Sequence[tuple[Any, ...]], lexemes: Sequence[str],
            weights: dict[tuple[int, int], tuple[float, float]]) -> _Scored:
    """Every live chunk holding a term and its score, from the packed `rows` (gen, lexeme, postings; a
    NULL lexeme: the generation's dead seqs) and each (generation, phrase)'s (IDF, average length). A term
    repeated in the query counts as often as it stands there. Chunk numbers are unique across generations (one
    sequence numbers them all), so the sums are by seq alone."""
    repeats = Counter(lexemes)
    first = {lexeme: lexemes.index(lexeme) for lexeme in repeats}
    dead = [data for _, lexeme, data, _ in rows if lexeme is None]
    # the narrow rows first, then the wide: each field in one array
    held = sorted((row for row in rows if row[1] is not None and row[2] and (int(row[0]), first[row[1]]) in weights),
                  key=lambda row: row[3] is None)
    gens = [int(row[0]) for row in held]
    values = [weights[int(row[0]), first[row[1]]][0] * repeats[row[1]] for row in held]
    avgdls = [weights[int(row[0]), first[row[1]]][1] for row in held]
    narrow = [row for row in held if row[3] is not None]
    wide = held[len(narrow):]
    sizes = [len(row[2]) // _NARROW.itemsize for row in narrow] + [len(row[2]) // _WIDE.itemsize for row in wide]
    small = np.frombuffer(b"".join(row[2] for row in narrow), _NARROW)
    large = np.frombuffer(b"".join(row[2] for row in wide), _WIDE)
    seq = _joined(small["seq"].astype(np.int64) + np.repeat(np.asarray([int(row[3]) for row in narrow],
                                                                       dtype=np.int64), sizes[:len(narrow)]),
                  large["seq"].astype(np.int64))
    tf = _joined(small["tf"].astype(np.float64), large["tf"].astype(np.float64))
    # (1 - b + b·D/avgdl) with one average length for all (the fleet's) or each generation's
    norm = _joined(small["length"].astype(np.float64), large["length"].astype(np.float64))
    norm *= B / avgdls[0] if len(set(avgdls)) == 1 else B / np.repeat(avgdls, sizes)
    norm += 1.0 - B
    norm *= K1
    norm += tf
    weight = tf
    weight *= K1 + 1.0
    weight /= norm
    weight *= np.repeat(values, sizes)
    ends = np.cumsum(sizes)
    if dead:
        live = ~np.isin(seq, np.frombuffer(b"".join(dead), ">i8").astype(np.int64))
        seq, weight, ends = seq[live], weight[live], np.cumsum(live)[ends - 1] if len(ends) else ends
    gens_read = np.asarray(gens, dtype=np.int64)
    if not len(seq):
        return _Scored(np.zeros(0), None, 0, seq, ends, gens_read)
    low = int(seq.min())
    span = int(seq.max()) - low + 1
    if span <= _DENSE * len(seq):
        return _Scored(np.bincount(seq - low, weights=weight, minlength=span), None, low, seq, ends, gens_read)
    chunk, where = np.unique(seq, return_inverse=True)
    return _Scored(np.bincount(where, weights=weight, minlength=len(chunk)), chunk, 0, seq, ends, gens_read)


def _joined(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """`first` then `second`, copied only when both hold something."""
    return first if not len(second) else second if not len(first) else np.concatenate([first, second])


@dataclass(frozen=True)
class _Scored:
    """The score of each chunk holding a query term: `score[i]` that of chunk `seqs[i]`, or with `seqs` None of
    chunk `low + i` (0 where no term is held: every weight is positive, an IDF being at least 1e-6); and the
    postings read (`postings`, the rows of `gens` ending at `ends`), which tell a chunk's generation."""

    score: np.ndarray
    seqs: np.ndarray | None
    low: int
    postings: np.ndarray
    ends: np.ndarray
    gens: np.ndarray

    def floor(self, limit: int, slack: float) -> float:
        """The least score a chunk may have and still be among the best `limit` (0 when fewer hold a term): the
        `limit`-th score, lowered by `slack` (what the terms left out can add) and the rounding margin."""
        if np.count_nonzero(self.score) < limit:
            return 0.0
        kth = float(np.partition(self.score, len(self.score) - limit)[len(self.score) - limit])
        return kth - slack - _MARGIN * max(1.0, abs(kth))

    def chosen(self, floor: float) -> np.ndarray:
        """The chunks holding a term scored `floor` or more, by ascending seq."""
        slots = np.flatnonzero(self.score >= floor) if floor > 0.0 else np.flatnonzero(self.score)
        return slots + self.low if self.seqs is None else self.seqs[slots]

    def gens_of(self, chunks: np.ndarray) -> np.ndarray:
        """The generation of each of `chunks` (ascending seqs of chunks holding a term): that of a packed row
        holding it."""
        at = np.zeros(len(chunks), dtype=np.int64)
        if len(chunks):
            where = np.flatnonzero(np.isin(self.postings, chunks))
            at[np.searchsorted(chunks, self.postings[where])] = where
        return self.gens[np.searchsorted(self.ends, at, side="right")]

"""The approximate vector index of a fleet (`memtui fleet-index`): one hnsw index per vector dimension over every
agent's vectors, so a fleet search compares the query with a million chunks in milliseconds, not a second.

It is optional because it is paid for on every write (each new vector is linked into the graph) and it is
approximate: an agent's own search never uses it (its exact scan is fast at one agent's size). Built concurrently,
so writers go on meanwhile; a build that failed (killed, out of memory) leaves an invalid index, which searches
ignore and the next build replaces.
"""

from __future__ import annotations

import time
from typing import Any

from memtui.errors import StoreError

# hnsw.ef_search of a fleet search (at least the candidates asked for), m and ef_construction of the build
# (pgvector's defaults). Measured here: MiniLM vectors of 44k SciFact sentences, recall@40 0.995 at 3.6 ms; each
# written chunk costs ~2x (700 -> 300 chunks/s); m 32 / ef_construction 128 take 0.998 and 5x.
ANN_SEARCH_WIDTH = 200
ANN_LINKS = 16
ANN_BUILD_WIDTH = 64
_FIND = ("SELECT c.relname, i.indisvalid, pg_relation_size(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = "
         "i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'memtui' AND c.relname ")


def ann_name(dims: int) -> str:
    """The index's name for vectors of `dims` dimensions."""
    return f"vectors_ann_{int(dims)}"


def ann_index(conn: Any, dims: int) -> bool:
    """Whether a valid fleet index for vectors of `dims` dimensions exists."""
    row = conn.execute(_FIND + "= %s", (ann_name(dims),)).fetchone()
    return bool(row and row[1])


def ann_indexes(conn: Any) -> list[dict[str, Any]]:
    """Every fleet index: its dimension, whether it is valid (a failed build is not), its size in bytes."""
    rows = conn.execute(_FIND + "LIKE %s ORDER BY 1", (r"vectors\_ann\_%",)).fetchall()
    return [{"dims": int(name.rsplit("_", 1)[1]), "valid": bool(valid), "bytes": int(size)}
            for name, valid, size in rows]


def fleet_dims(conn: Any) -> list[int]:
    """The vector dimensions of the live generations, the most chunks first."""
    rows = conn.execute("SELECT g.dims FROM memtui.indexes i JOIN memtui.generations g ON g.gen = i.live_gen WHERE "
                        "g.dims IS NOT NULL GROUP BY 1 ORDER BY sum(g.chunks) DESC, 1").fetchall()
    return [int(dims) for (dims,) in rows]


def build_ann(conn: Any, dims: int, memory: str, *, links: int = ANN_LINKS,
              candidates: int = ANN_BUILD_WIDTH) -> float | None:
    """Build the fleet index for `dims` (replacing an invalid one) with hnsw's `m` = `links` and `ef_construction`
    = `candidates`, and `memory` of maintenance_work_mem (the graph should fit: about 1.2 × dims × 4 bytes a
    vector); the seconds it took, None when a valid one was there. `conn` must be autocommit."""
    if dims <= 0 or dims > 2000:
        raise StoreError(f"pgvector's hnsw indexes vectors of 1 to 2,000 dimensions, not {dims}",
                         "build the fleet index for the dimension your agents' models embed with")
    found = conn.execute(_FIND + "= %s", (ann_name(dims),)).fetchone()
    if found and found[1]:
        return None
    if found:
        conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS memtui.{ann_name(dims)}")
    conn.execute("SELECT set_config('maintenance_work_mem', %s, false)", (memory,))
    began = time.perf_counter()
    conn.execute(f"CREATE INDEX CONCURRENTLY {ann_name(dims)} ON memtui.vectors USING hnsw ((vec::vector({dims})) "
                 f"vector_cosine_ops) WITH (m = {int(links)}, ef_construction = {int(candidates)}) WHERE "
                 f"vector_dims(vec) = {dims}")
    return time.perf_counter() - began


def drop_ann(conn: Any, dims: int) -> bool:
    """Drop the fleet index for `dims`; whether there was one."""
    had = conn.execute(_FIND + "= %s", (ann_name(dims),)).fetchone() is not None
    conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS memtui.{ann_name(dims)}")
    return had

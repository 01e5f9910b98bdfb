"""The whole fleet in one database: every (agent, workspace) index with what `status --fleet` shows, and the
keyword search over every agent's live generation at once (each chunk scored by its own agent's BM25)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memtui.index.store.postgres.bm25 import match_phrases
from memtui.index.store.postgres.maxscore import snapshot, top_chunks
from memtui.index.store.postgres.reads import Tokenizer
from memtui.index.store.schema import META_KEY
from memtui.index.terms import tokens

_LIVE = "SELECT live_gen FROM memtui.indexes WHERE live_gen IS NOT NULL"
_LIVE_OF = "(SELECT live_gen FROM memtui.indexes WHERE agent = %(agent)s AND workspace = %(workspace)s)"


@dataclass(frozen=True)
class FleetHit:
    """One chunk found by a fleet-wide search, with the agent and workspace it belongs to."""

    agent: str
    workspace: str
    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    text: str
    bm25: float


@dataclass(frozen=True)
class StoredChunk:
    """One chunk of a file as the database holds it (its text as indexed, whichever host wrote it)."""

    id: str
    start_line: int
    end_line: int
    text: str


def fleet_search(conn: Any, match: str, tokenizer: Tokenizer, *, limit: int) -> list[FleetHit]:
    """The `limit` best chunks of every agent's live index for a MATCH expression of the memtui profile
    (`fts_query.stemmed_match`), best first: each scored by BM25 with its own index's statistics, as that agent's
    own search scores it, so the scores compare across agents."""
    phrases = [p for p in match_phrases(match, tokens, tokenizer.term) if p]
    with snapshot(conn):
        rows = top_chunks(lambda sql, params: conn.execute(sql, params).fetchall(), phrases, _LIVE, filters="",
                          limit=limit)
        agents = {int(gen): (agent, workspace) for gen, agent, workspace in conn.execute(
            "SELECT live_gen, agent, workspace FROM memtui.indexes WHERE live_gen = ANY(%s)",
            ([int(r[0]) for r in rows],)).fetchall()} if rows else {}
    return [FleetHit(*agents[int(r[0])], r[2], r[3], r[4], int(r[5]), int(r[6]), r[8], float(r[9])) for r in rows]


def fleet_indexes(conn: Any) -> list[dict[str, Any]]:
    """Every (agent, workspace) index, by agent: its live generation's files and chunks, whether a newer one is
    pending (a rebuild under way, or a killed one the next rebuild drops), the last write (ISO time, UTC) and the
    host that made it, the provider and model of its meta row."""
    rows = conn.execute(
        "SELECT i.agent, i.workspace, i.live_gen, g.chunks, (SELECT count(*) FROM memtui.files f WHERE f.gen = "
        "i.live_gen), to_char(i.written AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), i.host, "
        "(SELECT value FROM memtui.meta m WHERE m.gen = i.live_gen AND m.key = %s), EXISTS (SELECT 1 FROM "
        "memtui.generations r WHERE r.index_id = i.id AND r.gen > i.live_gen) FROM memtui.indexes i LEFT JOIN "
        "memtui.generations g ON g.gen = i.live_gen ORDER BY i.agent, i.workspace", (META_KEY,)).fetchall()
    found = []
    for agent, workspace, gen, chunks, files, written, host, meta_text, rebuilding in rows:
        try:
            meta = json.loads(meta_text) if meta_text else {}
        except ValueError:
            meta = {}
        meta = meta if isinstance(meta, dict) else {}
        found.append({"agent": agent, "workspace": workspace, "generation": gen, "files": int(files),
                      "chunks": int(chunks or 0), "lastWrite": written, "host": host,
                      "rebuildPending": bool(rebuilding), "provider": meta.get("provider"), "model": meta.get("model")})
    return found


def index_files(conn: Any, agent: str, workspace: str) -> list[dict[str, Any]]:
    """The files of (agent, workspace)'s live index, by path: path, source, chunks, size (bytes) and mtime
    (seconds); [] when the database holds no such index."""
    rows = conn.execute(
        "SELECT f.path, f.source, (SELECT count(*) FROM memtui.chunks c WHERE c.gen = f.gen AND c.path = f.path AND "
        f"c.source = f.source), f.size, f.mtime FROM memtui.files f WHERE f.gen = {_LIVE_OF} ORDER BY f.path",
        {"agent": agent, "workspace": workspace}).fetchall()
    return [{"path": path, "source": source, "chunks": int(chunks), "size": int(size), "mtime": float(mtime)}
            for path, source, chunks, size, mtime in rows]


def file_chunks(conn: Any, agent: str, workspace: str, path: str) -> list[StoredChunk]:
    """The chunks of `path` in (agent, workspace)'s live index, in line order: how the viewer shows a file whose
    workspace is on another host."""
    rows = conn.execute(f"SELECT id, start_line, end_line, text FROM memtui.chunks WHERE gen = {_LIVE_OF} AND "
                        "path = %(path)s ORDER BY start_line, seq",
                        {"agent": agent, "workspace": workspace, "path": path}).fetchall()
    return [StoredChunk(r[0], int(r[1]), int(r[2]), r[3]) for r in rows]

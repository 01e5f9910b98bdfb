"""The whole fleet in one database: every (agent, workspace) index with what `status --fleet` shows, and any
agent's files and chunks (a fleet search reads through `fleet_reads`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memtui.index.store.schema import META_KEY

_LIVE_OF = "(SELECT live_gen FROM memtui.indexes WHERE agent = %(agent)s AND workspace = %(workspace)s)"


@dataclass(frozen=True)
class StoredChunk:
    """One chunk of a file as the database holds it (its text as indexed, whichever host wrote it)."""

    id: str
    start_line: int
    end_line: int
    text: str


def fleet_indexes(conn: Any) -> list[dict[str, Any]]:
    """Every (agent, workspace) index, by agent: its live generation's files and chunks, whether a newer one is
    pending (a rebuild under way, or a killed one the next rebuild drops), how many of its chunks a fleet search
    reads unpacked (written or deleted since its postings were packed: `packs`), the last write (ISO time, UTC) and the
    host that made it, the provider and model of its meta row."""
    rows = conn.execute(
        "SELECT i.agent, i.workspace, i.live_gen, g.chunks, (SELECT count(*) FROM memtui.files f WHERE f.gen = "
        "i.live_gen), to_char(i.written AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), i.host, "
        "(SELECT value FROM memtui.meta m WHERE m.gen = i.live_gen AND m.key = %s), EXISTS (SELECT 1 FROM "
        "memtui.generations r WHERE r.index_id = i.id AND r.gen > i.live_gen), (SELECT count(*) FROM memtui.chunks c "
        "WHERE c.gen = i.live_gen AND c.seq > coalesce(k.upto, 0)) + coalesce(length(k.dead), 0) / 8 FROM "
        "memtui.indexes i LEFT JOIN memtui.generations g ON g.gen = i.live_gen LEFT JOIN memtui.packed k ON k.gen = "
        "i.live_gen ORDER BY i.agent, i.workspace", (META_KEY,)).fetchall()
    found = []
    for agent, workspace, gen, chunks, files, written, host, meta_text, rebuilding, unpacked in rows:
        try:
            meta = json.loads(meta_text) if meta_text else {}
        except ValueError:
            meta = {}
        meta = meta if isinstance(meta, dict) else {}
        found.append({"agent": agent, "workspace": workspace, "generation": gen, "files": int(files),
                      "chunks": int(chunks or 0), "lastWrite": written, "host": host,
                      "rebuildPending": bool(rebuilding), "unpacked": int(unpacked or 0),
                      "provider": meta.get("provider"), "model": meta.get("model")})
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

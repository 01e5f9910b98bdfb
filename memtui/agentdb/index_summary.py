"""What OpenClaw 2026.9's memory index holds, read from the agent database without writing: chunks and files per
source, the meta row (chunking and provenance versions, model, sources), vectors, recall metadata, provenance."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.agentdb.generation import AGENT_DB, Generation
from memtui.agentdb.ownership import reading, table_names
from memtui.errors import StoreError

META_KEY = "memory_index_meta_v1"


@dataclass(frozen=True)
class AgentIndexSummary:
    """Counts and meta of the agent database's memory index."""

    chunks_by_source: dict[str, int]
    files_by_source: dict[str, int]
    meta: dict[str, Any]
    vectors: int
    with_importance: int
    provenance_by_origin: dict[str, int] = field(default_factory=dict)
    revision: int | None = None
    last_indexed_ms: int | None = None

    @property
    def chunks(self) -> int:
        """Every chunk, all sources."""
        return sum(self.chunks_by_source.values())

    @property
    def files(self) -> int:
        """Every indexed file (memory files and session transcripts)."""
        return sum(self.files_by_source.values())

    def to_json(self) -> dict[str, Any]:
        """The `openclaw.index` part of `status --json`."""
        return {"chunks": self.chunks, "files": self.files, "chunksBySource": self.chunks_by_source,
                "filesBySource": self.files_by_source, "vectors": self.vectors,
                "withImportance": self.with_importance, "provenanceByOrigin": self.provenance_by_origin,
                "revision": self.revision, "lastIndexedAt": self.last_indexed_ms,
                "model": self.meta.get("model"), "provider": self.meta.get("provider"),
                "sources": self.meta.get("sources"), "chunkingVersion": self.meta.get("chunkingVersion"),
                "provenanceVersion": self.meta.get("provenanceVersion"), "meta": self.meta}


def read_agent_index(path: Path) -> AgentIndexSummary:
    """The summary of `path`'s memory index (StoreError naming the file when it cannot be read)."""
    with reading(path, "the memory index") as conn:
        return _summary(conn)


def chunk_ranges(path: Path, rel: str) -> list[tuple[int, int]]:
    """(start line, end line) of each chunk the agent database at `path` indexes for the file `rel`, in order."""
    with reading(path, "the memory index") as conn:
        if "memory_index_chunks" not in table_names(conn):
            return []
        rows = conn.execute("SELECT start_line, end_line FROM memory_index_chunks WHERE path = ? "
                            "ORDER BY start_line, end_line", (rel,)).fetchall()
    return [(int(start), int(end)) for start, end in rows]


def _counts(conn: Any, sql: str) -> dict[str, int]:
    return {str(key): int(count) for key, count in conn.execute(sql)}


def _summary(conn: Any) -> AgentIndexSummary:
    tables = table_names(conn)
    if "memory_index_chunks" not in tables:
        return AgentIndexSummary({}, {}, {}, 0, 0)
    chunks = _counts(conn, "SELECT source, COUNT(*) FROM memory_index_chunks GROUP BY source ORDER BY source")
    files = _counts(conn, "SELECT source, COUNT(*) FROM memory_index_sources GROUP BY source ORDER BY source") \
        if "memory_index_sources" in tables else {}
    meta: dict[str, Any] = {}
    if "memory_index_meta" in tables:
        row = conn.execute("SELECT value FROM memory_index_meta WHERE key = ?", (META_KEY,)).fetchone()
        if row is not None:
            try:
                parsed = json.loads(row[0])
                meta = parsed if isinstance(parsed, dict) else {}
            except ValueError:
                meta = {}
    vectors = conn.execute("SELECT COUNT(*) FROM memory_index_chunks WHERE length(embedding) > 0").fetchone()[0]
    importance = conn.execute("SELECT COUNT(*) FROM memory_index_chunk_recall_metadata WHERE importance IS NOT "
                              "NULL").fetchone()[0] if "memory_index_chunk_recall_metadata" in tables else 0
    origins = _counts(conn, "SELECT origin_class, COUNT(*) FROM memory_index_chunk_provenance GROUP BY "
                            "origin_class ORDER BY origin_class") if "memory_index_chunk_provenance" in tables else {}
    revision = None
    if "memory_index_state" in tables:
        state = conn.execute("SELECT revision FROM memory_index_state WHERE id = 1").fetchone()
        revision = int(state[0]) if state else None
    last = conn.execute("SELECT MAX(updated_at) FROM memory_index_chunks").fetchone()[0]
    return AgentIndexSummary(chunks, files, meta, int(vectors), int(importance), origins, revision,
                             int(last) if last is not None else None)


def openclaw_view(generation: Generation, retired_keys: Sequence[str] = ()) -> dict[str, Any]:
    """OpenClaw's own layout and index for an agent, read without writing (the `openclaw` part of `status
    --json`): the generation, its file, for 2026.9 the agent database's counts per source, and the config keys
    2026.9 retired (memtui does not read them)."""
    view: dict[str, Any] = {**generation.to_json(), "label": generation.label, "index": None, "error": None,
                            "retiredKeys": list(retired_keys)}
    if generation.name == AGENT_DB:
        try:
            view["index"] = read_agent_index(generation.path).to_json()
        except StoreError as exc:
            view["error"] = exc.message
    return view

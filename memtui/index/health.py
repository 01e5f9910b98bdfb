"""Index health: an index (OpenClaw's own, of either generation, or memtui's) read without writing and compared
with the memory files on disk and with what a fresh index would hold — files changed since they were indexed,
new files not indexed, deleted files still indexed, files a fresh index would cut differently, vectors of
another model than the one searching them, and when the index was last written."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memtui.agentdb.ownership import reading, table_names
from memtui.errors import MemtuiError, PathError, StoreError
from memtui.index.chunking import chunk_markdown
from memtui.index.chunking_v5 import CHUNKING_VERSION, prepare_chunks
from memtui.index.freshness import read_memory_bytes, same_stat
from memtui.index.workspace import MAX_MARKDOWN_BYTES, list_memory_files
from memtui.jscompat import sha256_hex
from memtui.settings.agent import AgentEnv

# (files table, chunks table, meta table, meta key) of each index layout
AGENT_DB_TABLES = ("memory_index_sources", "memory_index_chunks", "memory_index_meta", "memory_index_meta_v1")
CLASSIC_TABLES = ("files", "chunks", "meta", "memory_index_meta_v1")
INDEXES = ("openclaw", "memtui")
KINDS = ("changed", "new", "deleted", "recut", "model", "unreadable")


@dataclass(frozen=True)
class HealthRow:
    """One difference: its kind (one of KINDS), the file it is about and what differs."""

    kind: str
    path: str
    detail: str

    def to_json(self) -> dict[str, str]:
        """`{kind, path, detail}`."""
        return {"kind": self.kind, "path": self.path, "detail": self.detail}


@dataclass
class IndexHealth:
    """What an index holds and how it differs from the disk and from a fresh index."""

    label: str
    path: Path
    files: int = 0  # memory files indexed (session transcripts are not compared)
    chunks: int = 0
    files_on_disk: int = 0
    model: str | None = None
    provider: str | None = None
    last_written_ms: int | None = None
    rows: list[HealthRow] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        """True when the index answers for the files as they are."""
        return not self.rows

    def counts(self) -> dict[str, int]:
        """Rows per kind."""
        return {kind: sum(1 for row in self.rows if row.kind == kind) for kind in KINDS}

    def to_json(self) -> dict[str, Any]:
        """`memtui health --json`."""
        return {"index": self.label, "path": str(self.path), "files": self.files, "chunks": self.chunks,
                "filesOnDisk": self.files_on_disk, "model": self.model, "provider": self.provider,
                "lastWrittenAt": self.last_written_ms, "healthy": self.healthy, "counts": self.counts(),
                "rows": [row.to_json() for row in self.rows]}


def _when(ms: float | None) -> str:
    return "unknown" if ms is None else datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _meta(conn: Any, table: str, key: str) -> dict[str, Any]:
    row = conn.execute(f"SELECT value FROM {table} WHERE key = ?", (key,)).fetchone()
    try:
        meta = json.loads(row[0]) if row is not None else {}
    except (TypeError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _fresh_ranges(text: str, rel: str, fixed_v5: bool, tokens: int, overlap: int) -> set[tuple[int, int, str]]:
    if fixed_v5:
        return {(c.chunk.start_line, c.chunk.end_line, c.chunk.hash) for c in prepare_chunks(text, rel, "memory")}
    return {(c.start_line, c.end_line, c.hash) for c in chunk_markdown(text, tokens, overlap)}


def index_health(index_path: Path, label: str, workspace_dir: Path, *, tables: tuple[str, str, str, str],
                 layout_2026_9: bool, extra_paths: tuple[str, ...] = (), chunk_tokens: int = 400,
                 chunk_overlap: int = 80, search_model: str | None = None) -> IndexHealth:
    """The health of the index at `index_path` (opened read-only) for `workspace_dir`. `tables` names its
    layout (AGENT_DB_TABLES or CLASSIC_TABLES); `extra_paths` where memory files live beyond MEMORY.md and memory/
    (`MemorySearchSettings.memory_paths`: USER.md for 2026.9); `layout_2026_9`: chunker version 5, else 2026.4's
    with the configured size; `search_model` is the model that would embed queries against it (None:
    keyword-only)."""
    files_table, chunks_table, meta_table, meta_key = tables
    agent_db = layout_2026_9
    health = IndexHealth(label, index_path)
    with reading(index_path, "the index") as conn:
        present = table_names(conn)
        if files_table not in present or chunks_table not in present:
            raise StoreError(f"{index_path} holds no memory index (no {files_table} / {chunks_table} table)")
        indexed = {path: (digest, float(mtime), int(size)) for path, digest, mtime, size in conn.execute(
            f"SELECT path, hash, mtime, size FROM {files_table} WHERE source = 'memory'")}
        cut: dict[str, set[tuple[int, int, str]]] = {}
        for path, start, end, digest in conn.execute(
                f"SELECT path, start_line, end_line, hash FROM {chunks_table} WHERE source = 'memory'"):
            cut.setdefault(path, set()).add((int(start), int(end), digest))
        models = dict(conn.execute(f"SELECT model, COUNT(*) FROM {chunks_table} GROUP BY model"))
        health.files = len(indexed)
        health.chunks = sum(models.values())
        last = conn.execute(f"SELECT MAX(updated_at) FROM {chunks_table}").fetchone()[0]
        health.last_written_ms = int(last) if last is not None else None
        meta = _meta(conn, meta_table, meta_key) if meta_table in present else {}
    health.model, health.provider = meta.get("model"), meta.get("provider")
    listed = [(f.rel_path, f.path) for f in list_memory_files(workspace_dir, extra_paths)] \
        if workspace_dir.is_dir() else []
    health.files_on_disk = len(listed)
    for rel, path in listed:
        row = indexed.pop(rel, None)
        if row is None:
            health.rows.append(HealthRow("new", rel, "on disk, not indexed"))
            continue
        health.rows.extend(_compare(workspace_dir, extra_paths, rel, path, row, cut.get(rel, set()), agent_db,
                                    chunk_tokens, chunk_overlap))
    health.rows.extend(HealthRow("deleted", rel, f"indexed {_when(row[1])}, no longer on disk")
                       for rel, row in sorted(indexed.items()))
    health.rows.extend(_model_rows(models, meta.get("model"), search_model))
    return health


def _compare(workspace_dir: Path, extra_paths: tuple[str, ...], rel: str, path: str, row: tuple[str, float, int],
             indexed_cut: set[tuple[int, int, str]], agent_db: bool, tokens: int, overlap: int) -> list[HealthRow]:
    digest, mtime, size = row
    try:
        if os.lstat(path).st_size > MAX_MARKDOWN_BYTES:
            return [HealthRow("unreadable", rel, f"larger than {MAX_MARKDOWN_BYTES >> 20} MiB: not indexed again")]
        text = read_memory_bytes(workspace_dir, extra_paths, rel).decode("utf-8", errors="replace")
    except PathError as exc:
        return [HealthRow("unreadable", rel, exc.message)]
    except OSError as exc:
        return [HealthRow("unreadable", rel, f"not readable ({exc.strerror or type(exc).__name__})")]
    if sha256_hex(text) != digest:
        stat_note = "" if same_stat(path, mtime, size) else f"; modified {_when(os.lstat(path).st_mtime_ns / 1e6)}"
        return [HealthRow("changed", rel, f"text differs from the one indexed {_when(mtime)}{stat_note}")]
    fresh = _fresh_ranges(text, rel, agent_db, tokens, overlap)
    if fresh != indexed_cut:
        return [HealthRow("recut", rel, f"a fresh index would cut {len(fresh)} chunks ({len(fresh - indexed_cut)} "
                                        f"new or moved); the index holds {len(indexed_cut)}")]
    return []


def _model_rows(models: dict[str | None, int], meta_model: str | None, search_model: str | None) -> list[HealthRow]:
    rows = []
    embedded = {model: count for model, count in models.items() if model not in (None, "", "fts-only")}
    for model, count in sorted(embedded.items()):
        if meta_model and model != meta_model:
            rows.append(HealthRow("model", "*", f"{count} chunks embedded with {model}; the index is of {meta_model}"))
        elif search_model is not None and model != search_model:
            rows.append(HealthRow("model", "*", f"{count} chunks embedded with {model}; queries here would be "
                                                f"embedded with {search_model}: the vector side cannot be used"))
    return rows


def agent_index_health(env: AgentEnv, which: str | None = None) -> IndexHealth:
    """The health of `which` index of the agent (OpenClaw's when None and it has one, else memtui's)."""
    generation = env.generation
    settings = env.settings
    has_openclaw = generation.name in ("2026.9", "2026.4") and generation.path.is_file()
    which = which or ("openclaw" if has_openclaw else "memtui")
    search_model = settings.model or None if settings.provider not in ("auto", "none") else None
    if which == "openclaw":
        if not has_openclaw:
            raise MemtuiError(f"OpenClaw has no index for agent {env.agent_id} yet ({generation.path}); "
                              "memtui health --index memtui checks memtui's")
        agent_db = generation.name == "2026.9"
        return index_health(generation.path, generation.label, env.workspace_dir,
                            tables=AGENT_DB_TABLES if agent_db else CLASSIC_TABLES, layout_2026_9=agent_db,
                            extra_paths=settings.memory_paths, chunk_tokens=settings.chunking.tokens,
                            chunk_overlap=settings.chunking.overlap, search_model=search_model)
    if not env.store_path.is_file():
        raise MemtuiError(f"memtui has not indexed agent {env.agent_id} yet ({env.store_path}); run memtui index")
    return index_health(env.store_path, "memtui's index", env.workspace_dir, tables=CLASSIC_TABLES,
                        layout_2026_9=settings.chunking.version == CHUNKING_VERSION,
                        extra_paths=settings.memory_paths,
                        chunk_tokens=settings.chunking.tokens, chunk_overlap=settings.chunking.overlap,
                        search_model=search_model)

"""Index health: an index (OpenClaw's own, of either generation, or memtui's) read without writing and compared
with the memory files on disk and with what a fresh index would hold — files changed since they were indexed,
new files not indexed, deleted files still indexed, files a fresh index would cut differently, files only
touched (modified time changed, content the same), vectors of another model than the one searching them, stored
vectors without a direction (all zeros, NaN), and when the index was last written."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memtui.agentdb.ownership import reading, table_names
from memtui.embeddings.base import degenerate_stored
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
MEMTUI_LABEL = "memtui's index"
KINDS = ("changed", "new", "deleted", "recut", "model", "vector", "unreadable", "touched")
HARMLESS = ("touched",)  # rows that leave the index answering for the files as they are


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
        """True when the index answers for the files as they are (a file only touched still is)."""
        return all(row.kind in HARMLESS for row in self.rows)

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
        written: dict[str, int] = {}  # path → when its chunks were last written (the index time)
        for path, start, end, digest, updated in conn.execute(
                f"SELECT path, start_line, end_line, hash, updated_at FROM {chunks_table} WHERE source = 'memory'"):
            cut.setdefault(path, set()).add((int(start), int(end), digest))
            if updated is not None:
                written[path] = max(written.get(path, 0), int(updated))
        models = dict(conn.execute(f"SELECT model, COUNT(*) FROM {chunks_table} GROUP BY model"))
        health.files = len(indexed)
        health.chunks = sum(models.values())
        last = conn.execute(f"SELECT MAX(updated_at) FROM {chunks_table}").fetchone()[0]
        health.last_written_ms = int(last) if last is not None else None
        meta = _meta(conn, meta_table, meta_key) if meta_table in present else {}
        health.rows.extend(_vector_rows(conn, chunks_table, agent_db, label))
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
                                    chunk_tokens, chunk_overlap, written.get(rel)))
    health.rows.extend(HealthRow("deleted", rel, f"{_indexed(written.get(rel), row[1])}; no longer on disk")
                       for rel, row in sorted(indexed.items()))
    health.rows.extend(_model_rows(models, meta.get("model"), search_model))
    return health


def _indexed(written_ms: int | None, mtime: float) -> str:
    """`indexed 2026-12-01 10:00 UTC (the file as modified 2026-11-30 09:12 UTC)`: when the index wrote the
    file's chunks, and the modified time it recorded for the file (the index time unknown: that time only)."""
    if written_ms is None:
        return f"indexed as modified {_when(mtime)}"
    return f"indexed {_when(written_ms)} (the file as modified {_when(mtime)})"


def _compare(workspace_dir: Path, extra_paths: tuple[str, ...], rel: str, path: str, row: tuple[str, float, int],
             indexed_cut: set[tuple[int, int, str]], agent_db: bool, tokens: int, overlap: int,
             written_ms: int | None) -> list[HealthRow]:
    digest, mtime, size = row
    try:
        if os.lstat(path).st_size > MAX_MARKDOWN_BYTES:
            return [HealthRow("unreadable", rel, f"larger than {MAX_MARKDOWN_BYTES >> 20} MiB: not indexed again")]
        text = read_memory_bytes(workspace_dir, extra_paths, rel).decode("utf-8", errors="replace")
        touched = not same_stat(path, mtime, size)
        modified = os.lstat(path).st_mtime_ns / 1e6
    except PathError as exc:
        return [HealthRow("unreadable", rel, exc.message)]
    except OSError as exc:
        return [HealthRow("unreadable", rel, f"not readable ({exc.strerror or type(exc).__name__})")]
    if sha256_hex(text) != digest:
        return [HealthRow("changed", rel, f"text differs from the one {_indexed(written_ms, mtime)}; modified "
                                          f"{_when(modified)}")]
    rows = [HealthRow("touched", rel, f"modified time changed ({_when(mtime)} → {_when(modified)}), content "
                                      "unchanged: harmless, the index answers for it as it is")] if touched else []
    return rows + _recut(rel, text, indexed_cut, agent_db, tokens, overlap)


def _recut(rel: str, text: str, indexed_cut: set[tuple[int, int, str]], agent_db: bool, tokens: int,
           overlap: int) -> list[HealthRow]:
    fresh = _fresh_ranges(text, rel, agent_db, tokens, overlap)
    if fresh != indexed_cut:
        return [HealthRow("recut", rel, f"a fresh index would cut {len(fresh)} chunks ({len(fresh - indexed_cut)} "
                                        f"new or moved); the index holds {len(indexed_cut)}")]
    return []


def _vector_rows(conn: Any, chunks_table: str, agent_db: bool, label: str) -> list[HealthRow]:
    """One row per file with stored vectors that have no direction (all zeros, NaN): a search cannot rank them by
    similarity, so those chunks are found by keywords only."""
    bad: dict[str, list[str]] = {}
    for path, embedding in conn.execute(f"SELECT path, embedding FROM {chunks_table}"):
        if (why := degenerate_stored(embedding, float64=agent_db)) is not None:
            bad.setdefault(str(path), []).append(why)
    effect = ("searches skip them, so these chunks rank by keywords only; memtui index --force embeds them again"
              if label == MEMTUI_LABEL else "they score 0 by similarity; OpenClaw embeds them again when it "
              "re-indexes the file")
    return [HealthRow("vector", path, f"{len(whys)} stored vector(s) without a direction "
                                      f"({', '.join(sorted(set(whys)))}): {effect}")
            for path, whys in sorted(bad.items())]


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
    return index_health(env.store_path, MEMTUI_LABEL, env.workspace_dir, tables=CLASSIC_TABLES,
                        layout_2026_9=settings.chunking.version == CHUNKING_VERSION,
                        extra_paths=settings.memory_paths,
                        chunk_tokens=settings.chunking.tokens, chunk_overlap=settings.chunking.overlap,
                        search_model=search_model)


_SCANNED: dict[tuple[str, str], dict[str, int]] = {}  # (index file, revision) → its stored degenerate vectors


def stored_degenerate(store: Any) -> dict[str, int] | None:
    """path → vectors memtui's index holds without a direction (all zeros, NaN: written by an older memtui or
    another program), which every search skips; None when the store cannot tell (PostgreSQL). sqlite-vec's
    table is read where it is loaded (what vector search reads), else the JSON column; kept per index revision,
    so a process asking again of an unchanged index does not read every vector again."""
    if not hasattr(store, "vector_blobs") or not hasattr(store, "embedding_json"):
        return None
    revision = store.revision()
    key = (str(store.path), revision or "")
    if revision is not None and key in _SCANNED:
        return _SCANNED[key]
    paths: list[str] = []
    blobs = store.vector_blobs()
    if blobs:
        bad_ids = [chunk_id for chunk_id, blob in blobs if degenerate_stored(blob) is not None]
        paths = [row.path for row in store.chunks_by_ids(bad_ids).values()]
    else:
        after, bad_rowids = 0, []
        while batch := store.embedding_json(after, 2000):
            bad_rowids += [rowid for rowid, text in batch if degenerate_stored(text) is not None]
            after = batch[-1][0]
        paths = [row.path for row in store.chunks_by_rowids(bad_rowids).values()]
    found: dict[str, int] = {}
    for path in paths:
        found[path] = found.get(path, 0) + 1
    if revision is not None:
        _SCANNED.clear()
        _SCANNED[key] = found
    return found

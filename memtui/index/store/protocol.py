"""The store interface: what the searcher, the indexer, the manager and `status` use of an index, so that the
SQLite store (`memtui.index.store.Store`) and the PostgreSQL store (`memtui.index.store.postgres`) both serve
them. Nothing here is SQLite's: rowids are the store's own document numbers, in write order."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from memtui.index.annotations import RecallMetadata
from memtui.index.store.schema import Capabilities, ChunkRow


class SearchReads(Protocol):
    """What the searcher reads of an index: one agent's (`IndexStore`), or every agent's of a PostgreSQL store at
    once (`memtui.index.store.postgres.fleet_reads`)."""

    fts_tokenizer: str

    # -- what it can do ---------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        """Keyword and vector availability with reasons, and the driver's name."""

    @property
    def fts_available(self) -> bool:
        """Whether keyword search works."""

    @property
    def has_stemmed_index(self) -> bool:
        """Whether the memtui profile's keyword table is current."""

    def vector_dims(self) -> int | None:
        """Dimension of the stored vectors, if any are stored."""

    def revision(self) -> str | None:
        """A token that changes with every write (None: the in-memory accelerator is not used)."""

    def chunks_by_rowids(self, rowids: Sequence[int]) -> dict[int, ChunkRow]:
        """Chunk rows by the store's document number."""

    def recall_for_ids(self, ids: Sequence[str]) -> dict[str, RecallMetadata]:
        """chunk id → recall metadata (importance, triggers, project key) of the chunks that have one."""

    # -- search -----------------------------------------------------------------------------

    def keyword_search(self, match: str, limit: int, *, model: str | None, sources: Sequence[str] | None,
                       like_terms: Sequence[str] = ()) -> list[tuple[ChunkRow, float]]:
        """OpenClaw's keyword table, ranked by raw bm25 (more negative = better)."""

    def stemmed_search(self, match: str, limit: int, *, model: str | None,
                       sources: Sequence[str] | None) -> list[tuple[ChunkRow, float]]:
        """The memtui profile's keyword table, ranked by raw bm25."""

    def like_search(self, terms: Sequence[str], limit: int, *, model: str | None,
                    sources: Sequence[str] | None) -> list[ChunkRow]:
        """Every term as a substring (the fallback when a keyword query fails)."""

    def vector_knn(self, query: Sequence[float], limit: int, *, model: str, sources: Sequence[str] | None,
                   skipped: list[str] | None = None) -> list[tuple[ChunkRow, float]]:
        """The nearest chunks with their cosine similarity."""

    def vector_blobs_for(self, ids: Sequence[str]) -> dict[str, bytes]:
        """chunk id → float32 little-endian vector of specific chunks."""

    def vectors_for_ids(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """chunk id → stored embedding (from the JSON column) of specific chunks."""

    def embeddings_for_model(self, model: str, sources: Sequence[str] | None) -> list[tuple[ChunkRow, str]]:
        """Every chunk of a model with its JSON embedding."""


class IndexStore(SearchReads, Protocol):
    """One agent's index of one workspace."""

    path: Path
    read_only: bool
    repairs: int

    # -- meta rows and bookkeeping ----------------------------------------------------------

    def read_meta(self) -> dict[str, Any] | None:
        """The parsed index meta row (OpenClaw's `memory_index_meta_v1`), or None."""

    def meta_value(self, key: str) -> str | None:
        """One raw meta row, or None."""

    def read_issues(self) -> list[dict[str, Any]]:
        """File issues recorded by the last sync."""

    def write_meta(self, value: str, key: str = ...) -> None:
        """Write a meta row."""

    def check_external_writes(self) -> bool:
        """Whether another program wrote to the index since memtui did."""

    def repair_external_writes(self) -> bool:
        """Repair what another program's writes left stale; True when it did."""

    def replaced(self) -> bool:
        """Whether the store must be reopened (its file was replaced)."""

    def replace_with(self, source: Path) -> None:
        """Make this index's content that of the rebuilt index opened at `source`, atomically for readers."""

    def close(self) -> None:
        """Release the connection."""

    # -- rows -------------------------------------------------------------------------------

    def counts(self) -> dict[str, dict[str, int]]:
        """source → {files, chunks}."""

    def chunk_count(self) -> int:
        """Number of chunks."""

    def chunks_by_ids(self, ids: Sequence[str]) -> dict[str, ChunkRow]:
        """Chunk rows by id."""

    def file_rows(self) -> list[tuple[str, str, str, float, int]]:
        """(path, source, hash, mtime, size) of every indexed file."""

    def chunks_for_path(self, path: str) -> list[ChunkRow]:
        """All chunks of one file, in line order."""

    # -- what the in-memory accelerator reads (memtui.search.accelerator) -------------------

    def journal_span(self) -> tuple[int, int] | None:
        """(oldest kept seq - 1, newest seq) of the chunk change journal; None without one."""

    def chunk_changes(self, after_seq: int) -> list[tuple[int, int, bool]]:
        """(seq, chunk rowid, added) of every journal entry after `after_seq`, in order."""

    def chunk_batch(self, after_rowid: int, size: int) -> list[tuple[int, str, str, str]]:
        """(rowid, model, source, text) of up to `size` chunks after `after_rowid`, in rowid order."""

    def vector_blobs(self) -> list[tuple[str, bytes]]:
        """(chunk id, float32 little-endian vector) of every stored vector."""

    def chunk_ids(self) -> list[tuple[int, str]]:
        """(rowid, id) of every chunk."""

    def embedding_json(self, after_rowid: int, size: int) -> list[tuple[int, str]]:
        """(rowid, embedding JSON) of up to `size` chunks after `after_rowid`."""

    def reader_args(self) -> dict[str, Any]:
        """What opens this index read-only in another process (`memtui.search.accelerator_build`)."""

    # -- writing ----------------------------------------------------------------------------

    def replace_file(self, *, path: str, source: str, digest: str, mtime: float, size: int,
                     rows: Sequence[tuple[ChunkRow, str, Sequence[float] | None]], updated_at: int,
                     fresh: bool = False, recall: Mapping[str, RecallMetadata] | None = None) -> None:
        """Atomically replace one file's chunks (chunk, embedding JSON, vector), their recall metadata (chunk id →
        metadata) and its files row."""

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Group the writes made inside into few commits; each file stays atomic."""

    def sync_lock(self) -> contextlib.AbstractContextManager[None]:
        """Held for a whole sync: one sync of this index at a time, on every host writing it."""

    def commit_batch(self) -> None:
        """Commit what the current batch has written."""

    def delete_files(self, paths: Iterable[str], source: str) -> int:
        """Remove files and their chunks; returns how many."""

    def ensure_vector_table(self, dims: int) -> None:
        """Prepare vector storage for `dims` (dropping vectors of another size)."""

    # -- embedding cache --------------------------------------------------------------------

    def cache_get(self, provider: str, model: str, provider_key: str,
                  hashes: Sequence[str]) -> dict[str, list[float]]:
        """Cached vectors by chunk hash."""

    def cache_put(self, provider: str, model: str, provider_key: str,
                  entries: Iterable[tuple[str, str, int]], updated_at: int) -> None:
        """Store (hash, embedding JSON, dims) entries."""

    def cache_prune(self, max_entries: int) -> int:
        """Drop the oldest entries beyond `max_entries`."""

    def cache_count(self) -> int:
        """Entries in the embedding cache."""

    def copy_cache_from(self, other: Path) -> None:
        """Seed this store's cache from the index at `other` (a rebuild)."""

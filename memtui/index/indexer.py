"""Full and incremental sync of memory files (and session transcripts) into a Store (§5)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.embeddings.base import (
    EmbeddingProvider,
    answers_with_direction,
    embed_texts_keeping,
    model_name,
    provider_key,
)
from memtui.embeddings.deadline import watched
from memtui.errors import PathError, ProviderError
from memtui.index.chunking import Chunk, chunk_markdown, split_for_embedding
from memtui.index.chunking_v5 import CHUNKING_VERSION, RecallMetadata, prepare_chunks
from memtui.index.freshness import same_stat
from memtui.index.store import ChunkRow, Store
from memtui.index.workspace import (
    MAX_MARKDOWN_BYTES,
    ROOT_MEMORY_FILE,
    MemoryFile,
    canonical_root_memory,
    is_allowed_memory_path,
    list_memory_files,
    memory_location,
)
from memtui.issues import FileIssue
from memtui.jscompat import sha256_hex
from memtui.settings.config import MemorySearchSettings


@dataclass(frozen=True)
class Progress:
    """A progress report: files done of total, chunks written so far, the file at hand."""

    phase: str
    files_done: int
    files_total: int
    chunks: int
    path: str | None = None


ProgressCallback = Callable[[Progress], None]
PROGRESS_EVERY = 0.05  # seconds between progress reports over files left as they were (each written one reports)
# Failed embedding calls in a row after which a sync stops calling the provider (the rest wait for the next sync).
MAX_FAILED_CALLS = 2
# Chunks the provider gives no vector with a direction (all zeros…) while it embeds other text: chunk hash → why,
# by file, for one provider and model. They rank by keywords only and are not sent again while their text, the
# provider and the model stay the same (README, "Reliability").
NO_VECTOR_KEY = "memtui.noVector"


@dataclass
class SyncReport:
    """What a sync did."""

    reason: str
    full: bool
    files_total: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    files_skipped: int = 0
    chunks_written: int = 0
    embedded: int = 0
    cache_hits: int = 0
    elapsed_ms: float = 0.0
    issues: list[FileIssue] = field(default_factory=list)
    full_reason: str | None = None
    repaired: str | None = None
    unread: set[str] = field(default_factory=set)  # memory files taken as unchanged by size and mtime
    complete: bool = False  # every memory file was compared with the index (not some paths, not stopped)
    written: set[str] = field(default_factory=set)  # files whose chunks this sync wrote
    vector_gaps: dict[str, int] = field(default_factory=dict)  # written file → its chunks left without a vector
    no_vector: dict[str, dict[str, str]] = field(default_factory=dict)  # written file → chunk hash → why no vector
    embed_calls: int = 0  # embedding calls that answered
    embed_failures: int = 0  # embedding calls that failed (their chunks are gaps)
    embed_error: str | None = None  # the last failure's message

    def to_json(self) -> dict[str, Any]:
        """camelCase JSON."""
        return {
            "reason": self.reason,
            "full": self.full,
            "fullReason": self.full_reason,
            "repaired": self.repaired,
            "filesTotal": self.files_total,
            "filesChanged": self.files_changed,
            "filesDeleted": self.files_deleted,
            "filesSkipped": self.files_skipped,
            "chunksWritten": self.chunks_written,
            "embedded": self.embedded,
            "cacheHits": self.cache_hits,
            "chunksWithoutVectors": sum(self.vector_gaps.values()),
            "chunksWithNoVectorOfTheirOwn": sum(len(hashes) for hashes in self.no_vector.values()),
            "embeddingError": self.embed_error,
            "elapsedMs": round(self.elapsed_ms, 1),
            "issues": [i.to_json() for i in self.issues],
        }


class EmbeddingFailed(ProviderError):
    """The provider failed while indexing (raised only with `raise_on_failure`); the caller switches to the
    configured fallback provider."""


class VectorSizeChanged(ProviderError):
    """The provider's vectors changed size during a sync; the index must be rebuilt for the new size."""

    def __init__(self, old: int, new: int) -> None:
        super().__init__(f"the provider's vectors changed from {old} to {new} dimensions")
        self.old = old
        self.new = new


@dataclass
class _Document:
    rel_path: str
    source: str
    digest: str
    mtime: float
    size: int
    chunks: list[Chunk]
    content: str = ""
    recall: dict[tuple[int, int], RecallMetadata] = field(default_factory=dict)  # (start, end) → set metadata


class Indexer:
    """Writes one workspace's memory (and optionally sessions) into a store."""

    def __init__(self, workspace_dir: Path, settings: MemorySearchSettings, provider: EmbeddingProvider | None,
                 *, sessions_dir: Path | None = None, batch_size: int = 64, vector_dims: int | None = None,
                 retry_paths: frozenset[str] = frozenset(), raise_on_failure: bool = False):
        self.workspace_dir = workspace_dir
        self.settings = settings
        self.provider = provider
        self.sessions_dir = sessions_dir
        self.batch_size = batch_size
        # The size every vector of this sync must have (None: set by the first one); cached vectors of
        # another size are embedded again, fresh ones of another size raise VectorSizeChanged.
        self.vector_dims = vector_dims
        # Files with chunks a sync left without a vector: written again (their other chunks from the cache).
        self.retry_paths = retry_paths
        # Without it a failed embedding call leaves its chunks without a vector (`SyncReport.vector_gaps`).
        self.raise_on_failure = raise_on_failure
        self._failed_in_row = 0
        self._no_vector: dict[str, str] = {}  # chunk hash → why the provider gives it no vector (known + this sync's)
        self._answers: bool | None = None  # whether the provider embeds a probe text (asked once per sync)

    # -- reading ----------------------------------------------------------------------------

    def _read_markdown(self, rel: str, issues: list[FileIssue]) -> tuple[str, float, int] | None:
        """The file's text, mtime (ms) and size, opened once with no symlink followed on the way."""
        try:
            location = memory_location(self.workspace_dir, rel, self.settings.memory_paths)
            with location.open() as handle:
                stat = os.fstat(handle.fileno())
                if stat.st_size > MAX_MARKDOWN_BYTES:
                    issues.append(FileIssue(rel, f"file is {stat.st_size} bytes (over {MAX_MARKDOWN_BYTES}); skipped"))
                    return None
                data = handle.read()
        except PathError as exc:
            issues.append(FileIssue(rel, f"{exc.message}; skipped"))
            return None
        except OSError as exc:
            issues.append(FileIssue(rel, f"not readable ({exc.strerror or exc.__class__.__name__})"))
            return None
        if b"\x00" in data[:8192]:
            issues.append(FileIssue(rel, "binary file (NUL bytes); skipped"))
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = data.decode("utf-8", errors="replace")
            issues.append(FileIssue(rel, f"not valid UTF-8 at byte {exc.start}; read with replacement characters"))
        return text, stat.st_mtime_ns / 1e6, stat.st_size

    def _chunk(self, content: str, rel: str, source: str) -> tuple[list[Chunk], dict[tuple[int, int], RecallMetadata]]:
        """The file's chunks: OpenClaw 2026.9's chunker (version 5: annotations stripped, MEMORY.md / USER.md one
        chunk per entry) for a 2026.9 agent, else 2026.4's; split for the provider's input limit (a piece keeps its
        chunk's lines). With them, the recall metadata set on a chunk, by its (start, end) lines."""
        chunking = self.settings.chunking
        recall: dict[tuple[int, int], RecallMetadata] = {}
        if chunking.version == CHUNKING_VERSION:
            prepared = prepare_chunks(content, rel, source, tokens=chunking.tokens, overlap=chunking.overlap)
            chunks = [c.chunk for c in prepared]
            recall = {(c.chunk.start_line, c.chunk.end_line): c.metadata for c in prepared
                      if c.metadata != RecallMetadata()}
        else:
            chunks = chunk_markdown(content, chunking.tokens, chunking.overlap)
        if self.provider is not None:
            chunks = split_for_embedding(chunks, self.provider.max_input_tokens)
        return chunks, recall

    def _listed(self, only: set[str] | None, issues: list[FileIssue]) -> list[MemoryFile]:
        """The memory files (an extra path's walk cut short is an issue), or just those of `only` that the
        listing rules would include (no tree walk)."""
        if only is None:
            return list_memory_files(self.workspace_dir, self.settings.memory_paths, issues)
        files = []
        for rel in sorted(only):
            try:
                target = is_allowed_memory_path(self.workspace_dir, rel, self.settings.memory_paths)
            except PathError:
                continue
            if rel.lower() == "dreams.md" or target.is_symlink() or not target.is_file():
                continue
            if rel == ROOT_MEMORY_FILE and canonical_root_memory(self.workspace_dir) is None:
                continue
            files.append(MemoryFile(str(target), rel))
        return files

    def _memory_documents(self, report: SyncReport, only: set[str] | None,
                          known: dict[str, tuple[str, float, int]]) -> list[tuple[str, Callable[[], _Document | None]]]:
        """A loader per memory file. A file whose size and mtime are those `known` (path → hash, mtime, size)
        is not read: it is what was indexed (as `freshness.first_difference` takes it), so a sync of 10,000
        unchanged notes costs 10,000 `lstat` calls, not 10,000 reads and hashes."""
        loaders: list[tuple[str, Callable[[], _Document | None]]] = []
        for memory_file in self._listed(only, report.issues):

            def load(mf: Any = memory_file) -> _Document | None:
                row = known.get(mf.rel_path)
                if row is not None and mf.rel_path not in self.retry_paths and same_stat(mf.path, row[1], row[2]):
                    report.unread.add(mf.rel_path)
                    return _Document(mf.rel_path, "memory", row[0], row[1], row[2], [])
                read = self._read_markdown(mf.rel_path, report.issues)
                if read is None:
                    return None
                content, mtime, size = read
                return _Document(mf.rel_path, "memory", sha256_hex(content), mtime, size, [], content)

            loaders.append((memory_file.rel_path, load))
        return loaders

    # -- sync -------------------------------------------------------------------------------

    def sync(self, store: Store, *, reason: str, full: bool, progress: ProgressCallback | None = None,
             should_stop: Callable[[], bool] | None = None, session_files: list[Path] | None = None,
             memory_paths: set[str] | None = None) -> SyncReport:
        """Bring `store` up to date. With `full`, every file is rewritten (store is fresh); `memory_paths`
        and `session_files` limit the sync to those files (others are neither read nor deleted)."""
        started = time.perf_counter()
        report = SyncReport(reason=reason, full=full)
        emit = progress or (lambda _p: None)
        model = model_name(self.provider)
        known_no_vector = {} if full else read_no_vector(store, self.provider)
        self._no_vector = {digest: why for hashes in known_no_vector.values() for digest, why in hashes.items()}
        rows = store.file_rows()
        indexed: dict[str, dict[str, str]] = {"memory": {}, "sessions": {}}
        for path, source, digest, _mtime, _size in rows:
            if source in indexed:
                indexed[source][path] = digest
        memory_items: list[tuple[str, Callable[[], _Document | None], str]] = []
        if "memory" in self.settings.sources and memory_paths != set():
            known = {} if full else {path: (digest, mtime, size) for path, source, digest, mtime, size in rows
                                     if source == "memory"}
            memory_items = [(rel, loader, "memory")
                            for rel, loader in self._memory_documents(report, memory_paths, known)]
        session_items = self._session_items(report.issues, session_files) if "sessions" in self.settings.sources \
            else []
        items = memory_items + session_items
        report.files_total = len(items)
        emit(Progress("scan", 0, len(items), 0))
        seen: dict[str, set[str]] = {"memory": set(), "sessions": set()}
        reported = 0.0  # when progress was last reported for a file left as it was

        def passed(done: int, rel: str) -> None:
            nonlocal reported
            now = time.monotonic()
            if now - reported >= PROGRESS_EVERY:
                reported = now
                emit(Progress("index", done, len(items), report.chunks_written, rel))

        with store.batch():
            for done, (rel, loader, source) in enumerate(items, start=1):
                if should_stop and should_stop():
                    break
                seen[source].add(rel)
                document = loader()
                if document is None:
                    report.files_skipped += 1
                    passed(done, rel)
                    continue
                if not full and indexed[source].get(rel) == document.digest and rel not in self.retry_paths:
                    passed(done, rel)
                    continue
                if document.content:
                    document.chunks, document.recall = self._chunk(document.content, rel, source)
                self._write_document(store, document, model, report, fresh=full)
                report.files_changed += 1
                emit(Progress("index", done, len(items), report.chunks_written, rel))
            if not (should_stop and should_stop()):
                for source, paths in indexed.items():
                    if source not in self.settings.sources and paths:
                        report.files_deleted += store.delete_files(paths.keys(), source)
                        continue
                    if source == "sessions" and session_files is not None:
                        continue
                    scope = memory_paths if source == "memory" else None
                    stale = [p for p in paths if p not in seen[source] and (scope is None or p in scope)]
                    if stale:
                        report.files_deleted += store.delete_files(stale, source)
        report.complete = memory_paths is None and not (should_stop and should_stop())
        self._record_no_vector(store, known_no_vector, report)
        report.elapsed_ms = (time.perf_counter() - started) * 1000
        emit(Progress("done", report.files_total, report.files_total, report.chunks_written))
        return report

    def _session_items(self, issues: list[FileIssue],
                       only: list[Path] | None) -> list[tuple[str, Callable[[], _Document | None], str]]:
        if self.sessions_dir is None or not self.sessions_dir.is_dir():
            return []
        from memtui.index.transcripts import (
            build_session_document,
            excluded_session_ids,
            list_session_files,
            remap_chunk_lines,
        )

        excluded, sessions_issues = excluded_session_ids(self.sessions_dir)
        issues.extend(sessions_issues)
        files = list_session_files(self.sessions_dir) if only is None else only
        items: list[tuple[str, Callable[[], _Document | None], str]] = []
        for path in files:

            def load(p: Path = path) -> _Document | None:
                try:
                    doc = build_session_document(p, excluded_ids=excluded)
                except OSError as exc:
                    issues.append(FileIssue(f"sessions/{p.name}", f"not readable ({exc.strerror})"))
                    return None
                issues.extend(doc.issues)
                chunks = []
                for chunk in self._chunk(doc.content, doc.rel_path, "sessions")[0]:
                    start, end = remap_chunk_lines(chunk.start_line, chunk.end_line, doc.line_map)
                    chunks.append(Chunk(start, end, chunk.text, chunk.hash))
                return _Document(doc.rel_path, "sessions", doc.hash, doc.mtime_ms, doc.size, chunks)

            items.append((f"sessions/{path.name}", load, "sessions"))
        return items

    def _write_document(self, store: Store, document: _Document, model: str, report: SyncReport,
                        fresh: bool) -> None:
        vectors = None
        if self.provider is not None:
            store.commit_batch()
            stored = {} if fresh else self._stored_vectors(store, document.rel_path, model)
            vectors = self._embed(store, document.chunks, report, stored)
            none_of_their_own = {c.hash: self._no_vector[c.hash] for c, vector in zip(document.chunks, vectors,
                                                                                     strict=True)
                                 if not vector and c.hash in self._no_vector}
            if none_of_their_own:
                report.no_vector[document.rel_path] = none_of_their_own
            if missing := sum(1 for c, vector in zip(document.chunks, vectors, strict=True)
                              if not vector and c.hash not in self._no_vector):
                report.vector_gaps[document.rel_path] = missing
        rows: list[tuple[ChunkRow, str, list[float] | None]] = []
        recall: dict[str, RecallMetadata] = {}
        for index, chunk in enumerate(document.chunks):
            chunk_id = sha256_hex(
                f"{document.source}:{document.rel_path}:{chunk.start_line}:{chunk.end_line}:{chunk.hash}:{model}"
            )
            if (metadata := document.recall.get((chunk.start_line, chunk.end_line))) is not None:
                recall[chunk_id] = metadata
            vector = vectors[index] if vectors is not None else None
            embedding_json = json.dumps(vector, separators=(",", ":")) if vector else "[]"
            rows.append((ChunkRow(chunk_id, document.rel_path, document.source, chunk.start_line, chunk.end_line,
                                  chunk.hash, model, chunk.text), embedding_json, vector))
        store.replace_file(path=document.rel_path, source=document.source, digest=document.digest,
                           mtime=document.mtime, size=document.size, rows=rows, updated_at=int(time.time() * 1000),
                           fresh=fresh, recall=recall)
        report.chunks_written += len(rows)
        report.written.add(document.rel_path)

    @staticmethod
    def _stored_vectors(store: Store, rel: str, model: str) -> dict[str, list[float]]:
        """chunk hash → the vector the index holds for it in this file (kept for a chunk whose text is
        unchanged, also with the embedding cache off or pruned)."""
        ids = {row.id: row.hash for row in store.chunks_for_path(rel) if row.model == model}
        return {ids[chunk_id]: vector for chunk_id, vector in store.vectors_for_ids(list(ids)).items()}

    def _embed(self, store: Store, chunks: list[Chunk], report: SyncReport,
               stored: dict[str, list[float]]) -> list[list[float]]:
        """A vector per chunk (from the cache, the index, or the provider); `[]` for a chunk whose embedding
        call failed, unless `raise_on_failure`."""
        provider = self.provider
        assert provider is not None
        key = provider_key(provider)
        hashes = [c.hash for c in chunks]
        cached = store.cache_get(provider.id, provider.model, key, hashes) if self.settings.cache.enabled else {}
        cached = {**stored, **cached}
        if self.vector_dims is None and cached:
            self.vector_dims = len(next(iter(cached.values())))
        cached = {h: v for h, v in cached.items() if len(v) == self.vector_dims}
        missing = list(dict.fromkeys(c.hash for c in chunks if c.hash not in cached and c.hash not in self._no_vector))
        by_hash = {c.hash: c.text for c in chunks}
        fresh: dict[str, list[float]] = {}
        for start in range(0, len(missing), self.batch_size):
            part = missing[start : start + self.batch_size]
            if self._failed_in_row >= MAX_FAILED_CALLS:
                break
            try:
                with watched(provider):
                    vectors, refused = embed_texts_keeping(provider, [by_hash[h] for h in part])
                if refused and (len(refused) < len(part) or self._provider_answers()):
                    # The provider embeds other text: this is its answer for these texts, not an outage.
                    self._no_vector.update({part[i]: f"the provider's vector {why}" for i, why in refused.items()})
                elif refused:
                    position, why = min(refused.items())
                    raise ProviderError(f"{provider.id} embeddings failed: vector {position + 1} {why}; it cannot be "
                                        "searched by similarity (a probe text got no vector with a direction either)",
                                        "check the embedding model and memorySearch.remote settings")
            except ProviderError as exc:
                if self.raise_on_failure:
                    raise EmbeddingFailed(f"embedding failed with provider {provider.id}: {exc}") from exc
                self._failed_in_row += 1
                report.embed_failures += 1
                report.embed_error = str(exc)
                continue
            self._failed_in_row = 0
            report.embed_calls += 1
            usable = {h: v for h, v in zip(part, vectors, strict=True) if v}
            if not usable:
                continue
            size = len(next(iter(usable.values())))
            if self.vector_dims is None:
                self.vector_dims = size
            if size != self.vector_dims:
                raise VectorSizeChanged(self.vector_dims, size)
            fresh.update(usable)
        if fresh:
            now = int(time.time() * 1000)
            store.cache_put(provider.id, provider.model, key,
                            [(h, json.dumps(v, separators=(",", ":")), len(v)) for h, v in fresh.items()], now)
        report.embedded += len(fresh)
        report.cache_hits += sum(1 for c in chunks if c.hash in cached)
        if self.vector_dims is not None and store.capabilities.vector_available:
            store.ensure_vector_table(self.vector_dims)
        return [fresh.get(c.hash) or cached.get(c.hash) or [] for c in chunks]

    def _provider_answers(self) -> bool:
        """Whether the provider gives a probe text a vector with a direction (asked once per sync)."""
        if self._answers is None:
            assert self.provider is not None
            with watched(self.provider):
                self._answers = answers_with_direction(self.provider)
        return self._answers

    def _record_no_vector(self, store: Store, known: dict[str, dict[str, str]], report: SyncReport) -> None:
        """Keep `NO_VECTOR_KEY` as the index now is: the files this sync wrote as it found them, the others as
        recorded (a file no longer indexed left out)."""
        if self.provider is None:
            return
        files = {path: hashes for path, hashes in known.items() if path not in report.written}
        files.update(report.no_vector)
        if files:
            present = {row[0] for row in store.file_rows()}
            files = {path: hashes for path, hashes in files.items() if path in present}
        value = json.dumps({"provider": self.provider.id, "model": self.provider.model,
                            "providerKey": provider_key(self.provider), "files": files}) if files else ""
        if value != (store.meta_value(NO_VECTOR_KEY) or ""):
            store.write_meta(value, key=NO_VECTOR_KEY)


def read_no_vector(store: Store, provider: EmbeddingProvider | None) -> dict[str, dict[str, str]]:
    """The chunks recorded (`NO_VECTOR_KEY`) as given no vector by this provider and model: file → hash → why
    (empty for another provider, model or key: their chunks are sent again)."""
    if provider is None:
        return {}
    try:
        data = json.loads(store.meta_value(NO_VECTOR_KEY) or "{}")
    except ValueError:
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict) or \
            (data.get("provider"), data.get("model"), data.get("providerKey")) != (
                provider.id, provider.model, provider_key(provider)):
        return {}
    return {str(path): {str(h): str(why) for h, why in hashes.items()}
            for path, hashes in data["files"].items() if isinstance(hashes, dict)}

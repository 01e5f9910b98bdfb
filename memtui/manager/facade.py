"""MemoryManager: the one facade the CLI, the TUI and the MCP server use."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.agentdb.index_summary import AgentIndexSummary
from memtui.atomic import sweep_stale_temps, sweep_stale_temps_of
from memtui.embeddings.base import NO_PROVIDER, EmbeddingProvider, embed_query_text, model_name
from memtui.errors import MemtuiError, ProviderError, StoreError, unexpected_message
from memtui.index.events import EventHub, IndexEvent
from memtui.index.identity import WORKSPACE_KEY, WorkspaceCheck, check_workspace
from memtui.index.meta import build_meta, full_reindex_reason
from memtui.index.store import (
    ISSUES_KEY,
    DamagedIndexError,
    DriverError,
    ForeignDatabaseError,
    Store,
    WriterLock,
    identify_database,
    is_damage,
    move_aside,
    remove_database_files,
    remove_leftovers,
    temp_index_path,
)
from memtui.index.sync_queue import SyncQueue, SyncRequest
from memtui.issues import FileIssue, carried_over
from memtui.jscompat import js_stringify
from memtui.manager.outage import (
    bounded_query_vector,
    freshness_fields,
    read_gaps,
    record_gaps,
    sync_for_search,
)
from memtui.manager.providers import ProviderLifecycle
from memtui.manager.status import StatusReport
from memtui.search.agent_db import GENERATION, AgentDatabase, search_response
from memtui.search.engine import Searcher
from memtui.search.fast_search import FastSearch
from memtui.search.response import SearchOptions, SearchResponse
from memtui.settings.agent import AgentEnv
from memtui.settings.config import MemorySearchSettings
from memtui.settings.paths import same_folder
from memtui.tools import error_payload, memory_get, search_payload

if TYPE_CHECKING:  # the indexer itself is imported by the first sync, which a one-shot search may never run
    from memtui.index.indexer import Indexer, Progress, ProgressCallback, SyncReport

_UNSET: Any = object()
# The workspace's own memory files, whose saves leave temp files beside them when killed.
ROOT_FILES = ("MEMORY.md", "DREAMS.md", "dreams.md")
REPAIRED = "another program wrote to this index since memtui did: the Porter table was rebuilt"


class MemoryManager(ProviderLifecycle, StatusReport, EventHub):
    """Owns an agent's index: provider, store, sync, search, tools and status."""

    def __init__(self, env: AgentEnv, *, provider: EmbeddingProvider | None = _UNSET):
        super().__init__()
        self.env = env
        self.settings: MemorySearchSettings = env.settings
        self.requested_provider = env.requested_provider
        self.fallback: dict[str, str] | None = None
        self.provider_reason: str | None = None
        self.provider_source = "config"
        if provider is _UNSET:
            self.provider = self._select_provider()
        else:
            self.provider = provider
            self.provider_source = "injected"
        self._write_lock = threading.Lock()
        # The provider (with its reason and fallback) a sync fell back from, to be tried again by the next sync.
        self._failed: tuple[EmbeddingProvider | None, str | None, dict[str, str] | None] | None = None
        self._failed_at = 0.0
        self.last_sync: SyncReport | None = None
        self.notices: list[FileIssue] = []
        self.store = self._open_store()
        self.workspace_check = self._check_workspace()
        self._repairs_reported = 0
        self.fast = FastSearch()
        self.agent_db = AgentDatabase(env.generation.path) if env.generation.name == GENERATION else None
        self.dirty = not env.read_only and (("memory" in self.settings.sources and self.index_mismatch() is not None)
                                            or self.workspace_check.foreign is not None or read_gaps(self) is not None)
        self.queue = SyncQueue(self._run_request, self._write_lock)
        self._warm_sessions: set[str] = set()

    # -- lifecycle --------------------------------------------------------------------------

    def _open_store(self, path: Path | None = None) -> Store:
        """The index at `path` (default: the agent's). A damaged or foreign one in memtui's own folder is moved
        aside under the writer lock and rebuilt; read-only, or a `--store` file of another program's, an error."""
        target = path or self.env.store_path
        own = path is None and self.env.store_is_memtuis
        try:
            return self._store_at(target)
        except ForeignDatabaseError:
            if not own:
                raise
        except DamagedIndexError as exc:
            if self.env.read_only or path is not None:
                raise StoreError(exc.message, "run `memtui index --force` without --read-only: the damaged file "
                                              "is moved aside and the index rebuilt") from None
        with WriterLock(Path(f"{target}.lock")):
            try:
                return self._store_at(target)
            except (DamagedIndexError, ForeignDatabaseError) as exc:
                reason = exc.reason if isinstance(exc, DamagedIndexError) else exc.kind.describe()
                aside = move_aside(target)
                notice = FileIssue(target.name, f"index was damaged ({reason}); moved aside to {aside.name} "
                                                "and rebuilt")
                self.notices.append(notice)
                store = self._store_at(target)
                store.write_meta(json.dumps([notice.to_json()]), key=ISSUES_KEY)
                return store

    def _store_at(self, path: Path) -> Store:
        store_settings = self.settings.store
        if store_settings.driver == "postgres":  # the agent's index in one database; another path: a rebuild's
            from memtui.index.store.postgres import PostgresStore
            from memtui.search.tokenizer import PorterTokenizer

            return PostgresStore(  # type: ignore[return-value]  # an IndexStore (memtui.index.store.protocol)
                store_settings.url or "", agent=self.env.agent_id, workspace=str(self.env.workspace_dir), path=path,
                tokenizer=PorterTokenizer(), label=None if path == self.env.store_path else str(path),
                read_only=self.env.read_only, fts_tokenizer=store_settings.fts_tokenizer,
                vector_enabled=store_settings.vector_enabled, cache_enabled=self.settings.cache.enabled)
        return Store(
            path,
            read_only=self.env.read_only,
            fts_tokenizer=store_settings.fts_tokenizer,
            vector_enabled=store_settings.vector_enabled,
            extension_path=store_settings.vector_extension_path,
            cache_enabled=self.settings.cache.enabled,
        )

    def current_store(self) -> Store:
        """The store, reopened first when another program replaced or deleted the index file, so a long-running
        TUI, `watch` or `mcp` never keeps reading or writing a file nobody else sees. (A sync running in
        another thread does that check itself; the old store is left to threads still using it.)"""
        if self.store.replaced() and self._write_lock.acquire(blocking=False):
            try:
                self._reopen_if_replaced()
            finally:
                self._write_lock.release()
        return self.store

    def _reopen_if_replaced(self) -> None:
        if self.store.replaced():
            self.store = self._open_store()
            self._repairs_reported = self.store.repairs
            self.workspace_check = self._check_workspace()
            self.dirty = self.dirty or not self.store.read_meta() or self.workspace_check.foreign is not None

    def _check_workspace(self) -> WorkspaceCheck:
        """Refuse (read-only) an index of another workspace; a writable one is synced before it answers."""
        env = self.env
        own = env.store_path == env.openclaw_store_path and same_folder(env.workspace_dir,
                                                                         env.configured_workspace_dir)
        check = check_workspace(self.store, env.workspace_dir, openclaw_own=own)
        if check.foreign is not None and env.read_only:
            self.close()
            mine = identify_database(env.store_path).memtui_may_write  # else a writable open is refused too
            raise StoreError(f"{check.foreign}; memtui does not answer one workspace from another's index",
                             "open it without --read-only to index it for this workspace, or pass its own --store"
                             if mine else "leave out --store so memtui keeps its own index of this workspace")
        return check

    def _answer_for_this_workspace(self) -> None:
        """Before a search: an index built for another workspace (or unrecorded) is synced first; one another
        program wrote to is repaired by a sync in the background."""
        if self.env.read_only:
            return
        if self.workspace_check.foreign is not None:
            self.sync(reason="workspace")
        elif self.store.check_external_writes():
            self.request_sync("index changed by another program")

    def close(self) -> None:
        """Close the store and the provider."""
        self.store.close()
        for provider in (self.provider, self._failed[0] if self._failed else None):
            if provider is not None:
                provider.close()

    def __enter__(self) -> MemoryManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def citations(self) -> str:
        """`memory.citations` (on, off, auto)."""
        return self.env.citations

    # -- sync -------------------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The `chunks.model` value in use."""
        return model_name(self.provider)

    def _wanted_meta(self, dims: int | None) -> dict[str, Any]:
        return build_meta(self.env.workspace_dir, self.settings, self.provider, dims)

    def index_mismatch(self) -> str | None:
        """Why the index was not built for this process's provider and settings (so a sync must rebuild it
        before its results mean anything), or None."""
        existing = self.store.read_meta()
        if existing is None:
            return "no index metadata"
        # Without a provider the vector state cannot matter: asking would load sqlite-vec for nothing.
        vector_ready = self.provider is not None and self.store.capabilities.vector_available
        return full_reindex_reason(existing, self._wanted_meta(self._vector_dims()), vector_ready)

    def _vector_dims(self) -> int | None:
        if self.provider is None or not self.store.capabilities.vector_available:
            return None
        return self.provider.dims or self.store.vector_dims()

    def sync(self, *, force: bool = False, reason: str = "cli", progress: ProgressCallback | None = None,
             should_stop: Callable[[], bool] | None = None, session_files: list[Path] | None = None,
             memory_paths: set[str] | None = None) -> SyncReport:
        """Bring the index up to date: incremental, or a safe full rebuild when forced or the meta changed.

        `memory_paths` limits an incremental sync to those memory files (the watcher's changed paths);
        `session_files` to those transcripts.
        """
        if self.env.read_only:
            raise StoreError(f"index {self.env.store_path} is open read-only; sync is not allowed")
        with self._write_lock, WriterLock(Path(f"{self.env.store_path}.lock")), self.store.sync_lock():
            self._reopen_if_replaced()
            self.emit(IndexEvent("started", reason=reason))
            began = time.monotonic()

            def relay(p: Progress) -> None:
                if progress:
                    progress(p)
                self.emit(IndexEvent("progress", reason=reason, progress=p))

            if memory_paths is None and session_files is None:
                self._sweep_leftovers()
            try:
                report = self._sync_locked(force=force, reason=reason, progress=relay, should_stop=should_stop,
                                           session_files=session_files, memory_paths=memory_paths)
            except Exception as exc:
                self.emit(IndexEvent("failed", reason=reason,
                                     error=str(exc) if isinstance(exc, MemtuiError) else unexpected_message(exc)))
                raise
            reported = {issue.path for issue in report.issues}

            def untouched(path: str) -> bool:
                return path not in reported and (path in report.unread or (
                    memory_paths is not None and not path.startswith("sessions/") and path not in memory_paths))

            record_gaps(self, report)
            report.issues[:0] = [*self.notices, *carried_over(self.store.read_issues(), untouched)]
            self.notices = []
            self.store.write_meta(json.dumps([i.to_json() for i in report.issues]), key=ISSUES_KEY)
            self.store.write_meta(str(self.env.workspace_dir), key=WORKSPACE_KEY)
            self.workspace_check = WorkspaceCheck(str(self.env.workspace_dir))
            self.last_sync = report
            self.dirty = False
            if report.complete:
                self.queue.covered(began)
            self.emit(IndexEvent("finished", reason=reason, report=report))
            return report

    def _sweep_leftovers(self) -> None:
        """Remove what killed runs left (the writer lock is held, so no other rebuild is running): temp
        index files of interrupted full rebuilds, and temp files of interrupted saves under `memory/` and of
        MEMORY.md / DREAMS.md."""
        remove_leftovers(self.env.store_path)
        memory_dir = self.env.workspace_dir / "memory"
        if memory_dir.is_dir() and not memory_dir.is_symlink():
            sweep_stale_temps(memory_dir)
        sweep_stale_temps_of(self.env.workspace_dir, ROOT_FILES)

    def _sync_locked(self, *, force: bool, reason: str, progress: ProgressCallback,
                     should_stop: Callable[[], bool] | None, session_files: list[Path] | None,
                     memory_paths: set[str] | None) -> SyncReport:
        required_dims: int | None = None
        forced_because = "forced"
        from memtui.index.indexer import EmbeddingFailed, Indexer, VectorSizeChanged

        # Only a configured fallback provider takes over from a failing one; else its failed chunks wait.
        switch = self.provider is not None and self.settings.fallback not in ("none", self.provider.id)

        self._retry_failed_provider()
        self.store.repair_external_writes()
        while True:
            existing = self.store.read_meta()
            wanted = self._wanted_meta(self._vector_dims())
            why_full = forced_because if force and not session_files else full_reindex_reason(
                existing, wanted, self.store.capabilities.vector_available)
            dims = required_dims if why_full else self.store.vector_dims() or (existing or {}).get("vectorDims")
            gaps = None if why_full else read_gaps(self)
            indexer = Indexer(self.env.workspace_dir, self.settings, self.provider, sessions_dir=self.env.sessions_dir,
                              vector_dims=dims, retry_paths=frozenset(gaps.files if gaps else ()),
                              raise_on_failure=switch)
            try:
                if why_full is None:
                    report = indexer.sync(self.store, reason=reason, full=False, progress=progress,
                                          should_stop=should_stop, session_files=session_files,
                                          memory_paths=memory_paths)
                    self.store.write_meta(js_stringify(self._wanted_meta(self._vector_dims())))
                    self._prune_cache()
                    report.repaired = REPAIRED if self.store.repairs > self._repairs_reported else None
                    self._repairs_reported = self.store.repairs
                    return report
                if self.store.chunk_count() == 0:
                    report = self._build_in_place(indexer, reason, progress, should_stop)
                else:
                    report = self._full_reindex(indexer, reason, progress, should_stop)
                report.full_reason = why_full
                return report
            except VectorSizeChanged as exc:
                # Rebuild everything at the new size; a provider that changes size again is a failing one.
                if required_dims is not None:
                    self._switch_to_fallback(f"{exc} (twice in one sync)")
                required_dims = None if required_dims is not None else exc.new
                force, forced_because = True, str(exc)
            except EmbeddingFailed as exc:
                switch = False
                if self._switch_to_fallback(str(exc), keep=True):
                    force, forced_because = True, f"provider failed: {exc}"

    def _build_in_place(self, indexer: Indexer, reason: str, progress: ProgressCallback,
                        should_stop: Callable[[], bool] | None) -> SyncReport:
        """First build of an empty index: written file by file into the live store, so an interrupted
        build keeps its embedding cache; the meta row is written only when the build completed."""
        report = indexer.sync(self.store, reason=reason, full=True, progress=progress, should_stop=should_stop)
        if not (should_stop and should_stop()):
            self.store.write_meta(js_stringify(self._wanted_meta(self._vector_dims())))
            self._prune_cache()
        return report

    def _full_reindex(self, indexer: Indexer, reason: str, progress: ProgressCallback,
                      should_stop: Callable[[], bool] | None) -> SyncReport:
        """Build a fresh index beside the live one, then copy it into the live file in one transaction, so
        other processes keep their connections and never see a missing or empty index."""
        from memtui.index.indexer import SyncReport

        target = self.env.store_path
        temp_path = temp_index_path(target)
        try:
            temp = self._open_store(temp_path)
            try:
                temp.copy_cache_from(target)
                report = indexer.sync(temp, reason=reason, full=True, progress=progress, should_stop=should_stop)
                if should_stop and should_stop():
                    return SyncReport(reason=reason, full=True)
                temp.write_meta(js_stringify(build_meta(self.env.workspace_dir, self.settings, self.provider,
                                                      self._temp_dims(temp))))
                # Readers see the rebuilt index as soon as it is installed: it records its workspace already.
                temp.write_meta(str(self.env.workspace_dir), key=WORKSPACE_KEY)
                if self.settings.cache.max_entries:
                    temp.cache_prune(self.settings.cache.max_entries)
            finally:
                temp.close()
            self._install(temp_path)
        finally:
            remove_database_files(temp_path)
        return report

    def _install(self, built: Path) -> None:
        """Make the index built at `built` the live one; a live file too damaged to copy into is moved aside
        and the built file renamed into its place."""
        try:
            self.store.replace_with(built)
            return
        except DriverError as exc:
            if not is_damage(exc):
                raise
            reason = str(exc)
        self.store.close()
        aside = move_aside(self.env.store_path)
        os.replace(built, self.env.store_path)
        self.notices.append(FileIssue(self.env.store_path.name, f"index was damaged ({reason}); moved aside to "
                                                                f"{aside.name} and rebuilt"))
        self.store = self._open_store()

    def _temp_dims(self, store: Store) -> int | None:
        if self.provider is None or not store.capabilities.vector_available:
            return None
        return self.provider.dims or store.vector_dims()

    def _prune_cache(self) -> None:
        if self.settings.cache.max_entries:
            self.store.cache_prune(self.settings.cache.max_entries)

    def request_sync(self, reason: str, *, session_files: list[Path] | None = None,
                     memory_paths: set[str] | None = None, seen_at: float | None = None) -> None:
        """Queue a sync on the background indexing thread (one at a time). A queued unscoped sync covers
        every later request; scoped ones (`session_files`, `memory_paths`) queue in order, and memory paths
        whose last change was `seen_at` are skipped once a complete sync begun after that has run."""
        if not self.env.read_only:
            self.queue.put(SyncRequest(reason, tuple(session_files) if session_files is not None else None,
                                       frozenset(memory_paths) if memory_paths is not None else None, seen_at))

    def _run_request(self, request: SyncRequest) -> None:
        self.sync(reason=request.reason,
                  session_files=list(request.session_files) if request.session_files is not None else None,
                  memory_paths=set(request.memory_paths) if request.memory_paths is not None else None)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until queued background syncs have finished; False on timeout."""
        return self.queue.wait_idle(timeout)

    def warm_session(self, session_key: str | None) -> None:
        """`warmSession`: one background session-start sync per session key."""
        if not session_key or session_key in self._warm_sessions or not self.settings.sync.on_session_start:
            return
        self._warm_sessions.add(session_key)
        self.request_sync("session-start")

    def ensure_indexed(self) -> SyncReport | None:
        """A sync when the index is empty or dirty, waited for a bounded time (`outage.sync_for_search`): its
        report, or None when there was none to run or it is still running."""
        if self.env.read_only or not (self.dirty or self.index_mismatch() is not None):
            return None
        return sync_for_search(self)

    # -- search -----------------------------------------------------------------------------

    def file_mtimes(self) -> dict[str, float]:
        """path → indexed mtime (ms), for decay of undated files."""
        return {path: float(mtime) for path, _source, _digest, mtime, _size in self.store.file_rows()}

    def search(self, query: str, *, max_results: int | None = None, min_score: float | None = None,
               sources: list[str] | None = None, profile: str | None = None,
               settings: MemorySearchSettings | None = None, now: datetime | None = None,
               query_vector: list[float] | None = None, candidate_limit: int | None = None) -> SearchResponse:
        """Search the index; `settings`/`profile` override the configured ones (the TUI's live tuning). Profile
        `openclaw` on a 2026.9 agent OpenClaw has indexed is answered from OpenClaw's own agent database."""
        profile = profile or self.env.profile
        if self.agent_db_index(profile) is not None:
            return self._search_agent_db(query, max_results=max_results, min_score=min_score, now=now,
                                         query_vector=query_vector, settings=settings or self.settings)
        self.current_store()
        self._answer_for_this_workspace()
        store = self.store
        fast = self.fast.current(store, vectors=self.provider is not None) if profile == "memtui" else None
        searcher = Searcher(store, self.provider, settings or self.settings, profile, self.file_mtimes, fast=fast)
        options = SearchOptions(max_results=max_results, min_score=min_score, sources=sources,
                                candidate_limit=candidate_limit)
        skipped = None
        if query_vector is None and query.strip():  # a slow provider costs a bounded wait, then keywords only
            query_vector, skipped = bounded_query_vector(self, query)
        response = searcher.search(query, options, now=now, query_vector=query_vector)
        response.vector_skipped = skipped or response.vector_skipped
        return response

    def agent_db_index(self, profile: str | None = None) -> AgentIndexSummary | None:
        """OpenClaw 2026.9's own index when it answers searches of `profile` (`openclaw` on a 2026.9 agent whose
        database holds an index), else None."""
        if (profile or self.env.profile) != "openclaw" or self.agent_db is None:
            return None
        return self.agent_db.indexed()

    def _search_agent_db(self, query: str, *, max_results: int | None, min_score: float | None,
                         now: datetime | None, query_vector: list[float] | None,
                         settings: MemorySearchSettings) -> SearchResponse:
        assert self.agent_db is not None
        summary = self.agent_db.summary()
        model, skipped = summary.meta.get("model"), None
        if not summary.vectors:
            query_vector = None
        elif self.provider is None or self.provider.model != model:
            have = self.provider.model if self.provider is not None else "no embedding provider"
            skipped = (f"OpenClaw's vectors are of {model}; memtui has {have} here, so this ranks keyword-only, as "
                       "OpenClaw does without its provider")
            query_vector = None
        elif query_vector is None:  # bounded as for memtui's own index: a slow or failing provider, keywords only
            try:
                vector, skipped = bounded_query_vector(self, query)
            except ProviderError as exc:
                vector, skipped = None, f"the embedding provider failed ({exc.message})"
            query_vector = vector or None
        query_settings = settings.query
        return search_response(self.agent_db, query, query_vector=query_vector, vector_skipped=skipped, now=now,
                               max_results=query_settings.max_results if max_results is None else max_results,
                               min_score=query_settings.min_score if min_score is None else min_score,
                               workspace_dir=self.env.workspace_dir)

    def embed_query(self, query: str) -> list[float] | None:
        """The query vector (None in FTS-only mode), so callers can re-rank without re-embedding."""
        return embed_query_text(self.provider, query) if self.provider is not None else None

    def memory_search(self, query: str, *, max_results: int | None = None, min_score: float | None = None,
                      session_key: str | None = None, explain: bool = False,
                      profile: str | None = None, record: bool = False) -> dict[str, Any]:
        """The `memory_search` tool as OpenClaw runs it: an empty index syncs first, a dirty one in the background;
        OpenClaw's JSON (+ breakdown on request). `record`: an agent's search (MCP) feeds the recall store."""
        self.current_store()
        own_index = self.agent_db_index(profile) is None
        if not self.env.read_only and query.strip() and own_index:
            if self.index_mismatch() is not None or (self.store.chunk_count() == 0 and self.dirty):
                sync_for_search(self)
            else:
                self.warm_session(session_key)
                if self.dirty and self.settings.sync.on_search:
                    self.request_sync("search")
        try:
            vector, keyword_only = bounded_query_vector(self, query) if own_index and query.strip() else (None, None)
            response = self.search(query, max_results=max_results, min_score=min_score, profile=profile,
                                   query_vector=vector)
        except ProviderError as exc:
            return error_payload(str(exc))
        if keyword_only:
            response.vector_skipped = keyword_only
        if record:
            self.record_recalls(query, response)
        payload = search_payload(response, provider=self.provider.id if self.provider else NO_PROVIDER,
                                 model=self.provider.model if self.provider else None,
                                 citations_mode=self.env.citations, session_key=session_key,
                                 fallback=self.fallback, explain=explain, max_results=max_results)
        if own_index:  # OpenClaw's staleness fields go before `debug`
            debug = payload.pop("debug")
            payload.update(freshness_fields(self, keyword_only), debug=debug)
        return payload

    def record_recalls(self, query: str, response: SearchResponse) -> int:
        """Feed the dreaming recall store with this search's hits, as OpenClaw's search does; never in a 2026.9
        workspace, whose `doctor --fix` would import a 2026.4 store as the agent's own promotion signals."""
        if self.env.read_only or not response.results or self.env.generation.name == "2026.9":
            return 0
        from memtui.dreaming.recalls import record_search_hits

        hits = [(h.path, h.start_line, h.end_line, h.score, h.snippet, h.source) for h in response.results]
        return record_search_hits(self.env.workspace_dir, query, hits, tz=self.env.dreaming.tz())

    def memory_get(self, path: str, *, from_line: int | None = None, lines: int | None = None) -> dict[str, Any]:
        """The `memory_get` tool."""
        context = self.env.context
        return memory_get(self.env.workspace_dir, path, from_line=from_line, lines=lines,
                          extra_paths=self.settings.memory_paths, max_chars=context.memory_get_max_chars,
                          default_lines=context.memory_get_default_lines, generation=self.env.openclaw_layout)

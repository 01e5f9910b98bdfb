"""The accelerator's life cycle for one manager: which index is current, when to build it, where.

Nothing heavy is imported here: numpy and PyStemmer (`memtui.search.accelerator`) load only when an index is
built, so a one-shot CLI search, which never builds one, does not pay for them.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from memtui.index.store import DriverError, Store

if TYPE_CHECKING:
    from memtui.search.accelerator import FastIndex
    from memtui.search.tokenizer import PorterTokenizer

# Building costs more than one FTS5 search at every size measured (benchmarks/bench_scale.py), so by
# default the index is built on a background thread from the second search of a process on (a
# one-shot CLI search never pays for it) and FTS5 answers until it is ready.
QUIET_S = 2.0
SYNC_BUILD_CHUNKS = 0
# A write is applied to the index in place (the store's change journal); once the documents added that way
# pass this share of the index (or REBUILD_DELTA_MIN of them), a full rebuild compacts it in the background.
REBUILD_DELTA_SHARE = 0.1
REBUILD_DELTA_MIN = 2000


class FastSearch:
    """Owns the accelerator for one manager: hands out the index only while it matches the store revision.

    Stores of up to `sync_build_chunks` chunks are (re)built inside the search that needs it.
    """

    def __init__(self, sync_build_chunks: int = SYNC_BUILD_CHUNKS, quiet_s: float = QUIET_S):
        self.sync_build_chunks = sync_build_chunks
        self.quiet_s = quiet_s
        self._revision_seen: str | None = None
        self._revision_since = 0.0
        self._index: FastIndex | None = None
        self._store: Store | None = None
        self._lock = threading.Lock()
        self._building: threading.Thread | None = None
        self._misses = 0
        self._tokenizer: PorterTokenizer | None = None
        self.updates = 0  # writes applied in place (benchmarks, tests)

    def current(self, store: Store, *, vectors: bool) -> FastIndex | None:
        """The index if it is current for `store`; else build it now (small store) or in the background
        (from the second request on) and return None so the caller uses FTS5."""
        revision = store.revision()
        if revision is None:
            return None
        with self._lock:
            index = self._index
            if index is not None and self._store is store and (index.has_vectors or not vectors):
                if index.revision == revision:
                    return index
                caught_up = self._catch_up(store, index, revision)
                if caught_up is not None:
                    self._index = caught_up
                    self.updates += 1
                    if caught_up.delta_size > max(REBUILD_DELTA_MIN, REBUILD_DELTA_SHARE * caught_up.size):
                        self._start_build(store, vectors)
                    return caught_up
            self._misses += 1
            self._index = None  # never served again; let its memory go before the rebuild
            self._quiet_remaining(revision)
            if not self.sync_build_chunks or store.chunk_count() > self.sync_build_chunks:
                if self._misses > 1:
                    self._start_build(store, vectors)
                return None
        return self._build(store, vectors)

    def _start_build(self, store: Store, vectors: bool) -> None:
        """Start the background rebuild unless one is running; call with the lock held."""
        if self._building is None or not self._building.is_alive():
            self._building = threading.Thread(target=self._build_when_quiet, args=(store, vectors),
                                              name="memtui-fast-index", daemon=True)
            self._building.start()

    def _catch_up(self, store: Store, index: FastIndex, revision: str) -> FastIndex | None:
        """`index` with the writes since it was read applied from the store's change journal, or None when that
        cannot be done exactly (no journal, entries already pruned, a write landing meanwhile)."""
        import numpy as np

        from memtui.search.accelerator import StaleRead

        span = store.journal_span()
        if span is None or index.journal_seq is None or index.journal_seq < span[0]:
            return None
        changes = store.chunk_changes(index.journal_seq)
        removed: set[int] = set()
        added: dict[int, None] = {}
        for _, rowid, is_added in changes:
            if is_added:
                added[rowid] = None
            elif rowid in added:
                del added[rowid]
            else:
                removed.add(rowid)
        rows = store.chunks_by_rowids(list(added))
        present = [rowid for rowid in added if rowid in rows]
        vectors: dict[str, np.ndarray] = {}
        if index.has_vectors and present:
            ids = [rows[rowid].id for rowid in present]
            blobs = store.vector_blobs_for(ids)
            if blobs:
                vectors = {chunk_id: np.frombuffer(blob, dtype="<f4") for chunk_id, blob in blobs.items()}
            else:
                vectors = {chunk_id: np.asarray(v, dtype=np.float32)
                           for chunk_id, v in store.vectors_for_ids(ids).items()}
        if store.revision() != revision:
            return None
        seq = changes[-1][0] if changes else index.journal_seq
        try:
            updated = index.updated(revision, seq, sorted(removed), [rows[r] for r in present], present, vectors)
        except StaleRead:
            return None
        return updated if updated.live_count == store.chunk_count() else None

    def _build_when_quiet(self, store: Store, vectors: bool) -> None:
        """Background rebuild once the store has gone `quiet_s` without a write, so a burst of edits (and
        the syncs they trigger) does not compete with a rebuild that the next edit makes stale anyway."""
        while True:
            revision = store.revision()
            if revision is None:
                return
            with self._lock:
                remaining = self._quiet_remaining(revision)
            if remaining <= 0:
                break
            time.sleep(min(remaining, 0.5))
        self._build(store, vectors, isolated=True)

    def _quiet_remaining(self, revision: str) -> float:
        """Seconds until the store has been quiet for `quiet_s` (a new `revision` restarts the clock); call
        with the lock held."""
        now = time.monotonic()
        if revision != self._revision_seen:
            self._revision_seen, self._revision_since = revision, now
        return self._revision_since + self.quiet_s - now

    def _build(self, store: Store, vectors: bool, *, isolated: bool = False) -> FastIndex | None:
        from memtui.search.accelerator import StaleRead, build_index, build_index_isolated
        from memtui.search.tokenizer import PorterTokenizer

        if self._tokenizer is None:
            self._tokenizer = PorterTokenizer()
        try:
            if isolated:
                index = build_index_isolated(store, vectors=vectors, tokenizer=self._tokenizer)
            else:
                index = build_index(store, vectors=vectors, tokenizer=self._tokenizer)
        except (StaleRead, DriverError):
            return None
        with self._lock:
            self._index, self._store = index, store
        return index

    def prepare(self, store: Store, *, vectors: bool) -> FastIndex | None:
        """Build the index now, in the calling thread (a benchmark's warm-up, a UI's background worker)."""
        return self._build(store, vectors)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a background build to finish (benchmarks, tests)."""
        thread = self._building
        if thread is not None:
            thread.join(timeout)

"""The PostgreSQL store: one database for a fleet of agents, the same search results as the SQLite store.

`PostgresStore` implements `memtui.index.store.protocol.IndexStore` over the layout in `schema`: reads in
`reads`, BM25 in `bm25` (its pruned top k in `maxscore`), OpenClaw 2026.4's keyword table in `classic`, writes
(COPY, advisory locks, generation flips) in `writes`, the whole fleet in `fleet`.
"""

from __future__ import annotations

import threading
from pathlib import Path

from memtui.errors import StoreError
from memtui.index.store.postgres.classic import ClassicTable
from memtui.index.store.postgres.reads import Tokenizer
from memtui.index.store.postgres.schema import LOCK_SPACE, connect, describe
from memtui.index.store.postgres.writes import PostgresWrites

__all__ = ["PostgresStore", "Tokenizer"]
# How long closing waits for another thread's statement before cancelling it.
CLOSE_WAIT_S = 5.0


class PostgresStore(PostgresWrites):
    """One (agent, workspace) index in a PostgreSQL database. Thread-safe: one connection guarded by a lock.

    With `label` None it reads and writes the live generation (resolved by every statement, so a rebuild's flip
    is seen at once); with a label it is a rebuild's store, writing a fresh generation that `replace_with` on the
    live store installs. `path` is the index file the SQLite store would use: it only names the index in messages.
    """

    def __init__(self, url: str, *, agent: str, workspace: str, path: Path, tokenizer: Tokenizer,
                 label: str | None = None, read_only: bool = False, fts_tokenizer: str = "unicode61",
                 vector_enabled: bool = True, cache_enabled: bool = True):
        self.path = path
        self.read_only = read_only
        self.fts_tokenizer = fts_tokenizer
        self.vector_enabled = vector_enabled
        self.cache_enabled = cache_enabled
        self.tokenizer = tokenizer
        self.repairs = 0
        self.lock = threading.RLock()
        self._batch = None
        self.building = label is not None
        self.server = describe(url)
        self.url = url
        self.agent, self.workspace = agent, workspace
        self.conn, vector_error = connect(url)
        self._vector_error = vector_error if vector_enabled else "disabled by store.vector.enabled"
        self._classic: ClassicTable | None = None
        try:
            self.index_id, generation = self._open_index(agent, workspace, label)
        except BaseException:
            self.conn.close()
            raise
        if label is None:
            self.gen, self.params = "(SELECT live_gen FROM memtui.indexes WHERE id = %(ix)s)", {"ix": self.index_id}
        else:
            self.gen, self.params = "%(g)s::bigint", {"ix": self.index_id, "g": generation}

    def _open_index(self, agent: str, workspace: str, label: str | None) -> tuple[int, int]:
        """(index id, generation): the index's row (created with an empty live generation the first time), and
        the live generation, or a new one for a rebuild labelled `label`."""
        with self.conn.transaction():
            row = self.conn.execute("SELECT id, live_gen FROM memtui.indexes WHERE agent = %s AND workspace = %s",
                                    (agent, workspace)).fetchone()
            if row is None and self.read_only:
                raise StoreError(f"the database holds no index of agent {agent} for workspace {workspace}",
                                 "run `memtui index` without --read-only first")
            if row is None:
                row = self.conn.execute("INSERT INTO memtui.indexes (agent, workspace) VALUES (%s, %s) ON CONFLICT "
                                        "(agent, workspace) DO UPDATE SET agent = excluded.agent RETURNING id",
                                        (agent, workspace)).fetchone()
            index_id = int(row[0])
            self.conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, index_id))
            live = self.conn.execute("SELECT live_gen FROM memtui.indexes WHERE id = %s", (index_id,)).fetchone()[0]
            if live is not None and label is None:
                return index_id, int(live)
            gen = int(self.conn.execute("INSERT INTO memtui.generations (index_id, label) VALUES (%s, %s) "
                                        "RETURNING gen", (index_id, label)).fetchone()[0])
            if live is None:
                self.conn.execute("UPDATE memtui.indexes SET live_gen = %s WHERE id = %s", (gen, index_id))
            return index_id, gen

    def close(self) -> None:
        """Close the connection (an unfinished batch is rolled back by the server). A statement another thread has
        waiting on the server (a sync queued behind another host's lock) is cancelled first, so closing never
        waits on another host (`memtui watch` stopped with Ctrl-C did)."""
        if not self.lock.acquire(timeout=CLOSE_WAIT_S):
            self.conn.cancel_safe(timeout=CLOSE_WAIT_S)
            self.lock.acquire()
        try:
            self.conn.close()
            if self._classic is not None:
                self._classic.close()
                self._classic = None
        finally:
            self.lock.release()


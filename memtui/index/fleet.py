"""The fleet of a PostgreSQL store for readers above the store (`memtui status --fleet`, `search --fleet`, the
TUI's fleet view): every agent's index, any agent's files and chunks, and fleet searches, on one connection
opened on first use and shared by threads one statement at a time (and a second one a fleet search compares
vectors on meanwhile) (`memtui.index.store.postgres.fleet` holds the
SQL, `memtui.search.fleet` the search)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from memtui.index.store.postgres.fleet import StoredChunk, file_chunks, fleet_indexes, index_files
from memtui.index.store.postgres.schema import connect, describe

__all__ = ["FleetReader", "StoredChunk"]
T = TypeVar("T")


class FleetReader:
    """Read-only access to every index in the database at `url`; each method may block on the server."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.server = describe(url)
        self._lock = threading.Lock()
        self._conn: Any = None
        self._side_lock = threading.Lock()
        self._side: Any = None
        self.vector_error: str | None = None

    def read(self, query: Callable[[Any], T]) -> T:
        """`query` run on the connection (opened on first use; `vector_error` then says whether pgvector is
        there), no other thread's meanwhile."""
        with self._lock:
            if self._conn is None or self._conn.closed:
                self._conn, self.vector_error = connect(self.url)
            return query(self._conn)

    def side(self) -> Any:
        """A second connection (opened on first use), on which a fleet search compares vectors while it ranks
        keywords on the first."""
        with self._side_lock:
            if self._side is None or self._side.closed:
                self._side = connect(self.url)[0]
            return self._side

    def indexes(self) -> list[dict[str, Any]]:
        """Every (agent, workspace) index, as `memtui status --fleet --json` lists them."""
        return self.read(fleet_indexes)

    def files(self, agent: str, workspace: str) -> list[dict[str, Any]]:
        """The files of one agent's live index."""
        return self.read(lambda conn: index_files(conn, agent, workspace))

    def chunks(self, agent: str, workspace: str, path: str) -> list[StoredChunk]:
        """The chunks of one file of one agent's live index, in line order."""
        return self.read(lambda conn: file_chunks(conn, agent, workspace, path))

    def close(self) -> None:
        """Close the connection (after the statement running, if any)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        with self._side_lock:
            if self._side is not None:
                self._side.close()
                self._side = None

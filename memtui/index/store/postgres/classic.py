"""OpenClaw 2026.4's own keyword table for the postgres store. The classic profile (`openclaw-2026.4`, and
`openclaw` on a 2026.4 agent) ranks with FTS5's bm25 over `chunks_fts` (`unicode61`, no stemming), which nothing
in PostgreSQL computes: the table is built in an in-memory SQLite from the generation's chunks, in their order and
under their seq as rowid (ties rank as on the SQLite store), and the SQLite store's own search runs on it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from memtui.index.store.reads import classic_search
from memtui.index.store.schema import FTS_INSERT, ChunkRow, chunks_fts_sql, sqlite_driver

# (seq, text, id, path, source, model, start_line, end_line) of one chunk, as FTS_INSERT takes them.
ClassicRow = tuple[int, str, str, str, str, str, int, int]
COLUMNS = "c.seq, c.text, c.id, c.path, c.source, c.model, c.start_line, c.end_line"


class ClassicTable:
    """`chunks_fts` of one generation, in memory, for the revision it was read at. Not thread-safe: the store's
    lock guards it."""

    def __init__(self, revision: str | None, rows: Iterable[ClassicRow], tokenizer: str) -> None:
        self.revision = revision
        self._conn: Any = sqlite_driver.connect(":memory:", check_same_thread=False)
        self._conn.execute(chunks_fts_sql(tokenizer))
        self._conn.executemany(FTS_INSERT, rows)

    def search(self, match: str, limit: int, *, model: str | None, sources: Sequence[str] | None,
               like_terms: Sequence[str] = ()) -> list[tuple[ChunkRow, float]]:
        """The SQLite store's `keyword_search` on this table."""
        return classic_search(self._conn, match, limit, model=model, sources=sources, like_terms=like_terms)

    def close(self) -> None:
        """Free the table."""
        self._conn.close()

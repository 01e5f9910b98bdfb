"""The postgres store keeps a 2026.9 agent's recall metadata per chunk as the SQLite store does: written by COPY
with the chunk into its generation, replaced and deleted with it, dropped with an old generation; and a database
of an earlier schema (version 2, or a version 3 made before the table) gets the table."""

from __future__ import annotations

import hashlib
from pathlib import Path

import psycopg
from postgres_server import fresh_database

from memtui.index.annotations import RecallMetadata
from memtui.index.store.postgres import PostgresStore
from memtui.index.store.schema import ChunkRow
from memtui.search.tokenizer import PorterTokenizer

FREEZE = RecallMetadata(9, "deploy on friday; friday deploy", None)
OWNER = RecallMetadata(6, None, "github.com/acme/payments-api")


def open_store(url: str, label: str | None = None) -> PostgresStore:
    """The index of agent `main` (the live generation, or a rebuild's labelled `label`)."""
    return PostgresStore(url, agent="main", workspace="/ws", path=Path("/ws/main.sqlite"), tokenizer=PorterTokenizer(),
                         vector_enabled=False, label=label)


def write(store: PostgresStore, path: str, texts: list[str], recall: dict[int, RecallMetadata]) -> list[str]:
    """Write `path` with a chunk per text (`recall`: line → metadata); returns the chunk ids."""
    rows, ids = [], []
    for line, text in enumerate(texts, start=1):
        chunk_id = hashlib.sha256(f"{path}:{line}:{text}".encode()).hexdigest()
        ids.append(chunk_id)
        rows.append((ChunkRow(chunk_id, path, "memory", line, line, hashlib.sha256(text.encode()).hexdigest(),
                              "fts-only", text), "[]", None))
    store.replace_file(path=path, source="memory", digest=hashlib.sha256("".join(texts).encode()).hexdigest(),
                       mtime=1.7e12, size=10, rows=rows, updated_at=1,
                       recall={ids[line - 1]: metadata for line, metadata in recall.items()})
    return ids


def recall_rows(url: str) -> int:
    """Rows of the recall table, every generation's."""
    with psycopg.connect(url, autocommit=True) as conn:
        return int(conn.execute("SELECT count(*) FROM memtui.chunk_recall").fetchone()[0])


def test_recall_metadata_is_written_replaced_and_deleted_with_its_chunks() -> None:
    url = fresh_database()
    store = open_store(url)
    try:
        with store.batch():
            ids = write(store, "MEMORY.md", ["- Friday freeze.", "- Maria owns payments.", "- Plain."],
                        {1: FREEZE, 2: OWNER})
        assert store.recall_for_ids(ids) == {ids[0]: FREEZE, ids[1]: OWNER}
        edited = write(store, "MEMORY.md", ["- Friday freeze.", "- Maria owns payments.", "- Plain."], {1: OWNER})
        assert edited == ids and store.recall_for_ids(ids) == {ids[0]: OWNER}
        assert recall_rows(url) == 1
        store.delete_files(["MEMORY.md"], "memory")
        assert store.recall_for_ids(ids) == {} and recall_rows(url) == 0
        write(store, "MEMORY.md", ["- Friday freeze."], {1: FREEZE})
        rebuild = open_store(url, label="rebuild-1")
        try:
            rebuilt = write(rebuild, "MEMORY.md", ["- Friday freeze."], {1: OWNER})
            assert store.recall_for_ids(rebuilt) == {rebuilt[0]: FREEZE}  # the live generation, until the flip
            store.replace_with(Path("rebuild-1"))
            assert store.recall_for_ids(rebuilt) == {rebuilt[0]: OWNER} and recall_rows(url) == 1
        finally:
            rebuild.close()
    finally:
        store.close()


def test_an_earlier_schema_gets_the_table() -> None:
    url = fresh_database()
    open_store(url).close()
    for version in ("2", "3"):
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DROP TABLE memtui.chunk_recall")
            conn.execute("UPDATE memtui.info SET value = %s WHERE key = 'schema'", (version,))
        store = open_store(url)
        try:
            ids = write(store, "USER.md", ["- Prefers concise answers."], {1: RecallMetadata(8, None, None)})
            assert store.recall_for_ids(ids) == {ids[0]: RecallMetadata(8, None, None)}
        finally:
            store.close()
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("SELECT value FROM memtui.info WHERE key = 'schema'").fetchone()[0] == "3"

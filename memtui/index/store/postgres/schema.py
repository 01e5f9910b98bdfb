"""The PostgreSQL layout: one schema `memtui` for a fleet of agents, connecting, and the per-index lock.

Every (agent, workspace) is a row of `indexes`; its content lives in generations (`generations`, the `gen`
column of every other table). `indexes.live_gen` points at the generation readers see: a full rebuild writes a
new generation and flips the pointer in one short transaction, so readers see the old index or the new one,
never a half-built one, and a rebuild killed at any point leaves the live generation as it was.

Keyword search is BM25 computed in SQL from `postings` (lexeme, chunk, tf, positions), the document lengths and
the document frequencies, with the terms the writer computed in Python exactly as the SQLite store's memtui
keyword table (`porter unicode61` over `memtui.index.terms.index_text`) holds them; a fleet search reads them
packed, a term's postings in a generation in one value (`packs`). Vectors are pgvector
rows of their own, searched exactly per generation through their btree (an HNSW index over all agents filtered by agent
returns too few rows).
"""

from __future__ import annotations

from typing import Any

from memtui.errors import StoreError
from memtui.index.store.schema import META_KEY

SCHEMA_VERSION = "3"
# Namespace of memtui's advisory locks (pg_advisory_lock(space, key)): the schema set-up, and one per index.
LOCK_SPACE = 0x6D74_7569  # "mtui"
SETUP_LOCK = 0
# Namespace of the locks a whole sync of one index holds (pg_advisory_lock(space, index id)).
SYNC_LOCK_SPACE = 0x6D74_7573  # "mtus"
_DDL = (
    "CREATE SCHEMA IF NOT EXISTS memtui",
    "CREATE TABLE IF NOT EXISTS memtui.info (key text PRIMARY KEY, value text NOT NULL)",
    # `revision` counts the index's writes and flips: a reader's in-memory copy is current while it is unchanged.
    "CREATE TABLE IF NOT EXISTS memtui.indexes (id serial PRIMARY KEY, agent text NOT NULL, workspace text NOT NULL, "
    "live_gen bigint, host text, written timestamptz, revision bigint NOT NULL DEFAULT 0, UNIQUE (agent, workspace))",
    "CREATE TABLE IF NOT EXISTS memtui.generations (gen bigserial PRIMARY KEY, index_id integer NOT NULL, "
    "label text, dims integer, chunks bigint NOT NULL DEFAULT 0, tokens bigint NOT NULL DEFAULT 0, "
    "created timestamptz NOT NULL DEFAULT now())",
    "CREATE INDEX IF NOT EXISTS generations_label ON memtui.generations (index_id, label)",
    "CREATE TABLE IF NOT EXISTS memtui.meta (gen bigint NOT NULL, key text NOT NULL, value text NOT NULL, "
    "PRIMARY KEY (gen, key))",
    'CREATE TABLE IF NOT EXISTS memtui.files (gen bigint NOT NULL, path text COLLATE "C" NOT NULL, '
    "source text NOT NULL, hash text NOT NULL, mtime double precision NOT NULL, size bigint NOT NULL, "
    "PRIMARY KEY (gen, path))",
    "CREATE SEQUENCE IF NOT EXISTS memtui.chunk_seq",
    # `seq`: the chunk's document number, in write order (the SQLite store's rowid): ties rank by it.
    'CREATE TABLE IF NOT EXISTS memtui.chunks (gen bigint NOT NULL, seq bigint NOT NULL, id text COLLATE "C" '
    'NOT NULL, path text COLLATE "C" NOT NULL, source text COLLATE "C" NOT NULL, start_line integer NOT NULL, '
    'end_line integer NOT NULL, hash text NOT NULL, model text COLLATE "C" NOT NULL, text text NOT NULL, '
    "embedding text NOT NULL, updated_at bigint NOT NULL, length integer NOT NULL, PRIMARY KEY (gen, id))",
    "CREATE UNIQUE INDEX IF NOT EXISTS chunks_seq ON memtui.chunks (gen, seq)",
    "CREATE INDEX IF NOT EXISTS chunks_path ON memtui.chunks (gen, path, source)",
    "CREATE INDEX IF NOT EXISTS chunks_model ON memtui.chunks (gen, model)",
    "CREATE INDEX IF NOT EXISTS chunks_source ON memtui.chunks (gen, source)",
    # Vectors apart from the wide chunk rows, stored inline (pgvector's default would put each in TOAST: a
    # search would read two more pages per row): an exact search reads only these narrow rows.
    "CREATE TABLE IF NOT EXISTS memtui.vectors (gen bigint NOT NULL, seq bigint NOT NULL, vec {vector} "
    "STORAGE PLAIN NOT NULL, PRIMARY KEY (gen, seq))",
    # One row per (term, chunk): its count, the chunk's length in terms, and its positions (for phrases). The key
    # covers what BM25 reads (an index-only scan once vacuum has marked the pages visible: a term's rows are
    # spread over the whole table, one heap page each).
    'CREATE TABLE IF NOT EXISTS memtui.postings (gen bigint NOT NULL, lexeme text COLLATE "C" NOT NULL, '
    "seq bigint NOT NULL, tf integer NOT NULL, length integer NOT NULL, positions integer[] NOT NULL, "
    "PRIMARY KEY (gen, lexeme, seq) INCLUDE (tf, length)) WITH (autovacuum_vacuum_insert_scale_factor = 0.02)",
    "CREATE INDEX IF NOT EXISTS postings_seq ON memtui.postings (gen, seq)",
    # Chunks holding each term (BM25's n_i), kept by the writer: search reads a term's IDF without its postings.
    # The largest count and the shortest chunk among its postings bound what it adds to any chunk's score (a
    # deletion leaves them as they were: still bounds). Search reads only the postings that can reach the top k.
    'CREATE TABLE IF NOT EXISTS memtui.terms (gen bigint NOT NULL, lexeme text COLLATE "C" NOT NULL, '
    "df integer NOT NULL, max_tf integer NOT NULL, min_length integer NOT NULL, PRIMARY KEY (gen, lexeme))",
    # An OpenClaw 2026.9 agent's recall metadata of a chunk (`seq`), a row only for a chunk with one set.
    "CREATE TABLE IF NOT EXISTS memtui.chunk_recall (gen bigint NOT NULL, seq bigint NOT NULL, importance integer, "
    "triggers text, project_key text, PRIMARY KEY (gen, seq))",
    # Each generation's postings of a term packed in one value (`packs`), up to a chunk number, and the chunks
    # deleted since (`packed`): what a fleet search reads (`memtui.index.store.postgres.packs`).
    'CREATE TABLE IF NOT EXISTS memtui.packs (gen bigint NOT NULL, lexeme text COLLATE "C" NOT NULL, '
    "data bytea STORAGE EXTERNAL NOT NULL, PRIMARY KEY (gen, lexeme))",
    "CREATE TABLE IF NOT EXISTS memtui.packed (gen bigint PRIMARY KEY, upto bigint NOT NULL, dead bytea NOT NULL, "
    "base bigint)",
    "CREATE TABLE IF NOT EXISTS memtui.cache (index_id integer NOT NULL, provider text NOT NULL, "
    "model text NOT NULL, provider_key text NOT NULL, hash text NOT NULL, embedding text NOT NULL, dims integer, "
    "updated_at bigint NOT NULL, PRIMARY KEY (index_id, provider, model, provider_key, hash))",
    "CREATE INDEX IF NOT EXISTS cache_updated ON memtui.cache (index_id, updated_at)",
)


def connect(url: str) -> tuple[Any, str | None]:
    """An autocommit connection to `url` (empty: libpq's PG* environment variables) with the schema in place,
    and why vector search is unavailable (None: pgvector is there); a failure is a StoreError naming the server
    without its password."""
    try:
        import psycopg
    except ImportError:
        raise StoreError("store.driver is postgres but psycopg is not installed",
                         'pip install "memtui[postgres]"') from None
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10, application_name="memtui")
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to PostgreSQL at {describe(url)}: {str(exc).strip()}",
                         "check memorySearch.store.url (or PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD)") from None
    try:
        vector_error = _set_up(conn)
    except BaseException:
        conn.close()
        raise
    return conn, vector_error


def _set_up(conn: Any) -> str | None:
    """Create what is missing, once per database (under a lock: many processes may start at once); returns why
    vector search is unavailable (no pgvector on the server), or None."""
    import psycopg

    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, SETUP_LOCK))
        vector_error = None
        try:
            with conn.transaction():
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            vector_error = f"the pgvector extension is not available on the server: {str(exc).strip()}"
        have = conn.execute("SELECT to_regclass('memtui.info') IS NOT NULL").fetchone()[0]
        if have:
            row = conn.execute("SELECT value FROM memtui.info WHERE key = 'schema'").fetchone()
            if row is not None and row[0] in ("1", "2"):
                if row[0] == "1":
                    _upgrade_from_1(conn)
                _upgrade_from_2(conn)
                return vector_error
            if row is None or row[0] != SCHEMA_VERSION:
                raise StoreError(f"the memtui schema in this database is version {row[0] if row else '?'}; this "
                                 f"memtui reads version {SCHEMA_VERSION}", "upgrade memtui, or use another database")
            _add_tables(conn)  # a version-3 database made before some tables were part of it
            return vector_error
        for statement in _DDL:
            conn.execute(statement.replace("{vector}", "text" if vector_error else "vector"))
        conn.execute("INSERT INTO memtui.info (key, value) VALUES ('schema', %s)", (SCHEMA_VERSION,))
    return vector_error


def _upgrade_from_1(conn: Any) -> None:
    """Version 1 → 2: per-term document frequencies (counted from the postings), vectors in a table of their own,
    and who wrote each index."""
    vector = conn.execute("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = "
                          "'memtui.chunks'::regclass AND attname = 'vec'").fetchone()[0]
    for statement in _DDL:
        if "memtui.terms" in statement or "memtui.vectors" in statement:
            conn.execute(statement.replace("{vector}", vector))
    conn.execute("INSERT INTO memtui.terms (gen, lexeme, df, max_tf, min_length) SELECT gen, lexeme, count(*), "
                 "max(tf), min(length) FROM memtui.postings GROUP BY gen, lexeme")
    conn.execute("INSERT INTO memtui.vectors (gen, seq, vec) SELECT gen, seq, vec FROM memtui.chunks "
                 "WHERE vec IS NOT NULL")
    conn.execute("ALTER TABLE memtui.chunks DROP COLUMN vec")
    conn.execute("ALTER TABLE memtui.indexes ADD COLUMN host text, ADD COLUMN written timestamptz")
    conn.execute("UPDATE memtui.info SET value = '2' WHERE key = 'schema'")


_ADDED = ("memtui.chunk_recall", "memtui.packs", "memtui.packed")


def _add_tables(conn: Any) -> None:
    """The tables added to version 3 after it was first released, where missing: the recall metadata (empty: the
    next sync of a 2026.9 agent rebuilds its index, whose meta lacks `provenanceVersion`) and the packed postings
    (empty: a fleet search reads every generation's postings as its tail until the next write packs it)."""
    import psycopg

    missing = [row[0] for row in conn.execute("SELECT n FROM unnest(%s::text[]) AS t(n) WHERE to_regclass(n) IS NULL",
                                              (list(_ADDED),))]
    try:
        for statement in _DDL:
            if any(f"TABLE IF NOT EXISTS {name} " in statement for name in missing):
                conn.execute(statement)
    except psycopg.errors.InsufficientPrivilege:
        raise StoreError(f"the memtui schema in this database lacks {', '.join(missing)}, which this memtui adds, "
                         "and this database user may not create them", "run any memtui command once as a user "
                         "that may create tables in schema memtui (its owner), then connect as this one again") \
            from None


def _upgrade_from_2(conn: Any) -> None:
    """Version 2 → 3: each term's largest count and shortest chunk, the bounds the top-k search prunes with
    (counted from the postings; a version-1 database gets them with its terms), each index's revision, and the
    recall metadata of a 2026.9 agent's chunks."""
    conn.execute("ALTER TABLE memtui.indexes ADD COLUMN IF NOT EXISTS revision bigint NOT NULL DEFAULT 0")
    _add_tables(conn)
    # Version 2's postings hold 'trekk' for 'trekked' where FTS5 has 'trek' (memtui.search.tokenizer): without its
    # meta row, each index is rebuilt by its next sync.
    conn.execute("DELETE FROM memtui.meta WHERE key = %s", (META_KEY,))
    have = {row[0] for row in conn.execute("SELECT attname FROM pg_attribute WHERE attrelid = 'memtui.terms'::regclass "
                                           "AND attnum > 0 AND NOT attisdropped")}
    if "max_tf" not in have:
        conn.execute("ALTER TABLE memtui.terms ADD COLUMN max_tf integer, ADD COLUMN min_length integer")
        conn.execute("UPDATE memtui.terms t SET max_tf = s.max_tf, min_length = s.min_length FROM (SELECT gen, "
                     "lexeme, max(tf) AS max_tf, min(length) AS min_length FROM memtui.postings GROUP BY gen, lexeme) "
                     "s WHERE s.gen = t.gen AND s.lexeme = t.lexeme")
        conn.execute("UPDATE memtui.terms SET max_tf = 0, min_length = 0 WHERE max_tf IS NULL")
        conn.execute("ALTER TABLE memtui.terms ALTER COLUMN max_tf SET NOT NULL, ALTER COLUMN min_length SET NOT NULL")
    conn.execute("UPDATE memtui.info SET value = %s WHERE key = 'schema'", (SCHEMA_VERSION,))


def describe(url: str) -> str:
    """`url` for messages and `status`: host, port, database and user, never the password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:
        return "<unparsable store.url>"
    host = parts.get("host") or "(PGHOST or the default socket)"
    port = f":{parts['port']}" if parts.get("port") else ""
    user = f"{parts['user']}@" if parts.get("user") else ""
    return f"{user}{host}{port}/{parts.get('dbname') or '(PGDATABASE or the user name)'}"

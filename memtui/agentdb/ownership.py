"""What a database file is, read without writing a byte: memtui's own index, an OpenClaw index of either
generation, or some other program's database — so memtui writes only into a file it created."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.errors import StoreError

try:
    import sqlean as sqlite_driver
except ImportError:  # pragma: no cover - sqlean-py is a hard dependency
    import sqlite3 as sqlite_driver

SQLITE_HEADER = b"SQLite format 3\x00"
# Tables only OpenClaw 2026.4's layout (and memtui's, which extends it) has.
_CLASSIC_TABLES = {"meta", "files", "chunks"}
# Tables of the 2026.9 per-agent database's memory index.
_AGENT_DB_TABLES = {"memory_index_chunks", "memory_index_meta"}


@dataclass(frozen=True)
class DatabaseKind:
    """What a file holds. `kind`: missing, empty, memtui, openclaw-2026.4, openclaw-agent-db, foreign or
    not-sqlite; `schema_version` / `app_version` / `role` come from a 2026.9 `schema_meta` row."""

    kind: str
    tables: frozenset[str] = frozenset()
    schema_version: int | None = None
    app_version: str | None = None
    role: str | None = None

    @property
    def memtui_may_write(self) -> bool:
        """Whether memtui may create tables and write rows here: only in a file it made (or a new one)."""
        return self.kind in ("missing", "empty", "memtui")

    def describe(self) -> str:
        """A phrase naming what the file is, for messages."""
        if self.kind == "openclaw-agent-db":
            version = f"schema version {self.schema_version}" if self.schema_version is not None else "no version"
            written = f", written by OpenClaw {self.app_version}" if self.app_version else ""
            return (f"OpenClaw 2026.9's per-agent database ({version}{written}: its memory index, sessions and "
                    "transcripts)")
        if self.kind == "openclaw-2026.4":
            return "OpenClaw 2026.4's own memory index"
        if self.kind == "foreign":
            shown = ", ".join(sorted(self.tables)[:4]) + (", …" if len(self.tables) > 4 else "")
            return f"another program's SQLite database (tables {shown})"
        if self.kind == "not-sqlite":
            return "not an SQLite database"
        return {"memtui": "memtui's own index", "empty": "an empty file"}.get(self.kind, "missing")


class ForeignDatabaseError(StoreError):
    """A writable open of a database memtui did not create."""

    def __init__(self, path: Path, kind: DatabaseKind) -> None:
        super().__init__(f"{path} is {kind.describe()}; memtui never creates, alters or migrates tables in a "
                         "database it did not create", store_advice(kind))
        self.kind = kind


def store_advice(kind: DatabaseKind) -> str:
    """What to do instead of a writable `--store` on a file of this kind — only what then works: `--read-only`
    opens OpenClaw 2026.4's index (memtui's layout) but not 2026.9's agent database or another program's file."""
    if kind.kind == "openclaw-2026.4":
        return ("open it with --read-only if it is the index OpenClaw uses for this agent (its store.path; memtui "
                "reads it as it is), or leave out --store so memtui keeps its own index")
    if kind.kind == "openclaw-agent-db":
        return ("leave out --store: memtui reads an OpenClaw 2026.9 agent's database itself, read-only (`memtui "
                "status`, `memtui search --profile openclaw`)")
    return "give --store a new file, or leave out --store so memtui keeps its own index"


def open_read_only(path: Path) -> Any:
    """`path` opened without writing a byte beside it: `immutable=1` when no `-wal` with frames is there, else
    `immutable=1` on a private copy with the WAL folded in (`snapshot.wal_snapshot`: SQLite's own WAL reader,
    even `mode=ro`, writes the `-shm` file and creates it when missing); `query_only` on top."""
    target = path
    try:
        pending = os.stat(f"{path}-wal").st_size > 0
    except FileNotFoundError:
        pending = False
    if pending:
        from memtui.agentdb.snapshot import wal_snapshot

        target = wal_snapshot(path)
    conn = sqlite_driver.connect(f"{target.absolute().as_uri()}?immutable=1", uri=True, check_same_thread=False,
                                 timeout=5.0)
    conn.execute("PRAGMA query_only = 1")
    return conn


@contextmanager
def reading(path: Path, what: str) -> Iterator[Any]:
    """A read-only connection to OpenClaw's database `path`, closed after; a driver error while opening or reading
    becomes a StoreError naming the file and `what` was being read (e.g. "the sessions")."""
    try:
        conn = open_read_only(path)
    except sqlite_driver.Error as exc:
        raise StoreError(f"cannot read OpenClaw's agent database {path}: {exc}") from None
    try:
        yield conn
    except sqlite_driver.Error as exc:
        raise StoreError(f"cannot read {what} in OpenClaw's agent database {path}: {exc}") from None
    finally:
        conn.close()


def table_names(conn: Any) -> set[str]:
    """The tables and views of a connection's database."""
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


def identify_database(path: Path) -> DatabaseKind:
    """Read `path`'s header and table names without writing beside it (no -wal or -shm made or changed): from the
    main file alone, and for an OpenClaw database (or one still empty there) with frames in its -wal, from a
    private copy with the WAL folded in."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return DatabaseKind("missing")
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from None
    if not header:
        return DatabaseKind("empty")
    if header != SQLITE_HEADER:
        return DatabaseKind("not-sqlite")
    kind = _read_kind(path, main_only=True)
    if kind.kind in ("empty", "openclaw-agent-db", "not-sqlite") and _wal_has_frames(path):
        # Tables or a schema_meta row not yet checkpointed (or a page being checkpointed as it was read): read
        # them from a copy with the WAL folded in.
        try:
            kind = _read_kind(path, main_only=False)
        except StoreError:
            if kind.kind == "empty":
                raise
    return kind


def _wal_has_frames(path: Path) -> bool:
    try:
        return os.stat(f"{path}-wal").st_size > 0
    except FileNotFoundError:
        return False


def _read_kind(path: Path, *, main_only: bool) -> DatabaseKind:
    """Classify `path` from its main file alone (`immutable=1`, the WAL ignored) or with its WAL."""
    try:
        conn = sqlite_driver.connect(f"{path.absolute().as_uri()}?immutable=1", uri=True, check_same_thread=False) \
            if main_only else open_read_only(path)
    except sqlite_driver.Error:
        return DatabaseKind("not-sqlite")
    try:
        tables = frozenset(row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        return _classify(conn, tables)
    except sqlite_driver.Error:
        return DatabaseKind("not-sqlite")
    finally:
        conn.close()


def _classify(conn: object, tables: frozenset[str]) -> DatabaseKind:
    if not tables:
        return DatabaseKind("empty")
    if any(name.startswith("memtui_") for name in tables) or ("meta" in tables and conn.execute(  # type: ignore[attr-defined]
            "SELECT 1 FROM meta WHERE key LIKE 'memtui\\_%' ESCAPE '\\' LIMIT 1").fetchone()):
        return DatabaseKind("memtui", tables)
    if "schema_meta" in tables or _AGENT_DB_TABLES & tables:
        version = app = role = None
        if "schema_meta" in tables:
            row = conn.execute(  # type: ignore[attr-defined]
                "SELECT schema_version, app_version, role FROM schema_meta ORDER BY updated_at DESC LIMIT 1"
            ).fetchone()
            if row is not None:
                version, app, role = int(row[0]), row[1], row[2]
        return DatabaseKind("openclaw-agent-db", tables, version, app, role)
    if tables >= _CLASSIC_TABLES:
        return DatabaseKind("openclaw-2026.4", tables)
    return DatabaseKind("foreign", tables)

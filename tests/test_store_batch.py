"""Indexing writes files in batched transactions; each file stays atomic and finished files survive a failure."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv


def _committed(store_path: Path) -> tuple[set[str], dict[str, int]]:
    """What another process sees: indexed files and chunk rows per path."""
    conn = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    try:
        files = {row[0] for row in conn.execute("SELECT path FROM files")}
        chunks = dict(conn.execute("SELECT path, COUNT(*) FROM chunks GROUP BY path").fetchall())
    finally:
        conn.close()
    return files, chunks


def test_a_file_failing_mid_batch_leaves_no_partial_rows_and_the_others_are_committed(
        make_env: Callable[..., AgentEnv]) -> None:
    env = make_env()
    with MemoryManager(env) as manager:
        real = manager.store._write_file
        written: list[str] = []

        def fail_after_writing(path: str, *args: object) -> None:
            real(path, *args)  # every row of the file is written...
            if written:
                raise OSError("disk full")  # ...then the second file fails before its savepoint is released
            written.append(path)

        manager.store._write_file = fail_after_writing  # type: ignore[method-assign]
        with pytest.raises(OSError, match="disk full"):
            manager.sync()
        files, chunks = _committed(env.store_path)
        assert files == set(written) and set(chunks) == set(written)
        manager.store._write_file = real  # type: ignore[method-assign]
        manager.sync()
        files, _ = _committed(env.store_path)
        assert files == {"MEMORY.md", "memory/2026-11-27.md", "memory/2026-11-28.md", "memory/2026-11-29.md"}


def test_batched_index_is_committed_when_sync_returns(make_env: Callable[..., AgentEnv], workspace: Path) -> None:
    env = make_env()
    with MemoryManager(env) as manager:
        manager.sync()
        (workspace / "memory" / "2026-11-30.md").write_text("# 2026-11-30\n\n- Batch commit check.\n",
                                                           encoding="utf-8")
        manager.sync()
        assert not manager.store.conn.in_transaction
        files, chunks = _committed(env.store_path)
        assert "memory/2026-11-30.md" in files and chunks["memory/2026-11-30.md"] == 1


def test_files_are_committed_before_the_provider_embeds_the_next_one(make_env: Callable[..., AgentEnv]) -> None:
    """A slow embedding call never runs inside an open write transaction (other processes could not write)."""
    from hashed_provider import HashedProvider

    env = make_env()
    seen: list[tuple[int, bool]] = []

    class Watching(HashedProvider):
        def embed_batch(self, texts):  # type: ignore[no-untyped-def]
            files, _ = _committed(env.store_path) if env.store_path.exists() else (set(), {})
            seen.append((len(files), manager.store.conn.in_transaction))
            return super().embed_batch(texts)

    with MemoryManager(env, provider=Watching()) as manager:
        manager.sync()
    assert [count for count, _ in seen] == list(range(len(seen)))
    assert not any(open_transaction for _, open_transaction in seen)

"""A long-running process (the MCP server, the TUI, `memtui watch`) searches a PostgreSQL index in memory, as it
does a SQLite one: the in-memory accelerator, read from the database (in a child process, as for SQLite), answers
exactly what the database answers, and is never used once any host has written the index or flipped a rebuild."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hashed_provider import HashedProvider
from openclaw_2026_9_data import build_agent
from postgres_server import fresh_database
from test_postgres_parity import QUERIES, config_file

from memtui.index.store.postgres import PostgresStore
from memtui.index.store.schema import ChunkRow
from memtui.manager import MemoryManager
from memtui.search.accelerator import build_index_isolated
from memtui.search.fast_search import FastSearch
from memtui.search.tokenizer import PorterTokenizer
from memtui.settings.agent import AgentEnv, resolve_agent


@pytest.fixture
def env(tmp_path: Path) -> AgentEnv:
    """The recorded 2026.9.6 agent with its index in a fresh PostgreSQL database."""
    agent = build_agent(tmp_path / "agent")
    config = config_file(agent.state, "postgres", {"driver": "postgres", "url": fresh_database()})
    return resolve_agent(state_dir=str(agent.state), config=str(config), provider="none")


def hits(manager: MemoryManager, query: str) -> list[tuple[str, int, int, float]]:
    response = manager.search(query, max_results=6, min_score=0.0)
    return [(h.path, h.start_line, h.end_line, h.score) for h in response.results]


def in_database(manager: MemoryManager, queries: list[str], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every query answered by the database alone (no accelerator)."""
    with monkeypatch.context() as patch:
        patch.setattr(FastSearch, "current", lambda self, store, *, vectors: None)
        return [hits(manager, query) for query in queries]


@pytest.mark.parametrize("provider", [None, HashedProvider()], ids=["keyword", "hybrid"])
def test_the_accelerator_answers_what_the_database_answers(env: AgentEnv, provider: HashedProvider | None,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with MemoryManager(env, provider=provider) as manager:
        manager.sync()
        database = in_database(manager, QUERIES, monkeypatch)
        index = manager.fast.prepare(manager.store, vectors=provider is not None)
        assert index is not None and index.revision == manager.store.revision()
        assert manager.fast.current(manager.store, vectors=provider is not None) is index
        memory = [hits(manager, query) for query in QUERIES]
    assert sum(map(len, database)) > len(QUERIES)
    for query, left, right in zip(QUERIES, database, memory, strict=True):
        assert [h[:3] for h in left] == [h[:3] for h in right], query
        assert all(abs(a[3] - b[3]) <= 1e-6 for a, b in zip(left, right, strict=True)), query


def test_built_in_a_child_process_from_the_database(env: AgentEnv) -> None:
    with MemoryManager(env, provider=HashedProvider()) as manager:
        manager.sync()
        index = build_index_isolated(manager.store, vectors=True, tokenizer=PorterTokenizer())
        assert index.revision == manager.store.revision()
        assert index.size == manager.store.chunk_count() and index.has_vectors


def test_a_write_from_another_host_retires_the_copy(env: AgentEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    with MemoryManager(env) as manager:
        manager.sync()
        index = manager.fast.prepare(manager.store, vectors=False)
        assert manager.fast.current(manager.store, vectors=False) is index
        assert hits(manager, "zanzibar quokka") == []
        other = PostgresStore(manager.store.url, agent=env.agent_id, workspace=str(env.workspace_dir),
                              path=env.store_path, tokenizer=PorterTokenizer())
        try:  # another host's `memtui watch` writes a file into the same index
            text = "The zanzibar quokka rotation runs on Fridays."
            other.replace_file(path="memory/2026-09-29.md", source="memory", digest="d", mtime=1.0, size=len(text),
                               rows=[(ChunkRow("other-host-chunk", "memory/2026-09-29.md", "memory", 1, 1, "h",
                                               "fts-only", text), "[]", None)], updated_at=1)
        finally:
            other.close()
        assert manager.fast.current(manager.store, vectors=False) is None
        assert [h[0] for h in hits(manager, "zanzibar quokka")] == ["memory/2026-09-29.md"]
        monkeypatch.setattr(FastSearch, "current", lambda self, store, *, vectors: None)
        assert [h[0] for h in hits(manager, "zanzibar quokka")] == ["memory/2026-09-29.md"]

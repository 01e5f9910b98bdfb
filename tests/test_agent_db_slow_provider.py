"""Profile `openclaw` on a 2026.9 agent database with vectors, when memtui's provider (the model of OpenClaw's
vectors) is slow or failing: the search answers by keywords within the bound memtui's own index uses, and says why."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from embedding_server import EmbeddingServer
from openclaw_2026_9_data import add_vectors, build_agent

from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent

KEY = "sk-test-agentdb"


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer(api_key=KEY).start()
    yield srv
    srv.stop()


def _manager(tmp_path: Path, server: EmbeddingServer) -> MemoryManager:
    agent = build_agent(tmp_path)
    meta = add_vectors(agent.agent_db)
    config_path = agent.state / "openclaw.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config.setdefault("memory", {}).setdefault("search", {}).update(  # 2026.9's key (memorySearch is retired)
        provider="openai", model=meta["model"], remote={"baseUrl": f"{server.url}/v1", "apiKey": KEY})
    config_path.write_text(json.dumps(config), encoding="utf-8")
    server.dims = meta["vectorDims"]
    return MemoryManager(resolve_agent(state_dir=str(agent.state)))


def test_a_healthy_provider_ranks_the_agent_database_hybrid(tmp_path: Path, server: EmbeddingServer) -> None:
    with _manager(tmp_path, server) as manager:
        response = manager.search("payments deploy", profile="openclaw")
        assert response.results and response.vector_skipped is None
        assert any(hit.vector_score is not None for hit in response.results)


def test_a_slow_provider_costs_a_bounded_wait_then_keywords_with_the_reason(tmp_path: Path,
                                                                              server: EmbeddingServer) -> None:
    server.slow("/v1/embeddings", 30, times=100)
    with _manager(tmp_path, server) as manager:
        started = time.monotonic()
        response = manager.search("payments deploy", profile="openclaw")
        took = time.monotonic() - started
        assert took < 10  # the 4 s query bound, not the provider's 30 s
        assert response.results and all(hit.vector_score is None for hit in response.results)
        assert "did not answer the query" in (response.vector_skipped or "")


def test_a_failing_provider_ranks_by_keywords_and_names_the_failure(tmp_path: Path, server: EmbeddingServer) -> None:
    server.fail("/v1/embeddings", 401, times=100, message="invalid api key")
    with _manager(tmp_path, server) as manager:
        response = manager.search("payments deploy", profile="openclaw")
        assert response.results and all(hit.vector_score is None for hit in response.results)
        assert "embedding provider failed" in (response.vector_skipped or "") and "401" in response.vector_skipped

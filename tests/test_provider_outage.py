"""An embedding provider that fails or is slow (a real HTTP server on 127.0.0.1): the index keeps the vectors it
has, status says what is missing and why, and a search answers from the index it has, saying it is stale."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from embedding_server import EmbeddingServer

from memtui.commands.status import render
from memtui.embeddings.deadline import waiting_for
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv

KEY = "sk-test-outage-0a1b2c"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
SLOW_S = 8.0  # beyond the query bound and the wait for a sync, so a search that waited for either would show it


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer(api_key=KEY).start()
    yield srv
    srv.heal()
    srv.stop()


def _configure(state: Path, memory_search: dict[str, Any]) -> None:
    state.mkdir(exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": memory_search}}}))


@pytest.fixture
def state(tmp_path: Path, server: EmbeddingServer) -> Path:
    folder = tmp_path / "state"  # the state dir `make_env` uses
    _configure(folder, {"provider": "openai", "remote": {"baseUrl": f"{server.url}/v1", "apiKey": KEY}})
    return folder


def _notes(workspace: Path, count: int, tag: str = "first") -> None:
    for i in range(count):
        (workspace / "memory" / f"2026-10-{i + 1:02d}.md").write_text(f"# Note {i}\n\n- {tag} detail {i} of note {i}\n")


def _vector_rows(manager: MemoryManager) -> dict[str, bool]:
    """path:line → whether the chunk has a stored vector (read through the manager's own connection)."""
    rows = manager.store.conn.execute("SELECT path, start_line, embedding != '[]' FROM chunks").fetchall()
    return {f"{path}:{line}": bool(has) for path, line, has in rows}


def _inputs(server: EmbeddingServer) -> list[str]:
    return [text for r in server.matching("/v1/embeddings") for text in r.json()["input"]]


def _until(condition: Callable[[], bool], limit: float = 60.0) -> None:
    """Wait for `condition` (a state to reach, not a time to meet)."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def _manager(make_env: Callable[..., AgentEnv]) -> MemoryManager:
    return MemoryManager(make_env(provider=None))


# -- a failure leaves only its own chunks without vectors ---------------------------------------------------------


def test_a_failed_call_costs_only_its_chunks_their_vectors_and_the_next_sync_embeds_them(
        server: EmbeddingServer, state: Path, workspace: Path, make_env: Callable[..., AgentEnv]) -> None:
    _notes(workspace, 6)
    with _manager(make_env) as manager:
        manager.sync()
        assert all(_vector_rows(manager).values())
        _notes(workspace, 6, tag="second")
        server.fail("/v1/embeddings", 400, times=1, message="input rejected")
        report = manager.sync()
        rows = _vector_rows(manager)
        assert sum(report.vector_gaps.values()) == 1 and list(rows.values()).count(False) == 1
        status = manager.status()
        assert status["custom"]["missingVectors"]["chunks"] == 1 and status["custom"]["missingVectors"]["of"] == 10
        assert "input rejected" in status["custom"]["providerUnavailableReason"]
        assert status["custom"]["searchMode"] == "hybrid" and status["dirty"] is True
        assert "1 of 10 chunks have no vector" in status["custom"]["dirtyReason"]
        human = render(status, deep=False)
        assert "Without a vector: 1 of 10 chunks in 1 file(s), ranked by keywords until the next sync embeds them" \
            in human and any(line.startswith("Embedding provider failed: ") for line in human)
        asked = len(_inputs(server))
        manager.sync()
        assert all(_vector_rows(manager).values())
        assert len(_inputs(server)) == asked + 1  # only the chunk that had none
        status = manager.status()
        assert status["custom"]["missingVectors"] is None and status["custom"]["providerUnavailableReason"] is None


def test_an_outage_keeps_every_vector_the_index_had_and_says_so(server: EmbeddingServer, state: Path,
                                                                 workspace: Path,
                                                                 make_env: Callable[..., AgentEnv]) -> None:
    _notes(workspace, 6)
    with _manager(make_env) as manager:
        manager.sync()
        (workspace / "memory" / "2026-10-01.md").write_text("# Note 0\n\n- rewritten while the provider is down\n")
        (workspace / "memory" / "2026-11-01.md").write_text("# New\n\n- added while the provider is down\n")
        server.fail("/v1/embeddings", 503, times=100_000)
        report = manager.sync()
        rows = _vector_rows(manager)
        assert not report.full and manager.fallback is None and manager.provider is not None
        assert [key for key, has in rows.items() if not has] == ["memory/2026-10-01.md:1", "memory/2026-11-01.md:1"]
        payload = manager.memory_search("detail note")
        assert payload["results"] and "disabled" not in payload
        assert payload["partial"] is True and "HTTP 503" in payload["error"]
        assert payload["stale"] is True and "2 of 11 chunks have no vector" in payload["warning"]
    server.heal()
    with _manager(make_env) as manager:  # a new process owes the sync the outage left (the CLI's search runs it)
        assert manager.status()["custom"]["missingVectors"]["chunks"] == 2
        assert manager.ensure_indexed() is not None
        payload = manager.memory_search("rewritten provider")
        assert payload["results"][0]["path"] == "memory/2026-10-01.md" and payload["results"][0]["vectorScore"]
        assert "stale" not in payload and "partial" not in payload
        assert all(_vector_rows(manager).values())


def test_an_edited_note_keeps_the_stored_vectors_of_its_unchanged_chunks_without_a_cache(
        server: EmbeddingServer, tmp_path: Path, workspace: Path, make_env: Callable[..., AgentEnv]) -> None:
    _configure(tmp_path / "state", {"provider": "openai", "cache": {"enabled": False},
                                    "chunking": {"tokens": 40, "overlap": 0},
                                    "remote": {"baseUrl": f"{server.url}/v1", "apiKey": KEY}})
    parts = [f"## Part {j}\n" + "\n".join(f"- line {j}.{k} about service s{k}" for k in range(8)) for j in range(3)]
    note = workspace / "memory" / "2026-10-01.md"
    note.write_text("# Long note\n\n" + "\n\n".join(parts) + "\n")
    with _manager(make_env) as manager:
        manager.sync()
        before = _vector_rows(manager)
        note.write_text(note.read_text() + "\n## Part new\n- a line added during the outage\n")
        server.fail("/v1/embeddings", 500, times=100_000)
        manager.sync()
        after = {k: v for k, v in _vector_rows(manager).items() if k.startswith("memory/2026-10-01.md")}
        kept = [k for k, v in after.items() if v]
        assert len(kept) >= len([k for k in before if k.startswith("memory/2026-10-01.md")]) - 1
        assert list(after.values()).count(False) >= 1


def test_a_configured_fallback_provider_still_takes_over(server: EmbeddingServer, tmp_path: Path, workspace: Path,
                                                          make_env: Callable[..., AgentEnv]) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps({
        "models": {"providers": {"openai": {"baseUrl": f"{server.url}/v1", "apiKey": KEY},
                                 "voyage": {"baseUrl": f"{server.url}/voyage/v1", "apiKey": KEY}}},
        "agents": {"defaults": {"memorySearch": {"provider": "openai", "fallback": "voyage"}}}}))
    server.fail("^/v1/embeddings", 400, times=100_000, message="model retired")
    with _manager(make_env) as manager:
        manager.sync()
        assert manager.provider is not None and manager.provider.id == "voyage"
        assert manager.fallback is not None and manager.fallback["from"] == "openai"
        assert all(_vector_rows(manager).values())


# -- a slow provider -----------------------------------------------------------------------------------------------


def test_a_search_owed_a_rebuild_answers_from_the_index_it_has_while_the_provider_is_slow(
        server: EmbeddingServer, state: Path, workspace: Path, make_env: Callable[..., AgentEnv]) -> None:
    (workspace / "memory" / "2026-10-01.md").write_text("# Long note\n\n" + "\n".join(
        f"- line {k}: service s{k} moved to queue q{k % 7} after the migration" for k in range(40)) + "\n")
    with _manager(make_env) as manager:
        manager.sync()
    _configure(state, {"provider": "openai", "chunking": {"tokens": 60, "overlap": 5},
                       "remote": {"baseUrl": f"{server.url}/v1", "apiKey": KEY}})
    server.slow("/v1/embeddings", SLOW_S, times=100_000)
    with _manager(make_env) as manager:
        assert manager.index_mismatch() is not None
        payload = manager.memory_search("payment webhook")
        assert payload["results"][0]["path"] == "memory/2026-11-28.md"
        assert payload["stale"] is True and "a sync is under way" in payload["warning"]
        assert payload["partial"] is True and payload["corpora"][0]["outcome"] == "partial"
        status = manager.status()
        assert status["dirty"] is True and status["custom"]["syncRunning"] is True
        server.heal()
        assert manager.wait_idle(timeout=60)
        _until(lambda: manager.provider is not None and waiting_for(manager.provider) == 0.0)  # the slow query
        payload = manager.memory_search("payment webhook")
        assert "stale" not in payload and "partial" not in payload and payload["results"][0]["vectorScore"]


def test_a_query_the_provider_is_slow_to_embed_ranks_by_keywords_and_says_why(
        server: EmbeddingServer, state: Path, workspace: Path, make_env: Callable[..., AgentEnv]) -> None:
    with _manager(make_env) as manager:
        manager.sync()
        server.slow("/v1/embeddings", SLOW_S, times=1)
        payload = manager.memory_search("payment webhook")
        assert payload["results"][0]["path"] == "memory/2026-11-28.md"
        assert payload["results"][0]["vectorScore"] == 0.0 and payload["partial"] is True
        assert "did not answer the query within" in payload["error"] and "stale" not in payload
        assert "keyword matches" in payload["warning"] and list(payload)[-1] == "debug"
        # While that query is still unanswered, the next search does not wait for the provider at all.
        why = manager.search("payment webhook").vector_skipped
        assert why is not None and why.startswith("the embedding provider has not answered for")


def test_the_cli_answers_without_waiting_for_a_provider_that_never_answers(
        server: EmbeddingServer, state: Path, workspace: Path) -> None:
    def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(state), "--workspace",
                               str(workspace)], capture_output=True, text=True, timeout=timeout, env=ENV)

    assert cli("index").returncode == 0
    (workspace / "memory" / "2026-12-01.md").write_text("# 2026-12-01\n\n- The payment webhook was fixed.\n")
    _configure(state, {"provider": "openai", "chunking": {"tokens": 60, "overlap": 5},
                       "remote": {"baseUrl": f"{server.url}/v1", "apiKey": KEY}})
    server.slow("/v1/embeddings", 600, times=100_000)
    done = cli("search", "payment webhook", "--json", timeout=60)  # a wait for the provider would be killed
    payload = json.loads(done.stdout)
    assert done.returncode == 0 and payload["results"][0]["path"] == "memory/2026-11-28.md"
    assert payload["stale"] is True and payload["partial"] is True
    text = cli("search", "payment webhook", timeout=60)
    assert text.returncode == 0 and "memory/2026-11-28.md" in text.stdout

"""A failing, lying or changing embedding provider (a real HTTP server on 127.0.0.1) never poisons the index."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest
from embedding_server import EmbeddingServer
from store_paths import memtui_folder

from memtui.embeddings.http_retry import RemoteEndpoint, RetryPolicy
from memtui.embeddings.openai_provider import OpenAIEmbeddingProvider
from memtui.embeddings.voyage import VoyageEmbeddingProvider
from memtui.errors import ProviderError
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv

KEY = "sk-test-faults-0a1b2c"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer(api_key=KEY).start()
    yield srv
    srv.stop()


@pytest.fixture
def state(tmp_path: Path, server: EmbeddingServer) -> Path:
    """A state dir whose config selects OpenAI embeddings on the test server (no fallback provider)."""
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "provider": "openai", "remote": {"baseUrl": f"{server.url}/v1", "apiKey": KEY}}}}}), encoding="utf-8")
    return folder


def _cli(state: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(state), "--workspace",
                           str(workspace)], capture_output=True, text=True, timeout=120, env=ENV)


def _json(state: Path, workspace: Path, *args: str) -> Any:
    done = _cli(state, workspace, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _index(state: Path) -> Path:
    """The one index for `state` (a --workspace of its own: `main-<folder>-<hash>.sqlite` in memtui's folder)."""
    (index,) = memtui_folder(state).glob("main*.sqlite")
    return index


def _cache_rows(state: Path) -> list[str]:
    conn = sqlite3.connect(_index(state))
    try:
        return [row[0] for row in conn.execute("SELECT embedding FROM embedding_cache")]
    finally:
        conn.close()


def _vector_rows(state: Path) -> tuple[int, int]:
    """(chunks, chunks with a stored vector in the JSON column)."""
    conn = sqlite3.connect(_index(state))
    try:
        total = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        with_vector = conn.execute("SELECT COUNT(*) FROM chunks WHERE embedding != '[]'").fetchone()[0]
        return total, with_vector
    finally:
        conn.close()


# -- a failure mid-index leaves nothing a healthy process would trust ---------------------------------------


def test_chunks_a_failing_provider_left_without_vectors_are_embedded_by_the_next_healthy_process(
        server: EmbeddingServer, state: Path, workspace: Path) -> None:
    server.fail("/v1/embeddings", 400, times=1000, message="model overloaded")
    indexed = _cli(state, workspace, "index")
    assert indexed.returncode == 0 and "Embedding failed (openai embeddings failed: HTTP 400" in indexed.stdout
    assert _vector_rows(state) == (4, 0)
    status = _json(state, workspace, "status")
    assert status["custom"]["searchMode"] == "fts-only"
    assert "model overloaded" in status["custom"]["providerUnavailableReason"]
    assert status["custom"]["missingVectors"]["chunks"] == 4
    server.heal()
    status = _json(state, workspace, "status")
    assert status["dirty"] is True and "4 of 4 chunks have no vector" in status["custom"]["dirtyReason"]
    searched = _json(state, workspace, "search", "payment webhook")
    assert searched["results"][0]["path"] == "memory/2026-11-28.md"
    assert searched["results"][0].get("vectorScore") and "stale" not in searched
    status = _json(state, workspace, "status")
    assert status["dirty"] is False and status["custom"]["missingVectors"] is None
    assert status["custom"]["searchMode"] == "hybrid" and status["custom"]["providerUnavailableReason"] is None
    assert _vector_rows(state) == (4, 4)


def test_a_long_running_process_goes_back_to_its_provider_once_it_recovers(server: EmbeddingServer, state: Path,
                                                                           workspace: Path,
                                                                           make_env: Callable[..., AgentEnv]) -> None:
    # A watch, TUI or MCP server in an outage keeps its provider and the vectors it has (no keyword-only rebuild
    # over a healthy process's vectors), and embeds what it could not once the provider is back.
    with MemoryManager(make_env(provider=None)) as manager:

        def vector_rows() -> tuple[int, int]:  # through memtui's own driver: the stdlib sqlite3 in this process
            # would drop the manager's file locks when it closes the file (POSIX locks are per process)
            total, with_vector = manager.store.conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(embedding != '[]'), 0) FROM chunks").fetchone()
            return total, with_vector

        manager.sync()
        assert vector_rows() == (4, 4)
        server.fail("/v1/embeddings", 400, times=1000, message="model overloaded")
        (workspace / "memory" / "2026-12-01.md").write_text("# 2026-12-01\n\n- The alpha note.\n")
        manager.sync(memory_paths={"memory/2026-12-01.md"})
        # The outage costs the new note its vector, not the four the index had.
        assert manager.fallback is None and vector_rows() == (5, 4)
        assert manager.status()["custom"]["missingVectors"]["chunks"] == 1
        (workspace / "memory" / "2026-12-01.md").write_text("# 2026-12-01\n\n- The alpha note, again.\n")
        report = manager.sync(memory_paths={"memory/2026-12-01.md"})
        assert not report.full and vector_rows() == (5, 4)
        server.heal()
        assert _cli(state, workspace, "index").returncode == 0
        assert vector_rows() == (5, 5)
        (workspace / "memory" / "2026-12-02.md").write_text("# 2026-12-02\n\n- The beta note.\n")
        report = manager.sync(memory_paths={"memory/2026-12-02.md"})
        assert not report.full and manager.fallback is None
        assert vector_rows() == (6, 6)
        assert manager.memory_search("beta note")["results"][0].get("vectorScore") is not None


# -- NaN and non-numeric vectors ------------------------------------------------------------------------------


# 1e300 and 10**400 are numbers, but no float32 holds them (the vector table stores float32).
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "0.5", None, pytest.param(1e300, id="1e300"),
                                 pytest.param(10**400, id="int-of-401-digits")])
def test_bad_vectors_never_reach_the_cache_and_a_healthy_rebuild_works(server: EmbeddingServer, state: Path,
                                                                       workspace: Path, bad: Any) -> None:
    server.corrupt(bad, times=1000)
    indexed = _cli(state, workspace, "index")
    assert indexed.returncode == 0, indexed.stderr
    assert "Traceback" not in indexed.stderr and "Embedding failed (openai embeddings failed" in indexed.stdout
    assert "vector 1 holds" in indexed.stdout or "too large" in indexed.stdout  # the SDK refuses 10**400 itself
    assert _cache_rows(state) == []
    server.heal()
    rebuilt = _cli(state, workspace, "index", "--force")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert _vector_rows(state) == (4, 4)


def test_a_cache_poisoned_by_an_older_version_is_ignored(server: EmbeddingServer, state: Path,
                                                         workspace: Path) -> None:
    assert _cli(state, workspace, "index").returncode == 0
    conn = sqlite3.connect(_index(state))
    hashes = [row[0] for row in conn.execute("SELECT hash FROM embedding_cache")]
    for digest, poison in zip(hashes, ["[NaN, 1.0]", '["a", "b"]', "not json", "[]"], strict=False):
        conn.execute("UPDATE embedding_cache SET embedding = ? WHERE hash = ?", (poison, digest))
    conn.commit()
    conn.close()
    rebuilt = _cli(state, workspace, "index", "--force")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert _vector_rows(state) == (4, 4)
    assert all(all(math.isfinite(v) for v in json.loads(text)) for text in _cache_rows(state))


def test_a_cached_vector_beyond_float32_is_ignored(server: EmbeddingServer, state: Path, workspace: Path) -> None:
    assert _cli(state, workspace, "index").returncode == 0
    conn = sqlite3.connect(_index(state))
    conn.execute("UPDATE embedding_cache SET embedding = ?", (json.dumps([1e300] + [0.5] * 15),))
    conn.commit()
    conn.close()
    rebuilt = _cli(state, workspace, "index", "--force")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert _vector_rows(state) == (4, 4)
    assert all(max(map(abs, json.loads(text))) < 1e38 for text in _cache_rows(state))


# -- vector size changes ---------------------------------------------------------------------------------------


def test_a_vector_size_change_mid_run_rebuilds_with_every_vector(server: EmbeddingServer, state: Path,
                                                                 workspace: Path) -> None:
    for i in range(30):
        (workspace / "memory" / f"2026-09-{i % 28 + 1:02d}-n{i}.md").write_text(f"# Note {i}\n\n- detail {i}\n")
    assert _cli(state, workspace, "index").returncode == 0
    assert _vector_rows(state) == (34, 34)
    for i in range(30):
        (workspace / "memory" / f"2026-09-{i % 28 + 1:02d}-n{i}.md").write_text(f"# Note {i}\n\n- changed {i}\n")
    server.resize(24, after=3)
    indexed = _cli(state, workspace, "index")
    assert indexed.returncode == 0, indexed.stderr
    assert "full rebuild" in indexed.stdout and "changed from 16 to 24 dimensions" in indexed.stdout
    assert _vector_rows(state) == (34, 34)
    status = _json(state, workspace, "status")
    assert status["vector"]["dims"] == 24 and status["dirty"] is False


# -- malformed responses ---------------------------------------------------------------------------------------

MALFORMED = {
    "html page": b"<html><body>502 Bad Gateway</body></html>",
    "data not a list": {"object": "list", "data": "nope"},
    "no data": {"object": "list"},
    "embedding a string": {"data": [{"index": 0, "embedding": "abc"}]},
    "wrong count": {"data": []},
    "deeply nested": b"[" * 100_000,
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_responses_are_one_line_errors(server: EmbeddingServer, state: Path, workspace: Path,
                                                  name: str) -> None:
    assert _cli(state, workspace, "index").returncode == 0
    server.respond("/v1/embeddings", MALFORMED[name], times=10)
    done = _cli(state, workspace, "search", "payment webhook")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and done.stderr.startswith("memtui: error: openai embeddings failed")
    server.respond("/v1/embeddings", MALFORMED[name], times=10)
    payload = _json(state, workspace, "search", "payment webhook")
    assert payload["disabled"] is True and payload["error"].startswith("openai embeddings failed")


# -- Retry-After -----------------------------------------------------------------------------------------------


def _openai(server: EmbeddingServer, sleeps: list[float]) -> OpenAIEmbeddingProvider:
    endpoint = RemoteEndpoint(base_url=f"{server.url}/v1", api_key=KEY, headers={})
    return OpenAIEmbeddingProvider(endpoint, retry=RetryPolicy(sleep=sleeps.append, rng=random.Random(1)))


@pytest.mark.parametrize("header", ["7", "date"])
def test_retry_after_is_waited_for(server: EmbeddingServer, header: str) -> None:
    value = formatdate(time.time() + 7, usegmt=True) if header == "date" else header
    server.fail("/v1/embeddings", 429, times=1, headers={"Retry-After": value})
    sleeps: list[float] = []
    assert len(_openai(server, sleeps).embed_query("hello")) == 16
    assert len(sleeps) == 1 and 5.5 <= sleeps[0] <= 7.0


def test_a_retry_after_beyond_a_minute_fails_at_once_and_says_so(server: EmbeddingServer) -> None:
    server.fail("/voyage/v1/embeddings", 429, times=1, headers={"Retry-After": "3600"})
    sleeps: list[float] = []
    endpoint = RemoteEndpoint(base_url=f"{server.url}/voyage/v1", api_key=KEY, headers={})
    provider = VoyageEmbeddingProvider(endpoint, retry=RetryPolicy(sleep=sleeps.append, rng=random.Random(1)))
    with pytest.raises(ProviderError, match=r"HTTP 429.*retry after 3600s"):
        provider.embed_query("hello")
    assert sleeps == []


# -- an incremental run killed halfway -----------------------------------------------------------------------


def test_status_after_a_killed_incremental_run_is_dirty(server: EmbeddingServer, state: Path, workspace: Path) -> None:
    for i in range(20):
        (workspace / "memory" / f"2026-08-{i + 1:02d}.md").write_text(f"# Day {i}\n\n- first version {i}\n")
    assert _cli(state, workspace, "index").returncode == 0
    for i in range(20):
        (workspace / "memory" / f"2026-08-{i + 1:02d}.md").write_text(f"# Day {i}\n\n- second version {i}\n")
    server.slow("/v1/embeddings", 0.3, times=100)
    run = subprocess.Popen([sys.executable, "-m", "memtui", "index", "--state-dir", str(state), "--workspace",
                            str(workspace)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    deadline = time.monotonic() + 30
    while len(server.paths("/v1/embeddings")) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL)
    run.wait()
    server.heal()
    status = _json(state, workspace, "status")
    assert status["dirty"] is True
    assert "changed since it was indexed" in status["custom"]["dirtyReason"]
    human = _cli(state, workspace, "status").stdout
    assert "Dirty: yes (memory/2026-08-" in human

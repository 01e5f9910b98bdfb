"""Degenerate vectors (issue 29, item 1): a provider's all-zero, near-zero, NaN or wrong-size vector is refused
before the cache and the index, and a bad row already stored never fails `memtui search` or `memory_search`."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from embedding_server import EmbeddingServer
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memtui.embeddings.base import EmbeddingProvider, embed_query_text, embed_texts
from memtui.errors import ProviderError
from memtui.index.store.schema import sqlite_driver

KEY = "sk-test-r3-vectors"
ZERO_MARK = "zerovec"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


class ZeroingServer(EmbeddingServer):
    """The test server, answering an all-zero vector for every input that contains `ZERO_MARK`."""

    zeroing = True

    def _openai_embeddings(self, body: dict[str, Any]) -> tuple[int, Any]:
        status, payload = super()._openai_embeddings(body)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        for item, text in zip(payload["data"], texts, strict=True):
            if self.zeroing and ZERO_MARK in text:
                item["embedding"] = [0.0] * len(item["embedding"])
        return status, payload


@pytest.fixture
def server() -> Iterator[ZeroingServer]:
    srv = ZeroingServer(api_key=KEY).start()
    yield srv
    srv.stop()


@pytest.fixture
def agent(tmp_path: Path, server: ZeroingServer) -> list[str]:
    """CLI options of an agent on the test server, with its index in a fixed file."""
    state, workspace = tmp_path / "state", tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "provider": "openai", "remote": {"baseUrl": f"{server.url}/v1", "apiKey": KEY}}}}}), encoding="utf-8")
    (workspace / "MEMORY.md").write_text("# Memory\n\nThe deploy key rotates every Monday.\n", encoding="utf-8")
    (workspace / "memory" / "2026-04-01.md").write_text(
        f"# 2026-04-01\n\n- Alice prefers green tea over coffee ({ZERO_MARK}).\n", encoding="utf-8")
    return ["--state-dir", str(state), "--workspace", str(workspace), "--store", str(tmp_path / "index.sqlite")]


def _cli(agent: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memtui", *args, *agent], capture_output=True, text=True,
                          timeout=120, env=ENV)


def _json(agent: list[str], *args: str) -> Any:
    done = _cli(agent, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _connect(agent: list[str]) -> Any:
    import sqlite_vec

    conn = sqlite_driver.connect(agent[-1])
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    return conn


def _zero_rows(agent: list[str]) -> dict[str, int]:
    """How many all-zero vectors the cache, the JSON column and `chunks_vec` hold."""
    conn = _connect(agent)
    try:
        cache = sum(not any(json.loads(e)) for (e,) in conn.execute("SELECT embedding FROM embedding_cache"))
        column = sum(e != "[]" and not any(json.loads(e)) for (e,) in conn.execute("SELECT embedding FROM chunks"))
        has_table = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'").fetchone()
        table = conn.execute("SELECT COUNT(*) FROM chunks_vec WHERE vec_distance_cosine(embedding, embedding) "
                             "IS NULL").fetchone()[0] if has_table else 0
    finally:
        conn.close()
    return {"cache": cache, "column": column, "table": table}


def _poison(agent: list[str], path: str) -> None:
    """Store an all-zero vector for `path`'s chunk everywhere a vector lives (as an older memtui did)."""
    conn = _connect(agent)
    try:
        ((chunk_id, digest, dims),) = conn.execute(
            "SELECT c.id, c.hash, e.dims FROM chunks c JOIN embedding_cache e ON e.hash = c.hash WHERE c.path = ?",
            (path,)).fetchall()
        zeros = json.dumps([0.0] * dims)
        conn.execute("UPDATE chunks SET embedding = ? WHERE id = ?", (zeros, chunk_id))
        conn.execute("UPDATE embedding_cache SET embedding = ? WHERE hash = ?", (zeros, digest))
        conn.execute("UPDATE chunks_vec SET embedding = ? WHERE id = ?", (struct.pack(f"<{dims}f", *[0.0] * dims),
                                                                         chunk_id))
        conn.commit()
    finally:
        conn.close()


class _Fixed(EmbeddingProvider):
    id, model = "fixed", "fixed-model"

    def __init__(self, vector: list[float]) -> None:
        self.vector = vector

    def embed_query(self, text: str) -> list[float]:
        return self.vector

    def embed_batch(self, texts: Any) -> list[list[float]]:
        return [self.vector for _ in texts]


@pytest.mark.parametrize(("vector", "why"), [
    ([0.0] * 8, "is all zeros"),
    ([1e-30] * 8, "has a norm below 1e-10"),
    ([3e38] * 8, "has a norm too large for float32"),
])
def test_a_degenerate_document_vector_is_refused(vector: list[float], why: str) -> None:
    from memtui.embeddings.base import degenerate

    assert degenerate([0.6, 0.8]) is None
    with pytest.raises(ProviderError, match=f"fixed embeddings failed: vector 1 {why}"):
        embed_texts(_Fixed(vector), ["a note"])
    # A query's vector is returned: the search skips its vector side and says why.
    assert embed_query_text(_Fixed(vector), "a query") == vector


def test_an_all_zero_vector_from_the_provider_never_reaches_cache_or_index(agent: list[str],
                                                                          server: ZeroingServer) -> None:
    done = _cli(agent, "index")
    assert done.returncode == 0, done.stderr
    # The provider embeds other text: the chunk has no vector of its own, not an outage (test_zero_vector_chunks)
    assert "failed" not in done.stdout
    assert _zero_rows(agent) == {"cache": 0, "column": 0, "table": 0}
    searched = _json(agent, "search", "green tea")
    assert [hit["path"] for hit in searched["results"]] == ["memory/2026-04-01.md"]

    server.zeroing = False  # healthy again: the next index embeds everything, nothing degenerate was kept
    assert _cli(agent, "index", "--force").returncode == 0
    assert _zero_rows(agent) == {"cache": 0, "column": 0, "table": 0}
    assert _json(agent, "search", "green tea")["results"][0]["path"] == "memory/2026-04-01.md"


def test_a_zero_row_in_the_index_is_skipped_by_search_and_not_reused(agent: list[str],
                                                                     server: ZeroingServer) -> None:
    server.zeroing = False
    assert _cli(agent, "index").returncode == 0
    _poison(agent, "memory/2026-04-01.md")
    assert _zero_rows(agent) == {"cache": 1, "column": 1, "table": 1}

    explained = _json(agent, "search", "green tea", "--explain")
    assert [hit["path"] for hit in explained["results"]] == ["memory/2026-04-01.md"]
    assert explained["explain"]["skippedVectors"] == 1
    assert "green tea" in explained["results"][0]["snippet"]
    plain = _cli(agent, "search", "deploy key rotates")
    assert plain.returncode == 0, plain.stderr
    assert "MEMORY.md" in plain.stdout

    # The cached zero vector is embedded again, not copied back into the rebuilt index.
    assert _cli(agent, "index", "--force").returncode == 0
    assert _zero_rows(agent) == {"cache": 0, "column": 0, "table": 0}
    assert _json(agent, "search", "green tea", "--explain")["explain"]["skippedVectors"] == 0


async def test_memory_search_answers_over_a_zero_row(tmp_path: Path, agent: list[str],
                                                     server: ZeroingServer) -> None:
    server.zeroing = False
    assert _cli(agent, "index").returncode == 0
    _poison(agent, "memory/2026-04-01.md")
    params = StdioServerParameters(command=sys.executable, args=["-m", "memtui", "mcp", *agent], env=ENV)
    with open(tmp_path / "mcp-stderr.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            results = [await session.call_tool("memory_search", {"query": query})
                       for query in ("green tea", "deploy key")]
    for result in results:
        assert result.is_error is False
        payload = json.loads(result.content[0].text)
        assert payload["results"] and "error" not in payload


def test_a_query_vector_of_another_size_skips_the_vector_side(agent: list[str], server: ZeroingServer) -> None:
    server.zeroing = False
    assert _cli(agent, "index").returncode == 0
    server.resize(8)
    done = _cli(agent, "search", "green tea", "--json", "--explain", "--read-only")
    assert done.returncode == 0, done.stderr
    explained = json.loads(done.stdout)
    assert explained["explain"]["vectorSkipped"] == "query embedding has 8 dimensions; the index's vectors have 16"
    assert [hit["path"] for hit in explained["results"]] == ["memory/2026-04-01.md"]

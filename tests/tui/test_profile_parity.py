"""One profile, one index, one list: `memtui search --json`, the TUI's results, the MCP server's `memory_search`
and `memtui eval run` return the same hits in the same order with the same scores, for every profile.

The data is the workspace of the OpenClaw 2026.9.6 recording (54 real files), searched in hybrid mode with an
OpenAI-compatible embedding server on 127.0.0.1:
* as a 2026.4 agent with profiles `memtui` and `openclaw-2026.4` (memtui's own index). The TUI starts on the
  other profile and is switched in the tuning panel, as a user does: the switch must bring that profile's
  weights, not keep the old ones;
* as the 2026.9 agent with profile `openclaw`: OpenClaw's own agent database (its recorded chunks, given the
  server's vectors), which every surface must rank as 2026.9.6 does.
Decay reads the wall clock in each surface; seconds apart, scores agree to 1e-4 and the lists exactly.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import shutil
import sqlite3
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
from embedding_server import EmbeddingServer, vector_for
from pilot import settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from openclaw_2026_9_data import build_agent, recording

import memtui.cli
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent

QUERIES = ["what is the payments API burst limit?", "friday freeze", "which Postgres version runs in production",
           "runbooks", "the and of to", "Wann wird die Datenbank-Migration auf Aurora verschoben?", "レート制限",
           "webhook signing secret rotation"]
MODEL = "text-embedding-3-small"
Row = tuple[str, int, int, float]


@pytest.fixture(scope="module")
def server() -> Any:
    srv = EmbeddingServer().start()
    yield srv
    srv.stop()


def _remote(server: EmbeddingServer) -> dict[str, Any]:
    return {"provider": "openai", "model": MODEL, "remote": {"baseUrl": f"{server.url}/v1", "apiKey": "test-key"}}


def _classic_state(root: Path, server: EmbeddingServer) -> Path:
    """The recorded workspace as a 2026.4 agent (memorySearch under agents.defaults)."""
    agent = build_agent(root)
    shutil.rmtree(agent.state / "agents")
    config = {"agents": {"defaults": {"workspace": str(agent.workspace), "memorySearch": _remote(server)}}}
    (agent.state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return agent.state


def _agent_state(root: Path, server: EmbeddingServer) -> Path:
    """The 2026.9 agent: its recorded database with each chunk's vector from the embedding server."""
    agent = build_agent(root)
    meta = json.loads(recording("search_hybrid")["agent_db"]["memory_index_meta"]["memory_index_meta_v1"])
    conn = sqlite3.connect(agent.agent_db)
    with conn:
        for rowid, text in conn.execute("SELECT chunk_rowid, text FROM memory_index_chunks").fetchall():
            vector = vector_for(text, meta["vectorDims"])
            norm = sum(v * v for v in vector) ** 0.5
            conn.execute("UPDATE memory_index_chunks SET embedding = ?, model = ? WHERE chunk_rowid = ?",
                         (struct.pack(f"<{len(vector)}d", *(v / norm for v in vector)), MODEL, rowid))
        conn.execute("UPDATE memory_index_meta SET value = ? WHERE key = 'memory_index_meta_v1'", (json.dumps(meta),))
    conn.close()
    config = {"agents": {"entries": {"main": {"workspace": str(agent.workspace)}}},
              "memory": {"search": {**_remote(server), "query": {"maxResults": 6, "minScore": 0.35}}}}
    (agent.state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return agent.state


def _rows(results: list[dict[str, Any]]) -> list[Row]:
    return [(r["path"], r["startLine"], r["endLine"], r["score"]) for r in results]


def _cli(state: Path, profile: str, query: str) -> list[Row]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert memtui.cli.main(["search", query, "--state-dir", str(state), "--profile", profile, "--json"]) == 0
    return _rows(json.loads(out.getvalue())["results"])


def _eval(state: Path, profile: str, tmp_path: Path) -> list[list[Row]]:
    golden = tmp_path / f"golden-{profile}.jsonl"
    golden.write_text("".join(json.dumps({"query": q, "expected": ["MEMORY.md"]}) + "\n" for q in QUERIES),
                      encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert memtui.cli.main(["eval", "run", str(golden), "--state-dir", str(state), "--profile", profile,
                                "--k", "6", "--json"]) == 0
    return [_rows(result["hits"]) for result in json.loads(out.getvalue())["results"]]


async def _mcp(state: Path, profile: str) -> list[list[Row]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "memtui", "mcp", "--state-dir", str(state), "--no-watch"],
                                   env={**os.environ, "MEMTUI_PROFILE": profile})
    lists = []
    with open(state / "mcp-stderr.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for query in QUERIES:
                result = await session.call_tool("memory_search", {"query": query, "maxResults": 6})
                lists.append(_rows(json.loads(result.content[0].text)["results"]))
    return lists


async def _tui(state: Path, profile: str, start_profile: str, make_app: Any) -> list[list[Row]]:
    lists = []
    with MemoryManager(resolve_agent(state_dir=str(state), profile=start_profile)) as manager:
        app = make_app(manager, now=None)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            while app.tuning.profile != profile:  # what the tuning panel's profile knob does when stepped
                app.set_tuning(app.tuning.stepped("profile", 1))
            for query in QUERIES:
                app.query_input.value = query
                await settle(app, pilot)
                assert app.response is not None and app.response.query == query
                lists.append([(h.path, h.start_line, h.end_line, h.score) for h in app.response.results])
    return lists


def _assert_same(name: str, got: list[list[Row]], want: list[list[Row]]) -> None:
    for query, mine, theirs in zip(QUERIES, got, want, strict=True):
        assert [row[:3] for row in mine] == [row[:3] for row in theirs], f"{name}: {query}"
        assert [row[3] for row in mine] == pytest.approx([row[3] for row in theirs], abs=1e-4), f"{name}: {query}"


@pytest.mark.parametrize(("layout", "profile", "start_profile"), [
    ("2026.4", "memtui", "openclaw-2026.4"),
    ("2026.4", "openclaw-2026.4", "memtui"),
    ("2026.9", "openclaw", "memtui"),
])
def test_every_surface_returns_the_same_list(tmp_path: Path, server: EmbeddingServer, make_app: Any, layout: str,
                                             profile: str, start_profile: str) -> None:
    state = (_classic_state if layout == "2026.4" else _agent_state)(tmp_path, server)
    cli = [_cli(state, profile, query) for query in QUERIES]
    assert sum(map(len, cli)) >= 2 * len(QUERIES)  # real lists, not empty ones agreeing
    if layout == "2026.9":  # OpenClaw's own database answered, in hybrid mode
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            memtui.cli.main(["search", QUERIES[0], "--state-dir", str(state), "--profile", profile, "--json"])
        assert all("vectorScore" in hit and "provenance" in hit for hit in json.loads(out.getvalue())["results"])
    _assert_same("eval", _eval(state, profile, tmp_path), cli)
    _assert_same("mcp", asyncio.run(_mcp(state, profile)), cli)
    _assert_same("tui", asyncio.run(_tui(state, profile, start_profile, make_app)), cli)

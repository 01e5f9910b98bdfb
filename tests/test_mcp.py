"""`memtui mcp` driven by a real MCP client session over stdio (the SDK's stdio_client + ClientSession)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def _agent_args(tmp_path: Path, workspace: Path) -> list[str]:
    return ["--state-dir", str(tmp_path / "state"), "--workspace", str(workspace), "--provider", "none"]


@asynccontextmanager
async def mcp_session(tmp_path: Path, workspace: Path, *extra: str) -> AsyncIterator[ClientSession]:
    """Spawn `python -m memtui mcp …` and open an initialised client session on its stdio."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "memtui", "mcp", *_agent_args(tmp_path, workspace), *extra],
                                   env=dict(os.environ))
    with open(tmp_path / "mcp-stderr.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def cli_json(tmp_path: Path, workspace: Path, *args: str) -> dict[str, Any]:
    """`memtui <args> --json` parsed (the reference the MCP output must equal)."""
    done = subprocess.run([sys.executable, "-m", "memtui", *args, *_agent_args(tmp_path, workspace), "--json"],
                          capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout)


async def call(session: ClientSession, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """Call a tool; return (the JSON of its text content, the whole result)."""
    result = await session.call_tool(name, arguments)
    assert len(result.content) == 1 and result.content[0].type == "text"
    return json.loads(result.content[0].text), result


def without_timing(payload: dict[str, Any]) -> dict[str, Any]:
    debug = {k: v for k, v in payload["debug"].items() if k != "searchMs"}
    return dict(payload, debug=debug)


async def test_lists_both_tools_with_their_schemas(tmp_path: Path, workspace: Path) -> None:
    async with mcp_session(tmp_path, workspace) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert sorted(tools) == ["memory_get", "memory_search"]
    search = tools["memory_search"].input_schema
    assert search["required"] == ["query"]
    assert set(search["properties"]) == {"query", "maxResults", "minScore", "corpus"}
    assert search["properties"]["corpus"]["enum"] == ["memory", "wiki", "all", "sessions"]
    get = tools["memory_get"].input_schema
    assert get["required"] == ["path"]
    assert set(get["properties"]) == {"path", "from", "lines", "corpus"}


async def test_search_and_get_return_the_cli_json(tmp_path: Path, workspace: Path) -> None:
    async with mcp_session(tmp_path, workspace) as session:
        searched, result = await call(session, "memory_search", {"query": "connection pool timeout"})
        got, _ = await call(session, "memory_get", {"path": "memory/2026-11-28.md", "from": 4, "lines": 2})
    assert result.is_error is False
    assert result.structured_content == searched
    assert [hit["path"] for hit in searched["results"]] == ["memory/2026-11-28.md"]
    assert "connection pool timeout" in searched["results"][0]["snippet"]
    assert searched["debug"]["backend"] == "builtin" and searched["provider"] == "none"
    reference = cli_json(tmp_path, workspace, "search", "connection pool timeout")
    assert without_timing(searched) == without_timing(reference)

    # Lines 4-5 of the six-line file (its final newline opens an empty line 6), so more content follows.
    assert got == {"text": "The payment webhook returned HTTP 502 for order batch 7.\n"
                           "Root cause: connection pool timeout on pgbouncer.\n\n"
                           "[More content available. Use from=6 to continue.]",
                   "path": "memory/2026-11-28.md", "from": 4, "lines": 2, "truncated": True, "nextFrom": 6}
    assert got == cli_json(tmp_path, workspace, "get", "memory/2026-11-28.md", "--from", "4", "--lines", "2")


async def test_hostile_paths_and_bad_arguments_are_refused(tmp_path: Path, workspace: Path) -> None:
    (tmp_path / "secret.md").write_text("top secret\n", encoding="utf-8")
    async with mcp_session(tmp_path, workspace) as session:
        escaped, result = await call(session, "memory_get", {"path": "../secret.md"})
        absolute, _ = await call(session, "memory_get", {"path": str(tmp_path / "secret.md")})
        no_query = await session.call_tool("memory_search", {"maxResults": 3})
        bad_number = await session.call_tool("memory_get", {"path": "MEMORY.md", "lines": "ten"})
        unknown = await session.call_tool("memory_delete", {"path": "MEMORY.md"})
    assert escaped == {"path": "../secret.md", "text": "", "disabled": True,
                       "error": "path required: ../secret.md leads out of the memory files; memory_get reads "
                                "MEMORY.md, DREAMS.md, memory/**/*.md and the extra paths (.md only, relative to the "
                                "workspace)"}
    assert result.is_error is False
    assert absolute["error"].startswith(f"path required: {tmp_path / 'secret.md'} is an absolute path;")
    assert absolute["text"] == ""
    assert no_query.is_error is True
    assert no_query.content[0].text == "memory_search: query required"
    assert bad_number.is_error is True and "lines must be a number" in bad_number.content[0].text
    assert unknown.is_error is True and "memory_search, memory_get" in unknown.content[0].text


async def test_corpus_and_limits(tmp_path: Path, workspace: Path) -> None:
    async with mcp_session(tmp_path, workspace) as session:
        sessions, _ = await call(session, "memory_search", {"query": "Redis", "corpus": "sessions"})
        memory, _ = await call(session, "memory_search", {"query": "Redis", "corpus": "memory"})
        wrong = await session.call_tool("memory_search", {"query": "Redis", "corpus": "notes"})
        one, _ = await call(session, "memory_search", {"query": "2026", "maxResults": 1})
        three, _ = await call(session, "memory_search", {"query": "2026", "maxResults": 3})
    assert sessions["results"] == [] and sessions["debug"]["hits"] == 0
    assert [hit["path"] for hit in memory["results"]] == ["memory/2026-11-27.md"]
    assert wrong.is_error is True and "corpus must be one of" in wrong.content[0].text
    assert len(one["results"]) == 1 and one["debug"]["hits"] == 1
    assert len(three["results"]) == 3


async def test_watcher_keeps_the_index_fresh(tmp_path: Path, workspace: Path) -> None:
    async with mcp_session(tmp_path, workspace) as session:
        before, _ = await call(session, "memory_search", {"query": "zeppelin"})
        (workspace / "memory" / "2026-11-30.md").write_text("# 2026-11-30\n\nBooked the zeppelin tour.\n",
                                                            encoding="utf-8")
        deadline = time.monotonic() + 20
        paths: list[str] = []
        while time.monotonic() < deadline and not paths:
            found, _ = await call(session, "memory_search", {"query": "zeppelin"})
            paths = [hit["path"] for hit in found["results"]]
            if not paths:
                time.sleep(0.3)
    assert before["results"] == []
    assert paths == ["memory/2026-11-30.md"]

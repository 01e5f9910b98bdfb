"""The postgres store answers `memory_search` (the MCP tool), `memtui index` and `memtui search --json` as the
SQLite store does: the same JSON for every query recorded from OpenClaw 2026.9.6 on its workspace (each hit's
importance, triggers, project key and provenance included), keyword-only and hybrid, after a first build, a
rebuild and incremental changes."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

import pytest
from hashed_provider import HashedProvider
from openclaw_2026_9_data import build_agent, recording
from postgres_server import fresh_database

from memtui.embeddings.base import EmbeddingProvider
from memtui.manager import MemoryManager
from memtui.mcp_server import call_memory_search
from memtui.settings.agent import AgentEnv, resolve_agent

QUERIES = list(dict.fromkeys(search["query"] for search in recording("search")["searches"]))
NOW = datetime(2026, 10, 1, 12, tzinfo=UTC)


class _Clock(datetime):
    """`datetime` whose `now` is `NOW`: temporal decay (on for 2026.9 agents) gives both stores the same ages."""

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> datetime:  # type: ignore[override]
        return NOW.astimezone(tz)


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memtui.search.engine.datetime", _Clock)


def config_file(state: Path, name: str, store: dict[str, Any] | None) -> Path:
    """The agent's openclaw.json, with `memory.search.store` set to `store`."""
    config = json.loads((state / "openclaw.json").read_text(encoding="utf-8"))
    if store is not None:
        config["memory"]["search"]["store"] = store
    path = state.parent / f"{name}.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


@pytest.fixture
def agent_envs(tmp_path: Path) -> tuple[AgentEnv, AgentEnv]:
    """(SQLite env, postgres env) of the recorded 2026.9.6 agent, each with a state dir of its own."""
    envs = []
    for name, store in (("sqlite", None), ("postgres", {"driver": "postgres", "url": fresh_database()})):
        agent = build_agent(tmp_path / name)
        envs.append(resolve_agent(state_dir=str(agent.state), config=str(config_file(agent.state, name, store)),
                                  provider="none"))
    return envs[0], envs[1]


def answers(env: AgentEnv, provider: EmbeddingProvider | None) -> list[dict[str, Any]]:
    """`memory_search` as the MCP server runs it, for every query (the timing left out)."""
    with MemoryManager(env, provider=provider) as manager:
        results = [call_memory_search(manager, {"query": query}) for query in QUERIES]
    for result in results:
        result.get("debug", {}).pop("searchMs", None)
    return results


def assert_same_hits(sqlite: list[dict[str, Any]], postgres: list[dict[str, Any]], tolerance: float) -> None:
    """Same hits in the same order with the same text; scores equal within `tolerance`."""
    for query, left, right in zip(QUERIES, sqlite, postgres, strict=True):
        assert [(h["path"], h["startLine"], h["endLine"], h["snippet"]) for h in left["results"]] == \
            [(h["path"], h["startLine"], h["endLine"], h["snippet"]) for h in right["results"]], query
        for a, b in zip(left["results"], right["results"], strict=True):
            assert math.isclose(a["score"], b["score"], rel_tol=0, abs_tol=tolerance), query


def recalled(results: list[dict[str, Any]]) -> dict[str, int]:
    """How many hits carry each of 2026.9.6's recall fields."""
    hits = [hit for result in results for hit in result["results"]]
    return {key: sum(key in hit for hit in hits) for key in ("importance", "triggers", "projectKey", "provenance")}


def test_keyword_only_json_is_identical(agent_envs: tuple[AgentEnv, AgentEnv]) -> None:
    sqlite, postgres = (answers(env, None) for env in agent_envs)
    assert sum(len(r["results"]) for r in sqlite) > len(QUERIES)  # the queries find things
    counts = recalled(postgres)
    assert counts["provenance"] == sum(len(r["results"]) for r in sqlite) and min(counts.values()) > 0, counts
    assert postgres == sqlite


def test_hybrid_ranks_alike(agent_envs: tuple[AgentEnv, AgentEnv]) -> None:
    """Vectors are compared in float32 by sqlite-vec and by pgvector, each summing in its own order: scores agree
    to 1e-6, and every hit and its rank are the same."""
    sqlite, postgres = (answers(env, HashedProvider()) for env in agent_envs)
    assert all(r["provider"] == "hashed" for r in postgres)
    assert_same_hits(sqlite, postgres, 1e-6)


def test_same_after_rebuild_and_incremental_changes(agent_envs: tuple[AgentEnv, AgentEnv]) -> None:
    """A forced rebuild (a new generation, flipped in) and edits, additions and deletions synced incrementally."""
    for env in agent_envs:
        with MemoryManager(env) as manager:
            manager.sync()
            manager.sync(force=True)
            workspace = env.workspace_dir
            memory = (workspace / "MEMORY.md").read_text(encoding="utf-8").replace("<!-- importance: 9 -->",
                                                                                  "<!-- importance: 2 -->")
            (workspace / "MEMORY.md").write_text(memory + "\n- The burst limit for payments is now 900 requests. "
                                                 "<!-- importance: 10 --> <!-- trigger: burst -->\n", encoding="utf-8")
            (workspace / "memory" / "2026-09-30.md").write_text("# 2026-09-30\n\n- Postgres 18 upgrade planned.\n",
                                                                encoding="utf-8")
            next(iter(sorted((workspace / "memory").glob("2026-09-1*.md")))).unlink()
            for changed in (workspace / "MEMORY.md", workspace / "memory" / "2026-09-30.md"):  # the same observedAt
                os.utime(changed, (NOW.timestamp(), NOW.timestamp()))
            report = manager.sync()
            assert report.files_changed == 2 and report.files_deleted == 1
    sqlite, postgres = (answers(env, None) for env in agent_envs)
    hits = {hit["snippet"].split("\n")[0]: hit for result in postgres for hit in result["results"]}
    assert (hits["- The burst limit for payments is now 900 requests."]["importance"],
            hits["- The burst limit for payments is now 900 requests."]["triggers"]) == (10, "burst")
    assert hits[next(s for s in hits if "Friday freeze" in s)]["importance"] == 2
    assert postgres == sqlite


def test_cli_index_and_search_json(agent_envs: tuple[AgentEnv, AgentEnv]) -> None:
    """`memtui index` then `memtui search --json` in fresh processes, against each store."""
    outputs = []
    for env in agent_envs:
        args = ["--state-dir", str(env.state_dir), "--config", str(env.config_path), "--provider", "none"]
        subprocess.run([sys.executable, "-m", "memtui", *args, "index"], capture_output=True, check=True,
                       env=dict(os.environ), timeout=120)
        found = []
        for query in ("burst limit", "payments-deploy.md", "東京のベンダー", "connection pool"):
            done = subprocess.run([sys.executable, "-m", "memtui", *args, "search", query, "--json"],
                                  capture_output=True, text=True, check=True, env=dict(os.environ), timeout=120)
            found.append(json.loads(done.stdout)["results"])
        outputs.append(found)
    assert all(outputs[0])
    for sqlite_hits, postgres_hits in zip(*outputs, strict=True):
        # the processes run seconds apart and 2026.9's temporal decay ages every hit meanwhile: the final score
        # is compared loosely, everything else (ids, lines, text scores, snippets) exactly
        assert [{**h, "score": None} for h in postgres_hits] == [{**h, "score": None} for h in sqlite_hits]
        assert all(math.isclose(a["score"], b["score"], rel_tol=1e-4)
                   for a, b in zip(sqlite_hits, postgres_hits, strict=True))

"""The classic profile on the postgres store: `memory_search` on the workspace recorded from OpenClaw 2026.4.29
answers with the recording's JSON byte for byte, as the SQLite store does (FTS5's bm25 over OpenClaw's unstemmed
table, built in memory from the chunks the database holds); a write by another process is seen by the next search,
and a store on a trigram index builds its table with trigrams."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openclaw_memory_data import Root, agent_env, build_root, write_config
from postgres_server import fresh_database
from test_openclaw_memory_search import SEARCHES, SESSION, _case_id, _text

from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv


def postgres_env(root: Root, state: Path, url: str | None, **store: Any) -> AgentEnv:
    """memtui on the recorded workspace with its index in the database at `url` (None: the SQLite store)."""
    config = json.loads(write_config(root, state, "default").read_text(encoding="utf-8"))
    driver = {"driver": "postgres", "url": url} if url else {}
    config["agents"]["defaults"]["memorySearch"] = {"store": {**driver, **store}}
    config_path = state.parent / f"{state.name}-store.json"  # agent_env writes the variant's own file
    config_path.write_text(json.dumps(config), encoding="utf-8")
    return agent_env(root, state, config=str(config_path))


@pytest.fixture(scope="module")
def manager(tmp_path_factory: pytest.TempPathFactory) -> MemoryManager:
    parent = tmp_path_factory.mktemp("oc-classic-pg")
    env = postgres_env(build_root(parent), parent / "state", fresh_database())
    manager = MemoryManager(env)
    manager.sync(force=True)
    assert manager.store.capabilities.driver.startswith("postgres")
    yield manager
    manager.close()


@pytest.mark.parametrize("case", SEARCHES, ids=[_case_id(c) for c in SEARCHES])
def test_tool_json_is_openclaws(manager: MemoryManager, case: dict) -> None:
    """Keys, scores (boosts, the per-keyword fallback), citations and order, as OpenClaw 2026.4.29 printed them."""
    text = _text(manager.memory_search(case["query"], max_results=case.get("maxResults"),
                                       min_score=case.get("minScore"), session_key=SESSION))
    assert text == case["tool"]["text"]


def test_a_write_elsewhere_is_seen_by_the_next_search(tmp_path: Path) -> None:
    url = fresh_database()
    root = build_root(tmp_path / "tree")
    reader = MemoryManager(postgres_env(root, tmp_path / "reader", url))
    writer = MemoryManager(postgres_env(root, tmp_path / "writer", url))
    try:
        writer.sync(force=True)
        assert reader.search("quetzalcoatl", profile="openclaw").results == []
        note = root.path / "ws" / "memory" / "2026-04-29.md"
        note.write_text(note.read_text(encoding="utf-8") + "\n- Quetzalcoatl is the staging cluster.\n",
                        encoding="utf-8")
        writer.sync()
        found = reader.search("quetzalcoatl", profile="openclaw").results
        assert [(hit.path, "Quetzalcoatl" in hit.text) for hit in found] == [("memory/2026-04-29.md", True)]
    finally:
        reader.close()
        writer.close()


def test_a_trigram_index_ranks_as_on_the_sqlite_store(tmp_path: Path) -> None:
    root = build_root(tmp_path / "tree")
    outputs = []
    for name, url in (("sqlite", None), ("postgres", fresh_database())):
        with MemoryManager(postgres_env(root, tmp_path / name, url, fts={"tokenizer": "trigram"})) as manager:
            manager.sync(force=True)
            outputs.append([_text(manager.memory_search(case["query"], max_results=case.get("maxResults"),
                                                        min_score=case.get("minScore"), session_key=SESSION))
                            for case in SEARCHES])
            outputs[-1].append([hit.path for hit in manager.search("outer", profile="openclaw").results])
    assert "memory/2026-04-28-router-fix.md" in outputs[1][-1]  # a part of a word: trigrams, not unicode61 words
    assert sum('"path"' in text for text in outputs[0]) > len(SEARCHES) // 2  # most queries find something
    assert outputs[1] == outputs[0]

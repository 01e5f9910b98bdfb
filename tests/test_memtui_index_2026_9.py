"""memtui's own index of an OpenClaw 2026.9 agent holds what 2026.9.6 indexes: USER.md as a memory file, and every
file cut by the version-5 chunker — the same 82 chunks (path, lines, hash, id) as the real agent database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from openclaw_2026_9_data import build_agent

from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent


def _rows(path: Path, table: str) -> set[tuple[str, int, int, str, str]]:
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return set(conn.execute(f"SELECT path, start_line, end_line, hash, id FROM {table}"))
    finally:
        conn.close()


def test_memtuis_index_of_a_2026_9_agent_is_cut_as_openclaw_cut_it(tmp_path: Path) -> None:
    agent = build_agent(tmp_path)
    env = resolve_agent(state_dir=str(agent.state), provider="none")
    with MemoryManager(env) as manager:
        manager.sync()
        status = manager.status()
        assert (status["files"], status["chunks"], status["dirty"]) == (54, 82, False)
        assert status["meta"]["chunkingVersion"] == 5
        user = manager.memory_get("USER.md")
        assert user["text"].startswith("# User") and "disabled" not in user
        hits = manager.search("Neovim LazyVim", profile="memtui").results
        assert hits and hits[0].path == "USER.md" and hits[0].start_line == hits[0].end_line  # one entry
    assert _rows(env.store_path, "chunks") == _rows(agent.agent_db, "memory_index_chunks")


def test_an_index_cut_by_2026_4_rules_is_rebuilt_for_2026_9(tmp_path: Path) -> None:
    agent = build_agent(tmp_path)
    classic_config = {"agents": {"defaults": {"workspace": str(agent.workspace)}}}
    config = agent.state / "openclaw.json"
    modern = config.read_text(encoding="utf-8")
    old = tmp_path / "old-state"
    old.mkdir()
    (old / "openclaw.json").write_text(json.dumps(classic_config), encoding="utf-8")
    store = tmp_path / "memtui-index.sqlite"
    with MemoryManager(resolve_agent(state_dir=str(old), provider="none", store=str(store))) as manager:
        manager.sync()
        assert manager.status()["chunks"] == 60  # 2026.4: no USER.md, MEMORY.md in windows
    config.write_text(modern, encoding="utf-8")
    with MemoryManager(resolve_agent(state_dir=str(agent.state), provider="none", store=str(store))) as manager:
        assert manager.index_mismatch() is not None and "chunkingVersion" in manager.index_mismatch()
        manager.sync()
        assert manager.status()["chunks"] == 82

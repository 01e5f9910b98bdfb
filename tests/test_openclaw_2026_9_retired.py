"""Keys OpenClaw 2026.9 retired are reported and never read. 2026.9.6 refuses a config holding one — `openclaw
config validate` and every other command fail with "Invalid config … Unrecognized key" — until `openclaw doctor
--fix` moves `agents.defaults.memorySearch` to `memory.search` and `agents.entries.<id>.memorySearch` to
`agents.entries.<id>.memory.search`, and removes `query.hybrid`, `chunking` and `reserveTokensFloor`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openclaw_2026_9_data import build_agent

from memtui.cli import main as cli_main
from memtui.settings.agent import resolve_agent

RETIRED_SEARCH = {"provider": "openai", "model": "retired-model",
                  "remote": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "sk-retired"}, "query": {"maxResults": 2}}


def _with_config(state: Path, change: dict) -> None:
    path = state / "openclaw.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config["agents"].update(change)
    path.write_text(json.dumps(config), encoding="utf-8")


def test_a_retired_memory_search_block_is_reported_and_not_read(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    agent = build_agent(tmp_path / "install")
    _with_config(agent.state, {"defaults": {"memorySearch": RETIRED_SEARCH},
                               "entries": {"main": {"workspace": str(agent.workspace),
                                                    "memorySearch": {"query": {"maxResults": 1}}}}})
    env = resolve_agent(state_dir=str(agent.state))
    assert (env.settings.provider, env.settings.model, env.settings.query.max_results) != \
        ("openai", "retired-model", 2)
    assert env.settings.model != "retired-model" and env.settings.query.max_results == 6
    assert env.settings.remote.base_url is None
    assert env.retired_keys == ["agents.defaults.memorySearch", "agents.entries.main.memorySearch"]
    said = [w for w in env.warnings if "retired in OpenClaw 2026.9" in w]
    assert 'agents.defaults: Unrecognized key: "memorySearch"' in said[0] and "moves it to memory.search" in said[0]
    assert "moves it to agents.entries.main.memory.search" in said[1] and "memtui does not read it" in said[1]

    assert cli_main(["status", "--state-dir", str(agent.state)]) == 0
    out, err = capsys.readouterr()
    assert "Model: retired-model" not in out and "retired-model" not in out
    assert "retired in 2026.9, not read: agents.defaults.memorySearch, agents.entries.main.memorySearch" in out
    assert "agents.defaults.memorySearch is retired in OpenClaw 2026.9" in err
    assert cli_main(["status", "--state-dir", str(agent.state), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["openclaw"]["retiredKeys"] == env.retired_keys and status["model"] != "retired-model"
    assert cli_main(["search", "payments deploy", "--state-dir", str(agent.state), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) == 6  # maxResults 6, not the retired 2 or 1


def test_retired_tuning_under_an_agent_entry_and_in_agents_list_is_not_read(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps({
        "memory": {"search": {"provider": "none"}},
        "agents": {"list": [{"id": "main", "memorySearch": {"query": {"maxResults": 3}}}],
                   "entries": {"main": {"memory": {"search": {"query": {"hybrid": {"vectorWeight": 0.1}},
                                                              "chunking": {"tokens": 50}}}}}},
    }), encoding="utf-8")
    env = resolve_agent(state_dir=str(state))
    assert env.retired_keys == ["agents.list[0].memorySearch", "agents.entries.main.memory.search.query.hybrid",
                                "agents.entries.main.memory.search.chunking"]
    assert env.settings.query.max_results == 6 and env.settings.chunking.tokens == 400
    assert env.settings.query.hybrid.vector_weight == 0.7


def test_a_retired_reserve_floor_does_not_reach_the_2026_9_flush(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps({"memory": {"search": {"provider": "none"}}, "agents": {
        "defaults": {"compaction": {"reserveTokensFloor": 5000}}}}), encoding="utf-8")
    env = resolve_agent(state_dir=str(state))
    assert env.retired_keys == ["agents.defaults.compaction.reserveTokensFloor"]
    assert env.context.flush.reserve_tokens_floor == 20_000


def test_a_2026_4_agent_still_reads_its_memory_search_block(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "provider": "none", "query": {"maxResults": 2}}}}}), encoding="utf-8")
    env = resolve_agent(state_dir=str(state))
    assert env.openclaw_layout == "2026.4" and env.retired_keys == []
    assert env.settings.query.max_results == 2

"""OpenClaw 2026.9's config: the keyed agent roster (`agents.entries`), its default-agent rule, `memory.search`
with per-agent overrides, the knobs 2026.9 fixed and the keys it retired — and 2026.4 configs read as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli import main as cli_main
from memtui.errors import ConfigError
from memtui.settings.agent import resolve_agent


def _state(tmp_path: Path, config: dict) -> Path:
    state = tmp_path / "state"
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return state


def _workspace(tmp_path: Path, name: str) -> Path:
    ws = tmp_path / name
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text(f"# {name}\n\n- The {name} agent's note.\n", encoding="utf-8")
    return ws


def test_the_roster_names_each_agents_workspace_and_the_marked_default(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    ops, research = _workspace(tmp_path, "ops"), _workspace(tmp_path, "research")
    state = _state(tmp_path, {"agents": {"entries": {"research": {"workspace": str(research)},
                                                     "Ops": {"workspace": str(ops), "default": True}}}})
    env = resolve_agent(state_dir=str(state), provider="none")
    assert (env.agent_id, env.workspace_dir) == ("ops", ops)
    assert resolve_agent(state_dir=str(state), agent="research", provider="none").workspace_dir == research
    assert cli_main(["status", "--state-dir", str(state), "--provider", "none", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["workspaceDir"] == str(ops) and status["issues"] == []
    assert status["scan"]["memoryFiles"] == 1


def test_a_sole_entry_is_the_default_and_several_unmarked_ones_ask_for_an_agent(tmp_path: Path) -> None:
    solo = _workspace(tmp_path, "solo")
    state = _state(tmp_path, {"agents": {"entries": {"solo": {"workspace": str(solo)}}}})
    assert resolve_agent(state_dir=str(state), provider="none").agent_id == "solo"
    (state / "openclaw.json").write_text(json.dumps({"agents": {"entries": {"a": {}, "b": {}}}}), encoding="utf-8")
    with pytest.raises(ConfigError, match="several agents are configured") as raised:
        resolve_agent(state_dir=str(state), provider="none")
    assert "a, b" in raised.value.message and raised.value.hint == "pass --agent ID"
    assert resolve_agent(state_dir=str(state), agent="b", provider="none").workspace_dir == state / "workspace-b"


def test_2026_9_fixes_hybrid_mmr_decay_and_chunking_and_reports_retired_keys(tmp_path: Path) -> None:
    state = _state(tmp_path, {"memory": {"search": {"query": {"maxResults": 9, "hybrid": {
        "vectorWeight": 0.2, "textWeight": 0.8, "mmr": {"enabled": False}, "temporalDecay": {"enabled": False}}},
        "chunking": {"tokens": 100}}},
        "agents": {"defaults": {"compaction": {"reserveTokensFloor": 5000}}}})
    env = resolve_agent(state_dir=str(state), provider="none")
    hybrid = env.settings.query.hybrid
    assert (hybrid.vector_weight, hybrid.text_weight, hybrid.weights_configured) == (0.7, 0.3, False)
    assert hybrid.mmr.enabled and hybrid.mmr.lambda_ == 0.7
    assert hybrid.temporal_decay.enabled and hybrid.temporal_decay.half_life_days == 30
    assert (env.settings.chunking.tokens, env.settings.chunking.overlap) == (400, 80)
    assert env.settings.query.max_results == 9  # still a knob in 2026.9
    retired = [w for w in env.warnings if "retired in OpenClaw 2026.9" in w]
    assert [w.split(" ")[0] for w in retired] == ["memory.search.query.hybrid", "memory.search.chunking",
                                                   "agents.defaults.compaction.reserveTokensFloor"]
    assert env.openclaw_layout == "2026.9"


def test_a_2026_4_config_keeps_its_knobs(tmp_path: Path) -> None:
    state = _state(tmp_path, {"agents": {"defaults": {"memorySearch": {"query": {"hybrid": {
        "vectorWeight": 0.2, "textWeight": 0.8, "mmr": {"enabled": False}}}, "chunking": {"tokens": 100}}}}})
    env = resolve_agent(state_dir=str(state), provider="none")
    hybrid = env.settings.query.hybrid
    assert (round(hybrid.vector_weight, 6), hybrid.mmr.enabled, env.settings.chunking.tokens) == (0.2, False, 100)
    assert env.openclaw_layout == "2026.4" and not [w for w in env.warnings if "retired" in w]


def test_a_2026_9_provider_without_a_key_inspects_keyword_only_and_says_why(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture) -> None:
    """`memory.search.provider: "openai"` with no key (what 2026.9's doctor writes): status and search answer
    keyword-only and name the missing key and what OpenClaw itself does then; a 2026.4 config still refuses."""
    ws = _workspace(tmp_path, "ops")
    state = _state(tmp_path, {"memory": {"search": {"provider": "openai"}},
                              "agents": {"entries": {"main": {"workspace": str(ws)}}}})
    assert cli_main(["status", "--state-dir", str(state), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["provider"], status["requestedProvider"], status["custom"]["searchMode"]) == \
        ("none", "openai", "fts-only")
    reason = status["custom"]["providerUnavailableReason"]
    assert "No API key found for provider openai" in reason and "missing-provider-auth" in reason
    assert cli_main(["search", "note", "--state-dir", str(state), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["path"] == "MEMORY.md"
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {
        "workspace": str(ws), "memorySearch": {"provider": "openai"}}}}), encoding="utf-8")
    assert cli_main(["status", "--state-dir", str(state)]) == 2
    assert "No API key found for provider openai" in capsys.readouterr().err

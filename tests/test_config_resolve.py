"""Config, paths and agent resolution against §1.1 and §13."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memtui.errors import ConfigError
from memtui.settings.agent import resolve_agent
from memtui.settings.config import load_config_file, resolve_memory_search, resolve_secret
from memtui.settings.paths import default_agent_id, resolve_config_path, resolve_state_dir
from memtui.settings.raw import normalize_agent_id


def _home(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"OPENCLAW_HOME": str(home), "HOME": str(home)}


def _settings(raw: dict, agent: str = "main"):
    return resolve_memory_search(raw, agent)


def _ms(block: dict) -> dict:
    return {"agents": {"defaults": {"memorySearch": block}}}


# -- state dir and config path ----------------------------------------------------------------


def test_state_dir_default_is_home_dot_openclaw(tmp_path: Path) -> None:
    env = _home(tmp_path)
    assert resolve_state_dir(None, env) == tmp_path / "home" / ".openclaw"


def test_state_dir_env_override(tmp_path: Path) -> None:
    env = {**_home(tmp_path), "OPENCLAW_STATE_DIR": str(tmp_path / "custom")}
    assert resolve_state_dir(None, env) == (tmp_path / "custom").resolve()


def test_legacy_state_dir_only_when_openclaw_missing(tmp_path: Path) -> None:
    env = _home(tmp_path)
    home = tmp_path / "home"
    (home / ".clawdbot").mkdir()
    assert resolve_state_dir(None, env) == home / ".clawdbot"
    (home / ".openclaw").mkdir()
    assert resolve_state_dir(None, env) == home / ".openclaw"


def test_config_path_default_legacy_and_env(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    env: dict[str, str] = {}
    assert resolve_config_path(state, None, env) == state / "openclaw.json"
    (state / "clawdbot.json").write_text("{}")
    assert resolve_config_path(state, None, env) == state / "clawdbot.json"
    (state / "openclaw.json").write_text("{}")
    assert resolve_config_path(state, None, env) == state / "openclaw.json"
    custom = tmp_path / "elsewhere.json5"
    assert resolve_config_path(state, None, {"OPENCLAW_CONFIG_PATH": str(custom)}) == custom.resolve()


def test_config_path_env_is_read_by_resolve_agent(tmp_path: Path) -> None:
    custom = tmp_path / "cfg.json5"
    custom.write_text("{agents: {defaults: {memorySearch: {query: {maxResults: 9}}}}}")
    env = {**_home(tmp_path), "OPENCLAW_CONFIG_PATH": str(custom)}
    agent = resolve_agent(env=env)
    assert agent.config_path == custom.resolve()
    assert agent.settings.query.max_results == 9


# -- agent id -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("Main", "main"), ("ops_bot-2", "ops_bot-2"), ("my agent", "my-agent"), ("a.b", "a-b"), ("", "main"),
     ("   ", "main"), ("X" * 80, "x" * 64)],
)
def test_normalize_agent_id(raw: str, expected: str) -> None:
    assert normalize_agent_id(raw) == expected


def test_default_agent_selection() -> None:
    assert default_agent_id({}) == "main"
    assert default_agent_id({"agents": {"list": [{"id": "alpha"}, {"id": "beta"}]}}) == "alpha"
    assert default_agent_id({"agents": {"list": [{"id": "alpha"}, {"id": "Beta", "default": True}]}}) == "beta"


# -- workspace ----------------------------------------------------------------------------------


def _write_config(tmp_path: Path, raw: dict) -> dict[str, str]:
    env = _home(tmp_path)
    state = tmp_path / "home" / ".openclaw"
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps(raw))
    return env


def test_workspace_default_agent_without_config(tmp_path: Path) -> None:
    agent = resolve_agent(env=_home(tmp_path))
    assert agent.agent_id == "main"
    assert agent.workspace_dir == tmp_path / "home" / ".openclaw" / "workspace"


@pytest.mark.parametrize(("profile", "name"), [("work", "workspace-work"), ("default", "workspace")])
def test_workspace_profile(tmp_path: Path, profile: str, name: str) -> None:
    agent = resolve_agent(env={**_home(tmp_path), "OPENCLAW_PROFILE": profile})
    assert agent.workspace_dir == tmp_path / "home" / ".openclaw" / name


def test_workspace_defaults_key_for_default_and_non_default_agents(tmp_path: Path) -> None:
    shared = tmp_path / "shared-ws"
    env = _write_config(tmp_path, {"agents": {"defaults": {"workspace": str(shared)},
                                              "list": [{"id": "main"}, {"id": "helper"}]}})
    assert resolve_agent(env=env).workspace_dir == shared.resolve()
    assert resolve_agent(agent="helper", env=env).workspace_dir == shared.resolve() / "helper"


def test_workspace_non_default_agent_without_defaults_key(tmp_path: Path) -> None:
    env = _write_config(tmp_path, {"agents": {"list": [{"id": "main"}, {"id": "helper"}]}})
    agent = resolve_agent(agent="Helper", env=env)
    assert agent.agent_id == "helper"
    assert agent.workspace_dir == tmp_path / "home" / ".openclaw" / "workspace-helper"


def test_workspace_per_agent_entry_wins_and_tilde_uses_openclaw_home(tmp_path: Path) -> None:
    env = _write_config(tmp_path, {"agents": {"defaults": {"workspace": "/nowhere"},
                                              "list": [{"id": "main", "workspace": "~/mine"}]}})
    assert resolve_agent(env=env).workspace_dir == tmp_path / "home" / "mine"


# -- memorySearch merge and clamps ---------------------------------------------------------------


def test_defaults_when_nothing_configured() -> None:
    s = _settings({})
    assert s.sources == ("memory",)
    assert s.provider == "auto"
    assert (s.chunking.tokens, s.chunking.overlap) == (400, 80)
    assert (s.query.max_results, s.query.min_score) == (6, 0.35)
    h = s.query.hybrid
    assert (h.enabled, h.vector_weight, h.text_weight, h.candidate_multiplier) == (True, 0.7, 0.3, 4)
    assert (h.mmr.enabled, h.mmr.lambda_) == (False, 0.7)
    assert (h.temporal_decay.enabled, h.temporal_decay.half_life_days) == (False, 30)
    assert s.store.fts_tokenizer == "unicode61"
    assert s.sync.watch_debounce_ms == 1500


def test_field_by_field_merge_of_defaults_and_agent_override() -> None:
    raw = {"agents": {
        "defaults": {"memorySearch": {"provider": "openai", "query": {"maxResults": 8, "minScore": 0.5,
                                                                     "hybrid": {"mmr": {"enabled": True}}}}},
        "list": [{"id": "main", "memorySearch": {"query": {"minScore": 0.2, "hybrid": {"mmr": {"lambda": 0.4}}}}}],
    }}
    s = _settings(raw)
    assert s.provider == "openai"
    assert s.query.max_results == 8
    assert s.query.min_score == 0.2
    assert s.query.hybrid.mmr.enabled is True
    assert s.query.hybrid.mmr.lambda_ == 0.4


def test_extra_paths_concatenated_and_deduplicated() -> None:
    raw = {"agents": {"defaults": {"memorySearch": {"extraPaths": ["a", "b"]}},
                      "list": [{"id": "main", "memorySearch": {"extraPaths": ["b", "c", "a"]}}]}}
    assert _settings(raw).extra_paths == ("a", "b", "c")


def test_top_level_memory_search_key_is_read() -> None:
    s = _settings({"memory": {"search": {"query": {"maxResults": 11}, "chunking": {"tokens": 200}}}})
    assert s.query.max_results == 11
    assert s.chunking.tokens == 200


@pytest.mark.parametrize(
    ("vw", "tw", "expected"),
    [(0.6, 0.2, (0.75, 0.25)), (2, 2, (0.5, 0.5)), (0, 0, (0.7, 0.3)), (-1, 0.5, (0.0, 1.0)), (1, 0, (1.0, 0.0))],
)
def test_weights_clamped_and_normalised(vw: float, tw: float, expected: tuple[float, float]) -> None:
    h = _settings(_ms({"query": {"hybrid": {"vectorWeight": vw, "textWeight": tw}}})).query.hybrid
    assert h.vector_weight == pytest.approx(expected[0])
    assert h.text_weight == pytest.approx(expected[1])


@pytest.mark.parametrize(("value", "expected"), [(50, 20), (0, 1), (0.5, 1), (7, 7)])
def test_candidate_multiplier_clamped_1_to_20(value: float, expected: float) -> None:
    assert _settings(_ms({"query": {"hybrid": {"candidateMultiplier": value}}})).query.hybrid.candidate_multiplier \
        == expected


@pytest.mark.parametrize(("chunking", "expected"), [({"tokens": 50, "overlap": 10}, (50, 10)),
                                                    ({"tokens": 50}, (50, 49)), ({"overlap": 0}, (400, 0)),
                                                    ({"tokens": 1}, (1, 0))])
def test_chunking_overlap_below_tokens(chunking: dict[str, int], expected: tuple[int, int]) -> None:
    c = _settings(_ms({"chunking": chunking})).chunking
    assert (c.tokens, c.overlap) == expected


@pytest.mark.parametrize(("chunking", "message"), [
    ({"tokens": 0}, "chunking.tokens must be a whole number of at least 1, got 0"),
    ({"tokens": -400}, "chunking.tokens must be a whole number of at least 1, got -400"),
    ({"tokens": 12.5}, "chunking.tokens must be a whole number of at least 1, got 12.5"),
    ({"tokens": 100, "overlap": 100}, "chunking.overlap must be a whole number from 0 to 99 (below chunking.tokens), "
                                      "got 100"),
    ({"tokens": 100, "overlap": 500}, "chunking.overlap must be a whole number from 0 to 99"),
    ({"overlap": -5}, "chunking.overlap must be a whole number from 0 to 399"),
])
def test_nonsense_chunking_is_refused_with_the_allowed_range(chunking: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _settings(_ms({"chunking": chunking}))
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(("value", "expected"), [(7.9, 7), (0.5, 1), (0, 1), (45, 45)])
def test_half_life_floored_minimum_one(value: float, expected: int) -> None:
    d = _settings(_ms({"query": {"hybrid": {"temporalDecay": {"halfLifeDays": value}}}})).query.hybrid
    assert d.temporal_decay.half_life_days == expected


@pytest.mark.parametrize(("value", "expected"), [(1.5, 1.0), (-0.2, 0.0), (0.3, 0.3)])
def test_mmr_lambda_clamped(value: float, expected: float) -> None:
    assert _settings(_ms({"query": {"hybrid": {"mmr": {"lambda": value}}}})).query.hybrid.mmr.lambda_ == expected


def test_sessions_source_needs_experimental_session_memory() -> None:
    assert _settings(_ms({"sources": ["memory", "sessions"]})).sources == ("memory",)
    both = _settings(_ms({"sources": ["sessions", "memory"], "experimental": {"sessionMemory": True}}))
    assert both.sources == ("memory", "sessions")


# -- errors and warnings --------------------------------------------------------------------------


def _error_for(tmp_path: Path, text: str) -> str:
    path = tmp_path / "openclaw.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config_file(path)
    message = str(info.value)
    assert "\n" not in message, f"error is not one line: {message!r}"
    return message


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [("{\n  a: 1\n  b: 2\n}", 3, 3), ("{ a: [1, 2 }", 1, 12)],
)
def test_malformed_json5_names_file_line_and_column(tmp_path: Path, text: str, line: int, column: int) -> None:
    message = _error_for(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'openclaw.json'}:{line}:{column}:")


def test_malformed_literal_error_is_one_line_with_position(tmp_path: Path) -> None:
    message = _error_for(tmp_path, '{\n\n  "x": tru\n}')
    assert re.match(rf"^{re.escape(str(tmp_path / 'openclaw.json'))}:3:\d+: ", message), message


def test_malformed_config_through_resolve_agent(tmp_path: Path) -> None:
    env = _home(tmp_path)
    state = tmp_path / "home" / ".openclaw"
    state.mkdir(parents=True)
    (state / "openclaw.json").write_text("{\n  agents: {\n    list: [ { id: 'x' } \n")
    with pytest.raises(ConfigError) as info:
        resolve_agent(env=env)
    assert str(state / "openclaw.json") in str(info.value)


def test_unknown_key_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text("{agents: {defaults: {memorySearch: {query: {maxResults: 3, bogusKnob: 1}}}}}")
    loaded = load_config_file(path)
    assert any("memorySearch.query.bogusKnob" in w for w in loaded.warnings), loaded.warnings
    assert resolve_memory_search(loaded.raw, "main").query.max_results == 3


@pytest.mark.parametrize(
    ("block", "key"),
    [({"query": {"maxResults": "six"}}, "query.maxResults"),
     ({"query": {"hybrid": {"enabled": "yes"}}}, "query.hybrid.enabled"),
     ({"extraPaths": "notes"}, "extraPaths"),
     ({"chunking": {"tokens": [400]}}, "chunking.tokens")],
)
def test_wrong_type_names_the_key_path(block: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        _settings(_ms(block))
    assert key in str(info.value)


def test_env_secret_forms(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEMTUI_TEST_KEY", "sk-from-env")
    monkeypatch.setenv("MEMTUI_TEST_BASE", "http://127.0.0.1:9")
    assert resolve_secret("env:MEMTUI_TEST_KEY") == "sk-from-env"
    assert resolve_secret({"source": "env", "id": "MEMTUI_TEST_KEY"}) == "sk-from-env"
    assert resolve_secret("plain") == "plain"
    path = tmp_path / "openclaw.json"
    path.write_text('{agents: {defaults: {memorySearch: {remote: {apiKey: "env:MEMTUI_TEST_KEY",'
                    ' baseUrl: "${MEMTUI_TEST_BASE}/v1"}}}}}')
    settings = resolve_memory_search(load_config_file(path).raw, "main")
    assert settings.remote.api_key == "sk-from-env"
    assert settings.remote.base_url == "http://127.0.0.1:9/v1"


def test_the_index_lives_in_the_data_dir_of_the_environment_given(tmp_path: Path) -> None:
    """`resolve_agent(env=...)` (the evaluation, the screenshots, a library caller) puts memtui's own index under
    that environment's data dir, not the process's (it used the process's ~/.local/share/memtui)."""
    (tmp_path / "state").mkdir()
    env = resolve_agent(state_dir=str(tmp_path / "state"), provider="none",
                        env={"MEMTUI_DATA_DIR": str(tmp_path / "data")})
    assert env.store_path.is_relative_to(tmp_path / "data")
    home = resolve_agent(state_dir=str(tmp_path / "state"), provider="none", env={"HOME": str(tmp_path / "home")})
    assert home.store_path.is_relative_to(tmp_path / "home" / ".local" / "share" / "memtui")

"""Provider selection: none, auto (OpenClaw 2026.4 order), explicit, fallback (§8.1)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from embedding_server import EmbeddingServer, vector_for

from memtui.embeddings.http_retry import RetryPolicy
from memtui.embeddings.select import fallback_provider, select_provider
from memtui.errors import ProviderError
from memtui.settings.config import resolve_memory_search
from memtui.settings.providers import resolve_model_providers

KEY = "sk-select-test-5d1e"


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer().start()
    yield srv
    srv.stop()


def settings_for(memory_search: dict) -> tuple:
    raw = {"agents": {"defaults": {"memorySearch": memory_search}}}
    return resolve_memory_search(raw, "main"), raw


def select(
    memory_search: dict, tmp_path: Path, env: dict, profile: str = "openclaw", raw_extra: dict | None = None
):
    settings, raw = settings_for(memory_search)
    raw.update(raw_extra or {})
    return select_provider(
        settings,
        resolve_model_providers(raw),
        state_dir=tmp_path,
        profile=profile,
        env=env,
        retry=RetryPolicy(sleep=lambda _s: None, rng=random.Random(0)),
    )


def test_none_is_fts_only(tmp_path):
    selection = select({"provider": "none"}, tmp_path, {"OPENAI_API_KEY": KEY})
    assert selection.provider is None and selection.requested == "none"
    assert "none" in selection.reason


def test_provider_none_says_who_chose_it(tmp_path):
    """`--provider none` is not the config's doing: status said "requested none, from config" and blamed
    memorySearch.provider."""
    from memtui.manager import MemoryManager
    from memtui.settings.agent import resolve_agent

    (tmp_path / "ws").mkdir()
    (tmp_path / "openclaw.json").write_text('{agents: {defaults: {memorySearch: {provider: "none"}}}}',
                                            encoding="utf-8")
    seen = []
    for flag in ("none", None):
        env = resolve_agent(state_dir=str(tmp_path), workspace=str(tmp_path / "ws"), provider=flag, env={})
        with MemoryManager(env) as manager:
            status = manager.status()
            seen.append((status["providerSource"], status["custom"]["providerUnavailableReason"]))
    assert seen == [("--provider", "--provider none"), ("config", "memorySearch.provider is none")]


def test_auto_without_keys_is_fts_only_with_reason(tmp_path):
    selection = select({}, tmp_path, {})
    assert selection.provider is None and selection.requested == "auto"
    for name in ("openai: no API key", "gemini: no API key", "voyage: no API key", "local"):
        assert name in selection.reason


def test_auto_memtui_profile_without_installed_model_is_fts_only(tmp_path):
    selection = select({}, tmp_path, {}, profile="memtui")
    assert selection.provider is None
    cache = Path(os.environ["HOME"]) / ".cache" / "memtui" / "models"
    assert f"memtui model: not installed in {cache} or {tmp_path}/memtui/models (memtui model install)" \
        in selection.reason


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"OPENAI_API_KEY": KEY, "GEMINI_API_KEY": KEY, "VOYAGE_API_KEY": KEY}, "openai"),
        ({"GEMINI_API_KEY": KEY, "VOYAGE_API_KEY": KEY}, "gemini"),
        ({"VOYAGE_API_KEY": KEY}, "voyage"),
    ],
)
def test_auto_order_openai_gemini_voyage(tmp_path, env, expected):
    selection = select({}, tmp_path, env)
    assert selection.provider is not None and selection.provider.id == expected
    assert selection.source == "auto" and selection.requested == "auto"


def test_auto_uses_models_providers_key(tmp_path):
    extra = {"models": {"providers": {"google": {"apiKey": KEY}}}}
    selection = select({}, tmp_path, {}, raw_extra=extra)
    assert selection.provider.id == "gemini"


def test_auto_takes_local_only_for_an_existing_file(tmp_path):
    for spec in ("hf:org/repo/model.gguf", "https://example.com/m.gguf", str(tmp_path / "missing.gguf")):
        selection = select({"local": {"modelPath": spec}}, tmp_path, {"VOYAGE_API_KEY": KEY})
        assert selection.provider.id == "voyage"
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    selection = select({"local": {"modelPath": str(model)}}, tmp_path, {"VOYAGE_API_KEY": KEY})
    assert selection.provider.id == "local" and selection.source == "auto"
    assert selection.provider.model == str(model)


def test_remote_settings_reach_the_server(tmp_path, server):
    memory_search = {
        "provider": "openai",
        "remote": {"baseUrl": f"{server.url}/v1", "apiKey": KEY, "headers": {"X-Org": "acme"}},
        "model": "openai/text-embedding-3-large",
        "queryInputType": "query",
    }
    selection = select(memory_search, tmp_path, {"OPENAI_API_KEY": "sk-env-not-used"})
    provider = selection.provider
    assert selection.source == "config" and selection.fallback_from is None
    assert provider.embed_query("hi") == vector_for("hi")
    (request,) = server.requests
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["x-org"] == "acme"
    assert request.json()["model"] == "text-embedding-3-large"


def test_remote_api_key_env_reference(tmp_path, server, monkeypatch):
    monkeypatch.setenv("MEMTUI_TEST_EMBED_KEY", KEY)
    memory_search = {
        "provider": "voyage",
        "remote": {"baseUrl": f"{server.url}/voyage/v1", "apiKey": "env:MEMTUI_TEST_EMBED_KEY"},
    }
    provider = select(memory_search, tmp_path, {}).provider
    provider.embed_batch(["doc"])
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_explicit_provider_without_key_falls_back(tmp_path):
    selection = select({"provider": "openai", "fallback": "gemini"}, tmp_path, {"GEMINI_API_KEY": KEY})
    assert selection.provider.id == "gemini"
    assert selection.requested == "openai" and selection.fallback_from == "openai"
    assert "No API key found for provider openai" in selection.reason


def test_explicit_provider_without_key_and_no_fallback_raises(tmp_path):
    with pytest.raises(ProviderError) as info:
        select({"provider": "openai"}, tmp_path, {"GEMINI_API_KEY": KEY})
    assert "No API key found for provider openai" in str(info.value)
    assert "OPENAI_API_KEY" in str(info.value)


def test_explicit_and_fallback_both_failing_raises(tmp_path):
    with pytest.raises(ProviderError) as info:
        select({"provider": "openai", "fallback": "voyage"}, tmp_path, {})
    assert "openai" in str(info.value) and "voyage" in str(info.value)


@pytest.mark.parametrize("name", ["mistral", "bedrock", "nonsense"])
def test_unsupported_providers_are_clear_errors(tmp_path, name):
    with pytest.raises(ProviderError) as info:
        select({"provider": name}, tmp_path, {"OPENAI_API_KEY": KEY})
    assert name in str(info.value) and "openai, gemini, voyage" in str(info.value)


def test_fallback_provider_mid_index(tmp_path, server):
    settings, raw = settings_for(
        {"provider": "openai", "fallback": "voyage", "remote": {"baseUrl": f"{server.url}/voyage/v1"}}
    )
    selection = fallback_provider(
        settings,
        resolve_model_providers(raw),
        state_dir=tmp_path,
        failed="openai",
        reason="openai embeddings failed: HTTP 503",
        env={"VOYAGE_API_KEY": KEY},
    )
    assert selection.provider.id == "voyage" and selection.fallback_from == "openai"
    assert selection.reason == "openai embeddings failed: HTTP 503"
    assert selection.provider.embed_batch(["x"]) == [vector_for("x")]
    none = fallback_provider(
        resolve_memory_search({}, "main"), resolve_model_providers({}), state_dir=tmp_path, failed="openai",
        reason="boom", env={},
    )
    assert none.provider is None and none.fallback_from == "openai" and "no fallback" in none.reason


def test_batch_settings_wire_the_batch_runner(tmp_path, server):
    memory_search = {
        "provider": "openai",
        "remote": {
            "baseUrl": f"{server.url}/v1",
            "apiKey": KEY,
            "batch": {"enabled": True, "pollIntervalMs": 1},
        },
    }
    provider = select(memory_search, tmp_path, {}).provider
    status = provider.batch_status()
    assert status["enabled"] is True and status["pollIntervalMs"] == 1 and status["timeoutMs"] == 3_600_000
    assert provider.embed_batch(["a", "b"]) == [vector_for("a"), vector_for("b")]
    assert server.matching("/v1/batches") and not server.matching("/v1/embeddings")


def test_memtui_profile_uses_installed_model_only_when_nothing_else(tmp_path):
    from memtui.embeddings.model_store import model_path

    installed = model_path()
    installed.parent.mkdir(parents=True)
    installed.write_bytes(b"GGUF")
    selection = select({}, tmp_path, {}, profile="memtui")
    assert selection.provider.id == "local" and selection.source == "memtui-model"
    assert selection.provider.model == installed.name
    assert select({}, tmp_path, {"OPENAI_API_KEY": KEY}, profile="memtui").provider.id == "openai"
    assert select({}, tmp_path, {}, profile="openclaw").provider is None
    explicit = select({"provider": "local"}, tmp_path, {}, profile="memtui")
    assert explicit.source == "memtui-model" and explicit.provider.model_path == str(installed)


def test_the_ranking_profile_never_changes_the_provider_or_the_index(tmp_path, workspace):
    """`--profile openclaw` ranks memtui's index with the vectors it has: the engine picks the same provider for
    both profiles, so a search under the other profile neither finds the index stale nor rebuilds it."""
    from memtui.embeddings.model_store import model_path
    from memtui.manager import MemoryManager
    from memtui.settings.agent import resolve_agent

    installed = model_path()
    installed.parent.mkdir(parents=True)
    installed.write_bytes(b"GGUF")
    common = {"state_dir": str(tmp_path / "state"), "workspace": str(workspace)}
    with MemoryManager(resolve_agent(**common)) as memtui, \
            MemoryManager(resolve_agent(**common, profile="openclaw")) as openclaw:
        assert (openclaw.provider.id, openclaw.provider_source) == (memtui.provider.id, memtui.provider_source) \
            == ("local", "memtui-model")
        assert openclaw.provider.model_path == memtui.provider.model_path == str(installed)

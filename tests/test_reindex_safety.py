"""Safe full reindex, provider failure mid-index, and the embedding cache across provider switches."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hashed_provider import HashedProvider

from memtui.errors import ProviderError
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv


class FailingProvider(HashedProvider):
    """Embeds the first `ok_batches` batches, then fails like a provider whose quota ran out."""

    model = "hashed-failing"

    def __init__(self, ok_batches: int) -> None:
        super().__init__()
        self.ok_batches = ok_batches

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        if len(self.batch_calls) >= self.ok_batches:
            raise ProviderError("openai embeddings failed: HTTP 429 quota exhausted")
        return super().embed_batch(texts)


class OtherModel(HashedProvider):
    """Same vectors, another model name: a different index identity."""

    model = "hashed-other"


def _leftovers(store_path: Path) -> list[str]:
    return sorted(p.name for p in store_path.parent.iterdir() if ".tmp-" in p.name or ".backup-" in p.name)


def test_provider_failing_mid_index_keeps_what_it_embedded(make_env: Callable[..., AgentEnv]) -> None:
    env = make_env()
    with MemoryManager(env, provider=FailingProvider(ok_batches=1)) as manager:
        report = manager.sync()
        assert manager.provider is not None and manager.fallback is None
        assert report.full and report.files_changed == 4 and sum(report.vector_gaps.values()) == 3
        status = manager.status()
        assert status["provider"] == "hashed" and status["custom"]["searchMode"] == "hybrid"
        assert "quota exhausted" in status["custom"]["providerUnavailableReason"]
        assert status["custom"]["missingVectors"]["chunks"] == 3 and status["dirty"] is True
        assert manager.store.read_meta()["model"] == "hashed-failing"
        payload = manager.memory_search("payment webhook")
        assert payload["results"][0]["path"] == "memory/2026-11-28.md"
        assert payload["stale"] is True and "3 of 4 chunks have no vector" in payload["warning"]
    assert _leftovers(env.store_path) == []


def test_failed_rebuild_leaves_the_old_index_searchable(make_env: Callable[..., AgentEnv]) -> None:
    env = make_env()
    with MemoryManager(env, provider=HashedProvider()) as manager:
        manager.sync()
        before = manager.store.read_meta()
        chunks = manager.store.chunk_count()
    calls = 0

    def stop_after_two() -> bool:
        nonlocal calls
        calls += 1
        return calls > 2

    with MemoryManager(env, provider=OtherModel()) as manager:
        manager.sync(should_stop=stop_after_two)
        assert manager.store.read_meta() == before
        assert manager.store.chunk_count() == chunks
    assert _leftovers(env.store_path) == []
    with MemoryManager(env, provider=HashedProvider()) as manager:
        hits = manager.search("payment webhook", min_score=0.0).results
        assert hits and hits[0].path == "memory/2026-11-28.md"


def test_switching_provider_and_back_does_not_re_embed(make_env: Callable[..., AgentEnv]) -> None:
    env = make_env()
    first = HashedProvider()
    with MemoryManager(env, provider=first) as manager:
        manager.sync()
    embedded_once = sum(len(batch) for batch in first.batch_calls)
    assert embedded_once > 0

    other = OtherModel()
    with MemoryManager(env, provider=other) as manager:
        report = manager.sync()
        assert report.full and report.embedded == embedded_once

    again = HashedProvider()
    with MemoryManager(env, provider=again) as manager:
        report = manager.sync()
        assert report.full
        assert again.batch_calls == []
        assert report.embedded == 0 and report.cache_hits == embedded_once
        assert manager.store.vector_count() == embedded_once


def test_cache_max_entries_prunes_oldest(make_env: Callable[..., AgentEnv], tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json"
    config.write_text("{agents: {defaults: {memorySearch: {cache: {maxEntries: 2}}}}}", encoding="utf-8")
    with MemoryManager(make_env(config=str(config)), provider=HashedProvider()) as manager:
        manager.sync()
        assert manager.store.cache_count() == 2
        assert manager.status()["cache"] == {"enabled": True, "entries": 2, "maxEntries": 2}

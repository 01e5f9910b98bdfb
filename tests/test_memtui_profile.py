"""The memtui profile's measured departures from OpenClaw, and that the openclaw profile keeps OpenClaw's."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hashed_provider import HashedProvider

from memtui.manager import MemoryManager
from memtui.search.ranking import bm25_rank_to_score
from memtui.settings.agent import AgentEnv


def test_hybrid_text_score_is_relative_to_the_best_keyword_hit(make_env: Callable[..., AgentEnv]) -> None:
    with MemoryManager(make_env(), provider=HashedProvider()) as manager:
        manager.sync()
        memtui = manager.search("redis session cache payment webhook", min_score=0.0, profile="memtui")
        keyword = [c for c in memtui.candidates if c.bm25 is not None]
        best = max(-c.bm25 for c in keyword)
        assert len(keyword) >= 2
        for candidate in keyword:
            assert candidate.text_score == pytest.approx(-candidate.bm25 / best)
        assert max(c.text_score for c in keyword) == pytest.approx(1.0)
        assert memtui.explain()["textNormalization"] == "bm25 / best keyword hit"

        openclaw = manager.search("redis session cache payment webhook", min_score=0.0, profile="openclaw")
        for candidate in (c for c in openclaw.candidates if c.bm25 is not None):
            assert candidate.text_score == pytest.approx(bm25_rank_to_score(candidate.bm25))
        assert openclaw.explain()["textNormalization"] is None


def test_memtui_profile_matches_word_forms_openclaw_does_not(make_env: Callable[..., AgentEnv]) -> None:
    with MemoryManager(make_env()) as manager:
        manager.sync()
        hits = manager.search("payments webhooks", min_score=0.0, profile="memtui").results
        assert hits[0].path == "memory/2026-11-28.md"
        assert manager.search("payments webhooks", min_score=0.0, profile="openclaw").results == []


def test_trigram_index_requires_short_cjk_tokens_with_like(make_env: Callable[..., AgentEnv], tmp_path,
                                                           workspace) -> None:
    """§4.2 planKeywordSearch: a 2-character CJK token cannot match a trigram index, so it is a LIKE filter."""
    (workspace / "memory" / "2026-11-26.md").write_text("# 2026-11-26\n\n- 東京 office moves to Shibuya\n",
                                                         encoding="utf-8")
    (workspace / "memory" / "2026-11-25.md").write_text("# 2026-11-25\n\n- Osaka office stays put\n",
                                                         encoding="utf-8")
    config = tmp_path / "openclaw.json"
    config.write_text('{agents: {defaults: {memorySearch: {store: {fts: {tokenizer: "trigram"}}}}}}', encoding="utf-8")
    with MemoryManager(make_env(config=str(config))) as manager:
        manager.sync()
        assert [h.path for h in manager.search("東京 office", min_score=0.0, profile="openclaw").results] \
            == ["memory/2026-11-26.md"]
        assert [h.path for h in manager.search("東京", min_score=0.0, profile="openclaw").results] \
            == ["memory/2026-11-26.md"]

"""The memtui profile's measured departures from OpenClaw, and that the openclaw profile keeps OpenClaw's."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hashed_provider import HashedProvider

from memtui.errors import ConfigError
from memtui.manager import MemoryManager
from memtui.search.formula import formula_text
from memtui.search.ranking import bm25_rank_to_score, named_months
from memtui.settings.agent import AgentEnv
from memtui.settings.memtui_config import MEMTUI_WEIGHTS
from memtui.settings.memtui_config import MONTH_BOOST as DATE_BOOST


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


class _QueryNearStandup(HashedProvider):
    """A model that places every query next to the stand-up note: a keyword-relevant note then has a low cosine
    while an unrelated one has a high one, which is how a weak model behaves on conversational questions."""

    def embed_query(self, text: str) -> list[float]:
        """Embed the stand-up note instead of `text`."""
        return super().embed_query("Alice asked to move the standup to 9:30.")


def test_hybrid_keeps_every_keyword_hit_that_keyword_only_search_returns(make_env: Callable[..., AgentEnv]) -> None:
    query = "payment webhook 502 pgbouncer"
    with MemoryManager(make_env()) as manager:
        manager.sync()
        keyword_only = {h.path for h in manager.search(query, min_score=0.5).results}
    assert "memory/2026-11-28.md" in keyword_only
    with MemoryManager(make_env(), provider=_QueryNearStandup()) as manager:
        manager.sync()
        memtui = manager.search(query, min_score=0.5)
    assert keyword_only <= {h.path for h in memtui.results}
    by_path = {h.path: h for h in memtui.results}
    # the keyword hit passes on its keyword evidence although its cosine is below minScore ...
    assert by_path["memory/2026-11-28.md"].cosine < memtui.min_score
    # ... and the semantic neighbour on its cosine alone, with no keyword overlap
    assert by_path["memory/2026-11-29.md"].bm25 is None
    assert by_path["memory/2026-11-29.md"].cosine >= memtui.min_score


def test_min_score_is_a_floor_on_keyword_or_vector_evidence(make_env: Callable[..., AgentEnv]) -> None:
    with MemoryManager(make_env(), provider=HashedProvider()) as manager:
        manager.sync()
        response = manager.search("alice standup redis session", min_score=0.6)
    assert response.explain()["thresholdRule"] == "keyword r/(1+r) or cosine >= minScore"
    assert response.results and response.filtered_count > 0
    for candidate in response.candidates:
        keyword = bm25_rank_to_score(candidate.bm25) if candidate.bm25 is not None else 0.0
        evidence = max(keyword, candidate.cosine or 0.0)
        assert (candidate.stage == "below-min-score") == (evidence < response.min_score)
    # both sides are relative to their best candidate, so the fused score is a weighted mean of two ≤ 1 numbers
    assert max(c.vector_score for c in response.candidates) == pytest.approx(1.0)
    for candidate in response.candidates:
        assert candidate.score == pytest.approx(
            MEMTUI_WEIGHTS[0] * (candidate.vector_score or 0) + MEMTUI_WEIGHTS[1] * (candidate.text_score or 0))


def test_candidates_that_all_miss_min_score_are_marked_so(make_env: Callable[..., AgentEnv]) -> None:
    """A hybrid query with no keyword hit whose cosines all fall below minScore returns nothing, and every candidate
    says it was dropped by minScore (it kept the stage 'returned' with no rank, which why-not reported)."""
    for profile in ("memtui", "openclaw"):
        with MemoryManager(make_env(), provider=HashedProvider()) as manager:
            manager.sync()
            response = manager.search("zqxv wkjp", min_score=0.99, profile=profile)
        assert response.results == [] and response.candidates and not response.relaxed
        assert {c.stage for c in response.candidates} == {"below-min-score"}


def test_memtui_profile_weights_are_its_own_unless_configured(make_env: Callable[..., AgentEnv], tmp_path) -> None:
    with MemoryManager(make_env(), provider=HashedProvider()) as manager:
        manager.sync()
        assert (manager.search("redis").vector_weight, manager.search("redis").text_weight) == MEMTUI_WEIGHTS
        assert sum(MEMTUI_WEIGHTS) == pytest.approx(1.0)
        openclaw = manager.search("redis", profile="openclaw")
        assert (openclaw.vector_weight, openclaw.text_weight) == (0.7, 0.3)
    config = tmp_path / "openclaw.json"
    config.write_text("{agents: {defaults: {memorySearch: {query: {hybrid: {vectorWeight: 0.7}}}}}}", encoding="utf-8")
    with MemoryManager(make_env(config=str(config)), provider=HashedProvider()) as manager:
        manager.sync()
        configured = manager.search("redis")
        assert (configured.vector_weight, configured.text_weight) == pytest.approx((0.7, 0.3))


def test_a_month_named_in_the_query_lifts_that_months_daily_logs(make_env: Callable[..., AgentEnv],
                                                                  workspace) -> None:
    note = "- Bob renewed the TLS certificates of the API gateway.\n"
    for day in ("2025-10-14", "2025-12-14"):
        (workspace / "memory" / f"{day}.md").write_text(f"# {day}\n\n{note}", encoding="utf-8")
    with MemoryManager(make_env(), provider=HashedProvider()) as manager:
        manager.sync()
        for month, expected in (("October", "memory/2025-10-14.md"), ("December 2025", "memory/2025-12-14.md")):
            response = manager.search(f"When did Bob renew the TLS certificates in {month}?")
            assert response.results[0].path == expected
            assert response.results[0].date_boost == DATE_BOOST
            assert {c.path for c in response.candidates if c.date_boost} == {expected}
            assert response.results[0].trace()["dateBoost"] == DATE_BOOST
        for query in ("When did Bob renew the TLS certificates in October 2024?", "Bob renew TLS certificates"):
            assert not any(c.date_boost for c in manager.search(query).candidates)
        openclaw = manager.search("When did Bob renew the TLS certificates in October?", profile="openclaw")
        assert openclaw.results and not any(c.date_boost for c in openclaw.candidates)


def test_named_months_reads_month_names_and_an_optional_year() -> None:
    assert named_months("What did we ship in August?") == {(None, 8)}
    assert named_months("the outage on May 5, 2023 and in june 2024") == {(2023, 5), (2024, 6)}
    assert named_months("we may move the standup; 2023 was busy") == frozenset()


MULTILINGUAL = {
    "memory/2026-09-01.md": "# 2026-09-01\n\n- Серверы авторизации упали; Иван очистил журналы.\n",
    "memory/2026-09-02.md": "# 2026-09-02\n\n- 支付网关在高峰期返回大量超时错误。\n",
    "memory/2026-09-03.md": "# 2026-09-03\n\n- 東京のデータセンターへサーバーを移設することに決めた。\n",
    "memory/2026-09-04.md": "# 2026-09-04\n\n- The payment gateway timed out at peak hours.\n",
}


@pytest.fixture
def multilingual_env(tmp_path) -> Callable[..., AgentEnv]:
    from memtui.settings.agent import resolve_agent

    workspace = tmp_path / "ml"
    for rel, text in MULTILINGUAL.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text, encoding="utf-8")

    def build(**overrides: object) -> AgentEnv:
        options: dict[str, object] = {"state_dir": str(tmp_path / "state"), "workspace": str(workspace),
                                      "provider": "none"}
        options.update(overrides)
        return resolve_agent(**options)  # type: ignore[arg-type]

    return build


@pytest.mark.parametrize(("query", "expected"), [
    ("сервер", "memory/2026-09-01.md"),        # Russian: the stem finds the plural "Серверы"
    ("авторизация", "memory/2026-09-01.md"),   # and the genitive "авторизации"
    ("网关超时", "memory/2026-09-02.md"),        # Chinese: bigrams inside an unbroken run
    ("データセンター", "memory/2026-09-03.md"),   # Japanese katakana inside a mixed run
    ("東京", "memory/2026-09-03.md"),
])
def test_cjk_and_russian_are_found_in_the_memtui_profile(multilingual_env: Callable[..., AgentEnv], query: str,
                                                        expected: str) -> None:
    with MemoryManager(multilingual_env()) as manager:
        manager.sync()
        assert [h.path for h in manager.search(query, min_score=0.0).results][:1] == [expected]
        # OpenClaw's unicode61 table keeps a whole CJK run (or an inflected word) as one token
        assert expected not in [h.path for h in manager.search(query, min_score=0.0, profile="openclaw").results]


def test_the_accelerator_ranks_cjk_and_russian_as_fts5_does(multilingual_env: Callable[..., AgentEnv]) -> None:
    from memtui.search.engine import Searcher, SearchOptions
    from memtui.search.fast_search import FastSearch

    with MemoryManager(multilingual_env()) as manager:
        manager.fast = FastSearch(sync_build_chunks=10_000)
        manager.sync()
        fast = manager.fast.current(manager.store, vectors=False)
        assert fast is not None
        for query in ["серверы журнал", "支付网关", "サーバー 東京", "payment gateway 超时", "иван очистил"]:
            plain = Searcher(manager.store, None, manager.settings, "memtui", manager.file_mtimes).search(
                query, SearchOptions(min_score=0))
            quick = Searcher(manager.store, None, manager.settings, "memtui", manager.file_mtimes,
                             fast=fast).search(query, SearchOptions(min_score=0))
            assert [(c.id, pytest.approx(c.score)) for c in quick.results] == [(c.id, c.score) for c in plain.results]
            assert plain.results, query


def test_index_text_rewrites_only_what_fts5_cannot_split_or_stem() -> None:
    from memtui.index.terms import index_text, query_terms

    assert index_text("The payment_gateway timed out.") == "the payment gateway timed out"
    assert index_text("东京的天气") == "东京 京的 的天 天气"
    assert index_text("Серверы упали") == "сервер упа"
    assert query_terms("データ") == ["デー", "ータ"]


def test_words_in_every_chunk_give_no_text_score(make_env: Callable[..., AgentEnv], workspace) -> None:
    """A speaker name in every chunk: FTS5 clamps its IDF to 1e-6, so its best |bm25| is ~1e-6. Normalising by
    that best turned noise into text scores of 0.9-1.0 that outranked the chunk the model finds; they stay ≈ 0."""
    for day in range(1, 25):
        (workspace / "memory" / f"2026-10-{day:02d}.md").write_text(
            f"# 2026-10-{day:02d}\n\n- Evan and Sam talked about hiking trail number {day} and the weather.\n",
            encoding="utf-8")
    (workspace / "memory" / "2026-10-30.md").write_text(
        "# 2026-10-30\n\n- My smart watch tracks sleep and runs.\n", encoding="utf-8")
    with MemoryManager(make_env(), provider=HashedProvider()) as manager:
        manager.sync()
        response = manager.search("What does the smartwatch help Evan with?", min_score=0.0, profile="memtui")
        flat = [c for c in response.candidates if c.bm25 is not None and "Evan" in c.text]
        assert len(flat) >= 20 and all(abs(c.bm25) < 0.005 for c in flat)
        assert max(c.text_score for c in flat) < 0.01
        top = response.results[0]  # the vector side decides: the best cosine, not a chunk that merely names Evan
        assert "Evan" not in top.text
        assert top.cosine == max(c.cosine for c in response.candidates if c.cosine is not None)
        assert "≈ 0" in response.explain()["textNormalization"]


def test_memtuis_own_config_tunes_the_month_boost_and_weights(make_env: Callable[..., AgentEnv], workspace,
                                                              monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """The memtui profile's knobs live in memtui's config (openclaw.json's validator rejects unknown keys):
    `ranking.monthBoost` (0 switches the boost off) and `ranking.weights`; a bad value is a clear error."""
    (workspace / "memory" / "2025-10-14.md").write_text("# 2025-10-14\n\n- Bob renewed the TLS certificates.\n",
                                                         encoding="utf-8")
    config_dir = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_dir))
    (config_dir / "memtui").mkdir(parents=True)
    config = config_dir / "memtui" / "config.json5"
    config.write_text("{ranking: {monthBoost: 0, weights: {vector: 0.2, text: 0.6}}}", encoding="utf-8")
    with MemoryManager(make_env(), provider=HashedProvider()) as manager:
        manager.sync()
        response = manager.search("When did Bob renew the TLS certificates in October?")
        assert not any(c.date_boost for c in response.candidates)
        assert (response.vector_weight, response.text_weight) == pytest.approx((0.25, 0.75))  # normalised
    config.write_text("{ranking: {monthBoost: 1.25}}", encoding="utf-8")
    with MemoryManager(make_env(), provider=HashedProvider()) as manager:
        manager.sync()
        response = manager.search("When did Bob renew the TLS certificates in October?")
        assert response.results[0].date_boost == 1.25 and "month boost 1.2500" in formula_text(response.results[0],
                                                                                            response)
    for bad, said in (("{ranking: {monthBoost: -1}}", "monthBoost must be a number from 0 to 2"),
                      ("{ranking: {boost: 1}}", "unknown key 'boost'"), ("{ranking: [", "not valid JSON5")):
        config.write_text(bad, encoding="utf-8")
        with pytest.raises(ConfigError, match=said):
            make_env()

"""Scoring arithmetic against §4.1, §4.4, §4.6–§4.9, with expected values computed here by hand."""

from __future__ import annotations

import math
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hashed_provider import HashedProvider, trigram_vector

from memtui.manager import MemoryManager
from memtui.search.ranking import bm25_rank_to_score, mmr_order, truncate_utf16
from memtui.settings.agent import AgentEnv, resolve_agent
from memtui.settings.config import DecaySettings, MemorySearchSettings, MMRSettings

NOW = datetime(2026, 5, 28, 12, 0, tzinfo=UTC)


# -- bm25 → score ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank", "expected"),
    [(-3.0, 0.75), (-1.0, 0.5), (-0.25, 0.2), (0.0, 1.0), (1.0, 0.5), (3.0, 0.25),
     (math.inf, 0.001), (-math.inf, 0.001), (math.nan, 0.001)],
)
def test_bm25_rank_to_score(rank: float, expected: float) -> None:
    assert bm25_rank_to_score(rank) == pytest.approx(expected)


# -- snippets -------------------------------------------------------------------------------------------


def test_snippet_cut_at_700_utf16_units_without_splitting_pairs() -> None:
    assert truncate_utf16("a" * 699 + "\U0001F600" + "b") == "a" * 699
    assert truncate_utf16("a" * 698 + "\U0001F600" + "b") == "a" * 698 + "\U0001F600"
    assert truncate_utf16("x" * 800) == "x" * 700
    assert truncate_utf16("short") == "short"


# -- MMR --------------------------------------------------------------------------------------------------


def test_mmr_hand_worked_example() -> None:
    # rel = min-max of (1.0, 0.9, 0.5) = (1, 0.8, 0); A and B share every token (Jaccard 1), C shares none.
    scores = [1.0, 0.9, 0.5]
    texts = ["Apple banana cherry", "apple BANANA cherry", "dog eagle fox"]
    # λ=0.5: pick A (0.5); then B = 0.4 - 0.5·1 = -0.1 vs C = 0 → C; then B.
    assert mmr_order(scores, texts, 0.5) == [0, 2, 1]
    # λ=0.7: after A, B = 0.56 - 0.3 = 0.26 vs C = 0 → B first.
    assert mmr_order(scores, texts, 0.7) == [0, 1, 2]
    assert mmr_order(scores, texts, 1.0) == [0, 1, 2]


def test_mmr_tie_goes_to_higher_raw_score() -> None:
    # P selected first; then Q: 0.5·0.5 − 0.5·J({alpha,beta,gamma,delta},{alpha,beta}) = 0.25 − 0.25 = 0,
    # R: 0.5·0 − 0 = 0 → a tie, won by Q's higher raw score whatever the input order.
    assert mmr_order([1.0, 0.625, 0.25], ["alpha beta", "alpha beta gamma delta", "omega"], 0.5) == [0, 1, 2]
    assert mmr_order([1.0, 0.25, 0.625], ["alpha beta", "omega", "alpha beta gamma delta"], 0.5) == [0, 2, 1]


def test_mmr_equal_scores_give_relevance_one_and_cjk_tokens_count() -> None:
    # All scores equal → rel 1 for all; λ=0.5: second pick avoids the CJK near-duplicate.
    texts = ["记忆系统", "记忆系统", "天气"]
    assert mmr_order([0.4, 0.4, 0.4], texts, 0.5) == [0, 2, 1]


# -- search fixtures ------------------------------------------------------------------------------------

FILES = {
    "MEMORY.md": "# Memory\nThe router in the garage uses vlan 20.\n",
    "memory/2026-04-28.md": "Replaced the router power supply today.\n",
    "memory/2026-04-29.md": "Routers routing routes: reading about routers.\n",
    "memory/2026-04-30-trip.md": "Packed the router for the trip.\n",
    "memory/notes.md": "vlan tagging notes for the switch.\n",
    "memory/2026-04-30.md": "Planted tomatoes in the garden.\n",
}


def _env(tmp_path: Path) -> AgentEnv:
    ws = tmp_path / "ws"
    for rel, text in FILES.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    return resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(ws), provider="none",
                         profile="openclaw", env={"HOME": str(home), "OPENCLAW_HOME": str(home)})


def _hybrid_settings(s: MemorySearchSettings, **hybrid) -> MemorySearchSettings:
    return replace(s, query=replace(s.query, hybrid=replace(s.query.hybrid, **hybrid)))


def _cos(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def _expected_hybrid(db: Path, query: str, match: str | None, vw: float, tw: float) -> dict[str, tuple]:
    """path → (vectorScore, textScore, merged) computed independently from the SQLite file."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    chunks = conn.execute("SELECT id, path, text FROM chunks").fetchall()
    ranks = dict(conn.execute("SELECT id, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?",
                              (match,)).fetchall()) if match else {}
    conn.close()
    qv = trigram_vector(query)
    result = {}
    for chunk_id, path, text in chunks:
        v = _cos(qv, trigram_vector(text))
        t = -ranks[chunk_id] / (1 - ranks[chunk_id]) if chunk_id in ranks else 0.0
        result[path] = (v, t, vw * v + tw * t, chunk_id in ranks)
    return result


@pytest.fixture
def hybrid(tmp_path: Path):
    env = _env(tmp_path)
    manager = MemoryManager(env, provider=HashedProvider())
    manager.sync()
    yield manager
    manager.close()


def test_hybrid_weighted_merge_min_score_and_max_results(hybrid: MemoryManager) -> None:
    expected = _expected_hybrid(hybrid.env.store_path, "router", '"router"', 0.7, 0.3)
    response = hybrid.search("router", max_results=3, min_score=0.2)
    got = [(r.path, r.score) for r in response.results]
    want = sorted(((p, e[2]) for p, e in expected.items() if e[2] >= 0.2), key=lambda x: -x[1])[:3]
    assert [p for p, _ in got] == [p for p, _ in want]
    for (_, score), (_, expected_score) in zip(got, want, strict=True):
        assert score == pytest.approx(expected_score, abs=1e-5)
    for r in response.results:
        assert r.vector_score == pytest.approx(expected[r.path][0], abs=1e-5)
        assert (r.text_score or 0.0) == pytest.approx(expected[r.path][1], abs=1e-9)


def test_hybrid_weights_from_settings(hybrid: MemoryManager) -> None:
    settings = _hybrid_settings(hybrid.settings, vector_weight=0.25, text_weight=0.75)
    expected = _expected_hybrid(hybrid.env.store_path, "router", '"router"', 0.25, 0.75)
    response = hybrid.search("router", max_results=10, min_score=0.0, settings=settings)
    assert {r.path: r.score for r in response.results} == pytest.approx(
        {p: e[2] for p, e in expected.items()}, abs=1e-5)


def test_relax_rule_keeps_only_keyword_hits_above_min_of_minscore_and_text_weight(hybrid: MemoryManager) -> None:
    expected = _expected_hybrid(hybrid.env.store_path, "router", '"router"', 0.7, 0.3)
    assert all(e[2] < 0.99 for e in expected.values())
    vector_only_above = [p for p, e in expected.items() if not e[3] and e[2] >= 0.3]
    assert vector_only_above, "fixture must have a vector-only chunk above the relaxed threshold"
    response = hybrid.search("router", max_results=10, min_score=0.99)
    want = sorted((p for p, e in expected.items() if e[3] and e[2] >= min(0.99, 0.3)), key=lambda p: -expected[p][2])
    assert [r.path for r in response.results] == want
    assert want


def test_no_relax_without_keyword_hits(hybrid: MemoryManager) -> None:
    response = hybrid.search("routerz", max_results=10, min_score=0.99)
    assert response.candidates, "vector hits exist"
    assert response.results == []


def test_candidate_limit(hybrid: MemoryManager) -> None:
    # candidates = min(200, max(1, floor(maxResults × multiplier)))
    for max_results, multiplier, limit in [(6, 4, 24), (7, 4, 28), (5, 2.5, 12), (100, 3, 200), (1, 1, 1)]:
        settings = _hybrid_settings(hybrid.settings, candidate_multiplier=multiplier)
        response = hybrid.search("router", max_results=max_results, settings=settings)
        assert response.candidate_limit == limit, (max_results, multiplier)


def test_candidate_limit_bounds_keyword_candidates(tmp_path: Path) -> None:
    env = _env(tmp_path)
    for i in range(20):
        (env.workspace_dir / "memory" / f"zebra-{i:02d}.md").write_text(f"zebra sighting number {i}\n")
    with MemoryManager(env, provider=None) as manager:
        manager.sync()
        settings = _hybrid_settings(manager.settings, candidate_multiplier=2.5)
        response = manager.search("zebra", max_results=3, min_score=0.0, settings=settings)
    assert response.candidate_limit == 7
    assert len(response.candidates) == 7
    assert len(response.results) == 3


# -- temporal decay ---------------------------------------------------------------------------------------


def _decay(age_days: float, half_life: int) -> float:
    return math.exp(-math.log(2) / half_life * age_days)


def test_decay_dated_daily_files_only(hybrid: MemoryManager) -> None:
    settings = _hybrid_settings(hybrid.settings, temporal_decay=DecaySettings(enabled=True, half_life_days=10))
    plain = {r.path: r.score for r in hybrid.search("router vlan garden", max_results=20, min_score=0.0).results}
    decayed = hybrid.search("router vlan garden", max_results=20, min_score=0.0, settings=settings, now=NOW)
    ages = {  # UTC midnight of the file's date to 2026-05-28T12:00Z
        "memory/2026-04-28.md": 30.5, "memory/2026-04-29.md": 29.5, "memory/2026-04-30.md": 28.5,
    }
    by_path = {r.path: r for r in decayed.results}
    assert set(by_path) == set(plain)
    for path, result in by_path.items():
        multiplier = _decay(ages[path], 10) if path in ages else 1.0
        assert result.decay == pytest.approx(multiplier), path
        assert result.score == pytest.approx(plain[path] * multiplier), path
    assert by_path["MEMORY.md"].decay == 1.0
    assert by_path["memory/2026-04-30-trip.md"].decay == 1.0
    assert by_path["memory/notes.md"].decay == 1.0


def test_decay_half_life_30_gives_half_at_30_days(hybrid: MemoryManager) -> None:
    settings = _hybrid_settings(hybrid.settings, temporal_decay=DecaySettings(enabled=True, half_life_days=30))
    now = datetime(2026, 5, 28, 0, 0, tzinfo=UTC)
    response = hybrid.search("router", max_results=20, min_score=0.0, settings=settings, now=now)
    assert {r.path: r.decay for r in response.results}["memory/2026-04-28.md"] == pytest.approx(0.5)


def test_decay_of_undated_non_memory_path_uses_mtime(tmp_path: Path) -> None:
    from memtui.search.ranking import item_age_days

    mtime_ms = NOW.timestamp() * 1000 - 3 * 86_400_000
    assert item_age_days("sessions/abc.jsonl", "sessions", NOW, mtime_ms) == pytest.approx(3.0)
    assert item_age_days("../notes/idea.md", "memory", NOW, mtime_ms) == pytest.approx(3.0)
    assert item_age_days("MEMORY.md", "memory", NOW, mtime_ms) is None
    assert item_age_days("memory/2026-01-16-foo.md", "memory", NOW, mtime_ms) is None
    assert item_age_days("memory/2026-05-27.md", "memory", NOW, mtime_ms) == pytest.approx(1.5)


# -- MMR through search ---------------------------------------------------------------------------------


def test_mmr_through_search_matches_hand_selection(hybrid: MemoryManager) -> None:
    lam = 0.1
    settings = _hybrid_settings(hybrid.settings, mmr=MMRSettings(enabled=True, lambda_=lam))
    base = hybrid.search("router", max_results=20, min_score=0.0)
    ordered = sorted(base.candidates, key=lambda c: -c.score)
    scores = [c.score for c in ordered]
    texts = [c.snippet for c in ordered]
    token_sets = []
    for text in texts:
        words = set()
        word = ""
        for ch in text.lower() + " ":
            if ch.isascii() and (ch.isalnum() or ch == "_"):
                word += ch
            elif word:
                words.add(word)
                word = ""
        token_sets.append(words)
    low, high = min(scores), max(scores)
    rel = [(s - low) / (high - low) for s in scores]
    remaining = list(range(len(ordered)))
    picked: list[int] = []
    while remaining:
        def value(i: int) -> float:
            sim = max((len(token_sets[i] & token_sets[j]) / len(token_sets[i] | token_sets[j]) for j in picked),
                      default=0.0)
            return lam * rel[i] - (1 - lam) * sim
        best = max(remaining, key=lambda i: (value(i), scores[i]))
        picked.append(best)
        remaining.remove(best)
    assert picked != list(range(len(ordered))), "fixture must make MMR change the order"
    response = hybrid.search("router", max_results=20, min_score=0.0, settings=settings)
    assert [r.path for r in response.results] == [ordered[i].path for i in picked]


def test_search_snippet_is_chunk_text_cut_at_700_units(tmp_path: Path) -> None:
    env = _env(tmp_path)
    head = "zebra " + "b" * 693
    (env.workspace_dir / "memory" / "wide.md").write_text(head + "\U0001F600tail", encoding="utf-8")
    with MemoryManager(env, provider=None) as manager:
        manager.sync()
        response = manager.search("zebra", min_score=0.0)
    assert [r.path for r in response.results] == ["memory/wide.md"]
    assert response.results[0].snippet == head

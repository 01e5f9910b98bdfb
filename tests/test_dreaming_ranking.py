"""Deep ranking (§12.5) against hand-computed numbers."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime

import pytest

from memtui.dreaming.promotion import list_candidates

NOW = datetime(2026, 4, 10, 12, 0, tzinfo=UTC)
KEY = "memory:memory/2026-04-01.md:3:5"


def write_store(ws, entry_overrides=None, phase=None):
    entry = {
        "key": KEY,
        "path": "memory/2026-04-01.md",
        "startLine": 3,
        "endLine": 5,
        "source": "memory",
        "snippet": "Infra: move backups to glacier",
        "recallCount": 3,
        "dailyCount": 1,
        "groundedCount": 0,
        "totalScore": 3.02,
        "maxScore": 0.9,
        "firstRecalledAt": "2026-04-01T12:00:00.000Z",
        "lastRecalledAt": "2026-04-03T12:00:00.000Z",
        "queryHashes": ["aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"],
        "recallDays": ["2026-04-01", "2026-04-03"],
        "conceptTags": ["infra", "backups", "glacier"],
    }
    entry.update(entry_overrides or {})
    dreams = ws / "memory" / ".dreams"
    dreams.mkdir(parents=True, exist_ok=True)
    store = {"version": 1, "updatedAt": "2026-04-03T12:00:00.000Z", "entries": {KEY: entry}}
    (dreams / "short-term-recall.json").write_text(json.dumps(store))
    if phase:
        signals = {"version": 1, "updatedAt": "x", "entries": {KEY: {"key": KEY, **phase}}}
        (dreams / "phase-signals.json").write_text(json.dumps(signals))


def rank_all(ws):
    return list_candidates(ws, now=NOW, min_score=0, min_recall_count=0, min_unique_queries=0)


def test_components_and_score_match_hand_computation(tmp_path):
    write_store(tmp_path)
    [c] = rank_all(tmp_path)
    # signals = 3 recalls + 1 daily + 0 grounded = 4
    assert c.signal_count == 4
    # frequency = ln(1+4)/ln(1+10) = 1.6094379/2.3978953 = 0.6711877
    assert c.components.frequency == pytest.approx(0.6711877, abs=1e-6)
    # relevance = 3.02 / 4 = 0.755
    assert c.components.relevance == pytest.approx(0.755)
    # diversity = min(1, max(3 queries, 2 days)/5) = 0.6
    assert c.components.diversity == pytest.approx(0.6)
    # recency: age 7 days, half-life 14 → 2^(-1/2) = 0.7071068
    assert c.age_days == pytest.approx(7.0)
    assert c.components.recency == pytest.approx(0.7071068, abs=1e-6)
    # consolidation: 2 days, span 2 → 0.55·ln2/ln5 + 0.45·2/7 = 0.55·0.4306766 + 0.45·0.2857143 = 0.3654436
    assert c.components.consolidation == pytest.approx(0.3654436, abs=1e-6)
    # conceptual = 3/6
    assert c.components.conceptual == pytest.approx(0.5)
    # 0.24·0.6711877 + 0.30·0.755 + 0.15·0.6 + 0.15·0.7071068 + 0.10·0.3654436 + 0.06·0.5
    #   = 0.1610851 + 0.2265 + 0.09 + 0.1060660 + 0.0365444 + 0.03 = 0.6501955
    assert c.score == pytest.approx(0.6501955, abs=1e-6)
    assert c.phase_boost.total == 0


def test_phase_boost_adds_light_and_rem_terms(tmp_path):
    write_store(
        tmp_path,
        phase={
            "lightHits": 2,
            "remHits": 5,
            "lastLightAt": "2026-03-27T12:00:00.000Z",  # 14 days before NOW → recency 0.5
            "lastRemAt": "2026-04-10T12:00:00.000Z",  # now → recency 1
        },
    )
    [c] = rank_all(tmp_path)
    # light: 0.06 · ln3/ln7 · 0.5 = 0.06 · 0.5645750 · 0.5 = 0.0169373
    # rem:   0.09 · ln6/ln7 · 1   = 0.09 · 0.9207822       = 0.0828704
    assert c.phase_boost.total == pytest.approx(0.0169373 + 0.0828704, abs=1e-6)
    assert c.score == pytest.approx(0.6501955 + 0.0998077, abs=1e-6)


def test_grounded_count_and_single_day_consolidation(tmp_path):
    write_store(tmp_path, {"recallDays": ["2026-04-03"], "groundedCount": 2, "recallCount": 1})
    [c] = rank_all(tmp_path)
    # single day → 0.2, but groundedCount/3 = 0.6667 wins
    assert c.components.consolidation == pytest.approx(2 / 3)
    # signals = 1 + 1 + 2 = 4, relevance = 3.02/4
    assert c.components.relevance == pytest.approx(0.755)


def test_gates_filter_and_sort(tmp_path):
    write_store(tmp_path)
    assert list_candidates(tmp_path, now=NOW, min_score=0.66) == []
    assert list_candidates(tmp_path, now=NOW, min_score=0.6, min_recall_count=5) == []
    assert list_candidates(tmp_path, now=NOW, min_score=0.6, min_unique_queries=4) == []
    assert list_candidates(tmp_path, now=NOW, min_score=0.6, max_age_days=6) == []
    assert [c.key for c in list_candidates(tmp_path, now=NOW, min_score=0.6)] == [KEY]


def test_frequency_saturates_at_ten_signals(tmp_path):
    write_store(tmp_path, {"recallCount": 9, "dailyCount": 1, "totalScore": 10 * 0.755})
    [c] = rank_all(tmp_path)
    assert c.components.frequency == pytest.approx(math.log1p(10) / math.log1p(10))

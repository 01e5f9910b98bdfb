"""why_not.explain_chunk against real searches: every stage, with scores computed independently."""

from __future__ import annotations

import math

import pytest
from hashed_provider import trigram_vector

from memtui.errors import PathError
from memtui.manager import MemoryManager
from memtui.search.ranking import bm25_rank_to_score
from memtui.search.why_not import chunk_at, explain_chunk, parse_location


def test_returned_and_cut_by_max_results(manager: MemoryManager) -> None:
    response = manager.search("redis", max_results=1)
    assert len(response.results) == 1
    first = explain_chunk(manager, response, response.results[0].id)
    assert first.stage == "returned" and first.rank == 1
    cut = [c for c in response.candidates if c.stage == "cut-by-max-results"]
    assert len(cut) == 2
    why = explain_chunk(manager, response, cut[0].id)
    assert why.headline == "cut by maxResults"
    assert any("maxResults is 1" in reason for reason in why.reasons)


def test_below_min_score(hybrid_manager: MemoryManager) -> None:
    """openclaw profile: minScore bounds the fused score."""
    candidates = hybrid_manager.search("redis", min_score=0.0, profile="openclaw").candidates
    scores = sorted((c.score for c in candidates), reverse=True)
    threshold = (scores[0] + scores[1]) / 2
    response = hybrid_manager.search("redis", min_score=threshold, profile="openclaw")
    below = [c for c in response.candidates if c.score < threshold]
    assert below and all(c.stage == "below-min-score" for c in below)
    why = explain_chunk(hybrid_manager, response, below[0].id)
    assert why.headline == "below minScore"
    assert any(f"score {below[0].score:.4f} < minScore {threshold:.4f}" in reason for reason in why.reasons)


def test_below_min_score_names_both_pieces_of_evidence(hybrid_manager: MemoryManager) -> None:
    """memtui profile: minScore bounds the keyword score and the cosine, so both are named."""
    everything = hybrid_manager.search("redis", min_score=0.0)
    evidence = sorted(max(bm25_rank_to_score(c.bm25) if c.bm25 is not None else 0.0, c.cosine or 0.0)
                      for c in everything.candidates)
    threshold = (evidence[-1] + evidence[-2]) / 2  # the best passes, the others do not
    response = hybrid_manager.search("redis", min_score=threshold)
    assert not response.relaxed
    below = [c for c in response.candidates if c.stage == "below-min-score"]
    assert below
    why = explain_chunk(hybrid_manager, response, below[0].id)
    assert why.headline == "below minScore", why.reasons
    assert any(f"nor its cosine {(below[0].cosine or 0):.3f}" in reason and f"< minScore {threshold:.3f}" in reason
               for reason in why.reasons)


def test_a_relaxed_search_says_only_keyword_hits_were_kept(hybrid_manager: MemoryManager) -> None:
    """No hit reaches minScore: the keyword hits are returned (the relax rule) and a vector-only chunk is told
    that, not that it failed a threshold the returned hits failed too."""
    response = hybrid_manager.search("redis", min_score=0.99)
    assert response.relaxed
    vector_only = next(c for c in response.candidates if c.text_rank is None)
    why = explain_chunk(hybrid_manager, response, vector_only.id)
    assert any("the relax rule then keeps only keyword candidates, and it is not one" in r for r in why.reasons)


def test_not_a_candidate_in_hybrid_mode_gets_its_cosine(hybrid_manager: MemoryManager) -> None:
    response = hybrid_manager.search("redis eviction", max_results=1, min_score=0.0)
    candidate_ids = {c.id for c in response.candidates}
    row = chunk_at(hybrid_manager, "memory/2026-03-30.md", 3)
    if row.id in candidate_ids:
        pytest.fail("the fixture query must leave 2026-03-30 out of the candidates (limit 4)")
    why = explain_chunk(hybrid_manager, response, row.id)
    assert why.stage == "not-a-candidate"
    query, doc = trigram_vector("redis eviction"), trigram_vector(row.text)
    expected = sum(a * b for a, b in zip(query, doc, strict=True)) / (
        math.sqrt(sum(a * a for a in query)) * math.sqrt(sum(b * b for b in doc)))
    # scored by the ranking code itself: the memtui profile's vector side is the cosine over the best candidate's
    best = max(c.cosine for c in response.candidates if c.cosine is not None)
    assert any(f"cosine {expected:.4f}" in reason for reason in why.reasons)
    assert why.vector_score == pytest.approx(expected / best, abs=1e-6)
    assert why.text_score is None
    assert why.base_score == pytest.approx(response.vector_weight * expected / best, abs=1e-6)
    assert why.score == pytest.approx(why.base_score * why.decay, abs=1e-9)
    wide = [r for r in why.reasons if r.startswith("as a candidate it would score final ")]
    assert len(wide) == 1 and f"final {why.score:.4f}" in wide[0] and " by score, " in wide[0]


def test_locations() -> None:
    assert parse_location("memory/2026-04-20.md:12") == ("memory/2026-04-20.md", 12)
    assert parse_location("MEMORY.md#L3-L9") == ("MEMORY.md", 3)
    with pytest.raises(PathError, match="path:line"):
        parse_location("MEMORY.md")


def test_chunk_at_reports_missing_lines(manager: MemoryManager) -> None:
    with pytest.raises(PathError, match="indexed lines are 1-5"):
        chunk_at(manager, "memory/2026-03-30.md", 40)
    with pytest.raises(PathError, match="not in the index"):
        chunk_at(manager, "memory/nope.md", 1)



def test_bm25_for_why_not_comes_from_the_profiles_keyword_index(manager: MemoryManager) -> None:
    """A chunk matching only through stemming ("spiking upgrades" vs "spiked … upgrade") has a bm25 on the
    memtui profile's stemmed index and none on OpenClaw's unstemmed one."""
    row = chunk_at(manager, "memory/2026-04-28.md", 3)
    match = '"spiking" OR "upgrades"'
    assert manager.store.bm25_for_ids(match, [row.id], stemmed=False) == {}
    assert manager.store.bm25_for_ids(match, [row.id], stemmed=True)[row.id] < 0

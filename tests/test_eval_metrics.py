"""Ranking metrics against hand-computed values (the arithmetic is written out in each test)."""

from __future__ import annotations

import math

import pytest

from memtui.evaluation.metrics import (
    best_ranks,
    evidence_recall,
    ideal_dcg,
    mean,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank,
    tie_groups,
)

D2, D3, D4 = 1 / math.log2(3), 1 / math.log2(4), 1 / math.log2(5)  # discounts of ranks 2, 3, 4


def test_ndcg_linear_gain_log2_discount() -> None:
    # relevant a at rank 1, b at rank 3, c never retrieved: DCG = 1/log2(2) + 1/log2(4) = 1.5
    # ideal over the three judged documents: 1 + 1/log2(3) + 1/log2(4)
    ranking = [("a", 3.0), ("x", 2.0), ("b", 1.0)]
    qrels = {"a": 1, "b": 1, "c": 1}
    assert ndcg_at_k(ranking, qrels, 10) == pytest.approx(1.5 / (1 + D2 + 0.5))
    assert recall_at_k(ranking, qrels, 10) == pytest.approx(2 / 3)
    assert recall_at_k(ranking, qrels, 2) == pytest.approx(1 / 3)
    assert reciprocal_rank(ranking, qrels, 10) == 1.0


def test_graded_gains_are_linear() -> None:
    # b (grade 1) first, a (grade 2) second: DCG = 1 + 2/log2(3); ideal = 2 + 1/log2(3)
    ranking = [("b", 2.0), ("a", 1.0)]
    assert ndcg_at_k(ranking, {"a": 2, "b": 1}, 10) == pytest.approx((1 + 2 * D2) / (2 + D2))


def test_ideal_dcg_with_more_relevant_documents_than_k() -> None:
    # five relevant documents, k = 2: the ideal is cut at 2 -> 1 + 1/log2(3), so two hits out of two score 1
    qrels = {d: 1 for d in "abcde"}
    assert ideal_dcg(qrels.values(), 2) == pytest.approx(1 + D2)
    assert ndcg_at_k([("a", 2.0), ("b", 1.0)], qrels, 2) == pytest.approx(1.0)
    # and recall@2 is still measured against all five: 2/5
    assert recall_at_k([("a", 2.0), ("b", 1.0)], qrels, 2) == pytest.approx(0.4)


def test_duplicate_hits_on_one_document_count_once_at_best_rank() -> None:
    # a appears at hit ranks 1 and 2 (two chunks); after keeping its best rank the list is a, x, b,
    # so b moves from hit rank 4 up to rank 3 and is inside k = 3
    ranking = [("a", 5.0), ("a", 4.0), ("x", 3.0), ("b", 2.0)]
    qrels = {"a": 1, "b": 1}
    assert best_ranks(ranking) == [("a", 5.0), ("x", 3.0), ("b", 2.0)]
    # DCG@3 = 1 + 1/log2(4) = 1.5 (not 2: a's second chunk earns nothing); ideal = 1 + 1/log2(3)
    assert ndcg_at_k(ranking, qrels, 3) == pytest.approx(1.5 / (1 + D2))
    assert recall_at_k(ranking, qrels, 3) == 1.0
    assert recall_at_k(ranking, qrels, 2) == 0.5


def test_no_relevant_document_retrieved() -> None:
    qrels = {"a": 1}
    for ranking in ([("x", 2.0), ("y", 1.0)], []):
        assert ndcg_at_k(ranking, qrels, 10) == 0.0
        assert recall_at_k(ranking, qrels, 10) == 0.0
        assert reciprocal_rank(ranking, qrels, 10) == 0.0


def test_relevant_document_beyond_k_does_not_count() -> None:
    ranking = [("x", 3.0), ("y", 2.0), ("a", 1.0)]
    assert ndcg_at_k(ranking, {"a": 1}, 2) == 0.0
    assert reciprocal_rank(ranking, {"a": 1}, 2) == 0.0
    assert reciprocal_rank(ranking, {"a": 1}, 3) == pytest.approx(1 / 3)


def test_tie_groups_are_adjacent_equal_scores() -> None:
    assert tie_groups([3.0, 3.0, 2.0, 1.0, 1.0]) == [(0, 2), (2, 3), (3, 5)]
    assert tie_groups([]) == []
    # equal scores that are not adjacent (e.g. after MMR re-ordering) are separate groups
    assert tie_groups([2.0, 1.0, 2.0]) == [(0, 1), (1, 2), (2, 3)]


def test_by_default_the_returned_order_breaks_ties() -> None:
    # x and a share a score; the engine put x first, so a is at rank 2
    ranking = [("x", 2.0), ("a", 2.0), ("y", 1.0)]
    assert ndcg_at_k(ranking, {"a": 1}, 10) == pytest.approx(D2)
    assert reciprocal_rank(ranking, {"a": 1}, 10) == pytest.approx(1 / 2)
    assert recall_at_k(ranking, {"a": 1}, 1) == 0.0


def test_tie_aware_averages_over_the_group_positions() -> None:
    # x and a tie at ranks 1-2: a's expected discount is (1 + 1/log2(3)) / 2, whatever the order
    qrels = {"a": 1}
    for ranking in ([("x", 2.0), ("a", 2.0), ("y", 1.0)], [("a", 2.0), ("x", 2.0), ("y", 1.0)]):
        assert ndcg_at_k(ranking, qrels, 10, tie_aware=True) == pytest.approx((1 + D2) / 2)
        # first relevant at rank 1 or 2 with probability 1/2 each: (1 + 1/2) / 2 = 0.75
        assert reciprocal_rank(ranking, qrels, 10, tie_aware=True) == pytest.approx(0.75)
        # the tie straddles k = 1: half of a's chance lies inside the cut
        assert recall_at_k(ranking, qrels, 1, tie_aware=True) == pytest.approx(0.5)
        # nDCG@1: gain 1/2 at rank 1 only
        assert ndcg_at_k(ranking, qrels, 1, tie_aware=True) == pytest.approx(0.5)


def test_tie_aware_group_with_two_relevant_documents() -> None:
    # x alone at rank 1, then a, y, b tied at ranks 2-4 with a and b relevant.
    # first relevant: rank 2 unless y comes first (1/3) -> 2/3 * 1/2 + 1/3 * 1/3 = 4/9
    ranking = [("x", 3.0), ("a", 2.0), ("y", 2.0), ("b", 2.0)]
    qrels = {"a": 1, "b": 1}
    assert reciprocal_rank(ranking, qrels, 10, tie_aware=True) == pytest.approx(4 / 9)
    # mean gain in the group is 2/3 over discounts of ranks 2, 3, 4; ideal = 1 + 1/log2(3)
    assert ndcg_at_k(ranking, qrels, 10, tie_aware=True) == pytest.approx((2 / 3) * (D2 + D3 + D4) / (1 + D2))
    # recall@3: the group has 2 of its 3 positions inside the cut -> 2 * 2/3 found of 2 relevant
    assert recall_at_k(ranking, qrels, 3, tie_aware=True) == pytest.approx(2 / 3)
    # in the returned order: a at rank 2, b at rank 4 -> DCG = 1/log2(3) + 1/log2(5); recall@3 = 1/2
    assert ndcg_at_k(ranking, qrels, 10) == pytest.approx((D2 + D4) / (1 + D2))
    assert recall_at_k(ranking, qrels, 3) == 0.5


def test_tie_aware_without_ties_equals_positional() -> None:
    ranking = [("a", 3.0), ("x", 2.0), ("b", 1.0)]
    qrels = {"a": 1, "b": 2}
    # DCG = 1 + 2/log2(4); ideal = 2 + 1/log2(3), both ways
    for tied in (False, True):
        assert ndcg_at_k(ranking, qrels, 10, tie_aware=tied) == pytest.approx((1 + 2 * D3) / (2 + D2))


def test_judgements_with_grade_zero_are_not_relevant() -> None:
    assert ndcg_at_k([("a", 1.0)], {"a": 0}, 10) == 0.0
    assert recall_at_k([("a", 1.0)], {"a": 0, "b": 1}, 10) == 0.0


def test_evidence_recall() -> None:
    assert evidence_recall(["D1:1", "D1:2"], {"D1:2", "D2:5"}) == 0.5
    assert evidence_recall(["D1:1", "D1:1"], {"D1:1"}) == 1.0
    with pytest.raises(ValueError):
        evidence_recall([], {"D1:1"})


def test_mean() -> None:
    assert mean([0.25, 0.75, 0.5]) == 0.5
    assert mean([]) == 0.0

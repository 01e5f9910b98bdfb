"""Ranking metrics: nDCG@k, recall@k, reciprocal rank and evidence recall.

Conventions shared by every function here:

* A ranking is a best-first list of `(key, score)` pairs as a search returned them. A key that
  appears more than once (several chunks of one document) counts once, at its best (first) rank;
  later duplicates are dropped and the keys after them move up.
* Ties: by default the engine's order decides (rank = position in the returned list), which is
  what an agent reading the results sees. With `tie_aware=True` a run of adjacent entries with
  equal score is one tie group and every entry of it gets the average over the group's positions
  (McSherry & Najork 2008): the expected value under a random order of equal scores. A large gap
  between the two means the ranking leans on an arbitrary tie order. Ties are resolved inside the
  list the engine returned; nothing is known about entries beyond it.
* Gains are linear (the qrels grade), discounts are `1 / log2(rank + 1)` with 1-based ranks, and
  the ideal DCG is computed from all graded documents of the qrels, cut at k.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

Ranking = Sequence[tuple[str, float]]


def best_ranks(ranking: Ranking) -> list[tuple[str, float]]:
    """Keep each key once, at its first (best) rank."""
    seen: set[str] = set()
    kept: list[tuple[str, float]] = []
    for key, score in ranking:
        if key not in seen:
            seen.add(key)
            kept.append((key, score))
    return kept


def tie_groups(scores: Sequence[float]) -> list[tuple[int, int]]:
    """Half-open `[start, end)` position ranges of adjacent equal scores."""
    groups: list[tuple[int, int]] = []
    start = 0
    for pos in range(1, len(scores) + 1):
        if pos == len(scores) or scores[pos] != scores[start]:
            groups.append((start, pos))
            start = pos
    return groups


def _discount(pos: int) -> float:
    return 1.0 / math.log2(pos + 2)


def _tie_averaged(
    values: Sequence[float], scores: Sequence[float], k: int, weight: Callable[[int], float]
) -> float:
    total = 0.0
    for start, end in tie_groups(scores):
        if start >= k:
            break
        mean_value = sum(values[start:end]) / (end - start)
        total += mean_value * sum(weight(pos) for pos in range(start, min(end, k)))
    return total


def dcg(gains: Sequence[float], scores: Sequence[float], k: int) -> float:
    """Tie-aware DCG@k of per-position gains."""
    return _tie_averaged(gains, scores, k, _discount)


def ideal_dcg(grades: Iterable[float], k: int) -> float:
    """DCG@k of the best possible ranking of the given relevance grades."""
    best = sorted((g for g in grades if g > 0), reverse=True)[:k]
    return sum(g * _discount(pos) for pos, g in enumerate(best))


def found_at_k(found: Sequence[float], scores: Sequence[float], k: int) -> float:
    """Tie-aware count of relevant items found in the top k (`found` is per position)."""
    return _tie_averaged(found, scores, k, lambda _pos: 1.0)


def expected_reciprocal_rank(relevant: Sequence[bool], scores: Sequence[float], k: int) -> float:
    """Tie-aware 1/rank of the first relevant entry within the top k (0 when none).

    In the first tie group holding r relevant entries out of n, starting at 0-based position i,
    the first relevant entry sits at offset t with probability C(n-1-t, r-1) / C(n, r).
    """
    for start, end in tie_groups(scores):
        if start >= k:
            break
        r = sum(1 for pos in range(start, end) if relevant[pos])
        if r == 0:
            continue
        n = end - start
        ways = math.comb(n, r)
        return sum(
            math.comb(n - 1 - t, r - 1) / ways / (start + t + 1) for t in range(n - r + 1) if start + t < k
        )
    return 0.0


def _scores(ranked: list[tuple[str, float]], tie_aware: bool) -> list[float]:
    """The scores that define tie groups: the real ones, or distinct ones when order decides."""
    return [score for _, score in ranked] if tie_aware else [-float(pos) for pos in range(len(ranked))]


def ndcg_at_k(ranking: Ranking, qrels: Mapping[str, float], k: int, *, tie_aware: bool = False) -> float:
    """nDCG@k of a ranking against graded qrels (0 when the qrels grade nothing relevant)."""
    ideal = ideal_dcg(qrels.values(), k)
    if ideal == 0:
        return 0.0
    ranked = best_ranks(ranking)
    gains = [max(0.0, float(qrels.get(key, 0))) for key, _ in ranked]
    return dcg(gains, _scores(ranked, tie_aware), k) / ideal


def recall_at_k(ranking: Ranking, qrels: Mapping[str, float], k: int, *, tie_aware: bool = False) -> float:
    """Share of the relevant documents (grade > 0) found in the top k."""
    relevant = {key for key, grade in qrels.items() if grade > 0}
    if not relevant:
        return 0.0
    ranked = best_ranks(ranking)
    found = [1.0 if key in relevant else 0.0 for key, _ in ranked]
    return found_at_k(found, _scores(ranked, tie_aware), k) / len(relevant)


def reciprocal_rank(ranking: Ranking, qrels: Mapping[str, float], k: int, *, tie_aware: bool = False) -> float:
    """1/rank of the first relevant document within the top k (0 when none)."""
    ranked = best_ranks(ranking)
    relevant = [qrels.get(key, 0) > 0 for key, _ in ranked]
    return expected_reciprocal_rank(relevant, _scores(ranked, tie_aware), k)


def evidence_recall(evidence: Iterable[str], covered: Iterable[str]) -> float:
    """|evidence ∩ covered| / |evidence| for one question."""
    wanted = set(evidence)
    if not wanted:
        raise ValueError("evidence recall needs at least one evidence id")
    return len(wanted & set(covered)) / len(wanted)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; 0 for an empty sequence."""
    return sum(values) / len(values) if values else 0.0

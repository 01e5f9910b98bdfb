"""Maximal Marginal Relevance as OpenClaw 2026.9.6 re-ranks hybrid results (`mmr.ts`, `tokenize.ts` of
extensions/memory-core), restated in Python.

* Tokens: the lowercase ASCII runs `[a-z0-9_]+` of the snippet, plus, when it has CJK-family characters (Han,
  Extension A, kana, Hangul syllables and jamo), each such character and each pair of adjacent ones.
* Similarity: Jaccard over those sets; two empty sets compare by their lowercased trimmed text (1 or 0).
* Relevance: the scores min-max normalised (all 1 when every score is equal).
* Each step picks the remaining item with the highest `λ·relevance − (1−λ)·maxSimilarity`; an exact tie goes to
  the higher raw score, then to the earlier item.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import regex

from memtui.jscompat import js_trim

T = TypeVar("T")

_ASCII_RUN = regex.compile(r"[a-z0-9_]+")
_CJK = regex.compile(r"[\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u1100-\u11ff]")


def mmr_tokens(text: str) -> frozenset[str]:
    """`tokenize` of tokenize.ts."""
    lower = js_trim(text).lower()
    tokens = set(_ASCII_RUN.findall(lower))
    if not _CJK.search(lower):
        return frozenset(tokens)
    previous: str | None = None
    unigrams: list[str] = []
    for char in lower:
        if _CJK.match(char):
            if previous is not None:
                tokens.add(previous + char)
            unigrams.append(char)
            previous = char
        else:
            previous = None
    tokens.update(unigrams)
    return frozenset(tokens)


def jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    """`jaccardSimilarity`: |A∩B| / |A∪B|; 1 for two empty sets, 0 when only one is empty."""
    if not left and not right:
        return 1.0
    if not left or not right:
        return 0.0
    shared = len(left & right)
    union = len(left) + len(right) - shared
    return shared / union if union else 0.0


@dataclass
class MmrStep:
    """Why an item landed where it did: its normalised relevance, its highest similarity to an item picked before
    it, and the MMR value it was picked with."""

    position: int
    relevance: float
    max_similarity: float
    mmr_score: float


def mmr_rerank(items: Sequence[T], score: Callable[[T], float], snippet: Callable[[T], str],
               lam: float = 0.7) -> list[tuple[T, MmrStep | None]]:
    """`mmrRerank(items, {enabled: true, lambda})`: the items in MMR order, each with its step (None when MMR did
    not run: fewer than two items)."""
    if len(items) <= 1:
        return [(item, None) for item in items]
    lam = max(0.0, min(1.0, lam))
    if lam == 1.0:
        ordered = sorted(items, key=lambda item: -score(item))
        return [(item, None) for item in ordered]
    scores = [score(item) for item in items]
    tokens = [mmr_tokens(snippet(item)) for item in items]
    empty_text = [js_trim(snippet(item)).lower() if not tokens[i] else None for i, item in enumerate(items)]
    high, low = max(scores), min(scores)
    spread = high - low
    relevance = [1.0 if spread == 0 else (s - low) / spread for s in scores]
    max_similarity = [0.0] * len(items)
    remaining = list(range(len(items)))
    picked: list[tuple[T, MmrStep | None]] = []
    while remaining:
        best: int | None = None
        best_value = float("-inf")
        for index in remaining:
            value = lam * relevance[index] - (1 - lam) * max_similarity[index]
            if value > best_value or (value == best_value and best is not None and scores[index] > scores[best]):
                best_value = value
                best = index
        if best is None:  # pragma: no cover - every value is finite
            break
        picked.append((items[best], MmrStep(len(picked) + 1, relevance[best], max_similarity[best], best_value)))
        remaining.remove(best)
        for index in remaining:
            if not tokens[index] and not tokens[best]:
                similarity = float(empty_text[index] == empty_text[best])
            else:
                similarity = jaccard(tokens[index], tokens[best])
            if similarity > max_similarity[index]:
                max_similarity[index] = similarity
    return picked

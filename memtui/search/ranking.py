"""Score arithmetic shared by both profiles: bm25→score, temporal decay, MMR, snippets (§4.4–§4.9)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime

from memtui.jscompat import js_length
from memtui.search.fts_query import fts_tokens

SNIPPET_MAX_CHARS = 700
_DATED_PATH = re.compile(r"(?:^|/)memory/(\d{4})-(\d{2})-(\d{2})\.md$")
_MMR_WORD = re.compile(r"[a-z0-9_]+")
_MMR_CJK_CLASS = "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_DATE_WORD = re.compile(r"[A-Za-z]+|\d+")
_YEAR = re.compile(r"(?:19|20)\d\d")


@functools.cache
def _mmr_cjk() -> re.Pattern[str]:
    """The CJK class of MMR tokens, compiled on first non-ASCII text (~2 ms a process otherwise)."""
    return re.compile(_MMR_CJK_CLASS)


def bm25_rank_to_score(rank: float) -> float:
    """2026.4 `bm25RankToScore`: r/(1+r) for negative ranks, 1/(1+rank) otherwise, 0.001 if not finite."""
    if not math.isfinite(rank):
        return 0.001
    if rank < 0:
        relevance = -rank
        return relevance / (1 + relevance)
    return 1 / (1 + rank)


def truncate_utf16(text: str, limit: int = SNIPPET_MAX_CHARS) -> str:
    """The first `limit` UTF-16 code units, never splitting a surrogate pair."""
    if text.isascii() or max(text) <= "\uffff":  # one code unit per character
        return text[:max(0, limit)]
    used = 0
    for index, char in enumerate(text):
        width = 2 if ord(char) > 0xFFFF else 1
        if used + width > limit:
            return text[:index]
        used += width
    return text


def decay_date(path: str) -> datetime | None:
    """UTC midnight of a dated daily log (`memory/YYYY-MM-DD.md`), else None."""
    match = _DATED_PATH.search(path)
    if not match:
        return None
    try:
        return datetime(int(match.group(1)), int(match.group(2)), int(match.group(3)), tzinfo=UTC)
    except ValueError:
        return None


def named_months(query: str) -> frozenset[tuple[int | None, int]]:
    """(year or None, month) of every English month name in `query` ("in August", "August 2023", "May 5,
    2023"); the year is a 19xx/20xx number among the next three words. "may" counts only as "May"."""
    words = _DATE_WORD.findall(query)
    found: set[tuple[int | None, int]] = set()
    for position, word in enumerate(words):
        lowered = word.lower()
        if lowered not in _MONTHS or (lowered == "may" and word != "May"):
            continue
        year = next((int(w) for w in words[position + 1 : position + 4] if _YEAR.fullmatch(w)), None)
        found.add((year, _MONTHS.index(lowered) + 1))
    return frozenset(found)


def in_named_month(path: str, months: frozenset[tuple[int | None, int]]) -> bool:
    """Whether `path` is a daily log (`memory/YYYY-MM-DD.md`) dated in one of `months`."""
    dated = decay_date(path) if months else None
    if dated is None:
        return False
    return any(month == dated.month and year in (None, dated.year) for year, month in months)


def is_evergreen(path: str, source: str) -> bool:
    """MEMORY.md and undated `memory/` files (slug files included) never decay."""
    if source != "memory":
        return False
    if path == "MEMORY.md":
        return True
    if path.startswith("memory/") or "/memory/" in path:
        return decay_date(path) is None
    return False


def decay_multiplier(age_days: float, half_life_days: int) -> float:
    """`exp(-ln2/halfLife · ageDays)`."""
    return math.exp(-math.log(2) / max(1, half_life_days) * max(0.0, age_days))


def needs_mtime(path: str, source: str) -> bool:
    """Whether decay of this path depends on the file's mtime (not evergreen, no date in the name)."""
    return not is_evergreen(path, source) and decay_date(path) is None


def item_age_days(path: str, source: str, now: datetime, mtime_ms: float | None) -> float | None:
    """Age in days used for decay, or None for evergreen files."""
    if is_evergreen(path, source):
        return None
    dated = decay_date(path)
    if dated is not None:
        return (now - dated).total_seconds() / 86400
    if mtime_ms is None:
        return None
    return (now.timestamp() * 1000 - mtime_ms) / 86_400_000


def mmr_tokens(text: str) -> frozenset[str]:
    """Lower-cased `[a-z0-9_]+` words plus CJK unigrams and adjacent-CJK bigrams."""
    lowered = text.lower()
    tokens = set(_MMR_WORD.findall(lowered))
    if lowered.isascii():
        return frozenset(tokens)
    cjk = _mmr_cjk()
    previous: str | None = None
    for char in lowered:
        if cjk.match(char):
            tokens.add(char)
            if previous is not None:
                tokens.add(previous + char)
            previous = char
        else:
            previous = None
    return frozenset(tokens)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a∩b| / |a∪b| (0 for two empty sets)."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def mmr_order(scores: Sequence[float], texts: Sequence[str], lambda_: float) -> list[int]:
    """Greedy MMR over items already sorted by score; returns indexes in selection order."""
    count = len(scores)
    if count <= 1 or lambda_ >= 1:
        return list(range(count))
    low, high = min(scores), max(scores)
    span = high - low
    relevance = [1.0 if span == 0 else (s - low) / span for s in scores]
    token_sets = [mmr_tokens(t) for t in texts]
    remaining = list(range(count))
    selected: list[int] = []
    while remaining:
        best_index = remaining[0]
        best_value = -math.inf
        for index in remaining:
            max_sim = max((jaccard(token_sets[index], token_sets[s]) for s in selected), default=0.0)
            value = lambda_ * relevance[index] - (1 - lambda_) * max_sim
            if value > best_value or (value == best_value and scores[index] > scores[best_index]):
                best_value, best_index = value, index
        selected.append(best_index)
        remaining.remove(best_index)
    return selected


def fallback_boost(fts_score: float, query: str, text: str, path: str) -> float:
    """OpenClaw's FTS-only `scoreFallbackKeywordResult` (§4.7), summed in its order: the score plus
    0.45 × (share of the query's distinct tokens in the chunk) + 0.2 × (those tokens ÷ the chunk's distinct
    tokens) + 0.18 per query token inside the path + min(UTF-16 length / 160, 0.18); capped at 1."""
    query_tokens = list(dict.fromkeys(_search_tokens(query)))
    if not query_tokens:
        return fts_score
    text_tokens = set(_search_tokens(text))
    path_lower = path.lower()
    overlap = sum(1 for token in query_tokens if token in text_tokens)
    unique_overlap = overlap / max(len(query_tokens), 1)
    density = overlap / max(len(text_tokens), 1)
    path_boost = 0.0
    for token in query_tokens:
        path_boost += 0.18 if token in path_lower else 0
    length_boost = min(js_length(text) / 160, 0.18)
    lexical = unique_overlap * 0.45 + density * 0.2 + path_boost + length_boost
    return min(1.0, fts_score + lexical)


def _search_tokens(text: str) -> list[str]:
    """`normalizeSearchTokens`: `[\\p{L}\\p{N}_]+` tokens, lower-cased."""
    return [token.lower() for token in fts_tokens(text)]

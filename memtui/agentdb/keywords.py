"""The query words OpenClaw 2026.9.6 searches with, restated from its dist in Python.

* `extract_keywords`: `extractKeywords` of `packages/memory-host-sdk/src/host/query-expansion.ts` (the terms of the
  per-keyword fallback searches), which 2026.9.6 kept as 2026.4.29 had it: `memtui.querywords` implements it once.
* `build_fts_query` / `search_tokens`: `buildFtsQuery` (`keyword-query.ts`) and `normalizeSearchTokens`
  (`manager-search.ts`): the FTS5 MATCH text and the lowercase query tokens the lexical boost counts.

JavaScript string semantics matter here: `trim()` uses JavaScript's whitespace set, and `\\p{L}` / `\\p{N}` are
the Unicode classes of the `u` flag.
"""

from __future__ import annotations

import unicodedata

import regex

from memtui.jscompat import js_trim
from memtui.querywords.extraction import openclaw_keywords
from memtui.querywords.stop_words import STOP_WORDS

_WORD_TOKEN = regex.compile(r"[\p{L}\p{N}_]+")
_WORD_TOKEN_WITH_MARKS = regex.compile(r"[\p{L}\p{M}\p{N}_]+")


def js_lower(text: str) -> str:
    """`String.prototype.toLowerCase()` (Python's `lower()` has the same full mapping, final sigma included)."""
    return text.lower()


def is_stop_word(token: str) -> bool:
    """`isQueryStopWordToken`: the token is on one of the seven lists."""
    return token in STOP_WORDS


def extract_keywords(query: str, *, fts_tokenizer: str = "unicode61") -> list[str]:
    """`extractKeywords(query, {ftsTokenizer})`: the fallback search terms, in query order, deduplicated."""
    return openclaw_keywords(query, trigram=fts_tokenizer == "trigram")


def raw_tokens(text: str, *, with_marks: bool = False) -> list[str]:
    """`normalizeStringEntries(text.match(/[\\p{L}\\p{N}_]+/gu))`: trimmed, non-empty matches (not deduplicated)."""
    pattern = _WORD_TOKEN_WITH_MARKS if with_marks else _WORD_TOKEN
    return [t for t in (js_trim(m) for m in pattern.findall(text)) if t]


def quote_terms(terms: list[str]) -> str | None:
    """Each term double-quoted (its own quotes removed), joined with ` AND `; None for no terms."""
    if not terms:
        return None
    return " AND ".join(f'"{t.replace(chr(34), "")}"' for t in terms)


def build_fts_query(raw: str) -> str | None:
    """`buildFtsQuery`: every word token of `raw`, quoted and AND-ed (stop words kept, case kept)."""
    return quote_terms(raw_tokens(raw))


def search_tokens(text: str) -> list[str]:
    """`normalizeSearchTokens`: the NFC word tokens of `text`, lowercased (duplicates kept)."""
    return [js_lower(t) for t in raw_tokens(unicodedata.normalize("NFC", text))]


def unique(values: list[str]) -> list[str]:
    """First-seen unique values, in order (`uniqueStrings`)."""
    return list(dict.fromkeys(values))

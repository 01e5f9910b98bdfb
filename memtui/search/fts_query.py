"""Keyword query building: OpenClaw's AND query (§4.2), its keyword extraction, and memtui's OR query."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memtui.index.terms import query_terms

# `[\p{L}\p{N}_]+`: Python's \w is letters, numbers and underscore (Unicode-aware).
_TOKEN = re.compile(r"\w+")
# Kana, CJK ideographs (extension A and the main block), Hangul syllables, compatibility ideographs. Tested
# with `ord` rather than a regex class: compiling one costs ~2 ms at every CLI start-up.
_CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF))
_ASCII_WORD = re.compile(r"^[A-Za-z]+$")
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9_]+")

_STOP_WORD_LINES = (
    # English
    "a about above after again against all also am an and any are aren as at be because been before being below",
    "between both but by can cannot could couldn did didn do does doesn doing don down during each few for from",
    "further had hadn has hasn have haven having he her here hers herself him himself his how i if in into is isn",
    "it its itself just let me more most mustn my myself no nor not now of off on once only or other ought our",
    "ours ourselves out over own same shan she should shouldn so some such than that the their theirs them",
    "themselves then there these they this those through to too under until up very was wasn we were weren what",
    "when where which while who whom why will with won would wouldn you your yours yourself yourselves",
    # Spanish, Portuguese
    "el la los las un una unos unas de del y o que en por para con sin sobre es son fue ser como pero mas más",
    "os as um uma uns umas do da dos das e ou em no na nos nas com sem é são foi mas",
    # Arabic, Chinese, Korean, Japanese
    "في من على إلى عن مع هذا هذه ذلك التي الذي و أو",
    "的 了 是 在 和 与 或 我 你 他 她 它 我们 你们 他们 这 那 这个 那个 有 也 就 都 而 及 吗 呢 吧",
    "은 는 이 가 을 를 의 에 에서 와 과 도 로 으로 하고",
    "の に は を が と で て も へ から まで より です ます",
)
STOP_WORDS = frozenset(" ".join(_STOP_WORD_LINES).split())
# Longest query searched; the rest of a longer one is ignored.
MAX_QUERY_CHARS = 4000


@dataclass(frozen=True)
class KeywordQuery:
    """A compiled FTS5 MATCH expression with the terms it kept and dropped."""

    match: str | None
    terms: tuple[str, ...]
    dropped: tuple[str, ...]
    operator: str


def cap_query(query: str, limit: int | None = None) -> str:
    """`query` cut to at most `limit` (default `MAX_QUERY_CHARS`) characters, at a word boundary when there
    is one: nothing an agent asks needs more, and the cost of a search grows with the query."""
    limit = MAX_QUERY_CHARS if limit is None else limit
    if len(query) <= limit:
        return query
    cut = query[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut


def is_cjk(char: str) -> bool:
    """Whether one character is kana, a CJK ideograph or a Hangul syllable."""
    code = ord(char)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def has_cjk(token: str) -> bool:
    """Whether `token` holds a kana, CJK or Hangul character."""
    return not token.isascii() and any(map(is_cjk, token))


def query_tokens(query: str) -> list[str]:
    """Unicode word tokens of a query, in order."""
    return _TOKEN.findall(query)


def _quote(token: str) -> str:
    return '"' + token.replace('"', "") + '"'


@functools.cache
def _fts_token() -> Any:
    import regex  # only for non-ASCII text: a keyword-only search of ASCII notes does not load it

    return regex.compile(r"[\p{L}\p{N}_]+")


def fts_tokens(text: str) -> list[str]:
    """OpenClaw's token pattern `[\\p{L}\\p{N}_]+` (FTS_QUERY_TOKEN_RE), in order."""
    return _ASCII_TOKEN.findall(text) if text.isascii() else _fts_token().findall(text)


def build_and_query(query: str) -> KeywordQuery:
    """OpenClaw 2026.4 `buildFtsQuery`: every `[\\p{L}\\p{N}_]+` token quoted, joined with AND."""
    tokens = fts_tokens(query)
    match = " AND ".join(_quote(t) for t in tokens) if tokens else None
    return KeywordQuery(match, tuple(tokens), (), "AND")


def extract_keywords(query: str) -> list[str]:
    """OpenClaw `extractKeywords`: stop words and 1–2 letter ASCII words dropped, CJK runs as bigrams."""
    keywords: list[str] = []
    for token in query_tokens(query.lower()):
        if has_cjk(token):
            chars = [c for c in token if is_cjk(c)]
            grams = ["".join(chars[i : i + 2]) for i in range(len(chars) - 1)] or chars
            keywords.extend(g for g in grams if g not in STOP_WORDS)
            continue
        if token in STOP_WORDS or (_ASCII_WORD.match(token) and len(token) <= 2):
            continue
        keywords.append(token)
    return list(dict.fromkeys(keywords))


def build_or_query(query: str) -> KeywordQuery:
    """memtui profile: stop words dropped, remaining distinct terms quoted and OR-joined."""
    tokens = query_tokens(query)
    kept = extract_keywords(query)
    if not kept:
        kept = list(dict.fromkeys(t.lower() for t in tokens))
    kept_set = set(kept)
    dropped = tuple(t for t in dict.fromkeys(x.lower() for x in tokens) if t not in kept_set)
    match = " OR ".join(_quote(t) for t in kept) if kept else None
    return KeywordQuery(match, tuple(kept), dropped, "OR")


def keyword_groups(term: str) -> tuple[list[str], bool]:
    """How one memtui-profile keyword is searched on its keyword table: (indexed terms, all of them OR-ed).

    An ASCII keyword is left to FTS5's Porter stemmer as it is (a phrase when it holds several words, as
    `auth_gateway`). Any other goes through `memtui.index.terms`, like the indexed text: with CJK in it, its
    bigrams are alternatives; otherwise its parts (a stem, or the words of a compound) form a phrase.
    """
    if term.isascii():
        return [term], False
    parts = query_terms(term)
    return parts, any(map(has_cjk, parts))


def stemmed_match(terms: Sequence[str]) -> str | None:
    """The MATCH expression of the OR query `terms` on the memtui profile's keyword table."""
    clauses: list[str] = []
    for term in terms:
        parts, alternatives = keyword_groups(term)
        if alternatives:
            clauses.extend(_quote(part) for part in parts)
        elif parts:
            clauses.append(_quote(" ".join(parts)))
    return " OR ".join(dict.fromkeys(clauses)) or None


def single_term_query(term: str) -> str:
    """A MATCH expression for one keyword."""
    return _quote(term)


def contains_short_cjk(token: str) -> bool:
    """A CJK/kana/Hangul token shorter than 3 code points cannot match a trigram index."""
    return has_cjk(token) and len(token) < 3

"""Keyword query building: OpenClaw's AND query (§4.2), its keyword extraction, and memtui's OR query."""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

# `[\p{L}\p{N}_]+`: Python's \w is letters, numbers and underscore (Unicode-aware).
_TOKEN = re.compile(r"\w+")
_FTS_TOKEN = regex.compile(r"[\p{L}\p{N}_]+")
_CJK_CHAR = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_ASCII_WORD = re.compile(r"^[A-Za-z]+$")

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


@dataclass(frozen=True)
class KeywordQuery:
    """A compiled FTS5 MATCH expression with the terms it kept and dropped."""

    match: str | None
    terms: tuple[str, ...]
    dropped: tuple[str, ...]
    operator: str


def query_tokens(query: str) -> list[str]:
    """Unicode word tokens of a query, in order."""
    return _TOKEN.findall(query)


def _quote(token: str) -> str:
    return '"' + token.replace('"', "") + '"'


def build_and_query(query: str) -> KeywordQuery:
    """OpenClaw 2026.4 `buildFtsQuery`: every `[\\p{L}\\p{N}_]+` token quoted, joined with AND."""
    tokens = _FTS_TOKEN.findall(query)
    match = " AND ".join(_quote(t) for t in tokens) if tokens else None
    return KeywordQuery(match, tuple(tokens), (), "AND")


def extract_keywords(query: str) -> list[str]:
    """OpenClaw `extractKeywords`: stop words and 1–2 letter ASCII words dropped, CJK runs as bigrams."""
    keywords: list[str] = []
    for token in query_tokens(query.lower()):
        if _CJK_CHAR.search(token):
            chars = [c for c in token if _CJK_CHAR.match(c)]
            grams = ["".join(chars[i : i + 2]) for i in range(len(chars) - 1)] or chars
            keywords.extend(g for g in grams if g not in STOP_WORDS)
            continue
        if token in STOP_WORDS or (_ASCII_WORD.match(token) and len(token) <= 2):
            continue
        keywords.append(token)
    unique: list[str] = []
    for keyword in keywords:
        if keyword not in unique:
            unique.append(keyword)
    return unique


def build_or_query(query: str) -> KeywordQuery:
    """memtui profile: stop words dropped, remaining distinct terms quoted and OR-joined."""
    tokens = query_tokens(query)
    kept = extract_keywords(query)
    if not kept:
        kept = list(dict.fromkeys(t.lower() for t in tokens))
    dropped = tuple(t for t in dict.fromkeys(x.lower() for x in tokens) if t not in kept)
    match = " OR ".join(_quote(t) for t in kept) if kept else None
    return KeywordQuery(match, tuple(kept), dropped, "OR")


def single_term_query(term: str) -> str:
    """A MATCH expression for one keyword."""
    return _quote(term)


def contains_short_cjk(token: str) -> bool:
    """A CJK/kana/Hangul token shorter than 3 code points cannot match a trigram index."""
    return bool(_CJK_CHAR.search(token)) and len(token) < 3

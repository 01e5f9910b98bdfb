"""OpenClaw's keyword extraction (`extractKeywords`), the same in 2026.4.29 and 2026.9.6 (checked against
2026.9.6's dist on 77 queries): the terms each searched on its own when the AND query finds too little.

The query is trimmed and lower-cased, split on whitespace and punctuation (so `snake_case` and `e-mail` are
two words each), then: a segment with kana yields its Latin, katakana, Han and 2+ hiragana runs (Han runs
also as bigrams); a segment with Han yields each Han character and each adjacent pair; a Hangul segment
yields itself and its stem without a trailing particle; anything else is one keyword. Stop words of seven
languages, 1–2 letter ASCII words, digit-only and punctuation/symbol-only tokens are dropped; duplicates
keep their first place. With the trigram tokenizer, Han runs stay whole and no bigrams are made.
"""

from __future__ import annotations

import regex

from memtui.jscompat import JS_WHITESPACE, js_trim
from memtui.querywords.stop_words import KO_TRAILING_PARTICLES, STOP_WORDS, STOP_WORDS_KO

_SEGMENT_BREAK = regex.compile(f"[{regex.escape(JS_WHITESPACE)}\\p{{P}}]+")
_KANA = regex.compile("[\u3040-\u30ff]")
_HAN = regex.compile("[\u4e00-\u9fff]")
_HAN_RUN = regex.compile("^[\u4e00-\u9fff]+$")
_HANGUL = regex.compile("[\uac00-\ud7af\u3131-\u3163]")
_HANGUL_SYLLABLE = regex.compile("[\uac00-\ud7af]")
_JAPANESE_PARTS = regex.compile("[a-z0-9_]+|[\u30a0-\u30ffー]+|[\u4e00-\u9fff]+|[\u3040-\u309f]{2,}")
_ASCII_WORD = regex.compile("^[a-zA-Z]+$")
_DIGITS = regex.compile("^[0-9]+$")
_PUNCTUATION_OR_SYMBOLS = regex.compile(r"^[\p{P}\p{S}]+$")
_ASCII_STEM = regex.compile("^[a-z0-9_]+$", regex.IGNORECASE)


def _bigrams(chars: list[str] | str) -> list[str]:
    return [chars[i] + chars[i + 1] for i in range(len(chars) - 1)]


def _korean_stem(token: str) -> str | None:
    for particle in KO_TRAILING_PARTICLES:
        if len(token) > len(particle) and token.endswith(particle):
            return token[: -len(particle)]
    return None


def _useful_korean_stem(stem: str) -> bool:
    if _HANGUL_SYLLABLE.search(stem):
        return len(stem) >= 2
    return bool(_ASCII_STEM.match(stem))


def _tokens(text: str, trigram: bool) -> list[str]:
    tokens: list[str] = []
    for segment in filter(None, _SEGMENT_BREAK.split(js_trim(text).lower())):
        if _KANA.search(segment):
            for part in _JAPANESE_PARTS.findall(segment):
                tokens.append(part)
                if _HAN_RUN.match(part) and not trigram:
                    tokens.extend(_bigrams(part))
        elif _HAN.search(segment):
            chars = [c for c in segment if _HAN.match(c)]
            if trigram:
                tokens.extend(["".join(chars)] if chars else [])
            else:
                tokens.extend(chars + _bigrams(chars))
        elif _HANGUL.search(segment):
            stem = _korean_stem(segment)
            if segment not in STOP_WORDS_KO and not (stem is not None and stem in STOP_WORDS_KO):
                tokens.append(segment)
            if stem and stem not in STOP_WORDS_KO and _useful_korean_stem(stem):
                tokens.append(stem)
        else:
            tokens.append(segment)
    return tokens


def _valid(token: str) -> bool:
    if not token or (_ASCII_WORD.match(token) and len(token) < 3):
        return False
    return not (_DIGITS.match(token) or _PUNCTUATION_OR_SYMBOLS.match(token))


def openclaw_keywords(query: str, *, trigram: bool = False) -> list[str]:
    """`extractKeywords(query, {ftsTokenizer})`: the keywords the per-keyword fallback searches, in order."""
    keywords: list[str] = []
    for token in _tokens(query, trigram):
        if token not in STOP_WORDS and _valid(token) and token not in keywords:
            keywords.append(token)
    return keywords

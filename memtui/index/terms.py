"""What the `memtui` profile's keyword table indexes: the text's words, with CJK runs cut into bigrams and
words of scripts with a Snowball stemmer stemmed in that language.

FTS5's `porter unicode61` tokenizer stems English and nothing else, and keeps a run of Chinese or Japanese
characters (which has no spaces) as one token, so `东京` never matches `东京的天气`. The indexed text is
therefore rewritten before FTS5 sees it: each word token (unicode61's split: letters and digits) is split
into same-script runs; a CJK, kana or Hangul run becomes its overlapping bigrams (a single character stays
itself); a Cyrillic, Greek, Arabic or Armenian word becomes its Snowball stem (Russian for Cyrillic, which
also conflates most Ukrainian and Belarusian inflections); everything else, Latin included, is left to
FTS5's Porter stemmer, so English ranks exactly as before. Queries go through the same function.
PyStemmer loads only when a word of such a script is met.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache
from typing import Any

# unicode61's token characters are letters and numbers; `\w` adds the underscore, a separator there.
_WORD = re.compile(r"[^\W_]+")
# (first, last) code point → script tag. CJK: kana, CJK radicals/ideographs (+ extension A), Hangul syllables
# and jamo, compatibility ideographs, CJK extension B and beyond.
_CJK_RANGES = ((0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3040, 0x30FF), (0x3130, 0x318F), (0x31F0, 0x31FF),
               (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0x20000, 0x3134F))
# Snowball stemmer per script (PyStemmer names). Latin is FTS5's own Porter stemmer.
STEMMERS = {"cyrillic": "russian", "greek": "greek", "arabic": "arabic", "armenian": "armenian"}
_SCRIPT_RANGES = (((0x0400, 0x052F), "cyrillic"), ((0x0370, 0x03FF), "greek"), ((0x1F00, 0x1FFF), "greek"),
                  ((0x0600, 0x06FF), "arabic"), ((0x0530, 0x058F), "armenian"))
# Changes to the output of `index_text` need a new table name (`memtui.index.store.schema.TERMS_FTS`).
VERSION = 1


def script_of(char: str) -> str:
    """"cjk", one of the stemmed scripts, or "other" (Latin, digits and the rest)."""
    code = ord(char)
    if code < 0x0370:
        return "other"
    for low, high in _CJK_RANGES:
        if low <= code <= high:
            return "cjk"
    for (low, high), script in _SCRIPT_RANGES:
        if low <= code <= high:
            return script
    return "other"


@cache
def _stemmer(language: str) -> Any:
    import Stemmer

    return Stemmer.Stemmer(language)


@lru_cache(maxsize=1 << 16)  # bounded: a long-running process meets an open-ended vocabulary
def token_terms(token: str) -> tuple[str, ...]:
    """The indexed terms of one lower-cased word token (before FTS5's Porter step)."""
    if token.isascii():
        return (token,)
    terms: list[str] = []
    run, kind = "", ""
    for char in token + "\0":
        script = "end" if char == "\0" else script_of(char)
        if script == kind:
            run += char
            continue
        if run:
            terms.extend(_run_terms(run, kind))
        run, kind = char, script
    return tuple(terms)


def _run_terms(run: str, script: str) -> list[str]:
    if script == "cjk":
        return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    language = STEMMERS.get(script)
    if language is None:
        return [run]
    normalized = unicodedata.normalize("NFC", run).replace("ё", "е") if script == "cyrillic" else run
    return [_stemmer(language).stemWord(normalized)]


def tokens(text: str) -> list[str]:
    """The lower-cased word tokens of `text`, as unicode61 splits it."""
    return _WORD.findall(text.lower())


def index_text(text: str) -> str:
    """`text` as the memtui keyword table indexes it: its terms, space-separated, in order."""
    if text.isascii():
        return " ".join(tokens(text))
    return " ".join(term for token in tokens(text) for term in token_terms(token))


def query_terms(term: str) -> list[str]:
    """The indexed terms of one query keyword, in order (several for a CJK run or a compound)."""
    return [part for token in tokens(term) for part in token_terms(token)]

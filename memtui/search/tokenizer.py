"""The accelerator's tokenizer: the terms FTS5's `porter unicode61` tokenizer would index, computed in Python."""

from __future__ import annotations

import re
import unicodedata

import Stemmer

# FTS5's porter tokenizer leaves tokens shorter than 3 or longer than 64 bytes unstemmed.
_PORTER_MIN_BYTES = 3
_PORTER_MAX_BYTES = 64
# unicode61's token characters: letters and numbers; callers turn the underscore (a separator there,
# a word character here) into a space first.
_WORD = re.compile(r"\w+")


class PorterTokenizer:
    """FTS5 `porter unicode61` tokens: Unicode words, case-folded, Latin diacritics removed, Porter-stemmed.

    Snowball's `porter` is the published algorithm; FTS5 follows Porter's reference C code, whose
    step 2 also maps `-bli` to `-ble` and `-logi` to `-log`. Those two are applied on top.
    """

    def __init__(self) -> None:
        self._stemmer = Stemmer.Stemmer("porter")
        self._cache: dict[str, str] = {}

    def term(self, token: str) -> str:
        """The indexed form of one lower-cased word token (cached)."""
        cached = self._cache.get(token)
        if cached is None:
            folded = token if token.isascii() else _fold(token)
            size = len(folded.encode("utf-8"))
            stem = folded
            if _PORTER_MIN_BYTES <= size <= _PORTER_MAX_BYTES:
                stem = self._stemmer.stemWord(folded)
                for suffix, replacement in _REFERENCE_STEP2:
                    if stem.endswith(suffix) and _measure(stem[: -len(suffix)]) > 0:
                        stem = self._stemmer.stemWord(stem[: -len(suffix)] + replacement)
                        break
            cached = self._cache[token] = stem
        return cached

    def terms(self, text: str) -> list[str]:
        """Every indexed term of `text`, in order."""
        return [self.term(token) for token in words(text)]


_REFERENCE_STEP2 = (("bli", "ble"), ("logi", "log"))


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in `stem`."""
    kinds = []
    for i, char in enumerate(stem):
        vowel = char in "aeiou" or (char == "y" and i > 0 and kinds[-1] == "c")
        kinds.append("v" if vowel else "c")
    joined = "".join(kinds)
    return joined.count("vc")


def words(text: str) -> list[str]:
    """The lower-cased word tokens of `text`, as unicode61 splits it."""
    return _WORD.findall(text.lower().replace("_", " "))


def _fold(token: str) -> str:
    """unicode61's folding of a non-ASCII token: simple (one-to-one) case folds, Latin diacritics removed."""
    out: list[str] = []
    for char in token:
        folded = char.casefold()
        char = folded if len(folded) == 1 else char
        base = unicodedata.normalize("NFD", char)
        out.append(base[0] if base[0].isascii() and base[0].isalpha() else char)
    return "".join(out)

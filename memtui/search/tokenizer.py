"""The accelerator's tokenizer: the terms FTS5's `porter unicode61` tokenizer indexes for the memtui keyword
table's text (`memtui.index.terms.index_text`), computed in Python."""

from __future__ import annotations

import re
import unicodedata

import Stemmer

from memtui.index.terms import token_terms, tokens

# FTS5's porter tokenizer leaves tokens shorter than 3 or longer than 64 bytes unstemmed.
_PORTER_MIN_BYTES = 3
_PORTER_MAX_BYTES = 64


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
                doubled = _DOUBLED.match(folded)
                # step 1b undoes a doubled final consonant left by -ed/-ing: Snowball only for b d f g m n p r t,
                # FTS5 for every consonant but l, s and z ("trekked" -> "trek", not "trekk")
                stem = self._stemmer.stemWord(doubled.group(1) if doubled else folded)
                for suffix, replacement in _REFERENCE_STEP2:
                    if stem.endswith(suffix) and _measure(stem[: -len(suffix)]) > 0:
                        stem = self._stemmer.stemWord(stem[: -len(suffix)] + replacement)
                        break
            cached = self._cache[token] = stem
        return cached

    def terms(self, text: str) -> list[str]:
        """Every term the memtui keyword table holds for `text` (its `index_text`, Porter-stemmed), in order."""
        return [self.term(part) for token in tokens(text) for part in token_terms(token)]


_REFERENCE_STEP2 = (("bli", "ble"), ("logi", "log"))
# A word whose -ed / -ing (step 1a's plural s aside) follows a doubled consonant Snowball keeps doubled; group 1 is
# the word cut before the second of the pair.
_DOUBLED = re.compile(r"^([a-z]*[aeiouy][a-z]*?([chjkqvwxy]))\2(?:ed|ing|ings)$")


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in `stem`."""
    kinds = []
    for i, char in enumerate(stem):
        vowel = char in "aeiou" or (char == "y" and i > 0 and kinds[-1] == "c")
        kinds.append("v" if vowel else "c")
    joined = "".join(kinds)
    return joined.count("vc")


def _fold(token: str) -> str:
    """unicode61's folding of a non-ASCII token: simple (one-to-one) case folds, Latin diacritics removed."""
    out: list[str] = []
    for char in token:
        folded = char.casefold()
        char = folded if len(folded) == 1 else char
        base = unicodedata.normalize("NFD", char)
        out.append(base[0] if base[0].isascii() and base[0].isalpha() else char)
    return "".join(out)

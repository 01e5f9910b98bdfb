"""JavaScript comparison order: `String.prototype.localeCompare` (ICU root collation as Node 24 ships it)."""

from __future__ import annotations

import unicodedata

# Printable ASCII in ICU root order (variable characters are not ignorable): what Node 24 sorts them into.
_ASCII_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ"
_ASCII_PRIMARY: dict[str, int] = {}
for _rank, _char in enumerate(_ASCII_ORDER):
    _ASCII_PRIMARY[_char] = _ASCII_PRIMARY.get(_char.lower(), _rank) if _char.isupper() else _rank


def _collation_key(text: str) -> tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...]]:
    """Primary (base characters, case- and accent-blind), secondary (accents), tertiary (lowercase first)
    weights. Exact for ASCII and accented Latin; other scripts sort after Latin by code point (an
    approximation of ICU's script order)."""
    primary: list[int] = []
    secondary: list[str] = []
    tertiary: list[int] = []
    for char in unicodedata.normalize("NFD", text):
        if unicodedata.combining(char):
            if secondary:
                secondary[-1] += char
            continue
        base = char.lower()
        if char in _ASCII_PRIMARY:
            weight = _ASCII_PRIMARY[char]
        elif base in _ASCII_PRIMARY:
            weight = _ASCII_PRIMARY[base]
        else:
            weight = 1000 + ord(base[0])
        primary.append(weight)
        secondary.append("")
        tertiary.append(0 if char == base else 1)
    return tuple(primary), tuple(secondary), tuple(tertiary)


def locale_compare(left: str, right: str) -> int:
    """`left.localeCompare(right)` as -1, 0 or 1."""
    if left == right:
        return 0
    a, b = _collation_key(left), _collation_key(right)
    return (a > b) - (a < b)


def compare_numbers(a: float, b: float) -> int:
    """-1, 0 or 1 as `a` is below, equal to or above `b`."""
    return (a > b) - (a < b)

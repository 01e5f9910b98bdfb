"""JavaScript string lengths and surrogate-safe cuts: UTF-16 code units, as OpenClaw measures text."""

from __future__ import annotations


def _units(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (JavaScript's `.length`; a lone surrogate counts one)."""
    return len(_units(text)) // 2


def utf16_head(text: str, units: int, *, safe: bool = True) -> str:
    """The first `units` UTF-16 code units; when `safe`, one fewer where that would split a surrogate pair."""
    if units <= 0:
        return ""
    data = _units(text)
    if units * 2 >= len(data):
        return text
    cut = data[: units * 2]
    if safe and 0xD800 <= int.from_bytes(cut[-2:], "little") <= 0xDBFF:
        cut = cut[:-2]
    return cut.decode("utf-16-le", "surrogatepass")


def utf16_tail(text: str, units: int, *, safe: bool = True) -> str:
    """The last `units` UTF-16 code units; when `safe`, one fewer where that would split a surrogate pair."""
    if units <= 0:
        return ""
    data = _units(text)
    if units * 2 >= len(data):
        return text
    cut = data[len(data) - units * 2:]
    if safe and 0xDC00 <= int.from_bytes(cut[:2], "little") <= 0xDFFF:
        cut = cut[2:]
    return cut.decode("utf-16-le", "surrogatepass")

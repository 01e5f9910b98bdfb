"""Coercion of raw config values as OpenClaw does it (counts and byte sizes), and the `memory_get` defaults."""

from __future__ import annotations

import math
import re
from typing import Any

from memtui.jscompat import js_trim

DEFAULT_GET_LINES = 120
DEFAULT_GET_MAX_CHARS = 12000
MULTIMODAL_MODALITIES = ("image", "audio")
MULTIMODAL_MAX_FILE_BYTES = 10 * 1024 * 1024

_BYTE_UNITS = {"b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2, "g": 1024**3, "gb": 1024**3,
               "t": 1024**4, "tb": 1024**4}
_BYTE_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([a-z]+)?$")


def non_negative_int(value: Any) -> int | None:
    """A finite number floored to an int when that is ≥ 0; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    count = math.floor(value)
    return count if count >= 0 else None


def positive_int(value: Any) -> int | None:
    """A finite number > 0 floored to an int; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value <= 0:
        return None
    return math.floor(value)


def parse_byte_size(value: Any) -> int | None:
    """Bytes from a number or a string like `"2mb"`, `"512kb"`, `"1.5m"`; None if invalid or negative."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return None
        count = math.floor(value)
        return count if 0 <= count <= 2**53 - 1 else None
    if not isinstance(value, str):
        return None
    match = _BYTE_SIZE.match(js_trim(value).lower())
    if not match:
        return None
    multiplier = _BYTE_UNITS.get(match.group(2) or "b")
    if multiplier is None:
        return None
    count = _js_round(float(match.group(1)) * multiplier)
    return count if count <= 2**53 - 1 else None


def _js_round(value: float) -> int:
    return math.floor(value + 0.5)


def multimodal_modalities(enabled: bool, listed: list[str] | None) -> tuple[str, ...]:
    """`normalizeMemoryMultimodalSettings`' modalities: none while multimodal is off; every one for `all` or
    when none are listed; else the known ones listed, once each, in their order."""
    if not enabled:
        return ()
    if listed is None or "all" in listed:
        return MULTIMODAL_MODALITIES
    return tuple(dict.fromkeys(m for m in listed if m in MULTIMODAL_MODALITIES))

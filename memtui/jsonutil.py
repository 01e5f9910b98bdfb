"""JavaScript-compatible JSON and hashing helpers (byte-identical to OpenClaw's)."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any


def js_number(value: float) -> str:
    """Format a number the way JavaScript's `String(number)` / `JSON.stringify` does."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return "null"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        exp_int = int(exp)
        if -7 < exp_int < 21:
            return format(value, "f").rstrip("0").rstrip(".") if exp_int < 0 else text
        return f"{mantissa}e{'+' if exp_int > 0 else '-'}{abs(exp_int)}"
    return text


def js_stringify(value: Any) -> str:
    """Serialize like `JSON.stringify(value)`: insertion key order, no whitespace."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        parts = [
            f"{json.dumps(str(k), ensure_ascii=False)}:{js_stringify(v)}" for k, v in value.items() if v is not None
        ]
        return "{" + ",".join(parts) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join("null" if v is None else js_stringify(v) for v in value) + "]"
    raise TypeError(f"cannot serialize {type(value).__name__}")


def sha256_hex(text: str) -> str:
    """SHA-256 hex digest of the UTF-8 encoding of `text`."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha1_hex(text: str) -> str:
    """SHA-1 hex digest of the UTF-8 encoding of `text`."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()

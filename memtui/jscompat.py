"""JavaScript-exact behaviour OpenClaw's output depends on: JSON.stringify, number formatting, hashing, trim(),
string order, `path.resolve`; and JSON parsing that refuses nesting too deep to walk safely."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import unicodedata
from pathlib import Path
from typing import Any


def js_number(value: float) -> str:
    """Format a number the way JavaScript's `Number.prototype.toString` (and `JSON.stringify`) does."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"
    digits, exponent = _shortest_digits(value)
    k = len(digits)
    n = k + exponent
    prefix = "-" if value < 0 else ""
    if k <= n <= 21:
        return prefix + digits + "0" * (n - k)
    if 0 < n <= 21:
        return f"{prefix}{digits[:n]}.{digits[n:]}"
    if -6 < n <= 0:
        return f"{prefix}0.{'0' * -n}{digits}"
    power = n - 1
    mark = "+" if power > 0 else "-"
    mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{prefix}{mantissa}e{mark}{abs(power)}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest digits that round-trip `abs(value)` (Python's `repr`, the same as JavaScript's), without
    leading or trailing zeros, and the power of ten of the last one."""
    mantissa, _, power = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    significant = digits.rstrip("0")
    return significant, int(power or 0) - len(fraction) + len(digits) - len(significant)


def js_stringify(value: Any, indent: int | None = None, *, drop_none: bool = True, _level: int = 0) -> str:
    """Serialize like `JSON.stringify(value, null, indent)`: insertion key order, JS number format;
    with `drop_none`, None values inside objects are dropped (JavaScript's `undefined`), else null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, dict):
        items = [(k, v) for k, v in value.items() if v is not None or not drop_none]
        parts = [f"{_js_string(str(k))}:{' ' if indent else ''}"
                 f"{js_stringify(v, indent, drop_none=drop_none, _level=_level + 1)}" for k, v in items]
        return _wrap("{", "}", parts, indent, _level)
    if isinstance(value, (list, tuple)):
        parts = ["null" if v is None else js_stringify(v, indent, drop_none=drop_none, _level=_level + 1)
                 for v in value]
        return _wrap("[", "]", parts, indent, _level)
    raise TypeError(f"cannot serialize {type(value).__name__}")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _js_string(text: str) -> str:
    """A JSON string literal as `JSON.stringify` writes it (a lone surrogate becomes `\\udXXX`)."""
    literal = json.dumps(text, ensure_ascii=False)
    if literal.isascii() or not _LONE_SURROGATE.search(literal):
        return literal
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", literal)


def _wrap(open_: str, close: str, parts: list[str], indent: int | None, level: int) -> str:
    if not parts:
        return open_ + close
    if not indent:
        return open_ + ",".join(parts) + close
    inner = "\n" + " " * (indent * (level + 1))
    return open_ + inner + ("," + inner).join(parts) + "\n" + " " * (indent * level) + close


def sha256_hex(text: str) -> str:
    """SHA-256 hex digest of the UTF-8 encoding of `text`."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha1_hex(text: str) -> str:
    """SHA-1 hex digest of the UTF-8 encoding of `text`."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


# JavaScript's String.prototype.trim set: WhiteSpace and LineTerminator code points.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim_end(text: str) -> str:
    """JavaScript `trimEnd()`."""
    return text.rstrip(JS_WHITESPACE)


def js_trim(text: str) -> str:
    """JavaScript `trim()`."""
    return text.strip(JS_WHITESPACE)


_JS_WHITESPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")


def js_squash(text: str) -> str:
    """`text.trim().replace(/\\s+/g, " ")`: trimmed, every whitespace run one space."""
    return _JS_WHITESPACE_RUN.sub(" ", js_trim(text))


def js_to_fixed(value: float, digits: int) -> str:
    """`Number.prototype.toFixed(digits)`: rounds the exact binary value, and an exact tie away from zero
    (`(0.8125).toFixed(3)` is `0.813`, where Python's format gives `0.812`)."""
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if abs(value) >= 1e21:
        return js_number(value)
    from decimal import ROUND_HALF_UP, Decimal  # ~0.6 ms: only where toFixed is needed

    fixed = Decimal(0.0 if value == 0 else value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return f"{fixed:f}"


def js_locale_key(text: str) -> tuple[str, str]:
    """A sort key close to `String.prototype.localeCompare` (root collation): accents and case compare after
    the base letters, then code points break ties."""
    base = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return base.casefold(), text


def js_length(text: str) -> int:
    """`text.length`: UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def js_slice(text: str, start: int, end: int | None = None) -> str:
    """`text.slice(start, end)` over UTF-16 code units (it may cut an emoji in two, as JavaScript does)."""
    units = text.encode("utf-16-le", "surrogatepass")
    count = len(units) // 2
    first = max(0, count + start) if start < 0 else min(start, count)
    last = count if end is None else (max(0, count + end) if end < 0 else min(end, count))
    return units[first * 2:max(first, last) * 2].decode("utf-16-le", "surrogatepass")


def js_path_resolve(base: str | Path, value: str) -> Path:
    """Node's posix `path.resolve(base, value)`: lexical (`..` and `.` folded, symlinks kept, no `~`
    expansion), trailing slashes dropped, repeated leading slashes made one."""
    joined = value if value.startswith("/") else f"{base}/{value}"
    if not joined.startswith("/"):
        joined = f"{os.getcwd()}/{joined}"
    return Path("/" + os.path.normpath(joined).lstrip("/"))


def js_sort_key(text: str) -> bytes:
    """The order of JavaScript's default `Array.prototype.sort` on strings: by UTF-16 code units."""
    return text.encode("utf-16-be", "surrogatepass")


MAX_JSON_DEPTH = 200


def parse_json(text: str | bytes) -> Any:
    """`json.loads`, but JSON nested deeper than `MAX_JSON_DEPTH` (which would exhaust the recursion limit
    here or in whatever walks the value) raises `json.JSONDecodeError` like any other malformed JSON."""
    try:
        value = json.loads(text)
    except RecursionError:
        value = _TOO_DEEP
    if value is _TOO_DEEP or (_brackets(text) > MAX_JSON_DEPTH and too_deep(value)):
        document = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
        raise json.JSONDecodeError(f"nested more than {MAX_JSON_DEPTH} levels deep", document, 0) from None
    return value


def too_deep(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether lists and dicts in `value` nest more than `limit` levels (checked without recursion)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _brackets(text: str | bytes) -> int:
    """Opening brackets in `text`: fewer than the depth limit cannot nest that deep (a cheap first test)."""
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{")
    return text.count("[") + text.count("{")


_TOO_DEEP = object()

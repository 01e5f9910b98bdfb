"""JavaScript's `trim()` and `trimEnd()`, which OpenClaw applies to config values and file contents."""

from __future__ import annotations

# JavaScript's String.prototype.trim set: WhiteSpace and LineTerminator code points.
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim_end(text: str) -> str:
    """JavaScript `trimEnd()`."""
    return text.rstrip(_JS_WHITESPACE)


def js_trim(text: str) -> str:
    """JavaScript `trim()`."""
    return text.strip(_JS_WHITESPACE)

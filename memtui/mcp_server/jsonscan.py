"""A JSON checker without recursion, for the lines `json.loads` will not read (nested too deep, an integer with
too many digits): whether the line is JSON at all, what is wrong with it, and its top-level members, so such a
message still gets the error it deserves, with its id."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field

_WS = r"[ \t\n\r]*"
_TOKEN = re.compile(
    _WS + r"(?:(?P<open>(?:\[" + _WS + r")+\{?|\{)"
    r"|(?P<close>[\]}](?:" + _WS + r"[\]}])*)"
    r'|(?P<string>"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*")'
    r"|(?P<number>-?(?:0|[1-9][0-9]*)(?P<fraction>(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?))"
    r"|(?P<literal>true|false|null)|(?P<punct>[,:]))")
_END = re.compile(_WS + r"\Z")
_CLOSING = str.maketrans("[{", "]}")
_SPACE = str.maketrans("", "", " \t\n\r")

# What the checker expects next.
_VALUE, _FIRST_VALUE, _KEY, _FIRST_KEY, _COLON, _AFTER = range(6)


@dataclass
class Scan:
    """A line that is JSON: the first thing `json.loads` cannot take in it (`trouble`) and the top-level member
    it sits in, and the top-level members' raw scalar text (`"{"`/`"["` for a container)."""

    trouble: str | None = None
    trouble_key: str | None = None
    members: dict[str, str] = field(default_factory=dict)
    top: str = ""


def scan(text: str, max_depth: int, *, prefix: bool = False) -> Scan | None:
    """Check that `text` is one JSON value, without recursion (None when it is not JSON). `trouble` names nesting
    deeper than `max_depth`, or an integer longer than Python reads (`sys.get_int_max_str_digits`).

    With `prefix`, `text` is the start of a longer line: what it holds up to its end or its first mistake is
    taken (None only when it does not start as JSON), and a top-level member whose value may go on past the
    end (a number the cut may have shortened) is left out of `members`."""
    found = Scan()
    stack: list[str] = []
    state, key, at = _VALUE, "", 0
    digits = sys.get_int_max_str_digits() or sys.maxsize
    while (token := _TOKEN.match(text, at)) is not None:
        at, kind, raw = token.end(), token.lastgroup, token.group(token.lastgroup or 0)
        if stack == [] and state == _AFTER:
            return _cut(found, prefix, stack, state, key)
        if kind == "open":
            if state not in (_VALUE, _FIRST_VALUE):
                return _cut(found, prefix, stack, state, key)
            if len(stack) == 1 and stack[0] == "{":
                found.members[key] = raw[0]
            stack.extend(raw.translate(_SPACE))
            found.top = found.top or stack[0]
            if len(stack) > max_depth and found.trouble is None:
                found.trouble, found.trouble_key = f"nested more than {max_depth} levels deep", _member(stack, key)
            state = _FIRST_KEY if stack[-1] == "{" else _FIRST_VALUE
        elif kind == "close":
            run = raw.translate(_SPACE)
            first_ok = state == _AFTER or (state, run[0]) in ((_FIRST_VALUE, "]"), (_FIRST_KEY, "}"))
            if not first_ok or len(run) > len(stack) or "".join(reversed(stack[-len(run):])).translate(_CLOSING) != run:
                return _cut(found, prefix, stack, state, key)
            del stack[-len(run):]
            state = _AFTER
        elif kind == "punct":
            if raw == ":" and state == _COLON:
                state = _VALUE
            elif raw == "," and state == _AFTER and stack:
                state = _VALUE if stack[-1] == "[" else _KEY
            else:
                return _cut(found, prefix, stack, state, key)
        elif kind == "string" and state in (_KEY, _FIRST_KEY):
            key, state = (json.loads(raw) if len(stack) == 1 else key), _COLON
        elif state in (_VALUE, _FIRST_VALUE):
            if len(stack) == 1 and stack[0] == "{":
                found.members[key] = raw
            if kind == "number" and not token.group("fraction") and len(raw.lstrip("-")) > digits \
                    and found.trouble is None:
                found.trouble, found.trouble_key = f"an integer has more than {digits} digits", _member(stack, key)
            found.top = found.top or raw
            state = _AFTER
        else:
            return _cut(found, prefix, stack, state, key)
    if prefix:
        return _cut(found, prefix, stack, state, key)
    return found if not stack and state == _AFTER and _END.match(text, at) else None


def _cut(found: Scan, prefix: bool, stack: list[str], state: int, key: str) -> Scan | None:
    """Where the checker stops early: not JSON, unless the text is a prefix. Then what was read is kept, but
    for a top-level scalar member that nothing followed (`1` may be the start of `1.5`)."""
    if not prefix or not found.top:
        return None
    if state == _AFTER and stack == ["{"] and found.members.get(key) not in (None, "{", "["):
        del found.members[key]
    return found


def _member(stack: list[str], key: str) -> str | None:
    """The top-level member the checker is inside (None outside a top-level object)."""
    return key if stack and stack[0] == "{" else None

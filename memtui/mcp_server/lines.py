"""Each line of stdin checked before the SDK sees it: a JSON-RPC message is passed on (lone surrogates made
U+FFFD); anything else is answered with the JSON-RPC 2.0 error it deserves, because the SDK's transport drops
what it cannot read without a word. A line longer than `MAX_LINE_BYTES` is never held whole: it is dropped as
it streams in (`LineCutter`) and answered with the limit."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR

from memtui.jscompat import MAX_JSON_DEPTH, parse_json
from memtui.mcp_server.jsonscan import scan

MAX_LINE_BYTES = 16 << 20  # a message of the two tools is a few KB (paths ≤ 4,096 characters); a longer line is refused
HEAD_BYTES = 1 << 12  # what is kept of a line over the limit, to read its id from
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Checked:
    """What to do with one line: pass `line` on to the SDK, or answer `error`; both None: drop it (a
    notification that cannot be taken, which JSON-RPC never answers). `method` is set for a request or a
    notification passed on, `request_id` for a request, `cancels` for a `notifications/cancelled`."""

    line: str | None = None
    error: types.JSONRPCError | None = None
    request_id: str | int | None = None
    method: str | None = None
    cancels: str | int | None = None


@dataclass(frozen=True)
class Oversized:
    """A line over the limit, dropped as it came: its length in bytes and its first `HEAD_BYTES`."""

    size: int
    head: bytes


class LineCutter:
    """Bytes cut into lines at `\n`; a line growing past `limit` bytes is dropped as it streams (only its first
    `HEAD_BYTES` are kept), so memory stays bounded by the limit whatever the client sends."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self.limit = limit
        self._pending = bytearray()
        self._over: int | None = None  # bytes of the line being dropped, None while it is within the limit
        self._head = b""

    def feed(self, block: bytes) -> list[bytes | Oversized]:
        """The lines `block` completes (its last, unfinished line is kept for the next block)."""
        lines: list[bytes | Oversized] = []
        at = 0
        while True:
            end = block.find(b"\n", at)
            stop = len(block) if end < 0 else end
            self._take(memoryview(block)[at:stop])
            if end < 0:
                return lines
            lines.append(self._line())
            at = end + 1

    def end(self) -> list[bytes | Oversized]:
        """The last line, when the input did not end with `\n`."""
        return [self._line()] if self._pending or self._over is not None else []

    def _take(self, piece: memoryview) -> None:
        if self._over is not None:
            self._over += len(piece)
        elif len(self._pending) + len(piece) > self.limit:
            self._head = bytes(self._pending[:HEAD_BYTES]) + bytes(piece[: max(0, HEAD_BYTES - len(self._pending))])
            self._over = len(self._pending) + len(piece)
            self._pending = bytearray()
        else:
            self._pending += piece

    def _line(self) -> bytes | Oversized:
        if self._over is not None:
            line: bytes | Oversized = Oversized(self._over, self._head)
            self._over, self._head = None, b""
            return line
        line, self._pending = bytes(self._pending), bytearray()
        return line


def check_oversized(line: Oversized, limit: int = MAX_LINE_BYTES) -> Checked:
    """The error for a line over the limit, with the id its first bytes give (null when they do not)."""
    found = scan(line.head.decode("utf-8", errors="replace"), MAX_JSON_DEPTH, prefix=True)
    raw_id = found.members.get("id") if found is not None and found.top == "{" else None
    request_id = json.loads(raw_id) if raw_id is not None and _raw_id_problem(raw_id) is None else None
    return _refuse(request_id, INVALID_REQUEST, f"Invalid Request: the line is {line.size:,} bytes, over the "
                                                f"limit of {limit:,} bytes for one message; it was not read")


def check_line(line: str) -> Checked:
    """The verdict on one line of stdin (see `Checked`)."""
    try:
        message = parse_json(line)
    except ValueError:
        return _unreadable(line)
    if not isinstance(message, dict):
        what = "a batch (MCP does not use batches)" if isinstance(message, list) else "not a JSON object"
        return _refuse(None, INVALID_REQUEST, f"Invalid Request: {what}")
    if "id" in message and (problem := _id_problem(message["id"])):
        return _refuse(None, INVALID_REQUEST, f"Invalid Request: the id must be a string or an integer, not {problem}")
    request_id = message.get("id")
    if message.get("jsonrpc") != "2.0":
        return _refuse(request_id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if _SURROGATE_ESCAPE.search(line) and _has_lone_surrogate(message):
        line = json.dumps(_without_lone_surrogates(message), ensure_ascii=False)
    try:
        parsed = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        return _refuse(request_id, INVALID_REQUEST, "Invalid Request: not a JSON-RPC request, notification or "
                                                    "response")
    if isinstance(parsed, types.JSONRPCRequest):
        return Checked(line=line, request_id=parsed.id, method=parsed.method)
    if isinstance(parsed, types.JSONRPCNotification):
        cancelled = (parsed.params or {}).get("requestId") if parsed.method == "notifications/cancelled" else None
        return Checked(line=line, method=parsed.method, cancels=None if _id_problem(cancelled) else cancelled)
    return Checked(line=line)


def _id_problem(value: Any) -> str | None:
    """Why `value` cannot be a request id (MCP: a string or an integer, never null), None when it can. A string
    with a lone surrogate cannot be echoed back exactly, so it cannot be one either."""
    if isinstance(value, bool):
        return "a boolean"
    if type(value) is int:
        return None
    if isinstance(value, str):
        return "a string with a lone surrogate" if _LONE_SURROGATE.search(value) else None
    if isinstance(value, float):
        return f"a number with a fraction or an exponent ({json.dumps(value)})"
    return {type(None): "null", list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def _unreadable(line: str) -> Checked:
    """A line `json.loads` refused: not JSON (-32700), or JSON it cannot take (nested too deep, an integer with too
    many digits): -32602 when that is in the params of a request, -32600 elsewhere, with the id when it has one."""
    found = scan(line, MAX_JSON_DEPTH)
    if found is None:
        return _refuse(None, PARSE_ERROR, "Parse error: the line is not JSON")
    if found.top == "[":
        return _refuse(None, INVALID_REQUEST, "Invalid Request: a batch (MCP does not use batches)")
    raw_id = found.members.get("id")
    if raw_id is not None and (problem := _raw_id_problem(raw_id)):
        return _refuse(None, INVALID_REQUEST, f"Invalid Request: the id must be a string or an integer, not {problem}")
    request_id = json.loads(raw_id) if raw_id is not None else None
    if raw_id is None and "method" in found.members:
        return Checked()  # a notification: never answered
    if found.trouble_key == "params":
        return _refuse(request_id, INVALID_PARAMS, f"Invalid params: {found.trouble}")
    return _refuse(request_id, INVALID_REQUEST, f"Invalid Request: {found.trouble}")


def _raw_id_problem(raw: str) -> str | None:
    """`_id_problem` for the raw JSON text of an id (or the opening bracket of a container)."""
    if raw in ("[", "{"):
        return "an array" if raw == "[" else "an object"
    try:
        value = json.loads(raw)
    except ValueError:
        return "an integer too long to read"
    return _id_problem(value)


def _has_lone_surrogate(value: Any) -> bool:
    """Whether a string anywhere in the message (a key or a value) holds a lone surrogate."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _without_lone_surrogates(value: Any) -> Any:
    """The message with every lone surrogate replaced by U+FFFD, as invalid UTF-8 on stdin already is."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    return value


def _refuse(request_id: str | int | None, code: int, message: str) -> Checked:
    """The verdict that answers a line with a JSON-RPC error."""
    error = types.ErrorData(code=code, message=message)
    return Checked(error=types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))

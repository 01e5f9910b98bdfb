"""The MCP server: `memory_search` and `memory_get` over stdio, with the same JSON as the CLI's `--json`.

Order and load policy (JSON-RPC clients match answers to requests by id, so answers need not come in order):

* Lines are read and checked in the order they come. A line that is not a valid message is answered at once
  with its JSON-RPC error (`lines.py`); one over `MAX_LINE_BYTES` is dropped as it streams, never held whole,
  and answered with the limit (its id when its first bytes give one, else null). `initialize` is answered
  before any later line is read, so nothing overtakes it.
* `ping`, `tools/list` and the errors are answered on the event loop as soon as their line is read: they
  never wait behind a tool call.
* Tool calls run on `WORKERS` threads, started in arrival order from one queue; they may finish, and so be
  answered, out of order. A tool call read while `QUEUE_LIMIT` requests are owed an answer (or while the
  calls pending carry `WEIGHT_LIMIT` characters of arguments) waits, and stdin is not read meanwhile: a
  client that writes faster than calls are answered is held up by the pipe (back-pressure). Other requests
  have `CONTROL_HEADROOM` more, so a `ping` read behind slow calls is still answered at once; one written
  behind a backlog is answered as soon as the backlog lets it be read.
* Answers are written one at a time, in the order they are ready. At the end of stdin, the answers still
  owed are written while they keep coming (`DRAIN_IDLE_S`); then the server shuts down and a call still
  running is answered "Connection closed".
"""

from memtui.mcp_server.calls import (
    CORPORA,
    GET_TOOL,
    SEARCH_TOOL,
    MemoryTools,
    ToolArgumentError,
    call_memory_get,
    call_memory_search,
    render,
)
from memtui.mcp_server.lines import MAX_LINE_BYTES
from memtui.mcp_server.pool import WEIGHT_LIMIT, WORKERS
from memtui.mcp_server.stdio import CONTROL_HEADROOM, DRAIN_IDLE_S, QUEUE_LIMIT, build_server, serve_stdio

__all__ = ["CONTROL_HEADROOM", "CORPORA", "DRAIN_IDLE_S", "GET_TOOL", "MAX_LINE_BYTES", "QUEUE_LIMIT",
           "SEARCH_TOOL", "WEIGHT_LIMIT", "WORKERS", "MemoryTools", "ToolArgumentError", "build_server",
           "call_memory_get", "call_memory_search", "render", "serve_stdio"]

"""The MCP server: `memory_search` and `memory_get` over stdio, with the same JSON as the CLI's `--json`."""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
import threading
from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import Any, Protocol, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR

from memtui import __version__
from memtui.errors import MemtuiError, ToolInputError, unexpected_message
from memtui.jscompat import js_stringify, parse_json

T = TypeVar("T")

CORPORA = ("memory", "wiki", "all", "sessions")

SEARCH_TOOL = types.Tool(
    name="memory_search",
    description=(
        "Search the agent's memory (MEMORY.md, memory/*.md, extra paths, optionally session transcripts). "
        "Returns ranked snippets with path, line range, score and citation; read more with memory_get."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to look for"},
            "maxResults": {"type": "number", "description": "results to return (default from config)"},
            "minScore": {"type": "number", "description": "drop results scoring below this"},
            "corpus": {"type": "string", "enum": list(CORPORA), "description": "which corpus to search"},
        },
        "required": ["query"],
    },
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
)

GET_TOOL = types.Tool(
    name="memory_get",
    description=(
        "Read lines of a memory file: MEMORY.md, DREAMS.md, memory/**/*.md or an extra path (.md only). "
        "Use the path and startLine of a memory_search result."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "workspace-relative path, e.g. memory/2026-04-28.md"},
            "from": {"type": "number", "description": "first line, 1-based (default 1)"},
            "lines": {"type": "number", "description": "number of lines (default 120)"},
            "corpus": {"type": "string", "enum": ["memory", "wiki", "all"], "description": "which corpus to read"},
        },
        "required": ["path"],
    },
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
)


class MemoryTools(Protocol):
    """What the server needs from a manager (the builtin `MemoryManager` or the QMD one)."""

    @property
    def citations(self) -> str: ...

    def memory_search(self, query: str, *, max_results: int | None = ..., min_score: float | None = ...,
                      session_key: str | None = ..., record: bool = ...) -> dict[str, Any]: ...

    def memory_get(self, path: str, *, from_line: int | None = ..., lines: int | None = ...) -> dict[str, Any]: ...


class ToolArgumentError(ToolInputError, ValueError):
    """A tool call's arguments do not fit the tool's schema."""


def _number(arguments: dict[str, Any], key: str, *, integer: bool = False) -> float | None:
    """`readNumberParam`: a finite number or a numeric string (integers truncated); absent → None. Other
    types are refused (OpenClaw ignores them)."""
    value = arguments.get(key)
    if value is None:
        return None
    if isinstance(value, str) and value.strip():
        try:
            value = float(value.strip())
        except ValueError:
            raise ToolArgumentError(f"{key} must be a number, got {json.dumps(value)}") from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ToolArgumentError(f"{key} must be a number, got {json.dumps(value)}")
    return math.trunc(value) if integer else value


def _string(arguments: dict[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolArgumentError(f"{key} required")
    return value.strip()


def call_memory_search(manager: MemoryTools, arguments: dict[str, Any],
                       session_key: str | None = None) -> dict[str, Any]:
    """Run `memory_search` with MCP arguments (validated) for a session key and return the tool JSON.
    `corpus` as in OpenClaw: `memory` / `sessions` keep the hits of that source, `wiki` searches no memory
    (there are no wiki supplements), `all` is everything."""
    query = _string(arguments, "query")
    corpus = arguments.get("corpus")
    if corpus is not None and corpus not in CORPORA:
        raise ToolArgumentError(f"corpus must be one of {', '.join(CORPORA)}, got {json.dumps(corpus)}")
    max_results = _number(arguments, "maxResults")
    min_score = _number(arguments, "minScore")
    if corpus == "wiki":
        return {"results": [], "citations": manager.citations}
    payload = manager.memory_search(query, max_results=max_results, min_score=min_score, session_key=session_key,
                                    record=True)
    if corpus not in ("memory", "sessions") or "results" not in payload:
        return payload
    kept = [hit for hit in payload["results"] if hit.get("source") == corpus]
    debug = payload.get("debug")
    return dict(payload, results=kept, **({"debug": dict(debug, hits=len(kept))} if isinstance(debug, dict) else {}))


def call_memory_get(manager: MemoryTools, arguments: dict[str, Any],
                    _session_key: str | None = None) -> dict[str, Any]:
    """Run `memory_get` with MCP arguments (validated) and return the tool JSON (`corpus: wiki` finds nothing:
    there are no wiki supplements)."""
    path = _string(arguments, "path")
    corpus = arguments.get("corpus")
    if corpus is not None and corpus not in ("memory", "wiki", "all"):
        raise ToolArgumentError(f"corpus must be one of memory, wiki, all, got {json.dumps(corpus)}")
    if corpus == "wiki":
        return {"path": path, "text": "", "disabled": True, "error": "wiki corpus result not found"}
    return manager.memory_get(path, from_line=_number(arguments, "from", integer=True),
                              lines=_number(arguments, "lines", integer=True))


def render(payload: dict[str, Any]) -> str:
    """The tool JSON as text, formatted like the CLI's `--json`."""
    return js_stringify(payload, indent=2, drop_none=False)


def build_server(manager: MemoryTools, session_key: str | None = None) -> Server:
    """An MCP server exposing the manager's `memory_search` and `memory_get`; `session_key` decides citations
    (auto mode) and the QMD scope."""
    handlers = {"memory_search": call_memory_search, "memory_get": call_memory_get}

    async def list_tools(_ctx: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[SEARCH_TOOL, GET_TOOL])

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        handler = handlers.get(params.name)
        if handler is None:
            return _error_result(f"unknown tool {params.name!r}; available: {', '.join(handlers)}")
        arguments = dict(params.arguments or {})
        try:
            payload = await _in_daemon_thread(handler, manager, arguments, session_key)
        except MemtuiError as exc:
            return _error_result(f"{params.name}: {exc}")
        except Exception as exc:
            # One line on stderr, without the arguments (a query may be private) and without a traceback.
            message = f"{params.name} failed: {unexpected_message(exc)}"
            print(f"memtui mcp: {message}", file=sys.stderr, flush=True)
            raise MCPError(code=INTERNAL_ERROR, message=message) from None
        return types.CallToolResult(content=[types.TextContent(type="text", text=render(payload))],
                                    structured_content=payload)

    return Server("memtui", version=__version__,
                  instructions="Agent memory: search with memory_search, then read lines with memory_get.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


async def _in_daemon_thread(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` in a daemon thread: a call that never returns cannot keep the process alive after
    the client closed stdin (anyio's worker threads are not daemons)."""
    outcome: dict[str, Any] = {}
    done = anyio.Event()
    token = anyio.lowlevel.current_token()

    def work() -> None:
        try:
            outcome["value"] = function(*args)
        except BaseException as exc:
            outcome["error"] = exc
        with contextlib.suppress(RuntimeError):  # the server has shut down meanwhile
            anyio.from_thread.run_sync(done.set, token=token)

    threading.Thread(target=work, name="memtui-mcp-call", daemon=True).start()
    await done.wait()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def protocol_error(line: str) -> types.JSONRPCError | None:
    """The JSON-RPC error answering a line that is not a valid message (None for a valid one): -32700 for a
    line that is not JSON, -32600 for a batch (MCP has none), a missing `"jsonrpc": "2.0"` or a bad shape."""
    try:
        message = parse_json(line)
    except ValueError:
        return _rpc_error(None, PARSE_ERROR, "Parse error: the line is not JSON")
    if not isinstance(message, dict):
        what = "a batch (MCP does not use batches)" if isinstance(message, list) else "not a JSON object"
        return _rpc_error(None, INVALID_REQUEST, f"Invalid Request: {what}")
    request_id = message.get("id")
    request_id = request_id if isinstance(request_id, str) or type(request_id) is int else None
    if message.get("jsonrpc") != "2.0":
        return _rpc_error(request_id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    try:
        types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValueError:
        return _rpc_error(request_id, INVALID_REQUEST, "Invalid Request: not a JSON-RPC request, notification or "
                                                       "response")
    return None


def _rpc_error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


class _CheckedLines:
    """stdin as lines that are JSON-RPC messages; any other line is answered with its error instead of being
    dropped without a word (the SDK's transport skips what it cannot parse). At the end of stdin the
    answers still pending are written before the end is passed on (and the server shuts down)."""

    def __init__(self, lines: AsyncIterable[str], replies: MemoryObjectSendStream[types.JSONRPCError],
                 answered: anyio.Event) -> None:
        self.lines = lines
        self.replies = replies
        self.answered = answered

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self.lines:
            if not line.strip():
                continue
            error = protocol_error(line)
            if error is None:
                yield line
            else:
                await self.replies.send(error)
        await self.replies.aclose()
        await self.answered.wait()


async def serve_stdio(manager: MemoryTools, session_key: str | None = None) -> None:
    """Serve the tools on stdin/stdout until the client closes the connection."""
    server = build_server(manager, session_key)
    send_replies, replies = anyio.create_memory_object_stream[types.JSONRPCError](16)
    answered = anyio.Event()
    stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    checked = _CheckedLines(stdin, send_replies, answered)
    async with stdio_server(stdin=checked) as (read_stream, write_stream):  # type: ignore[arg-type]

        async def answer_protocol_errors() -> None:
            try:
                async for error in replies:
                    await write_stream.send(SessionMessage(error))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass  # the server is gone: nobody is left to answer
            finally:
                answered.set()

        async with anyio.create_task_group() as group:
            group.start_soon(answer_protocol_errors)
            await server.run(read_stream, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()

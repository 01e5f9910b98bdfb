"""The server on stdin/stdout: stdin read in blocks and checked line by line (none held longer than
`MAX_LINE_BYTES`), tool calls on the worker pool, and every answer written through one relay that keeps count of
the requests still owed an answer."""

from __future__ import annotations

import collections
import contextlib
import os
import sys
import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import WriteStream
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import INTERNAL_ERROR

from memtui import __version__
from memtui.errors import MemtuiError, unexpected_message
from memtui.mcp_server.calls import GET_TOOL, SEARCH_TOOL, MemoryTools, call_memory_get, call_memory_search, render
from memtui.mcp_server.lines import Checked, LineCutter, Oversized, check_line, check_oversized
from memtui.mcp_server.pool import WorkerPool

BLOCK = 1 << 16  # bytes read from stdin at a time
READ_AHEAD = 4  # blocks read before the lines are taken
BIG_LINE = 1 << 16  # a line this long is checked on a thread, so the event loop goes on answering meanwhile
QUEUE_LIMIT = 256  # requests owed an answer (waiting, running, being written) before a tool call is no longer read
CONTROL_HEADROOM = 64  # more requests owed before a ping, tools/list… is no longer read either
DRAIN_IDLE_S = 2.0  # at the end of stdin, wait for the answers owed while one comes at least this often


def build_server(manager: MemoryTools, session_key: str | None = None, pool: WorkerPool | None = None) -> Server:
    """An MCP server exposing the manager's `memory_search` and `memory_get`, run on `pool`'s workers;
    `session_key` decides citations (auto mode) and the QMD scope."""
    handlers = {"memory_search": call_memory_search, "memory_get": call_memory_get}
    workers = pool or WorkerPool()

    async def list_tools(_ctx: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[SEARCH_TOOL, GET_TOOL])

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        handler = handlers.get(params.name)
        if handler is None:
            return _error_result(f"unknown tool {params.name!r}; available: {', '.join(handlers)}")
        arguments = dict(params.arguments or {})
        weight = sum(len(value) for value in arguments.values() if isinstance(value, str))

        def answer() -> tuple[dict[str, Any], str]:
            payload = handler(manager, arguments, session_key)
            return payload, render(payload)

        try:
            payload, text = await workers.run(answer, weight=weight)
        except MemtuiError as exc:
            return _error_result(f"{params.name}: {exc}")
        except Exception as exc:
            # One line on stderr, without the arguments (a query may be private) and without a traceback.
            message = f"{params.name} failed: {unexpected_message(exc)}"
            print(f"memtui mcp: {message}", file=sys.stderr, flush=True)
            raise MCPError(code=INTERNAL_ERROR, message=message) from None
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=payload)

    return Server("memtui", version=__version__,
                  instructions="Agent memory: search with memory_search, then read lines with memory_get.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


class _Owed:
    """The requests passed on to the SDK and not answered yet, by id (the SDK never answers a cancelled one), and
    the errors with an id on their way out."""

    def __init__(self) -> None:
        self.counts: collections.Counter[tuple[type, str | int]] = collections.Counter()
        self.total = 0
        self._changed = anyio.Event()

    def add(self, request_id: str | int) -> None:
        """A request is passed on."""
        self.counts[(type(request_id), request_id)] += 1
        self.total += 1

    def owes(self, request_id: str | int) -> bool:
        """Whether `request_id` is still owed an answer."""
        return (type(request_id), request_id) in self.counts

    def settle(self, request_id: str | int) -> None:
        """A request is answered, or cancelled by the client."""
        key = (type(request_id), request_id)
        count = self.counts.pop(key, 0)
        if count > 1:
            self.counts[key] = count - 1
        self.total -= min(count, 1)
        self._changed.set()
        self._changed = anyio.Event()

    async def changed(self) -> None:
        """Return at the next answer (or cancel)."""
        await self._changed.wait()

    async def below(self, limit: int) -> None:
        """Return once fewer than `limit` requests are owed."""
        while self.total >= limit:
            await self._changed.wait()

    async def answered(self, request_id: str | int) -> None:
        """Return once `request_id` is no longer owed."""
        while self.owes(request_id):
            await self._changed.wait()

    async def wait(self, idle_s: float) -> None:
        """Return when nothing is owed, or when no answer came for `idle_s` seconds."""
        while self.counts:
            with anyio.move_on_after(idle_s) as waited:
                await self._changed.wait()
            if waited.cancelled_caught:
                return


class _StdinLines:
    """stdin read in blocks by a daemon thread, cut into lines, each checked (`check_line`): messages pass on to
    the SDK, errors go to `replies` (the SDK's transport would drop such lines without a word).

    A request waits for room (`_room`) before it is passed on: while it waits stdin is not read, so a client
    writing faster than the calls are answered is held up by the pipe (back-pressure), and one that does not
    read its answers has no more than `QUEUE_LIMIT + CONTROL_HEADROOM` of them pending. At the end of stdin the
    answers owed are waited for (`DRAIN_IDLE_S`) before the end is passed on and the server shuts down."""

    def __init__(self, fd: int, pool: WorkerPool, owed: _Owed,
                 replies: MemoryObjectSendStream[SessionMessage]) -> None:
        self.fd = fd
        self.pool = pool
        self.owed = owed
        self.replies = replies
        self.initialized = False

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self.replies:
            async for line in self._lines():
                if isinstance(line, Oversized):
                    checked = check_oversized(line)
                elif not line.strip():
                    continue
                else:
                    checked = check_line(line) if len(line) < BIG_LINE else \
                        await anyio.to_thread.run_sync(check_line, line)
                if checked.error is not None:
                    if checked.error.id is not None:
                        self.owed.add(checked.error.id)  # the relay settles it as it settles every answer
                    await self.replies.send(SessionMessage(checked.error))
                if checked.line is None:
                    continue
                if checked.method is not None and checked.request_id is None and not self._wanted(checked):
                    continue
                if checked.request_id is not None:
                    await self._room(call=checked.method == "tools/call")
                    self.owed.add(checked.request_id)
                yield checked.line
                if checked.method == "initialize" and checked.request_id is not None:
                    await self.owed.answered(checked.request_id)
            await self.owed.wait(DRAIN_IDLE_S)

    async def _room(self, *, call: bool) -> None:
        """Return once another request may be taken: a tool call while fewer than `QUEUE_LIMIT` requests are
        owed and the pool has room, any other request (cheap: answered on the event loop) up to
        `CONTROL_HEADROOM` more, so a ping is not held up behind slow calls."""
        await self.owed.below(QUEUE_LIMIT if call else QUEUE_LIMIT + CONTROL_HEADROOM)
        while call and not self.pool.has_room():
            await self.owed.changed()

    def _wanted(self, notification: Checked) -> bool:
        """Whether the SDK needs a notification: the first `notifications/initialized`, and a
        `notifications/cancelled` for a request still owed an answer. The server has no use for any other
        (it sends the client no requests to report progress on), so a flood of them costs little."""
        if notification.method == "notifications/initialized":
            first, self.initialized = not self.initialized, True
            return first
        if notification.cancels is not None and self.owed.owes(notification.cancels):
            self.owed.settle(notification.cancels)
            return True
        return False

    async def _lines(self) -> AsyncIterator[str | Oversized]:
        blocks, receive = anyio.create_memory_object_stream[bytes](READ_AHEAD)
        threading.Thread(target=_read_blocks, args=(self.fd, blocks, anyio.lowlevel.current_token()),
                         name="memtui-mcp-stdin", daemon=True).start()
        cutter = LineCutter()
        async with receive:
            async for block in receive:
                for raw in cutter.feed(block):
                    yield raw if isinstance(raw, Oversized) else raw.decode("utf-8", errors="replace")
        for raw in cutter.end():
            yield raw if isinstance(raw, Oversized) else raw.decode("utf-8", errors="replace")


def _read_blocks(fd: int, blocks: MemoryObjectSendStream[bytes], token: anyio.lowlevel.EventLoopToken) -> None:
    """Read `fd` to its end into `blocks` (a daemon thread: a read that never returns cannot keep the process
    alive); each block waits for room in the stream, so a busy server stops reading."""
    with contextlib.suppress(Exception):  # the server is gone, or stdin is unreadable: both end the input
        while block := os.read(fd, BLOCK):
            anyio.from_thread.run(blocks.send, block, token=token)
    with contextlib.suppress(Exception):
        anyio.from_thread.run_sync(blocks.close, token=token)


async def _relay(messages: MemoryObjectReceiveStream[SessionMessage], out: WriteStream[SessionMessage],
                 owed: _Owed) -> None:
    """Write every outgoing message (the SDK's and the protocol errors) in the order it comes, and settle the
    request each answer is for."""
    async with messages, out:
        async for item in messages:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await out.send(item)
            message = item.message
            if isinstance(message, types.JSONRPCResponse | types.JSONRPCError) and message.id is not None:
                owed.settle(message.id)


async def serve_stdio(manager: MemoryTools, session_key: str | None = None) -> None:
    """Serve the tools on stdin/stdout until the client closes the connection."""
    pool = WorkerPool()
    server = build_server(manager, session_key, pool)
    owed = _Owed()
    outgoing, relayed = anyio.create_memory_object_stream[SessionMessage](0)
    lines = _StdinLines(sys.stdin.fileno(), pool, owed, outgoing.clone())
    async with (stdio_server(stdin=lines) as (read_stream, write_stream),  # type: ignore[arg-type]
                anyio.create_task_group() as group):
        group.start_soon(_relay, relayed, write_stream, owed)
        await server.run(read_stream, outgoing, server.create_initialization_options())

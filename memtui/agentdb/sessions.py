"""OpenClaw 2026.9's sessions and transcripts, read from the per-agent database without writing a byte.

2026.9 keeps a session key's metadata in `session_nodes` (`entry_json`: the SessionEntry — token counts, model,
compaction and flush state — of the key's *current* session), one row per session in `session_windows` (a key that
was reset with `/new` has several; `previous_session_id` links them), and the transcript in `transcript_events`
(`seq` order; `event_json`, or for events of 1 KiB and more a zstd frame in `event_zstd` with its UTF-8 length in
`event_utf8_bytes`). `session_transcript_active_events` lists the events on the active path
(`context_eligible` ones count toward the transcript size OpenClaw compares with `forceFlushTranscriptBytes`).

* `list_sessions(path)` → `AgentSession` per session window (newest first);
* `read_transcript(path, session_id)` → `TranscriptEvent`s in `seq` order (role, text, tool calls, tool results);
* `memory_tool_calls(path, session_id=None)` → every `memory_search` / `memory_get` call with its result.

Everything opens through `ownership.open_read_only`. Compressed events are decoded with `zstandard`; one that
does not decode is listed with `decode_error` set and no body.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

from memtui.agentdb.ownership import reading, table_names

MEMORY_TOOLS = ("memory_search", "memory_get")
MAX_EVENT_BYTES = 4 * 1024 * 1024  # MAX_COMPRESSED_EVENT_BYTES (src/config/sessions/transcript-payload.ts)
# SessionEntry fields too large or too internal to carry in `AgentSession.entry`.
_ENTRY_BULKY = ("skillsSnapshot", "systemPromptReport")


def decode_event_payload(event_json: str | None, event_zstd: bytes | None, utf8_bytes: int | None) -> str:
    """The event's JSON text: `event_json`, or the zstd frame decoded (ValueError when it cannot be)."""
    if event_json is not None:
        return event_json
    if event_zstd is None:
        raise ValueError("the event has neither event_json nor event_zstd")
    if not isinstance(utf8_bytes, int) or not 0 < utf8_bytes <= MAX_EVENT_BYTES:
        raise ValueError(f"compressed event with invalid event_utf8_bytes {utf8_bytes!r}")
    try:
        raw = zstandard.ZstdDecompressor().decompress(bytes(event_zstd), max_output_size=utf8_bytes)
    except zstandard.ZstdError as exc:
        raise ValueError(f"cannot decode the zstd frame: {exc}") from None
    if len(raw) != utf8_bytes:
        raise ValueError(f"decoded {len(raw)} bytes, event_utf8_bytes says {utf8_bytes}")
    return raw.decode("utf-8")


# Dataclasses -----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AgentSession:
    """One session window. Token counts come from the key's SessionEntry and so exist only for the key's current
    session (`current`); rotated-out sessions (`/new`) keep their window and transcript."""

    key: str | None
    session_id: str
    current: bool
    created_at_ms: int | None
    updated_at_ms: int | None
    transcript_updated_at_ms: int | None
    previous_session_id: str | None
    reason: str | None
    scope: str | None
    status: str | None
    chat_type: str | None
    channel: str | None
    model_provider: str | None
    model: str | None
    events: int
    compressed_events: int
    stored_bytes: int
    """Sum of the events' UTF-8 sizes plus one newline each: the size of the transcript as JSONL."""
    active_events: int
    active_messages: int | None
    active_bytes: int
    """The same over the context-eligible active events: what OpenClaw compares with forceFlushTranscriptBytes."""
    first_event_at_ms: int | None = None
    last_event_at_ms: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    total_tokens_fresh: bool | None = None
    context_tokens: int | None = None
    compaction_count: int = 0
    memory_flush_compaction_count: int | None = None
    memory_flush_at_ms: int | None = None
    entry: dict[str, Any] = field(default_factory=dict)
    """The SessionEntry (current session only) without `skillsSnapshot` and `systemPromptReport`."""
    prompt_report: dict[str, Any] = field(default_factory=dict)
    """`systemPromptReport` without its tool and skill lists: bootstrap budgets and truncation, injected files."""

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "sessionId": self.session_id, "current": self.current,
                "createdAt": self.created_at_ms, "updatedAt": self.updated_at_ms,
                "transcriptUpdatedAt": self.transcript_updated_at_ms, "previousSessionId": self.previous_session_id,
                "reason": self.reason, "scope": self.scope, "status": self.status, "chatType": self.chat_type,
                "channel": self.channel, "modelProvider": self.model_provider, "model": self.model,
                "events": self.events, "compressedEvents": self.compressed_events, "storedBytes": self.stored_bytes,
                "activeEvents": self.active_events, "activeMessages": self.active_messages,
                "activeBytes": self.active_bytes, "firstEventAt": self.first_event_at_ms,
                "lastEventAt": self.last_event_at_ms, "inputTokens": self.input_tokens,
                "outputTokens": self.output_tokens, "totalTokens": self.total_tokens,
                "totalTokensFresh": self.total_tokens_fresh, "contextTokens": self.context_tokens,
                "compactionCount": self.compaction_count,
                "memoryFlushCompactionCount": self.memory_flush_compaction_count,
                "memoryFlushAt": self.memory_flush_at_ms}


@dataclass(frozen=True)
class ToolCall:
    """A `toolCall` part of an assistant message."""

    id: str | None
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """A `toolResult` message: the text the model got back (the text parts joined) and `details`."""

    tool_call_id: str | None
    tool_name: str | None
    text: str
    is_error: bool
    details: Any = None

    @property
    def json(self) -> Any:
        """The text parsed as JSON (the memory tools answer JSON), else None."""
        try:
            return json.loads(self.text)
        except ValueError:
            return None


@dataclass(frozen=True)
class TranscriptEvent:
    """One `transcript_events` row, decoded. `type` is OpenClaw's event type (`session`, `message`,
    `model_change`, `compaction`, `custom`, …); `role`, `text`, `tool_calls` and `tool_result` are set for
    messages."""

    session_id: str
    seq: int
    type: str | None
    id: str | None
    parent_id: str | None
    timestamp: str | None
    created_at_ms: int | None
    utf8_bytes: int | None
    compressed: bool
    role: str | None = None
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_result: ToolResult | None = None
    usage: dict[str, Any] | None = None
    stop_reason: str | None = None
    model: str | None = None
    raw: dict[str, Any] | None = None
    decode_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "type": self.type, "id": self.id, "parentId": self.parent_id,
                "timestamp": self.timestamp, "createdAt": self.created_at_ms, "bytes": self.utf8_bytes,
                "compressed": self.compressed, "role": self.role, "text": self.text,
                "toolCalls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls],
                "toolResult": None if self.tool_result is None else {
                    "toolCallId": self.tool_result.tool_call_id, "toolName": self.tool_result.tool_name,
                    "text": self.tool_result.text, "isError": self.tool_result.is_error},
                "usage": self.usage, "stopReason": self.stop_reason, "decodeError": self.decode_error}


@dataclass(frozen=True)
class MemoryToolCall:
    """A `memory_search` or `memory_get` call and what it returned. For a search: `query`, `max_results`,
    `min_score`, `corpus` as the model passed them (None when left out); for a get: `path`, `from_line`, `lines`.
    `result` is the tool's JSON (None when the call has no result yet or the text is not JSON)."""

    session_id: str
    session_key: str | None
    tool: str
    call_id: str | None
    arguments: dict[str, Any]
    called_at: str | None
    call_seq: int
    result_seq: int | None = None
    result_at: str | None = None
    result_text: str | None = None
    result: Any = None
    is_error: bool = False

    @property
    def query(self) -> str | None:
        value = self.arguments.get("query")
        return value if isinstance(value, str) else None

    @property
    def max_results(self) -> Any:
        return self.arguments.get("maxResults")

    @property
    def min_score(self) -> Any:
        return self.arguments.get("minScore")

    @property
    def corpus(self) -> Any:
        return self.arguments.get("corpus")

    @property
    def path(self) -> str | None:
        value = self.arguments.get("path")
        return value if isinstance(value, str) else None

    @property
    def from_line(self) -> Any:
        return self.arguments.get("from")

    @property
    def lines(self) -> Any:
        return self.arguments.get("lines")

    @property
    def hits(self) -> list[dict[str, Any]]:
        """A search's `results` list (empty for a get or an error)."""
        if isinstance(self.result, dict) and isinstance(self.result.get("results"), list):
            return [hit for hit in self.result["results"] if isinstance(hit, dict)]
        return []

    def to_json(self) -> dict[str, Any]:
        return {"sessionId": self.session_id, "sessionKey": self.session_key, "tool": self.tool,
                "callId": self.call_id, "arguments": self.arguments, "calledAt": self.called_at,
                "resultAt": self.result_at, "isError": self.is_error, "result": self.result,
                "resultText": None if self.result is not None else self.result_text}


# Reading ---------------------------------------------------------------------------------------------------------

def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return int(value)
    return None


def _entry(text: Any) -> dict[str, Any]:
    if not isinstance(text, str):
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _prompt_report(report: Any) -> dict[str, Any]:
    if not isinstance(report, dict):
        return {}
    return {k: v for k, v in report.items() if k not in ("tools", "skills")}


def list_sessions(path: Path) -> list[AgentSession]:
    """Every session window of the agent database at `path`, newest (updated) first."""
    with reading(path, "the sessions") as conn:
        return _list_sessions(conn)


def _list_sessions(conn: Any) -> list[AgentSession]:
    tables = table_names(conn)
    if "session_windows" not in tables:
        return []
    nodes: dict[str, tuple[str | None, dict[str, Any]]] = {}
    if "session_nodes" in tables:
        for key, current, entry_json in conn.execute(
                "SELECT session_key, current_session_id, entry_json FROM session_nodes"):
            nodes[key] = (current, _entry(entry_json))
    stats: dict[str, tuple[int, int, int, int | None, int | None]] = {}
    if "transcript_events" in tables:
        for sid, count, compressed, size, first, last in conn.execute(
                "SELECT session_id, COUNT(*), SUM(event_zstd IS NOT NULL), "
                "COALESCE(SUM(COALESCE(event_utf8_bytes, length(CAST(event_json AS BLOB)))), 0) + COUNT(*), "
                "MIN(created_at), MAX(created_at) FROM transcript_events GROUP BY session_id"):
            stats[sid] = (int(count), int(compressed or 0), int(size), _int(first), _int(last))
    active: dict[str, tuple[int, int]] = {}
    if "session_transcript_active_events" in tables and "transcript_events" in tables:
        for sid, count, size in conn.execute(
                "SELECT a.session_id, COUNT(*), COALESCE(SUM(COALESCE(e.event_utf8_bytes, "
                "length(CAST(e.event_json AS BLOB)))), 0) + COUNT(*) FROM session_transcript_active_events a "
                "JOIN transcript_events e ON e.session_id = a.session_id AND e.seq = a.event_seq "
                "WHERE a.context_eligible = 1 GROUP BY a.session_id"):
            active[sid] = (int(count), int(size))
    messages: dict[str, int] = {}
    if "session_transcript_index_state" in tables:
        for sid, count in conn.execute("SELECT session_id, active_message_count FROM session_transcript_index_state"):
            if _int(count) is not None:
                messages[sid] = int(count)
    sessions = []
    for row in conn.execute(
            "SELECT session_id, session_key, previous_session_id, reason, session_scope, created_at, updated_at, "
            "transcript_updated_at, status, chat_type, channel, model_provider, model FROM session_windows"):
        (sid, key, previous, reason, scope, created, updated, transcript_updated, status, chat_type, channel,
         provider, model) = row
        current_id, entry = nodes.get(key, (None, {}))
        current = current_id == sid
        use = entry if current else {}
        flush = use.get("memoryFlush") if isinstance(use.get("memoryFlush"), dict) else {}
        count, compressed, size, first, last = stats.get(sid, (0, 0, 0, None, None))
        if count == 0:
            size = 0
        active_count, active_size = active.get(sid, (0, 0))
        fresh = use.get("totalTokensFresh")
        sessions.append(AgentSession(
            key=key, session_id=sid, current=current, created_at_ms=_int(created), updated_at_ms=_int(updated),
            transcript_updated_at_ms=_int(transcript_updated), previous_session_id=previous, reason=reason,
            scope=scope, status=status, chat_type=chat_type or (use.get("chatType") if current else None),
            channel=channel, model_provider=provider or use.get("modelProvider"), model=model or use.get("model"),
            events=count, compressed_events=compressed, stored_bytes=size, active_events=active_count,
            active_messages=messages.get(sid), active_bytes=active_size, first_event_at_ms=first,
            last_event_at_ms=last, input_tokens=_int(use.get("inputTokens")),
            output_tokens=_int(use.get("outputTokens")), total_tokens=_int(use.get("totalTokens")),
            total_tokens_fresh=fresh if isinstance(fresh, bool) else None,
            context_tokens=_int(use.get("contextTokens")), compaction_count=_int(use.get("compactionCount")) or 0,
            memory_flush_compaction_count=_int(flush.get("compactionCount")),
            memory_flush_at_ms=_int(flush.get("at") if "at" in flush else use.get("memoryFlushAt")),
            entry={k: v for k, v in use.items() if k not in _ENTRY_BULKY},
            prompt_report=_prompt_report(use.get("systemPromptReport"))))
    sessions.sort(key=lambda s: (-(s.updated_at_ms or 0), s.key or "", s.session_id))
    return sessions


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content
                       if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str))
    return ""


def _event(session_id: str, seq: int, created: Any, utf8: Any, compressed: bool, text: str | None,
           error: str | None) -> TranscriptEvent:
    base = {"session_id": session_id, "seq": int(seq), "created_at_ms": _int(created), "utf8_bytes": _int(utf8),
            "compressed": compressed}
    if text is None:
        return TranscriptEvent(type=None, id=None, parent_id=None, timestamp=None, decode_error=error, **base)
    try:
        raw = json.loads(text)
    except ValueError as exc:
        return TranscriptEvent(type=None, id=None, parent_id=None, timestamp=None,
                               decode_error=f"not JSON: {exc}", **base)
    if not isinstance(raw, dict):
        return TranscriptEvent(type=None, id=None, parent_id=None, timestamp=None,
                               decode_error="not a JSON object", **base)
    head = {"type": raw.get("type"), "id": raw.get("id"), "parent_id": raw.get("parentId"),
            "timestamp": raw.get("timestamp") if isinstance(raw.get("timestamp"), str) else None, "raw": raw}
    message = raw.get("message")
    if raw.get("type") != "message" or not isinstance(message, dict):
        return TranscriptEvent(**head, **base)
    role = message.get("role")
    content = message.get("content")
    calls = tuple(ToolCall(part.get("id"), str(part.get("name")),
                           part.get("arguments") if isinstance(part.get("arguments"), dict) else {})
                  for part in (content if isinstance(content, list) else [])
                  if isinstance(part, dict) and part.get("type") == "toolCall")
    result = None
    if role == "toolResult":
        result = ToolResult(message.get("toolCallId"), message.get("toolName"), _text_of(content),
                            bool(message.get("isError")), message.get("details"))
    usage = message.get("usage") if isinstance(message.get("usage"), dict) else None
    return TranscriptEvent(**head, **base, role=role if isinstance(role, str) else None, text=_text_of(content),
                           tool_calls=calls, tool_result=result, usage=usage, stop_reason=message.get("stopReason"),
                           model=message.get("model"))


def read_transcript(path: Path, session_id: str) -> list[TranscriptEvent]:
    """The transcript events of `session_id` in `seq` order (all stored events, also those off the active path)."""
    with reading(path, "the sessions") as conn:
        return _read_transcript(conn, session_id)


def _read_transcript(conn: Any, session_id: str) -> list[TranscriptEvent]:
    if "transcript_events" not in table_names(conn):
        return []
    events = []
    for seq, event_json, event_zstd, utf8, created in conn.execute(
            "SELECT seq, event_json, event_zstd, event_utf8_bytes, created_at FROM transcript_events "
            "WHERE session_id = ? ORDER BY seq", (session_id,)):
        try:
            text, error = decode_event_payload(event_json, event_zstd, _int(utf8)), None
        except (ValueError, UnicodeDecodeError) as exc:
            text, error = None, str(exc)
        events.append(_event(session_id, seq, created, utf8, event_zstd is not None, text, error))
    return events


def memory_calls_in(events: list[TranscriptEvent], session_key: str | None = None) -> list[MemoryToolCall]:
    """The memory_search / memory_get calls of one transcript, each joined with its toolResult."""
    results = {e.tool_result.tool_call_id: e for e in events
               if e.tool_result is not None and e.tool_result.tool_call_id is not None}
    calls = []
    for event in events:
        for call in event.tool_calls:
            if call.name not in MEMORY_TOOLS:
                continue
            found = results.get(call.id) if call.id is not None else None
            result = found.tool_result if found is not None else None
            calls.append(MemoryToolCall(
                session_id=event.session_id, session_key=session_key, tool=call.name, call_id=call.id,
                arguments=call.arguments, called_at=event.timestamp, call_seq=event.seq,
                result_seq=found.seq if found is not None else None,
                result_at=found.timestamp if found is not None else None,
                result_text=result.text if result is not None else None,
                result=result.json if result is not None else None,
                is_error=result.is_error if result is not None else False))
    return calls


def memory_tool_calls(path: Path, session_id: str | None = None) -> list[MemoryToolCall]:
    """Every memory_search / memory_get call in the database (or in one session), oldest session first."""
    with reading(path, "the sessions") as conn:
        sessions = _list_sessions(conn)
        chosen = [s for s in sessions if session_id is None or s.session_id == session_id]
        chosen.sort(key=lambda s: (s.created_at_ms or 0, s.session_id))
        out: list[MemoryToolCall] = []
        for session in chosen:
            out += memory_calls_in(_read_transcript(conn, session.session_id), session.key)
        return out

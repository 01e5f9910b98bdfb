"""The agent's own memory calls: `Recall` (one numbered `memory_search` / `memory_get` call and what it got) and
the reader of 2026.4 JSONL transcripts.

* OpenClaw 2026.9 keeps transcripts in the agent database (`memtui.agentdb.sessions.memory_tool_calls`);
* OpenClaw 2026.4 in `<state>/agents/<id>/sessions/*.jsonl` (pi SessionManager lines: `message` entries whose
  assistant content holds `toolCall` blocks, answered by `toolResult` messages; reference §6.2):
  `jsonl_memory_calls(path)` reads one file, never writing it.

Listing an agent's calls (which files, which session keys) is `memtui.search.replay.agent_recalls`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.agentdb.sessions import MemoryToolCall, _event, memory_calls_in
from memtui.errors import MemtuiError

_ARCHIVE_SUFFIX = re.compile(r"\.jsonl\.(?:reset|deleted)\..*$")


@dataclass(frozen=True)
class Recall:
    """One memory tool call of the agent, numbered in the listing (1 = newest)."""

    index: int
    call: MemoryToolCall
    source: str
    """Where the call was read: the agent database, or the JSONL transcript's path."""

    @property
    def tool(self) -> str:
        return self.call.tool

    def hit_summaries(self) -> list[dict[str, Any]]:
        """The search's hits as `{path, startLine, endLine, score}` (rank = position + 1)."""
        out = []
        for hit in self.call.hits:
            out.append({"path": hit.get("path"), "startLine": hit.get("startLine"), "endLine": hit.get("endLine"),
                        "score": hit.get("score")})
        return out

    def get_outcome(self) -> dict[str, Any]:
        """For a memory_get: the status, the lines read (from, count) or the error, and the text's size; a result
        that is plain text (not JSON, not an error) is the text the agent read: status ok, `plainText` true."""
        result = self.call.result
        if not isinstance(result, dict):
            text = self.call.result_text or ""
            if not self.call.is_error and text.strip():
                return {"status": "ok", "path": self.call.path, "from": None, "lines": None, "truncated": False,
                        "nextFrom": None, "chars": len(text), "error": None, "plainText": True}
            return {"status": "error" if self.call.is_error else "no-result", "error": text.strip() or None}
        text = result.get("text") if isinstance(result.get("text"), str) else ""
        status = result.get("status") or ("error" if self.call.is_error or result.get("error") else "ok")
        return {"status": status, "path": result.get("path"), "from": result.get("from"),
                "lines": result.get("lines"), "truncated": bool(result.get("truncated")),
                "nextFrom": result.get("nextFrom"), "chars": len(text), "error": result.get("error")}

    def to_json(self) -> dict[str, Any]:
        c = self.call
        item: dict[str, Any] = {"index": self.index, "tool": c.tool, "callId": c.call_id, "sessionKey": c.session_key,
                                "sessionId": c.session_id, "calledAt": c.called_at, "resultAt": c.result_at,
                                "arguments": c.arguments, "isError": c.is_error, "source": self.source}
        if c.tool == "memory_search":
            hits = self.hit_summaries()
            item.update({"query": c.query, "maxResults": c.max_results, "minScore": c.min_score,
                         "corpus": c.corpus, "hitCount": len(hits), "hits": hits})
            if isinstance(c.result, dict) and c.result.get("error"):
                item["error"] = c.result.get("error")
            elif c.result is None and c.result_text is not None:
                item["error"] = c.result_text.strip()
        else:
            item.update({"path": c.path, "from": c.from_line, "lines": c.lines, "get": self.get_outcome()})
        return item


# 2026.4 JSONL -----------------------------------------------------------------------------------------------------

def jsonl_memory_calls(path: Path, session_key: str | None = None) -> list[MemoryToolCall]:
    """The memory_search / memory_get calls of one JSONL transcript, each with its toolResult. The session id is
    the header's `id` (else the file's name without `.jsonl` and any `.reset.<ts>` / `.deleted.<ts>`);
    `call_seq` / `result_seq` are 1-based line numbers. Lines that are not JSON objects are skipped."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise MemtuiError(f"cannot read the transcript {path}: {exc}") from None
    lines = raw.decode("utf-8", errors="replace").splitlines()
    session_id = _ARCHIVE_SUFFIX.sub("", path.name).removesuffix(".jsonl")
    for line in lines[:1]:
        try:
            head = json.loads(line)
        except ValueError:
            break
        if isinstance(head, dict) and head.get("type") == "session" and isinstance(head.get("id"), str):
            session_id = head["id"]
    events = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        event = _event(session_id, number, None, len(line.encode("utf-8")), False, line, None)
        if event.decode_error is None:
            events.append(event)
    return memory_calls_in(events, session_key)

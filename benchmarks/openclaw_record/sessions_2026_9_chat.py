"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for the OpenClaw 2026.9.6 session recorder.

It stands in for a model: `POST /v1/chat/completions` (streamed as SSE when the request asks for `stream`, else one
JSON body) answers from a script keyed by the text of the **last user message** of the request:

* a script is a list of steps; the step used is the number of assistant messages after that user message, so a
  turn walks its steps one model call at a time (tool call → the agent runs the tool → next request → next step);
* a step is `("tool", name, arguments)` or `("answer", text)`; `arguments` and `text` may be callables that get
  the request's messages (so `memory_get` can ask for the path `memory_search` returned, and the answer can quote it);
* past the end of a script, or for a user text with no script (a flush turn, a title request, …), it answers with
  the last answer step, or `NO_REPLY` for unknown prompts.

Every request is kept (`requests`: path, headers without credentials, parsed body, the reply sent, the wall clock).
The loop is bounded: after `max_requests` calls the server answers HTTP 429 and stops scripting.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = tuple[str, Any, Any] | tuple[str, Any]
SILENT = "NO_REPLY"
_SECRET_HEADERS = {"authorization", "api-key", "x-api-key", "cookie"}


def message_text(message: dict[str, Any]) -> str:
    """The text of a chat message (string content or the text parts of a list)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def last_user_index(messages: list[dict[str, Any]]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return i
    return None


INTERNAL_CONTEXT = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"


def script_turn(messages: list[dict[str, Any]], scripts: dict[str, Any]) -> tuple[str, int] | None:
    """The script for the request's turn and the index of the turn's user message, or None.

    The turn's user message is the last user message that is not OpenClaw's internal-context block (OpenClaw sends
    one after the user's text). OpenClaw wraps the user's text (a `[<weekday> <date> <time> <tz>] ` prefix, a
    `Runtime: …` trailer), so a script matches when its text is *contained* in that message; when several do (a
    summarization request quotes the conversation before its instruction), the one found last in the text wins."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") != "user":
            continue
        text = message_text(messages[i])
        if text.lstrip().startswith(INTERNAL_CONTEXT):
            continue
        found = [(text.rfind(key), key) for key in scripts if key in text]
        return (max(found)[1], i) if found else None
    return None


def tool_results(messages: list[dict[str, Any]], after: int) -> list[dict[str, Any]]:
    """The `role: tool` messages after index `after`, each as {tool_call_id, name, text, json}."""
    calls: dict[str, str] = {}
    out = []
    for message in messages[after + 1:]:
        for call in message.get("tool_calls") or []:
            calls[call.get("id", "")] = (call.get("function") or {}).get("name", "")
        if message.get("role") == "tool":
            text = message_text(message)
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            out.append({"tool_call_id": message.get("tool_call_id"), "name": calls.get(message.get("tool_call_id", "")),
                        "text": text, "json": parsed})
    return out


@dataclass
class Exchange:
    """One request and the reply the server sent."""

    at_ms: int
    path: str
    headers: dict[str, str]
    body: Any
    reply: dict[str, Any] | None
    script: str | None
    step: int | None

    def to_json(self) -> dict[str, Any]:
        return {"at_ms": self.at_ms, "path": self.path, "headers": self.headers, "body": self.body,
                "reply": self.reply, "script": self.script, "step": self.step}


@dataclass
class ChatServer:
    """The scripted server; `scripts` maps a user text to its steps."""

    scripts: dict[str, list[Step]]
    model: str = "scripted-1"
    max_requests: int = 200
    # script key -> prompt_tokens to report instead of chars/4 (to push a session over the flush threshold)
    reported_prompt_tokens: dict[str, int] = field(default_factory=dict)
    requests: list[Exchange] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: int = 0

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ChatServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                return

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _SECRET_HEADERS}
                with server._lock:
                    server.requests.append(Exchange(int(time.time() * 1000), self.path, headers, None, None, None,
                                                    None))
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.model, "object": "model",
                                                                 "owned_by": "scripted"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _SECRET_HEADERS}
                with server._lock:
                    over = len(server.requests) >= server.max_requests
                    exchange = Exchange(int(time.time() * 1000), self.path, headers, body, None, None, None)
                    server.requests.append(exchange)
                    if over or not self.path.rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
                        status = 429 if over else 404
                        exchange.reply = {"status": status}
                        self._send(status, {"error": {"message": "request limit reached" if over else "not found",
                                                      "type": "scripted"}})
                        return
                    reply, script, step = server.reply_for(body)
                    exchange.reply, exchange.script, exchange.step = reply, script, step
                    server._ids += 1
                    call_id = server._ids
                if body.get("stream"):
                    self._stream(reply, call_id, body, script)
                else:
                    self._send(200, server.completion(reply, call_id, body, script))

            def _stream(self, reply: dict[str, Any], call_id: int, body: dict[str, Any], script: str | None) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in server.chunks(reply, call_id, body, script):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # The script.

    def reply_for(self, body: dict[str, Any]) -> tuple[dict[str, Any], str | None, int | None]:
        """The reply ({"text"} or {"tool": name, "arguments": {...}}) for a request body."""
        messages = body.get("messages") or []
        found = script_turn(messages, self.scripts)
        if found is None:
            return {"text": SILENT}, None, None
        key, index = found
        steps = self.scripts[key]
        done = sum(1 for m in messages[index + 1:] if m.get("role") == "assistant")
        step = min(done, len(steps) - 1)
        if done >= len(steps):  # past the script: the last answer
            answers = [s for s in steps if s[0] == "answer"]
            chosen: Step = answers[-1] if answers else ("answer", "Done.")
        else:
            chosen = steps[step]
        after = tool_results(messages, index)
        if chosen[0] == "tool":
            args = chosen[2](after) if callable(chosen[2]) else chosen[2]
            return {"tool": chosen[1], "arguments": args}, key, step
        text = chosen[1](after) if callable(chosen[1]) else chosen[1]
        return {"text": text}, key, step

    def usage(self, body: dict[str, Any] | None, reply: dict[str, Any], script: str | None = None) -> dict[str, int]:
        """A token count in the request's size (chars / 4 of messages and tools), so the agent stores plausible
        numbers; `reported_prompt_tokens[script]` replaces the prompt count when set."""
        body = body or {}
        prompt_chars = len(json.dumps(body.get("messages") or [])) + len(json.dumps(body.get("tools") or []))
        completion_chars = len(json.dumps(reply))
        prompt, completion = prompt_chars // 4, max(1, completion_chars // 4)
        if script is not None and script in self.reported_prompt_tokens:
            prompt = self.reported_prompt_tokens[script]
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def completion(self, reply: dict[str, Any], call_id: int, body: dict[str, Any] | None = None,
                   script: str | None = None) -> dict[str, Any]:
        if "tool" in reply:
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{call_id}", "type": "function",
                "function": {"name": reply["tool"], "arguments": json.dumps(reply["arguments"])}}]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": reply["text"]}
            finish = "stop"
        return {"id": f"chatcmpl-{call_id}", "object": "chat.completion", "created": int(time.time()),
                "model": self.model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": self.usage(body, reply, script)}

    def chunks(self, reply: dict[str, Any], call_id: int, body: dict[str, Any],
               script: str | None = None) -> list[dict[str, Any]]:
        base = {"id": f"chatcmpl-{call_id}", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": self.model}
        out = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                     "finish_reason": None}]}]
        if "tool" in reply:
            out.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [{
                "index": 0, "id": f"call_{call_id}", "type": "function",
                "function": {"name": reply["tool"], "arguments": json.dumps(reply["arguments"])}}]},
                "finish_reason": None}]})
            finish = "tool_calls"
        else:
            out.append({**base, "choices": [{"index": 0, "delta": {"content": reply["text"]}, "finish_reason": None}]})
            finish = "stop"
        out.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        out.append({**base, "choices": [], "usage": self.usage(body, reply, script)})
        return out


"""`memtui mcp` on its raw stdio: every line gets an answer (JSON-RPC errors for what is not a message), no
traceback or argument on stderr, no hang on a FIFO, a huge query or a closed stdin."""

from __future__ import annotations

import fcntl
import json
import os
import queue
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import LATEST_PROTOCOL_VERSION
from store_paths import index_of

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


class RawServer:
    """`python -m memtui mcp` with line-level access to its stdin and stdout."""

    def __init__(self, tmp_path: Path, workspace: Path, *extra: str) -> None:
        self.stderr_path = tmp_path / "mcp-stderr.log"
        with open(self.stderr_path, "w") as errors:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "memtui", "mcp", "--state-dir", str(tmp_path / "state"), "--workspace",
                 str(workspace), "--provider", "none", *extra],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True, env=ENV)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.ids = iter(range(1, 1_000_000))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send_line(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def receive(self, timeout: float = 60) -> dict[str, Any]:
        return json.loads(self.lines.get(timeout=timeout))

    def request(self, method: str, params: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
        request_id = next(self.ids)
        self.send_line(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}))
        while True:
            answer = self.receive(timeout)
            if answer.get("id") == request_id:
                return answer

    def initialize(self) -> None:
        answer = self.request("initialize", {"protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {},
                                             "clientInfo": {"name": "raw-test", "version": "1"}})
        assert "result" in answer, answer
        self.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def call(self, tool: str, arguments: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": arguments}, timeout)

    def close_stdin_and_wait(self, timeout: float) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=timeout)

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8")


@pytest.fixture
def server(tmp_path: Path, workspace: Path) -> Iterator[RawServer]:
    raw = RawServer(tmp_path, workspace, "--no-watch")
    raw.initialize()
    yield raw
    if raw.process.poll() is None:
        raw.process.kill()
        raw.process.wait()


@pytest.mark.parametrize(("line", "code", "request_id"), [
    ("{this is not json", -32700, None),
    ("[" * 100_000, -32700, None),
    (json.dumps([{"jsonrpc": "2.0", "id": 5, "method": "tools/list"}]), -32600, None),
    (json.dumps({"id": 7, "method": "tools/list"}), -32600, 7),
    (json.dumps({"jsonrpc": "1.0", "id": "x", "method": "tools/list"}), -32600, "x"),
    (json.dumps({"jsonrpc": "2.0", "id": 8, "method": 42}), -32600, 8),
    ('"just a string"', -32600, None),
])
def test_every_line_that_is_not_a_message_gets_its_json_rpc_error(server: RawServer, line: str, code: int,
                                                                  request_id: Any) -> None:
    server.send_line(line)
    answer = server.receive(timeout=30)
    assert answer["jsonrpc"] == "2.0" and answer["id"] == request_id
    assert answer["error"]["code"] == code and answer["error"]["message"]
    listed = server.request("tools/list", {})
    assert sorted(tool["name"] for tool in listed["result"]["tools"]) == ["memory_get", "memory_search"]


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(("line", "code", "request_id", "words"), [
    ('{"jsonrpc": "2.0", "id": 1e308, "method": "ping"}', -32600, None, "not a number with a fraction or an exponent"),
    ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', -32600, None, "not a number with a fraction or an exponent"),
    ('{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600, None, "not null"),
    ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, None, "not a boolean"),
    ('{"jsonrpc": "2.0", "id": [], "method": "ping"}', -32600, None, "not an array"),
    ('{"jsonrpc": "2.0", "id": {}, "method": "ping"}', -32600, None, "not an object"),
    ('{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}', -32600, None, "lone surrogate"),
    ('{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "memory_search", "arguments": '
     f'{{"query": "x", "deep": {DEEP}}}}}}}', -32602, 9, "Invalid params: nested more than 200 levels deep"),
    (f'{{"jsonrpc": "2.0", "id": "p", "method": "ping", "extra": {DEEP}}}', -32600, "p", "nested more than 200"),
    (f'{{"jsonrpc": "2.0", "id": {DEEP}, "method": "ping"}}', -32600, None, "not an array"),
    (DEEP, -32600, None, "a batch"),
    ('{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "memory_search", "arguments": '
     f'{{"query": "x", "maxResults": {"7" * 5000}}}}}}}', -32602, 11, "an integer has more than 4300 digits"),
])
def test_odd_ids_and_json_too_deep_to_read_get_the_error_they_deserve(server: RawServer, line: str, code: int,
                                                                      request_id: Any, words: str) -> None:
    server.send_line(line)
    answer = server.receive(timeout=30)
    assert answer["id"] == request_id and answer["error"]["code"] == code
    assert words in answer["error"]["message"] and "not JSON" not in answer["error"]["message"]
    assert server.request("ping", {})["result"] == {}


def test_lone_surrogates_become_replacement_characters_and_get_answers(server: RawServer) -> None:
    server.send_line('{"jsonrpc": "2.0", "id": "name", "method": "tools/call", '
                     '"params": {"name": "memory_\\ud800", "arguments": {}}}')
    named = server.receive()
    assert named["id"] == "name" and named["result"]["isError"] is True
    assert named["result"]["content"][0]["text"].startswith("unknown tool 'memory_\ufffd'")
    server.send_line('{"jsonrpc": "2.0", "id": "query", "method": "tools/call", '
                     '"params": {"name": "memory_search", "arguments": {"query": "payment \\udc00webhook"}}}')
    searched = server.receive()
    assert searched["id"] == "query" and searched["result"]["isError"] is False
    assert searched["result"]["structuredContent"]["results"][0]["path"] == "memory/2026-11-28.md"


def test_a_notification_too_deep_to_read_is_not_answered(server: RawServer) -> None:
    server.send_line(f'{{"jsonrpc": "2.0", "method": "notifications/progress", "params": {{"deep": {DEEP}}}}}')
    server.send_line(json.dumps({"jsonrpc": "2.0", "id": "next", "method": "ping"}))
    assert server.receive(timeout=30) == {"jsonrpc": "2.0", "id": "next", "result": {}}


def test_an_internal_failure_is_an_internal_error_with_one_line_on_stderr(server: RawServer, tmp_path: Path,
                                                                         workspace: Path) -> None:
    assert server.call("memory_search", {"query": "payment webhook"})["result"]["isError"] is False
    # Another program breaks the index's schema through SQLite itself (so the server's connection sees it).
    conn = sqlite3.connect(index_of(tmp_path / "state", workspace))
    version = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = 'CREATE TABLE chunks (' WHERE name = 'chunks'")
    conn.execute(f"PRAGMA schema_version = {version + 1}")
    conn.commit()
    conn.close()
    secret_query = "the confidential merger codename"
    answer = server.call("memory_search", {"query": secret_query})
    assert answer["error"]["code"] == -32603, answer
    assert "malformed database schema" in answer["error"]["message"]
    assert "memtui index --force" in answer["error"]["message"]
    time.sleep(0.2)
    assert "Traceback" not in server.stderr and secret_query not in server.stderr
    assert len([line for line in server.stderr.splitlines() if "memory_search failed" in line]) == 1


def test_a_fifo_is_refused_at_once_and_the_server_exits_when_stdin_closes(server: RawServer,
                                                                          workspace: Path) -> None:
    os.mkfifo(workspace / "memory" / "x.md")
    answer = server.call("memory_get", {"path": "memory/x.md"}, timeout=30)
    assert json.loads(answer["result"]["content"][0]["text"])["error"] == (
        "path required: memory/x.md is not a regular file (a FIFO); refusing to open it")
    assert server.close_stdin_and_wait(timeout=30) == 0


def test_a_long_path_error_names_no_absolute_path(server: RawServer, workspace: Path) -> None:
    answer = server.call("memory_get", {"path": "memory/" + "n" * 300 + ".md"})
    text = answer["result"]["content"][0]["text"]
    assert json.loads(text)["error"] == "not readable (File name too long)"
    assert str(workspace) not in text


def test_a_100000_word_query_is_answered(server: RawServer) -> None:
    query = " ".join(f"word{i}" for i in range(100_000)) + " payment webhook"
    answer = server.call("memory_search", {"query": query}, timeout=60)
    assert answer["result"]["isError"] is False


def test_the_server_exits_when_stdin_closes_during_a_call_that_waits(tmp_path: Path, workspace: Path) -> None:
    lock_path = Path(f"{index_of(tmp_path / 'state', workspace)}.lock")
    lock_path.parent.mkdir(parents=True)
    with open(lock_path, "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # another process is indexing, and goes on for a long time
        raw = RawServer(tmp_path, workspace, "--no-watch")
        try:
            raw.initialize()
            request_id = next(raw.ids)
            raw.send_line(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                      "params": {"name": "memory_search", "arguments": {"query": "payment"}}}))
            time.sleep(1.0)
            started = time.monotonic()
            raw.close_stdin_and_wait(timeout=30)
            assert time.monotonic() - started < 15
        finally:
            if raw.process.poll() is None:
                raw.process.kill()
                raw.process.wait()


def test_errors_for_lines_just_before_the_end_of_stdin_are_still_written(tmp_path: Path, workspace: Path) -> None:
    init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    lines = [init, "{not json", json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]),
             json.dumps({"id": 2, "method": "tools/list"})]
    done = subprocess.run([sys.executable, "-m", "memtui", "mcp", "--no-watch", "--state-dir", str(tmp_path / "state"),
                           "--workspace", str(workspace), "--provider", "none"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=60, env=ENV)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(a.get("id"), a.get("error", {}).get("code")) for a in answers] == [(0, None), (None, -32700),
                                                                                 (None, -32600), (2, -32600)]
    assert done.returncode == 0 and "Traceback" not in done.stderr

"""`memtui mcp` under pipelined load, on its raw stdio: tool calls wait in a bounded queue for a few worker
threads instead of taking a thread each, a ping is answered while calls are stuck, every request is answered
exactly once (also when the client closes stdin right after writing), notifications are never answered."""

from __future__ import annotations

import fcntl
import json
import queue
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import LATEST_PROTOCOL_VERSION
from store_paths import index_of
from test_mcp_protocol import ENV, RawServer

from memtui.mcp_server import QUEUE_LIMIT

# Far below one thread per request: the workers, the stdin reader and the SDK's few.
THREAD_BOUND = 24


def threads_of(process: subprocess.Popen[str]) -> int:
    """The number of threads the server runs now."""
    status = Path(f"/proc/{process.pid}/status").read_text(encoding="utf-8")
    return int(next(line for line in status.splitlines() if line.startswith("Threads:")).split()[1])


def search_line(request_id: int, query: str = "payment webhook") -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": "memory_search", "arguments": {"query": query}}})


def run_lines(tmp_path: Path, workspace: Path, lines: list[str]) -> list[dict[str, Any]]:
    """Every answer of a server fed `lines` (after `initialize`) on a stdin closed at their end."""
    init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    initialized = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    done = subprocess.run([sys.executable, "-m", "memtui", "mcp", "--no-watch", "--state-dir", str(tmp_path / "state"),
                           "--workspace", str(workspace), "--provider", "none"],
                          input="\n".join([init, initialized, *lines]) + "\n", capture_output=True, text=True,
                          timeout=300, env=ENV)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_calls_stuck_on_a_lock_queue_up_on_a_few_threads_and_a_ping_still_answers(tmp_path: Path,
                                                                                 workspace: Path) -> None:
    lock_path = Path(f"{index_of(tmp_path / 'state', workspace)}.lock")
    lock_path.parent.mkdir(parents=True)
    with open(lock_path, "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # another process is indexing: every search waits for it
        raw = RawServer(tmp_path, workspace, "--no-watch")
        _stuck_then_released(raw, lock.fileno())


def _stuck_then_released(raw: RawServer, lock: int) -> None:
    try:
        raw.initialize()
        for request_id in range(1, QUEUE_LIMIT + 1):  # as many as may be owed: the queue is full
            raw.send_line(search_line(request_id))
        ping = raw.request("ping", {})
        assert ping["result"] == {}  # the first answer to come: every search is still waiting
        stuck_threads = threads_of(raw.process)

        def write_more() -> None:  # more than the queue holds: the server stops reading, this thread waits
            for request_id in range(QUEUE_LIMIT + 1, 601):
                raw.send_line(search_line(request_id))

        writer = threading.Thread(target=write_more, daemon=True)
        writer.start()
        fcntl.flock(lock, fcntl.LOCK_UN)
        answers = [raw.receive(timeout=120) for _ in range(600)]
        writer.join(timeout=60)
        assert stuck_threads <= THREAD_BOUND
        assert threads_of(raw.process) <= THREAD_BOUND
        assert Counter(answer["id"] for answer in answers) == Counter(range(1, 601))
        assert all(answer["result"]["isError"] is False for answer in answers)
        assert raw.close_stdin_and_wait(timeout=30) == 0
    finally:
        if raw.process.poll() is None:
            raw.process.kill()
            raw.process.wait()


def test_a_client_that_closes_stdin_right_after_writing_gets_every_answer(tmp_path: Path, workspace: Path) -> None:
    lines = [search_line(n, "Redis session cache" if n % 2 else "payment webhook") for n in range(1, 401)]
    lines.append(json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"}))
    answers = run_lines(tmp_path, workspace, lines)
    assert Counter(answer["id"] for answer in answers) == Counter([0, *range(1, 401), "last"])
    by_id = {answer["id"]: answer for answer in answers}
    assert all(by_id[n]["result"]["isError"] is False for n in range(1, 401))
    assert by_id[1]["result"]["structuredContent"]["results"][0]["path"] == "memory/2026-11-27.md"
    assert by_id[2]["result"]["structuredContent"]["results"][0]["path"] == "memory/2026-11-28.md"


def test_ten_thousand_notifications_are_never_answered_and_the_ping_after_them_is(tmp_path: Path,
                                                                                 workspace: Path) -> None:
    notifications = [{"method": "notifications/initialized"}, {"method": "notifications/roots/list_changed"},
                     {"method": "notifications/cancelled", "params": {"requestId": 12345}},
                     {"method": "notifications/progress", "params": {"progressToken": 1, "progress": 0.5}}]
    lines = [json.dumps({"jsonrpc": "2.0", **notifications[n % 4]}) for n in range(10_000)]
    lines.append(json.dumps({"jsonrpc": "2.0", "id": "after", "method": "ping"}))
    answers = run_lines(tmp_path, workspace, lines)
    assert [answer["id"] for answer in answers] == [0, "after"]
    assert answers[1]["result"] == {}


def test_a_cancelled_call_is_never_answered_and_does_not_hold_up_the_exit(tmp_path: Path, workspace: Path) -> None:
    lock_path = Path(f"{index_of(tmp_path / 'state', workspace)}.lock")
    lock_path.parent.mkdir(parents=True)
    with open(lock_path, "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        raw = RawServer(tmp_path, workspace, "--no-watch")
        try:
            raw.initialize()
            for request_id in range(1, 11):
                raw.send_line(search_line(request_id))
            raw.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                      "params": {"requestId": 10, "reason": "the user gave up"}}))
            assert raw.request("ping", {})["result"] == {}
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
            answers = [raw.receive(timeout=120) for _ in range(9)]
            assert raw.close_stdin_and_wait(timeout=30) == 0
            assert sorted(answer["id"] for answer in answers) == list(range(1, 10))
            with pytest.raises(queue.Empty):  # nothing for the cancelled call
                raw.lines.get(timeout=2)
        finally:
            if raw.process.poll() is None:
                raw.process.kill()
                raw.process.wait()


def test_a_ten_megabyte_path_is_refused_with_a_short_clear_message(tmp_path: Path, workspace: Path) -> None:
    raw = RawServer(tmp_path, workspace, "--no-watch")
    try:
        raw.initialize()
        answer = raw.call("memory_get", {"path": "memory/" + "a" * 10_000_000 + ".md"})
        assert answer["result"]["isError"] is True
        assert answer["result"]["content"][0]["text"] == (
            "memory_get: path is too long: 10,000,010 characters (at most 4,096)")
        listed = raw.request("tools/list", {})
        assert len(listed["result"]["tools"]) == 2
    finally:
        raw.process.kill()
        raw.process.wait()

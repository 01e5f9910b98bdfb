"""`memtui mcp` bounds a line (issue 29, item 5): a line over `MAX_LINE_BYTES` is dropped as it streams, never held
whole, and answered with a JSON-RPC error that says the limit (with the id its first bytes give, else null)."""

from __future__ import annotations

import json
from pathlib import Path

from test_mcp_protocol import RawServer

from memtui.mcp_server import MAX_LINE_BYTES
from memtui.mcp_server.lines import HEAD_BYTES, LineCutter, Oversized, check_oversized


def _status(raw: RawServer) -> dict[str, int]:
    """VmRSS and VmHWM (the peak) of the server, in KB."""
    lines = Path(f"/proc/{raw.process.pid}/status").read_text(encoding="utf-8").splitlines()
    return {line.split(":")[0]: int(line.split()[1]) for line in lines if line.startswith(("VmRSS", "VmHWM"))}


def test_the_cutter_drops_a_line_over_the_limit_as_it_streams() -> None:
    cutter = LineCutter(limit=100)
    assert cutter.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    got = []
    for _ in range(50):  # 5,000 bytes of one line, never held
        got += cutter.feed(b"x" * 100)
        assert len(cutter._pending) <= 100
    got += cutter.feed(b'"}\n{"c":3}\n')
    # The head is what had come when the line went over (the real limit is far above HEAD_BYTES).
    assert got == [Oversized(4 + 5_000 + 2, b'{"b"' + b"x" * 100), b'{"c":3}']
    big = LineCutter(limit=2 * HEAD_BYTES)
    assert big.feed(b"y" * (3 * HEAD_BYTES) + b"\n") == [Oversized(3 * HEAD_BYTES, b"y" * HEAD_BYTES)]
    assert cutter.feed(b"x" * 101) == [] and cutter.end() == [Oversized(101, b"x" * 101)]
    assert cutter.end() == []


def test_the_error_says_the_limit_and_carries_the_id_when_the_head_gives_it() -> None:
    early = check_oversized(Oversized(20_000_000, b'{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"na'))
    assert early.error is not None and early.error.id == 42 and early.error.error.code == -32600
    assert early.error.error.message == (f"Invalid Request: the line is 20,000,000 bytes, over the limit of "
                                         f"{MAX_LINE_BYTES:,} bytes for one message; it was not read")
    for head in (b'{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"query":"aaaa',  # the id comes later
                 b'{"jsonrpc":"2.0","id":12', b'{"id":1.5,', b'{"id":true,', b"not json at all", b'[{"id":3,'):
        refused = check_oversized(Oversized(MAX_LINE_BYTES + 1, head))
        assert refused.error is not None and refused.error.id is None, head


def test_a_line_over_the_limit_is_answered_without_being_held(tmp_path: Path, workspace: Path) -> None:
    raw = RawServer(tmp_path, workspace, "--no-watch")
    try:
        raw.initialize()
        before = _status(raw)["VmRSS"]
        assert raw.process.stdin is not None
        size = 64 << 20
        head = '{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"memory_search","arguments":' \
               '{"query":"'
        raw.process.stdin.write(head)
        for _ in range(size >> 20):
            raw.process.stdin.write("a" * (1 << 20))
        raw.process.stdin.write('"}}}\n')
        raw.process.stdin.flush()
        answer = raw.receive()
        assert answer["id"] == "long" and answer["error"]["code"] == -32600
        assert f"over the limit of {MAX_LINE_BYTES:,} bytes" in answer["error"]["message"]
        assert f"the line is {len(head) + size + 4:,} bytes" in answer["error"]["message"]
        # Held whole, the line alone would be 64 MB (and its parse several times that).
        assert _status(raw)["VmHWM"] - before < 40_000
        late = json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {
            "name": "memory_search", "arguments": {"query": "b" * (MAX_LINE_BYTES + 10)}}, "id": 7})
        raw.send_line(late)
        answer = raw.receive()
        assert answer["id"] is None and "over the limit" in answer["error"]["message"]
        assert raw.call("memory_search", {"query": "payment webhook"})["result"]["isError"] is False
    finally:
        raw.process.kill()
        raw.process.wait()

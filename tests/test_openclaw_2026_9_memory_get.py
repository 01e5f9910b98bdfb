"""`memory_get` on a 2026.9 agent answers in 2026.9.6's shape: the three calls the real agent made in the recorded
sessions (`tests/data/openclaw-2026.9.6/sessions/chat_requests.json`: calls 2, 8 and 13 — `status` "ok" first, a
file's final newline ends its last line, `status` "not_found" for a missing file) come back byte for byte through
the MCP server; a 2026.4 agent keeps 2026.4's shape; `memtui get` of a missing file says so and fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openclaw_2026_9_data import RECORDING, build_agent

from memtui.cli import main as cli_main
from memtui.jscompat import js_stringify
from memtui.manager import MemoryManager
from memtui.mcp_server import call_memory_get
from memtui.settings.agent import resolve_agent
from memtui.tools import memory_get

CALLS = ("call2", "call8", "call13")


def _recorded_gets() -> list[tuple[dict[str, Any], str]]:
    """(the arguments of each recorded memory_get, the tool result text the agent sent back to the model)."""
    requests = json.loads((RECORDING / "sessions" / "chat_requests.json").read_text(encoding="utf-8"))["requests"]
    arguments: dict[str, dict[str, Any]] = {}
    results: dict[str, str] = {}
    for request in requests:
        for message in request["body"]["messages"]:
            for call in message.get("tool_calls") or ():
                if call["function"]["name"] == "memory_get":
                    arguments[call["id"]] = json.loads(call["function"]["arguments"])
            if message.get("role") == "tool":
                results[message["tool_call_id"].replace("_", "")] = message["content"]
    return [(arguments[call], results[call]) for call in CALLS]


def test_the_recorded_memory_get_calls_come_back_as_2026_9_6_answered_them(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    agent = build_agent(tmp_path / "install")
    recorded = _recorded_gets()
    assert [json.loads(text)["status"] for _, text in recorded] == ["ok", "ok", "not_found"]
    with MemoryManager(resolve_agent(state_dir=str(agent.state), provider="none")) as manager:
        for arguments, text in recorded:
            assert js_stringify(call_memory_get(manager, arguments), 2) == text, arguments


def test_a_2026_4_agent_keeps_the_2026_4_shape(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("one\ntwo\n", encoding="utf-8")
    assert memory_get(workspace, "memory/missing.md") == {"text": "", "path": "memory/missing.md"}
    assert memory_get(workspace, "memory/a.md") == {"text": "one\ntwo\n", "path": "memory/a.md", "from": 1,
                                                    "lines": 3}
    assert memory_get(workspace, "notes.txt")["disabled"] is True
    assert memory_get(workspace, "memory/a.md", generation="2026.9") == {
        "status": "ok", "text": "one\ntwo", "path": "memory/a.md", "from": 1, "lines": 2}
    assert memory_get(workspace, "memory/a.md", from_line=2, lines=1, generation="2026.9") == {
        "status": "ok", "text": "two", "path": "memory/a.md", "from": 2, "lines": 1}
    assert memory_get(workspace, "notes.txt", generation="2026.9") == {
        "path": "notes.txt", "text": "", "status": "error", "code": "MEMORY_PATH_NOT_ALLOWED",
        "error": "path is not an allowed Markdown memory file"}


def test_memtui_get_of_a_missing_file_says_not_found(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    agent = build_agent(tmp_path / "install")
    common = ["--state-dir", str(agent.state), "--provider", "none"]
    assert cli_main(["get", "memory/does-not-exist.md", *common]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "memory/does-not-exist.md: not found" in err
    assert cli_main(["get", "memory/does-not-exist.md", "--json", *common]) == 1
    assert json.loads(capsys.readouterr().out) == {"status": "not_found", "text": "",
                                                   "path": "memory/does-not-exist.md"}
    assert cli_main(["get", "memory/2026-11-24.md", *common]) == 0
    assert capsys.readouterr().out.startswith("# 2026-11-24")

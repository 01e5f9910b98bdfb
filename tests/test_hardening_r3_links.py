"""Hard links (issue 29, item 3): memtui never writes to a file that has another hard link, so a note, a
promotion or a save cannot change a file outside the workspace through a link inside it; and it never reads
one either (`get`, MCP `memory_get`, the indexer), saying why, since the other link may be that outside file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from memtui.atomic import EscapeError, atomic_write_text
from memtui.tui.curation import append_note, promote_lines, save_memory_file

DAY = date(2026, 4, 28)
LOG = "memory/2026-04-28.md"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# Not memtui's\n\n- keep out\n", encoding="utf-8")
    return secret


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "memory").mkdir(parents=True)
    return folder


def test_a_note_into_a_hard_linked_daily_log_is_refused(workspace: Path, outside: Path) -> None:
    before = outside.read_bytes()
    os.link(outside, workspace / LOG)
    with pytest.raises(EscapeError, match=re.escape(f"{LOG} has 2 hard links; refusing to write to it")):
        append_note(workspace, DAY, "A note that must not land outside.")
    assert outside.read_bytes() == before


def test_a_promotion_into_a_hard_linked_memory_md_is_refused(workspace: Path, outside: Path) -> None:
    before = outside.read_bytes()
    os.link(outside, workspace / "MEMORY.md")
    (workspace / LOG).write_text("# 2026-04-28\n\n- A line to promote.\n", encoding="utf-8")
    with pytest.raises(EscapeError, match=r"MEMORY\.md has 2 hard links"):
        promote_lines(workspace, path=LOG, start_line=3, end_line=3, text="- A line to promote.", day=DAY)
    assert outside.read_bytes() == before


def test_a_save_over_a_hard_linked_note_is_refused_and_the_link_kept(workspace: Path, outside: Path) -> None:
    before = outside.read_bytes()
    os.link(outside, workspace / LOG)
    with pytest.raises(EscapeError, match="hard links"):
        save_memory_file(workspace, LOG, "# replaced\n", expected_digest=False)
    os.link(outside, workspace / "MEMORY.md")
    with pytest.raises(EscapeError, match="hard links"):
        atomic_write_text(workspace / "MEMORY.md", "x\n", root=workspace)
    assert outside.read_bytes() == before
    assert os.stat(workspace / LOG).st_ino == os.stat(outside).st_ino  # not split off either


# -- reads ----------------------------------------------------------------------------------------------------

REFUSAL = "has 2 hard links; refusing to read it (the other links may lie outside the workspace"


def _cli(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(workspace.parent / "state"),
                           "--workspace", str(workspace), "--provider", "none"],
                          capture_output=True, text=True, timeout=120)


def _mcp_get(workspace: Path, path: str) -> dict[str, object]:
    """One `memory_get` through a real `memtui mcp` (stdin kept open until it answers)."""
    server = subprocess.Popen([sys.executable, "-m", "memtui", "mcp", "--no-watch", "--state-dir",
                               str(workspace.parent / "state"), "--workspace", str(workspace), "--provider", "none"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdin is not None and server.stdout is not None
    messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_get",
                                                                       "arguments": {"path": path}}}]
    answer: dict[str, object] = {}
    for message in messages:
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
    server.stdin.close()
    assert server.wait(timeout=60) == 0
    return json.loads(answer["result"]["content"][0]["text"])  # type: ignore[index]


@pytest.mark.parametrize("rel", ["memory/hard.md", "memory/sub/hard.md", "MEMORY.md"])
def test_get_refuses_a_hard_link_and_says_why(workspace: Path, outside: Path, rel: str) -> None:
    (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
    os.link(outside, workspace / rel)
    done = _cli(workspace, "get", rel)
    assert done.returncode == 1 and "keep out" not in done.stdout + done.stderr
    assert done.stderr.splitlines() == [f"memtui: error: {rel} {REFUSAL}; copy it to a file of its own first)"]
    answer = json.loads(_cli(workspace, "get", rel, "--json").stdout)
    assert answer == {"path": rel, "text": "", "disabled": True,
                      "error": f"path required: {rel} {REFUSAL}; copy it to a file of its own first)"}


def test_mcp_memory_get_refuses_a_hard_link_in_an_extra_path(workspace: Path, outside: Path) -> None:
    (workspace.parent / "state").mkdir()
    (workspace.parent / "state" / "openclaw.json").write_text(json.dumps(
        {"agents": {"defaults": {"memorySearch": {"extraPaths": ["notes"]}}}}), encoding="utf-8")
    (workspace / "notes").mkdir()
    (workspace / "notes" / "own.md").write_text("- an ordinary note\n", encoding="utf-8")
    os.link(outside, workspace / "notes" / "hard.md")
    refused = _mcp_get(workspace, "notes/hard.md")
    assert refused["text"] == "" and refused["disabled"] is True
    assert str(refused["error"]).startswith(f"path required: notes/hard.md {REFUSAL}")
    assert _mcp_get(workspace, "notes/own.md")["text"] == "- an ordinary note\n"


def test_the_indexer_skips_a_hard_link_says_so_and_indexes_it_once_it_is_a_file_of_its_own(
        workspace: Path, outside: Path) -> None:
    (workspace / "memory" / "2026-04-27.md").write_text("- the harbour ferry leaves at nine\n", encoding="utf-8")
    hard = workspace / "memory" / "hard.md"
    os.link(outside, hard)
    assert _cli(workspace, "index").returncode == 0
    assert json.loads(_cli(workspace, "search", "keep out", "--json").stdout)["results"] == []
    assert [r["path"] for r in json.loads(_cli(workspace, "search", "harbour ferry", "--json").stdout)["results"]] \
        == ["memory/2026-04-27.md"]
    issues = json.loads(_cli(workspace, "status", "--json").stdout)["issues"]
    assert {"path": "memory/hard.md", "reason": f"memory/hard.md {REFUSAL}; copy it to a file of its own "
            "first); skipped"} in issues
    # what the message says to do: a copy of its own (the outside file keeps its bytes and its one link)
    shutil.copyfile(hard, workspace / "memory" / "hard.md.copy")
    os.replace(workspace / "memory" / "hard.md.copy", hard)
    assert _cli(workspace, "index").returncode == 0
    assert [r["path"] for r in json.loads(_cli(workspace, "search", "keep out", "--json").stdout)["results"]] \
        == ["memory/hard.md"]
    assert os.stat(outside).st_nlink == 1

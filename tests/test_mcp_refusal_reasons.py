"""A refusal says why (issue 29, item 8): MCP `memory_get` of a path outside the memory files answers OpenClaw's
"path required" with the reason, as its other refusals do, and `memtui get` names the path once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_mcp_protocol import ENV, RawServer

RULE = "memory_get reads MEMORY.md, DREAMS.md, memory/**/*.md and the extra paths (.md only, relative to the workspace)"


@pytest.mark.parametrize(("path", "why"), [
    ("/dev/zero", "is an absolute path"),
    ("../outside.md", "leads out of the memory files"),
    ("memory/notes.txt", "is not a .md file"),
    ("USER.md", "is not a memory file"),
])
def test_memory_get_outside_the_memory_files_says_why(tmp_path: Path, workspace: Path, path: str, why: str) -> None:
    (tmp_path / "outside.md").write_text("outside\n", encoding="utf-8")
    raw = RawServer(tmp_path, workspace, "--no-watch")
    try:
        raw.initialize()
        answer = raw.call("memory_get", {"path": path})
    finally:
        raw.process.kill()
        raw.process.wait()
    assert answer["result"]["isError"] is False
    assert json.loads(answer["result"]["content"][0]["text"]) == {
        "path": path, "text": "", "disabled": True, "error": f"path required: {path} {why}; {RULE}"}


def test_memtui_get_names_a_refused_path_once(tmp_path: Path, workspace: Path) -> None:
    os.symlink("2026-11-28.md", workspace / "memory" / "link.md")
    done = subprocess.run([sys.executable, "-m", "memtui", "get", "memory/link.md", "--state-dir",
                           str(tmp_path / "state"), "--workspace", str(workspace)],
                          capture_output=True, text=True, timeout=60, env=ENV)
    assert done.returncode == 1
    assert done.stderr == "memtui: error: memory/link.md is a symlink; refusing to follow it\n"

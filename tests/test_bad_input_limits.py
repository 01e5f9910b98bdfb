"""Input at the limits (deep JSON, deep folders, deep config, nonsense chunking, a damaged page mid-search):
one clear line, and everything else still indexed."""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from store_paths import index_of

from memtui.index.events import IndexEvent
from memtui.index.watcher import MemoryWatcher
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
SESSIONS_CONFIG = {"agents": {"defaults": {"memorySearch": {"sources": ["memory", "sessions"],
                                                            "experimental": {"sessionMemory": True}}}}}


def _cli(state: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(state), "--workspace",
                           str(workspace), "--provider", "none"], capture_output=True, text=True, timeout=120, env=ENV)


def _one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: error: "), done.stderr
    return lines[0]


def test_a_transcript_line_of_100000_brackets_is_skipped_and_the_rest_indexed(tmp_path: Path,
                                                                            workspace: Path) -> None:
    state = tmp_path / "state"
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (state / "openclaw.json").write_text(json.dumps(SESSIONS_CONFIG), encoding="utf-8")
    (sessions / "sessions.json").write_text(json.dumps({"agent:main:main": {"sessionId": "s1", "updatedAt": 1}}))
    message = {"type": "message", "message": {"role": "user", "content": "Where is the heron playbook?"}}
    (sessions / "s1.jsonl").write_text("\n".join([json.dumps({"type": "session", "id": "s1"}), "[" * 100_000,
                                                  json.dumps(message)]) + "\n", encoding="utf-8")
    indexed = _cli(state, workspace, "index", "--verbose")
    assert indexed.returncode == 0, indexed.stderr
    assert "sessions/s1.jsonl: malformed JSON (nested more than 200 levels deep); line skipped" in indexed.stdout
    searched = _cli(state, workspace, "search", "heron playbook", "--json")
    assert searched.returncode == 0, searched.stderr
    assert json.loads(searched.stdout)["results"][0]["path"] == "sessions/s1.jsonl"
    listed = _cli(state, workspace, "sessions")
    assert "Traceback" not in listed.stderr and "agent:main:main" in listed.stdout


def _nest(root: Path, levels: int) -> Path:
    """`root/d/d/…/d` made one level at a time (os.makedirs itself recurses once per level)."""
    folder = root
    for _ in range(levels):
        folder = folder / "d"
        os.mkdir(folder)
    return folder


def _unnest(root: Path) -> None:
    """Remove `root/d/d/…` from the bottom up (shutil.rmtree, and so pytest's clean-up, recurse per level)."""
    chain = [root / "d"]
    while (chain[-1] / "d").is_dir():
        chain.append(chain[-1] / "d")
    for folder in reversed(chain):
        for entry in folder.iterdir():
            if not entry.is_dir():
                entry.unlink()
        folder.rmdir()


def test_a_memory_folder_1100_levels_deep_is_indexed_and_watched(make_env: Callable[..., AgentEnv],
                                                                 workspace: Path) -> None:
    deepest = _nest(workspace / "memory", 1100)
    (deepest / "bottom.md").write_text("- The bottom note mentions the lanternfish.\n", encoding="utf-8")
    try:
        _index_and_watch_deep(make_env, deepest)
    finally:
        _unnest(workspace / "memory")


def _index_and_watch_deep(make_env: Callable[..., AgentEnv], deepest: Path) -> None:
    with MemoryManager(make_env()) as manager:
        report = manager.sync()
        assert report.files_total == 5 and not report.issues
        assert [h.path.rsplit("/", 1)[-1] for h in manager.search("lanternfish").results] == ["bottom.md"]
        events: queue.Queue[IndexEvent] = queue.Queue()
        manager.subscribe(events.put)
        watcher = MemoryWatcher(manager, debounce_ms=200)
        watcher.start()
        try:
            (deepest / "newer.md").write_text("- A newer note about the anglerfish.\n", encoding="utf-8")
            while (event := events.get(timeout=20)).kind != "finished" or event.reason != "watch":
                assert event.kind != "failed", event.error
            assert [h.path.rsplit("/", 1)[-1] for h in manager.search("anglerfish").results] == ["newer.md"]
        finally:
            watcher.stop()
            manager.wait_idle(timeout=20)


@pytest.mark.parametrize("opener", ["{\"a\": ", "["])
def test_a_config_nested_1000_levels_is_a_one_line_error(tmp_path: Path, workspace: Path, opener: str) -> None:
    state = tmp_path / "state"
    state.mkdir()
    closer = "}" if opener.startswith("{") else "]"
    (state / "openclaw.json").write_text('{"agents": {"defaults": {"memorySearch": {"x": '
                                         + opener * 1000 + "1" + closer * 1000 + "}}}}", encoding="utf-8")
    line = _one_line_error(_cli(state, workspace, "status"))
    assert "openclaw.json: invalid JSON5: nested" in line


@pytest.mark.parametrize(("chunking", "says"), [({"tokens": 0}, "chunking.tokens must be a whole number"),
                                                ({"tokens": -5}, "chunking.tokens must be a whole number"),
                                                ({"tokens": 100, "overlap": 100}, "chunking.overlap must be")])
def test_nonsense_chunking_is_refused_by_every_command(tmp_path: Path, workspace: Path, chunking: dict[str, int],
                                                       says: str) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "chunking": chunking}}}}), encoding="utf-8")
    for command in (["index"], ["search", "payment"], ["status"]):
        assert says in _one_line_error(_cli(state, workspace, *command))


def test_a_page_damaged_after_opening_is_a_one_line_error_that_says_what_to_do(tmp_path: Path,
                                                                               workspace: Path) -> None:
    state = tmp_path / "state"
    for i in range(300):
        (workspace / "memory" / f"2026-07-{i % 28 + 1:02d}-n{i}.md").write_text(
            f"# Note {i}\n\n" + "\n".join(f"- the heliotrope line {i}.{j}" for j in range(30)) + "\n")
    assert _cli(state, workspace, "index").returncode == 0
    index = index_of(state, workspace)
    conn = sqlite3.connect(index)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'chunks'").fetchone()[0]
    conn.close()
    with open(index, "r+b") as handle:  # garble the chunks table's root page, keep the schema page intact
        handle.seek((root - 1) * page_size)
        handle.write(b"\xff" * page_size)
    line = _one_line_error(_cli(state, workspace, "search", "heliotrope"))
    assert "memtui index --force" in line
    assert _cli(state, workspace, "index", "--force").returncode == 0
    searched = json.loads(_cli(state, workspace, "search", "heliotrope", "--json").stdout)
    assert searched["results"]

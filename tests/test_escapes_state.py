"""Reads the first issue-15 pass missed: transcripts and sessions.json in the state dir, `status`'s freshness
check, a file swapped for a FIFO or a symlink between listing and reading; SQLite errors that are not damage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from memtui.errors import unexpected_message
from memtui.index import freshness, transcripts
from memtui.index.session_deltas import SessionDeltaTracker
from memtui.index.store import sqlite_driver
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv
from memtui.settings.values import DEFAULT_GET_LINES, DEFAULT_GET_MAX_CHARS
from memtui.tools import read_window

SECRET = "outside secret: zanzibarquux"
SESSIONS_CONFIG = {"agents": {"defaults": {"memorySearch": {"sources": ["memory", "sessions"],
                                                            "experimental": {"sessionMemory": True}}}}}
TRANSCRIPT = ('{"type":"session","version":3,"id":"s1","timestamp":"2026-11-29T10:00:00Z"}\n'
              '{"type":"message","id":"m1","parentId":null,"timestamp":"2026-11-29T10:00:00Z",'
              '"message":{"role":"user","content":"the kiwi harvest starts monday","timestamp":1764410400000}}\n')


@pytest.fixture
def sessions_env(tmp_path: Path, make_env: Callable[..., AgentEnv]) -> AgentEnv:
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps(SESSIONS_CONFIG), encoding="utf-8")
    env = make_env(config=str(config))
    env.sessions_dir.mkdir(parents=True)
    (env.sessions_dir / "s1.jsonl").write_text(TRANSCRIPT, encoding="utf-8")
    return env


def _outside_transcript(tmp_path: Path) -> Path:
    outside = tmp_path / "outside.jsonl"
    outside.write_text(TRANSCRIPT.replace("the kiwi harvest starts monday", SECRET), encoding="utf-8")
    return outside


def test_a_fifo_named_sessions_json_does_not_hang_index(tmp_path: Path, workspace: Path,
                                                        sessions_env: AgentEnv) -> None:
    os.mkfifo(sessions_env.sessions_dir / "sessions.json")
    done = subprocess.run([sys.executable, "-m", "memtui", "index", "--verbose", "--state-dir", str(tmp_path / "state"),
                           "--workspace", str(workspace), "--provider", "none", "--config",
                           str(tmp_path / "openclaw.json")], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "sessions/sessions.json: cannot read sessions.json" in done.stdout
    assert "not a regular file" in done.stdout
    with MemoryManager(sessions_env) as manager:
        assert [h["path"] for h in manager.memory_search("kiwi harvest")["results"]] == ["sessions/s1.jsonl"]


def test_a_symlinked_sessions_json_is_not_followed(tmp_path: Path, sessions_env: AgentEnv) -> None:
    (tmp_path / "elsewhere.json").write_text("{}", encoding="utf-8")
    (sessions_env.sessions_dir / "sessions.json").symlink_to(tmp_path / "elsewhere.json")
    excluded, issues = transcripts.excluded_session_ids(sessions_env.sessions_dir)
    assert excluded == set()
    assert [i.reason for i in issues] == [
        "cannot read sessions.json: sessions.json is a symlink; refusing to follow it"]


@pytest.mark.parametrize("swap", ["symlink", "fifo"])
def test_a_transcript_swapped_after_listing_is_neither_followed_nor_waited_on(
        tmp_path: Path, sessions_env: AgentEnv, monkeypatch: pytest.MonkeyPatch, swap: str) -> None:
    outside = _outside_transcript(tmp_path)
    listed = transcripts.list_session_files

    def list_then_swap(sessions_dir: Path) -> list[Path]:
        files = listed(sessions_dir)
        victim = sessions_dir / "s1.jsonl"
        victim.unlink()
        if swap == "symlink":
            victim.symlink_to(outside)
        else:
            os.mkfifo(victim)
        return files

    monkeypatch.setattr(transcripts, "list_session_files", list_then_swap)
    with MemoryManager(sessions_env) as manager:
        report = manager.sync(reason="test")
        assert any(i.path == "sessions/s1.jsonl" and "refusing" in i.reason for i in report.issues), report.issues
        assert manager.memory_search("zanzibarquux")["results"] == []


def test_the_delta_tracker_does_not_follow_a_swapped_symlink(tmp_path: Path, sessions_env: AgentEnv) -> None:
    tracker = SessionDeltaTracker(delta_bytes=1, delta_messages=1)
    victim = sessions_env.sessions_dir / "s1.jsonl"
    victim.unlink()
    victim.symlink_to(_outside_transcript(tmp_path))
    result = tracker.observe(victim)
    assert (result.dirty, result.counted_bytes) == (False, 0)


def test_status_is_not_stopped_by_a_note_that_became_a_fifo_after_listing(
        make_env: Callable[..., AgentEnv], workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = make_env()
    with MemoryManager(env) as manager:
        manager.sync(reason="test")
    note = workspace / "memory" / "2026-11-29.md"
    note.write_text("# changed\n", encoding="utf-8")
    listed = freshness.list_memory_files

    def list_then_swap(*args: object) -> list[object]:
        files = listed(*args)  # type: ignore[arg-type]
        note.unlink()
        os.mkfifo(note)
        return files

    monkeypatch.setattr(freshness, "list_memory_files", list_then_swap)
    outcome: dict[str, object] = {}

    def ask() -> None:
        with MemoryManager(env) as manager:
            outcome["reason"] = manager.stale_reason()

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    thread.join(timeout=20)
    assert not thread.is_alive(), "status blocked on a FIFO"
    assert outcome["reason"] == "memory/2026-11-29.md changed since it was indexed"


@pytest.mark.parametrize(("message", "words"), [
    ("database or disk is full", "free disk space"),
    ("attempt to write a readonly database", "not writable"),
    ("database is locked", "another program"),
])
def test_sqlite_errors_that_are_not_damage_do_not_say_the_index_is_damaged(message: str, words: str) -> None:
    text = unexpected_message(sqlite_driver.OperationalError(message))
    assert message in text and words in text
    assert "damaged" not in text and "--force" not in text


def _peak_kib_of(code: str) -> int:
    # VmHWM: the peak resident size of this program (ru_maxrss would count the forking pytest's)
    done = subprocess.run([sys.executable, "-c", code + "\nimport re\nprint(re.search(r'VmHWM:\\s+(\\d+)', "
                           "open('/proc/self/status').read()).group(1))"],
                          capture_output=True, text=True, timeout=120, check=True)
    return int(done.stdout.split()[-1])


@pytest.mark.parametrize("shape", ["lines", "one line"])
def test_memory_get_of_a_huge_note_reads_a_window_not_the_file(tmp_path: Path, workspace: Path, shape: str) -> None:
    # An agent can write a note of any size; memory_get (the MCP server's too) must not load it whole.
    huge = workspace / "memory" / "huge.md"
    with huge.open("w", encoding="utf-8") as handle:
        for i in range(200_000):
            handle.write(f"line {i} " + "x" * 990 + ("\n" if shape == "lines" else " "))
    reads = [(None, 2), (150_000, 3)] if shape == "lines" else [(None, 2)]
    content = huge.read_text(encoding="utf-8")
    expected = [read_window(content, "memory/huge.md", from_line=start, lines=count, default_lines=DEFAULT_GET_LINES,
                            max_chars=DEFAULT_GET_MAX_CHARS, suggest_read=True) for start, count in reads]
    del content
    code = (f"from pathlib import Path\nfrom memtui.tools import memory_get\n"
            f"results = [memory_get(Path({str(workspace)!r}), 'memory/huge.md', from_line=s, lines=n) "
            f"for s, n in {reads!r}]\nimport json\nprint(json.dumps(results))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(done.stdout) == expected
    baseline = _peak_kib_of("from memtui.tools import memory_get")
    assert _peak_kib_of(code) - baseline < 50_000, "memory_get loaded the 200 MB note"


def test_dream_neither_follows_nor_dies_on_a_transcript_that_links_outside(tmp_path: Path, workspace: Path,
                                                                           sessions_env: AgentEnv) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text('{"type":"message","id":"m1","timestamp":"2026-12-01T10:00:00Z","message":{"role":"user",'
                       f'"content":"{SECRET} and enough words to be a memory","timestamp":1764583200000}}}}\n',
                       encoding="utf-8")
    (sessions_env.sessions_dir / "s9.jsonl").symlink_to(outside)
    done = subprocess.run([sys.executable, "-m", "memtui", "dream", "--state-dir", str(tmp_path / "state"),
                           "--workspace", str(workspace), "--provider", "none", "--config",
                           str(tmp_path / "openclaw.json")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    leaked = [p for p in workspace.rglob("*") if p.is_file() and "zanzibarquux" in p.read_text(errors="replace")]
    assert leaked == []


def test_status_does_not_read_a_note_grown_past_what_the_indexer_reads(make_env: Callable[..., AgentEnv],
                                                                       workspace: Path) -> None:
    env = make_env()
    with MemoryManager(env) as manager:
        manager.sync(reason="test")
    with (workspace / "memory" / "2026-11-29.md").open("a", encoding="utf-8") as handle:
        for _ in range(25):
            handle.write("y" * (1 << 20))
    code = (f"from memtui.manager import MemoryManager\nfrom memtui.settings.agent import resolve_agent\n"
            f"env = resolve_agent(state_dir={str(env.state_dir)!r}, workspace={str(workspace)!r}, provider='none')\n"
            "with MemoryManager(env) as manager:\n    print(manager.stale_reason())")
    assert "memory/2026-11-29.md changed since it was indexed" in subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    baseline = _peak_kib_of(code.replace("manager.stale_reason()", "manager.store.read_meta() is not None"))
    assert _peak_kib_of(code) - baseline < 15_000, "status read the 25 MB note"

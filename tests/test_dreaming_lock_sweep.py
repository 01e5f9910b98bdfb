"""The promotion lock across processes, and a full sweep's reports and diary."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime

import pytest
from dreaming_helpers import make_workspace, recall_backups

from memtui.dreaming.lock import LockBusyError, lock_path, short_term_lock
from memtui.dreaming.phases import run_sweep
from memtui.settings.dreaming import DeepSettings, DreamingSettings

NOW = datetime(2026, 4, 29, 10, 0, tzinfo=UTC)


def hold_lock_in_child(ws, seconds):
    code = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from memtui.dreaming.lock import short_term_lock
        with short_term_lock(Path({str(ws)!r})):
            print("held", flush=True)
            time.sleep({seconds})
        """
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "held"
    return child


def test_concurrent_sweep_is_refused_while_another_process_holds_the_lock(tmp_path):
    ws = make_workspace(tmp_path)
    child = hold_lock_in_child(ws, 5)
    try:
        content = lock_path(ws).read_text()
        pid, ms = content.strip().split(":")
        assert int(pid) == child.pid and abs(int(ms) - time.time() * 1000) < 10_000
        with pytest.raises(LockBusyError, match=f"process {child.pid}"):
            run_sweep(ws, DreamingSettings(), tz=UTC, now=NOW, lock_wait_seconds=0.3)
        assert not (ws / "DREAMS.md").exists()
    finally:
        child.kill()
        child.wait()


def test_waiter_gets_the_lock_once_the_holder_exits(tmp_path):
    ws = make_workspace(tmp_path)
    child = hold_lock_in_child(ws, 0.5)
    try:
        with short_term_lock(ws, wait_seconds=10):
            assert lock_path(ws).read_text().startswith(f"{os.getpid()}:")
    finally:
        child.wait()
    assert not lock_path(ws).exists()


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path):
    ws = make_workspace(tmp_path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    path = lock_path(ws)
    path.parent.mkdir(parents=True)
    path.write_text(f"{dead.stdout.strip()}:1\n")
    old = time.time() - 120
    os.utime(path, (old, old))
    with short_term_lock(ws, wait_seconds=0):
        assert path.read_text().startswith(f"{os.getpid()}:")


def test_sweep_writes_reports_promotes_and_keeps_a_diary(tmp_path):
    ws = make_workspace(tmp_path)
    recall_backups(ws)
    settings = DreamingSettings(deep=DeepSettings(min_score=0.5, min_unique_queries=2))
    summary = run_sweep(ws, settings, tz=UTC, now=NOW)
    light = (ws / "memory/dreaming/light/2026-04-29.md").read_text()
    assert light.startswith("# Light Sleep\n\n- Candidate: ")
    assert "  - evidence: memory/2026-04-27.md:4-4\n  - recalls: 3\n  - status: staged\n" in light
    deep = (ws / "memory/dreaming/deep/2026-04-29.md").read_text()
    assert deep.startswith("# Deep Sleep\n\n- Ranked 1 candidate(s) for durable promotion.\n")
    assert "- Promoted 1 candidate(s) into MEMORY.md.\n" in deep
    assert "openclaw-memory-promotion:memory:memory/2026-04-27.md:4:4" in (ws / "MEMORY.md").read_text()
    dreams = (ws / "DREAMS.md").read_text()
    assert dreams.startswith("# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n")
    # without a model, each phase's entry is OpenClaw's fallback: its first fragment
    assert dreams.count("*April 29, 2026 at 10:00 AM UTC*\n\n- Move nightly backups to S3 Glacier") >= 2
    assert dreams.endswith("\n\n<!-- openclaw:dreaming:diary:end -->\n")
    assert (ws / "memory/dreaming/rem/2026-04-29.md").read_text().startswith("# REM Sleep\n\n### Reflections\n")
    assert summary.daily.signals > 0
    assert not lock_path(ws).exists()

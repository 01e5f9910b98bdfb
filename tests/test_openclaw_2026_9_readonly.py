"""Read-only use of a 2026.9.6 agent whose database OpenClaw has open in WAL mode (a `-wal` and `-shm` beside it,
as while OpenClaw runs), or that a crash left with a `-wal` and no `-shm`: memtui reads what the WAL holds and
changes no byte and no mtime of any file in the state dir or the workspace, and makes no file there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from openclaw_2026_9_data import RECORDING, Agent2026_9, build_agent, snapshot

from memtui.agentdb.ownership import identify_database, open_read_only
from memtui.agentdb.snapshot import snapshot_folder
from memtui.cli import main as cli_main

# Turn the database to WAL mode (as OpenClaw keeps it), drop one chunk in a transaction that stays in the WAL,
# say so, and keep the connection open until told to stop (or leave without closing: a crash).
_WRITER = """
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
conn.execute("PRAGMA journal_mode = WAL")
conn.execute("PRAGMA wal_autocheckpoint = 0")
conn.execute("DELETE FROM memory_index_chunks WHERE chunk_rowid = (SELECT MIN(chunk_rowid) FROM memory_index_chunks)")
conn.commit()
print("ready", flush=True)
if sys.argv[2] == "crash":
    os._exit(0)
sys.stdin.readline()
"""

READ_COMMANDS = (["status"], ["status", "--json"], ["search", "payments deploy freeze"],
                 ["search", "burst limit", "--profile", "openclaw", "--json"], ["search", "runbooks", "--explain"],
                 ["sessions"], ["sessions", "--json"], ["recalls"], ["recalls", "--json"],
                 ["get", "MEMORY.md", "--lines", "3"], ["context"])


def _agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Agent2026_9:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "memtui-data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    agent = build_agent(tmp_path / "install")
    shutil.copyfile(RECORDING / "sessions" / "agent.sqlite", agent.agent_db)
    return agent


def _writer(db: Path, mode: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(db), mode], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _run_reads(agent: Agent2026_9, capsys: pytest.CaptureFixture) -> int:
    """Every read command once; returns the chunk count `status --json` read from OpenClaw's index."""
    chunks = -1
    for argv in READ_COMMANDS:
        code = cli_main([*argv, "--state-dir", str(agent.state), "--provider", "none"])
        out, err = capsys.readouterr()
        assert code == 0, (argv, err)
        if argv == ["status", "--json"]:
            chunks = json.loads(out)["openclaw"]["index"]["chunks"]
    return chunks


def test_reads_beside_a_running_writer_change_no_file(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    agent = _agent(tmp_path, monkeypatch)
    writer = _writer(agent.agent_db, "hold")
    try:
        assert Path(f"{agent.agent_db}-wal").stat().st_size > 0 and Path(f"{agent.agent_db}-shm").exists()
        before = snapshot(agent.state, agent.workspace)
        time.sleep(0.02)  # an mtime rewritten now would differ from the one recorded
        assert _run_reads(agent, capsys) == 81  # the chunk dropped in the WAL is gone: the WAL was read
        assert snapshot(agent.state, agent.workspace) == before
    finally:
        assert writer.stdin is not None
        writer.stdin.write("\n")
        writer.stdin.close()
        writer.wait(10)


def test_a_wal_left_without_its_shm_is_read_and_no_shm_is_made(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    agent = _agent(tmp_path, monkeypatch)
    _writer(agent.agent_db, "crash").wait(10)
    Path(f"{agent.agent_db}-shm").unlink()
    before = snapshot(agent.state, agent.workspace)
    assert _run_reads(agent, capsys) == 81
    assert snapshot(agent.state, agent.workspace) == before
    assert not Path(f"{agent.agent_db}-shm").exists()


def test_the_copy_is_reused_while_the_database_is_unchanged_and_retaken_when_it_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = _agent(tmp_path, monkeypatch)
    writer = _writer(agent.agent_db, "hold")
    try:
        assert identify_database(agent.agent_db).schema_version == 23
        folder = snapshot_folder(agent.agent_db)
        copies = sorted(folder.glob("*.sqlite"))
        assert len(copies) == 1 and str(folder).startswith(str(tmp_path / "memtui-data"))
        made = copies[0].stat().st_mtime_ns
        conn = open_read_only(agent.agent_db)
        conn.close()
        assert sorted(folder.glob("*.sqlite")) == copies and copies[0].stat().st_mtime_ns == made
        os.utime(f"{agent.agent_db}-wal")  # as a new write would
        conn = open_read_only(agent.agent_db)
        try:
            assert conn.execute("SELECT COUNT(*) FROM memory_index_chunks").fetchone()[0] == 81
        finally:
            conn.close()
        assert len(list(folder.glob("*.sqlite"))) == 2
    finally:
        assert writer.stdin is not None
        writer.stdin.write("\n")
        writer.stdin.close()
        writer.wait(10)

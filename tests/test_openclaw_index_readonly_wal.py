"""`--store <OpenClaw 2026.4 index> --read-only` while OpenClaw has the index open in WAL mode (its `-wal` and
`-shm` beside it), or after a crash left the `-wal` without its `-shm`: memtui answers from what the WAL holds and
changes no byte and no mtime of any file in the state dir or the workspace, and makes no file there (SQLite's own
`mode=ro` reader rewrites the `-shm`, and creates it when missing; memtui reads a private copy instead)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from openclaw_2026_9_data import snapshot
from openclaw_memory_data import Root, agent_env, build_openclaw_index, build_root, recording

from memtui.agentdb.snapshot import snapshot_folder
from memtui.cli import main as cli_main
from memtui.jscompat import js_stringify
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv

# OpenClaw's process: the index in WAL mode, its incremental sync (`update.json`) left in the WAL, held open until
# told to stop (or left without closing: a crash).
_WRITER = """
import os, sqlite3, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from openclaw_memory_data import Root, apply_openclaw_update
conn = sqlite3.connect(sys.argv[3])
conn.execute("PRAGMA journal_mode = WAL")
conn.execute("PRAGMA wal_autocheckpoint = 0")
conn.execute("SELECT count(*) FROM chunks").fetchone()
apply_openclaw_update(Root(Path(sys.argv[2])), Path(sys.argv[3]))
print("ready", flush=True)
if sys.argv[4] == "crash":
    os._exit(0)
sys.stdin.readline()
"""


def _writer(root: Root, db: Path, mode: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(Path(__file__).parent), str(root.path), str(db), mode],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _reads(env: AgentEnv, db: Path, capsys: pytest.CaptureFixture) -> None:
    """The recorded searches after OpenClaw's update (the WAL's content) through the manager, then `status`,
    `search` and `get` on the command line, all `--read-only --store` on OpenClaw's index."""
    time.sleep(0.02)  # an mtime rewritten now would differ from the one recorded
    with MemoryManager(env) as manager:
        for case in recording("update")["searches"]:
            payload = manager.memory_search(case["query"], max_results=case.get("maxResults"),
                                            min_score=case.get("minScore"), session_key="agent:main:main",
                                            profile="openclaw")
            text = re.sub(r'("searchMs": )\d+', r"\g<1>0", js_stringify(payload, indent=2))
            assert text == case["tool"]["text"], case["query"]
    args = ["--state-dir", str(env.state_dir), "--store", str(db), "--read-only", "--provider", "none"]
    capsys.readouterr()
    assert cli_main(["status", "--json", *args]) == 0
    assert json.loads(capsys.readouterr().out)["chunks"] == len(recording("index")["chunks"])
    assert cli_main(["search", recording("update")["searches"][0]["query"], "--json", *args]) == 0
    assert json.loads(capsys.readouterr().out)["results"]
    assert cli_main(["get", "MEMORY.md", *args]) == 0


@pytest.fixture
def openclaw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Root, Path, Path, AgentEnv]:
    """The recorded 2026.4 tree, OpenClaw's index in its state dir, its config written, and memtui's environment
    on that index, read-only; memtui's data folder outside both."""
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "memtui-data"))
    root = build_root(tmp_path)
    monkeypatch.setenv("HOME", str(root.home))
    state = tmp_path / "state"
    db = build_openclaw_index(state / "memory" / "main.sqlite")
    env = agent_env(root, state, store=str(db), read_only=True)  # writes the config, before anything is compared
    return root, state, db, env


def test_reads_beside_openclaws_running_writer_change_no_file(openclaw: tuple[Root, Path, Path, AgentEnv],
                                                              capsys: pytest.CaptureFixture) -> None:
    root, state, db, env = openclaw
    writer = _writer(root, db, "hold")
    try:
        assert Path(f"{db}-wal").stat().st_size > 0 and Path(f"{db}-shm").exists()
        before = snapshot(state, root.path)
        _reads(env, db, capsys)
        assert snapshot(state, root.path) == before
        assert list(snapshot_folder(db).glob("*.sqlite"))  # read from memtui's own copy
    finally:
        assert writer.stdin is not None
        writer.stdin.write("\n")
        writer.stdin.close()
        writer.wait(10)


def test_a_wal_left_by_a_crash_is_read_and_no_shm_is_made(openclaw: tuple[Root, Path, Path, AgentEnv],
                                                          capsys: pytest.CaptureFixture) -> None:
    root, state, db, env = openclaw
    _writer(root, db, "crash").wait(10)
    Path(f"{db}-shm").unlink()
    before = snapshot(state, root.path)
    _reads(env, db, capsys)
    assert snapshot(state, root.path) == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["main.sqlite", "main.sqlite-wal"]

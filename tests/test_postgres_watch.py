"""`memtui watch` processes on several hosts keep one PostgreSQL database current: two hosts watching one agent's
workspace (a shared folder, each with its own state dir), a third host another agent; edits, new files and
deletions land once, a rebuild by a fourth process is flipped in under the watchers, and every process exits
cleanly."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import psycopg
from postgres_server import fresh_database
from test_postgres_writers import big_workspace, env_for, wait_for

from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv


class Watch:
    """One `memtui watch` process and the lines it prints."""

    def __init__(self, env: AgentEnv):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "memtui", "--state-dir", str(env.state_dir), "--config", str(env.config_path),
             "--agent", env.agent_id, "--workspace", str(env.workspace_dir), "--provider", "none", "watch",
             "--debounce-ms", "200"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ),
            # Ctrl-C must reach it also when the tests run as a background job (its children inherit SIGINT ignored)
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.lines: queue.Queue[str] = queue.Queue()
        self.printed: list[str] = []
        self.errors: list[str] = []
        self.readers = [threading.Thread(target=self._read, daemon=True),
                        threading.Thread(target=self._read_errors, daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.printed.append(line)
            self.lines.put(line)

    def _read_errors(self) -> None:
        assert self.process.stderr is not None
        self.errors.extend(self.process.stderr)

    def wait_line(self, needle: str, timeout: float = 60.0) -> str:
        while True:
            line = self.lines.get(timeout=timeout)
            if needle in line:
                return line

    def stop(self) -> tuple[int, str]:
        """Ctrl-C, as a user stops it: (exit code, what it printed on stderr); one that does not stop within a
        minute is killed, so it cannot hold its connections into other tests, and says so (-9)."""
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for reader in self.readers:
            reader.join(timeout=10)
        return self.process.returncode, "".join(self.printed[-5:] + self.errors)


def paths_found(env: AgentEnv, query: str) -> list[str]:
    """What a search of `env`'s index in the database finds (read-only: the watchers are its only writers)."""
    with MemoryManager(replace(env, read_only=True)) as manager:
        return [hit["path"] for hit in manager.memory_search(query)["results"]]


def indexed_files(url: str, agent: str) -> set[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        return {row[0] for row in conn.execute(
            "SELECT f.path FROM memtui.files f JOIN memtui.indexes i ON f.gen = i.live_gen WHERE i.agent = %s",
            (agent,))}


def test_watchers_on_several_hosts_keep_one_database_current(tmp_path: Path) -> None:
    url = fresh_database()
    shared, other = big_workspace(tmp_path / "shared", files=40), big_workspace(tmp_path / "other", files=20)
    for host in ("host1", "host2", "host3", "host4"):
        (tmp_path / host).mkdir()
    first, second = env_for(tmp_path / "host1", shared, url), env_for(tmp_path / "host2", shared, url)
    third = env_for(tmp_path / "host3", other, url, agent="ops")
    watches = [Watch(env) for env in (first, second, third)]
    try:
        for watch in watches:
            watch.wait_line("sync (session-start)")
        (shared / "memory" / "2026-12-01.md").write_text("# 2026-12-01\n\n- The quokka failover drill passed.\n",
                                                         encoding="utf-8")
        (other / "memory" / "2026-12-02.md").write_text("# 2026-12-02\n\n- Ops moved the wombat queue.\n",
                                                        encoding="utf-8")
        gone = sorted((shared / "memory").glob("*.md"))[0]
        gone.unlink()
        wait_for(lambda: paths_found(first, "quokka failover") == ["memory/2026-12-01.md"], "the new note, host 1")
        wait_for(lambda: paths_found(third, "wombat queue") == ["memory/2026-12-02.md"], "the other agent's note")
        wait_for(lambda: f"memory/{gone.name}" not in indexed_files(url, "main"), "the deletion")
        rebuild = subprocess.run(
            [sys.executable, "-m", "memtui", "--state-dir", str(tmp_path / "host4"), "--config", str(first.config_path),
             "--agent", "main", "--workspace", str(shared), "--provider", "none", "index", "--force"],
            capture_output=True, text=True, env=dict(os.environ), timeout=300)
        assert rebuild.returncode == 0, rebuild.stderr
        (shared / "memory" / "2026-12-03.md").write_text("# 2026-12-03\n\n- The numbat backup was restored.\n",
                                                         encoding="utf-8")
        wait_for(lambda: paths_found(second, "numbat backup") == ["memory/2026-12-03.md"], "a note after the rebuild")
    finally:
        results = [watch.stop() for watch in watches]
    assert [code for code, _ in results] == [0, 0, 0], [err[-2000:] for _, err in results]
    assert [line for watch in watches for line in watch.printed if "fail" in line.lower()] == []
    assert sum(" sync (watch): " in line for watch in watches for line in watch.printed) >= 4
    on_disk = {str(path.relative_to(shared)) for path in (shared / "memory").glob("*.md")}
    assert indexed_files(url, "main") == on_disk
    assert indexed_files(url, "ops") == {str(path.relative_to(other)) for path in (other / "memory").glob("*.md")}
    with psycopg.connect(url, autocommit=True) as conn:
        counts = dict(conn.execute("SELECT i.agent, count(*) FROM memtui.generations g JOIN memtui.indexes i ON "
                                   "i.id = g.index_id GROUP BY i.agent").fetchall())
    assert counts == {"main": 1, "ops": 1}  # the replaced generation was dropped, no stray one left

"""Full rebuilds are atomic for every other process, and long-running processes never go stale."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from store_paths import index_of, memtui_folder

from memtui.index.store import Store
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _cli(tmp_path: Path, workspace: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(tmp_path / "state"),
                           "--workspace", str(workspace), "--provider", "none"],
                          capture_output=True, text=True, timeout=timeout, env=ENV)


def _search_paths(tmp_path: Path, workspace: Path, query: str) -> list[str]:
    done = _cli(tmp_path, workspace, "search", query, "--json")
    assert done.returncode == 0, done.stderr
    return [hit["path"] for hit in json.loads(done.stdout)["results"]]


def _wait_for_line(process: subprocess.Popen[str], needle: str, timeout: float = 30) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if needle in line:
            return line
        if not line and process.poll() is not None:
            break
    raise AssertionError(f"no line with {needle!r} (exit {process.poll()})")


def _many_notes(workspace: Path, count: int) -> None:
    for i in range(count):
        body = "\n".join(f"- entry {i}.{j}: the deploy of service {j} used queue q{i * j % 97}" for j in range(40))
        (workspace / "memory" / f"2026-10-{i % 28 + 1:02d}-n{i}.md").write_text(f"# Note {i}\n\n{body}\n")


def test_watch_keeps_indexing_into_the_live_index_after_another_process_rebuilds_it(tmp_path: Path,
                                                                                   workspace: Path) -> None:
    assert _cli(tmp_path, workspace, "index").returncode == 0
    # Ctrl-C must reach it even when the tests run as a background job, whose children inherit SIGINT ignored.
    watch = subprocess.Popen([sys.executable, "-m", "memtui", "watch", "--debounce-ms", "200", "--state-dir",
                              str(tmp_path / "state"), "--workspace", str(workspace), "--provider", "none"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for_line(watch, "sync (session-start)")
        rebuilt = _cli(tmp_path, workspace, "index", "--force")
        assert rebuilt.returncode == 0, rebuilt.stderr
        (workspace / "memory" / "2026-12-01.md").write_text("# 2026-12-01\n\n- The zebracorn migration shipped.\n")
        _wait_for_line(watch, "sync (watch)")
        assert _search_paths(tmp_path, workspace, "zebracorn") == ["memory/2026-12-01.md"]
    finally:
        watch.send_signal(signal.SIGINT)
        watch.wait(timeout=30)
    status = json.loads(_cli(tmp_path, workspace, "status", "--json").stdout)
    assert status["files"] == 5 and status["dirty"] is False


def test_a_long_running_engine_writes_where_others_read_after_a_rebuild_or_a_replaced_file(
        make_env: Callable[..., AgentEnv], tmp_path: Path, workspace: Path) -> None:
    with MemoryManager(make_env()) as engine:
        engine.sync()
        assert _cli(tmp_path, workspace, "index", "--force").returncode == 0
        (workspace / "memory" / "2026-12-02.md").write_text("- The quokkabase cutover is done.\n")
        engine.sync(memory_paths={"memory/2026-12-02.md"})
        assert _search_paths(tmp_path, workspace, "quokkabase") == ["memory/2026-12-02.md"]

        # Another program swaps in a copy of the file (a new inode): the engine notices and reopens.
        store_path = engine.env.store_path
        shutil.copy(store_path, tmp_path / "copy.sqlite")
        os.replace(tmp_path / "copy.sqlite", store_path)
        for suffix in ("-wal", "-shm"):
            Path(f"{store_path}{suffix}").unlink(missing_ok=True)
        (workspace / "memory" / "2026-12-03.md").write_text("- The narwhalite rollout starts Monday.\n")
        engine.sync(memory_paths={"memory/2026-12-03.md"})
        assert [h.path for h in engine.search("narwhalite").results] == ["memory/2026-12-03.md"]
    assert _search_paths(tmp_path, workspace, "narwhalite") == ["memory/2026-12-03.md"]


# An opener like `memtui search`: opens the index, reads, works a little while, reads again.
READER = """
import json, sys, time
from pathlib import Path
from memtui.index.store import Store
path, seconds = Path(sys.argv[1]), float(sys.argv[2])
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    try:
        store = Store(path)
        seen = [store.chunk_count(), store.read_meta() is not None]
        time.sleep(0.03)
        seen.append(store.chunk_count())
        store.close()
    except Exception as exc:
        seen = [f"{type(exc).__name__}: {exc}"]
    print(json.dumps(seen), flush=True)
"""


def test_rebuilds_under_concurrent_openers_never_show_an_empty_or_broken_index(
        make_env: Callable[..., AgentEnv], workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _many_notes(workspace, 60)
    env = make_env()
    # A loaded machine or a slow disk: every rename of an index file takes 20 ms.
    real_replace = os.replace

    def slow_replace(src: Any, dst: Any, **kwargs: Any) -> None:
        real_replace(src, dst, **kwargs)
        if ".sqlite" in str(dst):
            time.sleep(0.02)

    monkeypatch.setattr(os, "replace", slow_replace)
    with MemoryManager(env) as manager:
        manager.sync()
        chunks = manager.store.chunk_count()
        readers = [subprocess.Popen([sys.executable, "-c", READER, str(env.store_path), "8"], stdout=subprocess.PIPE,
                                    text=True, env=ENV) for _ in range(3)]
        time.sleep(1.0)
        rebuilds: list[int] = []
        failures: list[str] = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                manager.sync(force=True)
                rebuilds.append(manager.store.chunk_count())
            except Exception as exc:
                failures.append(f"{type(exc).__name__}: {exc}")
    seen = [json.loads(line) for reader in readers for line in reader.communicate(timeout=60)[0].splitlines()]
    assert failures == []
    assert len(rebuilds) >= 5 and set(rebuilds) == {chunks} and len(seen) > 100
    assert [s for s in seen if s != [chunks, True, chunks]] == []
    store = Store(env.store_path)
    assert store.chunk_count() == chunks and store.read_meta() is not None
    store.close()


def test_killed_full_rebuilds_leave_nothing_behind_and_the_old_index_answers(tmp_path: Path, workspace: Path) -> None:
    _many_notes(workspace, 400)
    assert _cli(tmp_path, workspace, "index").returncode == 0
    state = memtui_folder(tmp_path / "state")
    killed = 0
    for _ in range(10):
        run = subprocess.Popen([sys.executable, "-m", "memtui", "index", "--force", "--state-dir",
                                str(tmp_path / "state"), "--workspace", str(workspace), "--provider", "none"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not list(state.glob("*.tmp-*")) and run.poll() is None:
            time.sleep(0.01)
        time.sleep(0.05)
        if run.poll() is None:
            run.send_signal(signal.SIGKILL)
            killed += 1
        run.wait()
        if killed == 3:
            break
    assert killed == 3
    assert list(state.glob("*.tmp-*")), "the last kill left no temp file"
    assert _search_paths(tmp_path, workspace, "payment webhook")[0] == "memory/2026-11-28.md"
    assert _cli(tmp_path, workspace, "index").returncode == 0
    index = index_of(tmp_path / "state", workspace)
    assert sorted(p.name for p in state.iterdir()) == [index.name, f"{index.name}.lock"]


def test_a_read_only_reader_right_after_a_rebuild_is_installed_answers(make_env: Callable[..., AgentEnv],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # The moment another process opens the index is arbitrary; this one is just after the rebuilt index was
    # copied into the live file, before the sync finished. It must not look like another workspace's index.
    with MemoryManager(make_env()) as engine:
        engine.sync()
        install = MemoryManager._install
        answers: list[Any] = []

        def install_then_read(self: MemoryManager, built: Path) -> None:
            install(self, built)
            try:
                with MemoryManager(make_env(read_only=True)) as reader:
                    answers.append([hit["path"] for hit in reader.memory_search("pgbouncer")["results"]])
            except Exception as exc:
                answers.append(str(exc))

        monkeypatch.setattr(MemoryManager, "_install", install_then_read)
        engine.sync(force=True)
    assert answers == [["memory/2026-11-28.md"]]


def test_a_long_running_read_only_reader_sees_later_rebuilds(make_env: Callable[..., AgentEnv], tmp_path: Path,
                                                             workspace: Path) -> None:
    # `memtui mcp --read-only` or a read-only TUI on an index another program keeps up to date.
    assert _cli(tmp_path, workspace, "index").returncode == 0
    with MemoryManager(make_env(read_only=True)) as reader:
        assert [hit["path"] for hit in reader.memory_search("pgbouncer")["results"]] == ["memory/2026-11-28.md"]
        (workspace / "memory" / "2026-12-01.md").write_text("# 2026-12-01\n\n- The quince harvest is late.\n")
        assert _cli(tmp_path, workspace, "index", "--force").returncode == 0
        assert [hit["path"] for hit in reader.memory_search("quince")["results"]] == ["memory/2026-12-01.md"]

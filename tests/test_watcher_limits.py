"""The watcher follows a `memory/` folder created (or recreated) after it started, and a steady stream of
writes cannot postpone the sync forever (a real watchdog observer on real files)."""

from __future__ import annotations

import queue
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memtui.index.events import IndexEvent
from memtui.index.watcher import MemoryWatcher
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv

TIMEOUT = 20.0


def _paths(manager: MemoryManager, query: str) -> list[str]:
    return [hit.path for hit in manager.search(query, min_score=0.0).results]


def _start(make_env: Callable[..., AgentEnv], **watcher_options: float) -> tuple[MemoryManager, MemoryWatcher,
                                                                               queue.Queue[IndexEvent]]:
    manager = MemoryManager(make_env())
    manager.sync(reason="test")
    events: queue.Queue[IndexEvent] = queue.Queue()
    manager.subscribe(events.put)
    watcher = MemoryWatcher(manager, **watcher_options)  # type: ignore[arg-type]
    watcher.start()
    _wait(events, "session-start")
    return manager, watcher, events


def _wait(events: queue.Queue[IndexEvent], reason: str = "watch", timeout: float = TIMEOUT) -> float:
    """Wait for a finished sync of `reason`; returns when it finished (monotonic)."""
    deadline = time.monotonic() + timeout
    while True:
        event = events.get(timeout=max(0.01, deadline - time.monotonic()))
        if event.kind == "finished" and event.reason == reason:
            return time.monotonic()


@pytest.fixture
def no_memory_dir(workspace: Path, tmp_path: Path) -> Path:
    shutil.move(workspace / "memory", tmp_path / "memory-elsewhere")
    return workspace


@pytest.fixture
def watching(make_env: Callable[..., AgentEnv]) -> Iterator[Callable[..., tuple[MemoryManager, queue.Queue]]]:
    started: list[tuple[MemoryManager, MemoryWatcher]] = []

    def start(**options: float) -> tuple[MemoryManager, queue.Queue[IndexEvent]]:
        manager, watcher, events = _start(make_env, **options)
        started.append((manager, watcher))
        return manager, events

    yield start
    for manager, watcher in started:
        watcher.stop()
        manager.wait_idle(timeout=TIMEOUT)
        manager.close()


def test_a_memory_folder_created_after_the_start_is_watched(no_memory_dir: Path, watching) -> None:
    manager, events = watching(debounce_ms=200)
    memory = no_memory_dir / "memory"
    memory.mkdir()
    (memory / "2026-12-01.md").write_text("- The okapi launch is on.\n", encoding="utf-8")
    _wait(events)
    assert _paths(manager, "okapi") == ["memory/2026-12-01.md"]
    (memory / "2026-12-02.md").write_text("- The tapir review slipped.\n", encoding="utf-8")
    (memory / "sub").mkdir()
    (memory / "sub" / "deep.md").write_text("- The axolotl fix is deep down.\n", encoding="utf-8")
    deadline = time.monotonic() + TIMEOUT
    while (_paths(manager, "tapir"), _paths(manager, "axolotl")) != (["memory/2026-12-02.md"],
                                                                       ["memory/sub/deep.md"]):
        _wait(events, timeout=max(0.1, deadline - time.monotonic()))


def test_a_memory_folder_deleted_and_made_anew_is_watched_again(workspace: Path, watching) -> None:
    manager, events = watching(debounce_ms=200)
    shutil.rmtree(workspace / "memory")
    _wait(events)
    (workspace / "memory").mkdir()
    _wait(events)
    (workspace / "memory" / "2026-12-03.md").write_text("- The pangolin rota changed.\n", encoding="utf-8")
    _wait(events)
    assert _paths(manager, "pangolin") == ["memory/2026-12-03.md"]


def test_steady_writes_are_synced_within_the_maximum_wait(workspace: Path, watching) -> None:
    # A write every 0.3 s would postpone a 1 s debounce forever; the maximum wait (5 s here) cuts in.
    manager, events = watching(debounce_ms=1000)
    note = workspace / "memory" / "2026-12-04.md"
    started = time.monotonic()
    synced_at = None
    count = 0
    while time.monotonic() - started < 7.5:
        note.write_text(f"- The wombat counter is at {count}.\n", encoding="utf-8")
        count += 1
        time.sleep(0.3)
        while synced_at is None and not events.empty():
            event = events.get_nowait()
            if event.kind == "finished" and event.reason == "watch":
                synced_at = time.monotonic()
    assert synced_at is not None, "no sync while the writes went on"
    assert synced_at - started < 6.5
    assert _paths(manager, "wombat") == ["memory/2026-12-04.md"]


@pytest.mark.parametrize("swapped", ["memory", "memory/2026-11-28.md"])
def test_a_note_or_memory_folder_swapped_for_a_symlink_leaves_the_index(workspace: Path, tmp_path: Path,
                                                                         watching, swapped: str) -> None:
    # What was indexed there is gone from the workspace's memory (a symlink is not indexed): a running watch
    # must not keep answering with it until the next full sync.
    manager, events = watching(debounce_ms=200)
    assert _paths(manager, "pgbouncer") == ["memory/2026-11-28.md"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "2026-11-28.md").write_text("- outside: the narwhal password\n", encoding="utf-8")
    target = workspace / swapped
    shutil.move(target, tmp_path / "moved-away")
    target.symlink_to(outside if swapped == "memory" else outside / "2026-11-28.md")
    deadline = time.monotonic() + TIMEOUT
    while _paths(manager, "pgbouncer"):
        _wait(events, timeout=max(0.1, deadline - time.monotonic()))
    assert _paths(manager, "narwhal") == []

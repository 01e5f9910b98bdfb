"""The live index with a real watchdog observer on real files (issue 4)."""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memtui.index.events import IndexEvent
from memtui.index.watcher import MemoryWatcher, is_ignored
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv

TIMEOUT = 20.0


class Recorder:
    """Collects manager events and waits for them without fixed sleeps."""

    def __init__(self, manager: MemoryManager):
        self.events: queue.Queue[IndexEvent] = queue.Queue()
        self.finished: list[IndexEvent] = []
        self.changed: list[str] = []
        self._lock = threading.Lock()
        manager.subscribe(self._on_event)

    def _on_event(self, event: IndexEvent) -> None:
        with self._lock:
            if event.kind == "finished":
                self.finished.append(event)
            if event.kind == "file-changed":
                self.changed.extend(event.paths)
        self.events.put(event)

    def wait_for(self, predicate: Callable[[IndexEvent], bool], timeout: float = TIMEOUT) -> IndexEvent:
        while True:
            event = self.events.get(timeout=timeout)
            if predicate(event):
                return event

    def wait_sync(self, reason: str = "watch") -> IndexEvent:
        return self.wait_for(lambda e: e.kind == "finished" and e.reason == reason)


def _search_paths(manager: MemoryManager, query: str) -> list[str]:
    return [hit.path for hit in manager.search(query, min_score=0.0).results]


@pytest.fixture
def live(make_env: Callable[..., AgentEnv]) -> Iterator[tuple[MemoryManager, MemoryWatcher, Recorder]]:
    manager = MemoryManager(make_env())
    manager.sync(reason="test")
    recorder = Recorder(manager)
    watcher = MemoryWatcher(manager, debounce_ms=300)
    watcher.start()
    recorder.wait_sync("session-start")
    yield manager, watcher, recorder
    watcher.stop()
    manager.wait_idle(timeout=TIMEOUT)
    manager.close()


def test_create_modify_delete_rename_are_indexed(live: tuple[MemoryManager, MemoryWatcher, Recorder],
                                                  workspace: Path) -> None:
    manager, _watcher, recorder = live
    note = workspace / "memory" / "2026-11-30.md"
    note.write_text("# 2026-11-30\n\n- Deployed the zanzibar feature flag.\n", encoding="utf-8")
    recorder.wait_sync()
    assert _search_paths(manager, "zanzibar") == ["memory/2026-11-30.md"]

    note.write_text("# 2026-11-30\n\n- Rolled back the quixotic migration.\n", encoding="utf-8")
    recorder.wait_sync()
    assert _search_paths(manager, "zanzibar") == []
    assert _search_paths(manager, "quixotic") == ["memory/2026-11-30.md"]

    renamed = workspace / "memory" / "2026-11-30-rollback.md"
    note.rename(renamed)
    recorder.wait_sync()
    assert _search_paths(manager, "quixotic") == ["memory/2026-11-30-rollback.md"]

    renamed.unlink()
    recorder.wait_sync()
    assert _search_paths(manager, "quixotic") == []
    assert "memory/2026-11-30-rollback.md" in recorder.changed


def test_atomic_editor_save_is_picked_up(live: tuple[MemoryManager, MemoryWatcher, Recorder],
                                         workspace: Path) -> None:
    manager, _watcher, recorder = live
    target = workspace / "MEMORY.md"
    temp = workspace / ".MEMORY.md.swp"
    temp.write_text("# Long-term memory\n\n- Favourite editor theme is solarized-heliotrope.\n", encoding="utf-8")
    os.replace(temp, target)
    recorder.wait_sync()
    assert _search_paths(manager, "heliotrope") == ["MEMORY.md"]


def test_burst_of_writes_gives_one_sync(live: tuple[MemoryManager, MemoryWatcher, Recorder],
                                        workspace: Path) -> None:
    manager, _watcher, recorder = live
    note = workspace / "memory" / "2026-11-30.md"
    for i in range(100):
        note.write_text(f"# 2026-11-30\n\n- burst write number {i} marker{i}\n", encoding="utf-8")
    recorder.wait_sync()
    assert _search_paths(manager, "marker99") == ["memory/2026-11-30.md"]
    with pytest.raises(queue.Empty):
        recorder.wait_for(lambda e: e.kind == "finished", timeout=1.5)
    assert len([e for e in recorder.finished if e.reason == "watch"]) == 1


def test_a_full_sync_after_the_change_was_seen_makes_the_watchers_sync_moot(
        live: tuple[MemoryManager, MemoryWatcher, Recorder], workspace: Path) -> None:
    """Write a note, then sync everything (the app's ctrl+r) before the debounce fires: the full sync indexes
    the note, and the watcher's own sync of it, queued behind, is dropped (it would read the note again)."""
    manager, _watcher, recorder = live
    note = workspace / "memory" / "2026-11-30.md"
    note.write_text("# 2026-11-30\n\n- Paged about the gazpacho queue.\n", encoding="utf-8")
    recorder.wait_for(lambda e: e.kind == "file-changed" and "memory/2026-11-30.md" in e.paths)
    with pytest.raises(queue.Empty):  # until the write's last event (the debounce is 300 ms)
        while True:
            recorder.wait_for(lambda e: e.kind == "file-changed", timeout=0.1)
    assert manager.sync(reason="full").complete
    assert _search_paths(manager, "gazpacho") == ["memory/2026-11-30.md"]
    recorder.wait_sync("full")
    with pytest.raises(queue.Empty):
        recorder.wait_for(lambda e: e.kind == "started", timeout=1.5)

    # A change seen after a full sync began is synced as usual.
    note.write_text("# 2026-11-30\n\n- Paged about the gnocchi queue.\n", encoding="utf-8")
    recorder.wait_sync()
    assert _search_paths(manager, "gnocchi") == ["memory/2026-11-30.md"]


def test_a_watcher_stopped_before_it_started_stays_stopped(make_env: Callable[..., AgentEnv]) -> None:
    """The app starts the watcher from a worker after its first frame: quitting first must not leave it running."""
    with MemoryManager(make_env()) as manager:
        watcher = MemoryWatcher(manager, debounce_ms=100)
        watcher.stop()
        watcher.start()
        assert not watcher.running
        assert manager.wait_idle(timeout=TIMEOUT)


def test_symlink_under_memory_is_ignored(live: tuple[MemoryManager, MemoryWatcher, Recorder],
                                         workspace: Path, tmp_path: Path) -> None:
    manager, _watcher, recorder = live
    outside = tmp_path / "outside.md"
    outside.write_text("- secret sauce is xylophone\n", encoding="utf-8")
    (workspace / "memory" / "linked.md").symlink_to(outside)
    recorder.wait_sync()
    assert _search_paths(manager, "xylophone") == []


def test_ignore_rules() -> None:
    assert is_ignored("memory/.git/HEAD")
    assert is_ignored("memory/node_modules/x.md")
    assert is_ignored("memory/notes.txt")
    assert not is_ignored("memory/2026-01-01.md")
    assert not is_ignored("memory/README")


def test_watch_off_means_no_observer(make_env: Callable[..., AgentEnv], tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json"
    config.write_text("{agents: {defaults: {memorySearch: {sync: {watch: false, onSessionStart: false}}}}}")
    manager = MemoryManager(make_env(config=str(config)))
    watcher = MemoryWatcher(manager)
    watcher.start()
    try:
        assert not watcher.running
    finally:
        watcher.stop()
        manager.close()


def _message(index: int, text: str) -> str:
    import json

    return json.dumps({"type": "message", "id": f"m{index}", "parentId": None,
                       "timestamp": "2026-11-29T10:00:00Z",
                       "message": {"role": "user", "content": text, "timestamp": 1764410400000 + index}}) + "\n"


@pytest.fixture
def live_sessions(make_env: Callable[..., AgentEnv],
                  tmp_path: Path) -> Iterator[tuple[MemoryManager, Recorder, Path]]:
    config = tmp_path / "openclaw.json"
    config.write_text('{agents: {defaults: {memorySearch: {sources: ["memory", "sessions"], '
                      "experimental: {sessionMemory: true}}}}}", encoding="utf-8")
    env = make_env(config=str(config))
    env.sessions_dir.mkdir(parents=True)
    transcript = env.sessions_dir / "s1.jsonl"
    transcript.write_text('{"type":"session","version":3,"id":"s1","timestamp":"2026-11-29T10:00:00Z"}\n'
                          + "".join(_message(i, f"opening chatter {i}") for i in range(60)), encoding="utf-8")
    manager = MemoryManager(env)
    manager.sync(reason="test")
    recorder = Recorder(manager)
    watcher = MemoryWatcher(manager, debounce_ms=300, session_debounce_s=0.3)
    watcher.start()
    recorder.wait_sync("session-start")
    yield manager, recorder, transcript
    watcher.stop()
    manager.wait_idle(timeout=TIMEOUT)
    manager.close()


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def test_transcript_messages_threshold(live_sessions: tuple[MemoryManager, Recorder, Path]) -> None:
    manager, recorder, transcript = live_sessions
    _append(transcript, "".join(_message(100 + i, f"small talk about penguins {i}") for i in range(10)))
    with pytest.raises(queue.Empty):
        recorder.wait_for(lambda e: e.kind == "finished" and e.reason == "session-delta", timeout=2.0)
    assert _search_paths(manager, "penguins") == []
    _append(transcript, "".join(_message(200 + i, f"more about walruses {i}") for i in range(40)))
    recorder.wait_sync("session-delta")
    assert _search_paths(manager, "walruses")[0] == "sessions/s1.jsonl"
    assert _search_paths(manager, "penguins")[0] == "sessions/s1.jsonl"


def test_transcript_bytes_threshold(live_sessions: tuple[MemoryManager, Recorder, Path]) -> None:
    manager, recorder, transcript = live_sessions
    _append(transcript, _message(300, "a short note about capybaras"))
    with pytest.raises(queue.Empty):
        recorder.wait_for(lambda e: e.kind == "finished" and e.reason == "session-delta", timeout=2.0)
    _append(transcript, _message(301, "narwhal " + "lorem ipsum dolor " * 6000))
    recorder.wait_sync("session-delta")
    assert _search_paths(manager, "capybaras")[0] == "sessions/s1.jsonl"


def test_shrunk_transcript_is_reindexed(live_sessions: tuple[MemoryManager, Recorder, Path]) -> None:
    manager, recorder, transcript = live_sessions
    assert _search_paths(manager, "chatter")[0] == "sessions/s1.jsonl"
    transcript.write_text("".join(_message(i, f"fresh start with axolotls {i}") for i in range(55)),
                          encoding="utf-8")
    recorder.wait_sync("session-delta")
    assert _search_paths(manager, "axolotls")[0] == "sessions/s1.jsonl"
    assert _search_paths(manager, "chatter") == []


def test_watch_sync_reads_only_the_changed_file(live: tuple[MemoryManager, MemoryWatcher, Recorder],
                                                workspace: Path) -> None:
    manager, _watcher, recorder = live
    (workspace / "memory" / "2026-11-28.md").write_text("# 2026-11-28\n\n- vermilion rollback\n", encoding="utf-8")
    event = recorder.wait_sync()
    assert event.report is not None
    assert (event.report.files_total, event.report.files_changed) == (1, 1)
    assert _search_paths(manager, "vermilion") == ["memory/2026-11-28.md"]
    assert _search_paths(manager, "redis session cache")[0] == "memory/2026-11-27.md"


def test_reads_reach_neither_the_observer_nor_a_sync(live: tuple[MemoryManager, MemoryWatcher, Recorder],
                                                     workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The watch asks the kernel only for writes, creations, deletions and moves: a sync reading thousands of
    files (or an agent reading them) is not thousands of open / close events for the observer thread."""
    from memtui.index import watcher as watcher_module

    seen: list[str] = []
    handle = watcher_module._Handler.on_any_event

    def counting(self: object, event: object) -> None:
        seen.append(getattr(event, "event_type", ""))
        handle(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(watcher_module._Handler, "on_any_event", counting)
    _manager, _watcher, recorder = live
    notes = sorted((workspace / "memory").glob("*.md"))
    for _ in range(20):
        for note in notes:
            note.read_bytes()
    marker = workspace / "memory" / "2026-12-01.md"
    marker.write_text("# 2026-12-01\n\n- after the reads\n", encoding="utf-8")
    recorder.wait_sync()
    assert seen and not {"opened", "closed_no_write"} & set(seen)
    assert len(seen) < 10

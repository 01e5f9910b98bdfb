"""A sync does not read files whose size and mtime are those indexed; what it would have said about them stays."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv


def _paths(manager: MemoryManager, query: str) -> list[str]:
    return [hit.path for hit in manager.search(query, min_score=0.0).results]


def test_unchanged_files_are_not_read_again_but_edits_are(make_env: Callable[..., AgentEnv],
                                                          workspace: Path) -> None:
    note = workspace / "memory" / "2026-11-27.md"
    with MemoryManager(make_env()) as manager:
        manager.sync(reason="test")
        report = manager.sync(reason="again")
        assert report.files_changed == 0 and len(report.unread) == report.files_total == 4

        # Same size, same mtime, other words: taken as the indexed file (as `status` takes it) until --force.
        before = note.stat()
        text = note.read_text(encoding="utf-8")
        swapped = text.replace("Redis", "Kafka")
        assert len(swapped) == len(text)
        note.write_text(swapped, encoding="utf-8")
        os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert manager.sync(reason="again").files_changed == 0
        assert _paths(manager, "Redis session cache") == ["memory/2026-11-27.md"]
        assert manager.sync(reason="force", force=True).files_changed == 4
        assert _paths(manager, "Kafka session cache") == ["memory/2026-11-27.md"]

        # An ordinary edit of the same size moves the mtime: read, hashed and indexed.
        note.write_text(swapped.replace("Kafka", "Redis"), encoding="utf-8")
        os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
        report = manager.sync(reason="edit")
        assert report.files_changed == 1 and "memory/2026-11-27.md" not in report.unread
        assert _paths(manager, "Redis session cache") == ["memory/2026-11-27.md"]


def test_issues_of_unread_files_are_still_reported(make_env: Callable[..., AgentEnv], workspace: Path) -> None:
    broken = workspace / "memory" / "2026-11-29.md"
    broken.write_bytes(b"# 2026-11-29\n\n- caf\xe9 latency notes\n")
    with MemoryManager(make_env()) as manager:
        manager.sync(reason="test")
        manager.sync(reason="again")
        issues = manager.status(scan=False)["issues"]
        assert [i["path"] for i in issues] == ["memory/2026-11-29.md"]
        assert "UTF-8" in issues[0]["reason"]
        broken.unlink()
        manager.sync(reason="gone")
        assert manager.status(scan=False)["issues"] == []


def test_a_sync_says_whether_it_compared_every_file_and_status_can_rely_on_it(
        make_env: Callable[..., AgentEnv], workspace: Path) -> None:
    note = workspace / "memory" / "2026-11-27.md"
    with MemoryManager(make_env()) as manager:
        assert manager.sync(reason="test").complete
        assert not manager.sync(reason="watcher", memory_paths={"memory/2026-11-27.md"}).complete
        assert not manager.sync(reason="stopped", should_stop=lambda: True).complete
        assert manager.sync(reason="again").complete

        # Changed behind the index's back (no watcher): the walk sees it; a caller whose complete sync has
        # just compared every file may skip the walk, and still sees what the watcher flagged.
        note.write_text(note.read_text(encoding="utf-8") + "- one more line\n", encoding="utf-8")
        walked = manager.status(scan=False)
        assert walked["dirty"] is True
        assert walked["custom"]["dirtyReason"] == "memory/2026-11-27.md changed since it was indexed"
        assert manager.status(scan=False, verify=False)["dirty"] is False
        manager.dirty = True
        assert manager.status(scan=False, verify=False)["dirty"] is True

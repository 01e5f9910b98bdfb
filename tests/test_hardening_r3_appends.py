"""Appends on a full disk (issue 29, item 2): a TUI note or a promotion that fails part-way leaves the file byte
for byte as it was, so no torn line stays and a later promotion of the same lines is not "already promoted"."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from memtui.tui.curation import append_note, promote_lines

DAY = date(2026, 4, 28)
LOG = "memory/2026-04-28.md"
REAL_WRITE, REAL_FSYNC = os.write, os.fsync


def _disk_full(monkeypatch: pytest.MonkeyPatch, where: str, before_failing: Callable[[], None] = lambda: None) -> None:
    """The next append hits a full disk: `partial` lands half its bytes and then fails, `write` fails at once,
    `fsync` fails after the whole write (space allocated late, as on NFS)."""
    calls = {"write": 0, "fsync": 0}

    def write(fd: int, data: bytes) -> int:
        calls["write"] += 1
        if where == "partial" and calls["write"] == 1:
            return REAL_WRITE(fd, bytes(data[: len(data) // 2]))
        if (where == "partial" and calls["write"] == 2) or (where == "write" and calls["write"] == 1):
            before_failing()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return REAL_WRITE(fd, data)

    def fsync(fd: int) -> None:
        calls["fsync"] += 1
        if where == "fsync" and calls["fsync"] == 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        REAL_FSYNC(fd)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "fsync", fsync)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "memory").mkdir(parents=True)
    (folder / LOG).write_text("# 2026-04-28\n\n- The agent's own line.\n", encoding="utf-8")
    (folder / "MEMORY.md").write_text("# Long-Term Memory\n\n- Deploys happen on Mondays.\n", encoding="utf-8")
    (folder / "MEMORY.md").chmod(0o640)
    return folder


@pytest.mark.parametrize("where", ["partial", "write", "fsync"])
def test_a_note_on_a_full_disk_leaves_the_log_unchanged(workspace: Path, monkeypatch: pytest.MonkeyPatch,
                                                         where: str) -> None:
    before = (workspace / LOG).read_bytes()
    _disk_full(monkeypatch, where)
    with pytest.raises(OSError, match="nothing was appended") as caught:
        append_note(workspace, DAY, "Rotate the staging keys before the audit on Friday.\nAsk Bea first.")
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == LOG
    assert (workspace / LOG).read_bytes() == before
    monkeypatch.undo()
    append_note(workspace, DAY, "Rotate the staging keys before the audit on Friday.")
    assert (workspace / LOG).read_bytes() == before + b"\n- Rotate the staging keys before the audit on Friday.\n"


@pytest.mark.parametrize("where", ["partial", "write", "fsync"])
def test_a_promotion_on_a_full_disk_leaves_memory_md_unchanged_and_can_be_retried(
        workspace: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    memory = workspace / "MEMORY.md"
    before = memory.read_bytes()
    promote = {"path": LOG, "start_line": 3, "end_line": 3, "text": "- The agent's own line.", "day": DAY}
    _disk_full(monkeypatch, where)
    with pytest.raises(OSError, match="nothing was appended"):
        promote_lines(workspace, **promote)
    assert memory.read_bytes() == before
    monkeypatch.undo()
    outcome = promote_lines(workspace, **promote)
    assert outcome.appended, "a failed promotion must not leave its marker behind"
    assert memory.read_bytes().startswith(before) and b"The agent's own line." in memory.read_bytes()
    assert memory.stat().st_mode & 0o777 == 0o640


def test_another_writers_line_behind_a_partial_append_is_kept(workspace: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The one case that cannot be undone without losing someone else's line: it is kept, and the error says so."""
    before = (workspace / LOG).read_bytes()

    def agent_appends() -> None:
        fd = os.open(workspace / LOG, os.O_WRONLY | os.O_APPEND)
        REAL_WRITE(fd, b"- The agent wrote this meanwhile.\n")
        os.close(fd)

    _disk_full(monkeypatch, "partial", agent_appends)
    with pytest.raises(OSError, match="part of it stays, behind lines another writer appended"):
        append_note(workspace, DAY, "A note from the TUI.")
    after = (workspace / LOG).read_bytes()
    assert after.startswith(before) and after.endswith(b"- The agent wrote this meanwhile.\n")

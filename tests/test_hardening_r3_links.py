"""Hard links (issue 29, item 3, write side): memtui never writes to a file that has another hard link, so a
note, a promotion or a save cannot change a file outside the workspace through a link inside it."""

from __future__ import annotations

import os
import re
from datetime import date
from pathlib import Path

import pytest

from memtui.atomic import EscapeError, atomic_write_text
from memtui.tui.curation import append_note, promote_lines, save_memory_file

DAY = date(2026, 4, 28)
LOG = "memory/2026-04-28.md"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# Not memtui's\n\n- keep out\n", encoding="utf-8")
    return secret


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "memory").mkdir(parents=True)
    return folder


def test_a_note_into_a_hard_linked_daily_log_is_refused(workspace: Path, outside: Path) -> None:
    before = outside.read_bytes()
    os.link(outside, workspace / LOG)
    with pytest.raises(EscapeError, match=re.escape(f"{LOG} has 2 hard links; refusing to write to it")):
        append_note(workspace, DAY, "A note that must not land outside.")
    assert outside.read_bytes() == before


def test_a_promotion_into_a_hard_linked_memory_md_is_refused(workspace: Path, outside: Path) -> None:
    before = outside.read_bytes()
    os.link(outside, workspace / "MEMORY.md")
    (workspace / LOG).write_text("# 2026-04-28\n\n- A line to promote.\n", encoding="utf-8")
    with pytest.raises(EscapeError, match=r"MEMORY\.md has 2 hard links"):
        promote_lines(workspace, path=LOG, start_line=3, end_line=3, text="- A line to promote.", day=DAY)
    assert outside.read_bytes() == before


def test_a_save_over_a_hard_linked_note_is_refused_and_the_link_kept(workspace: Path, outside: Path) -> None:
    before = outside.read_bytes()
    os.link(outside, workspace / LOG)
    with pytest.raises(EscapeError, match="hard links"):
        save_memory_file(workspace, LOG, "# replaced\n", expected_digest=False)
    os.link(outside, workspace / "MEMORY.md")
    with pytest.raises(EscapeError, match="hard links"):
        atomic_write_text(workspace / "MEMORY.md", "x\n", root=workspace)
    assert outside.read_bytes() == before
    assert os.stat(workspace / LOG).st_ino == os.stat(outside).st_ino  # not split off either

"""The editor never writes outside the workspace (a symlink swapped in after the file was opened is refused
at the save) and never opens a symlink, FIFO or device put where a hit's file was."""

from __future__ import annotations

import os

from pilot import search, settle

from memtui.manager import MemoryManager
from memtui.tui.screens import ErrorModal

SIZE = (120, 36)


async def test_a_hit_whose_file_became_a_symlink_is_not_opened_and_nothing_is_saved(
        manager: MemoryManager, make_app, tmp_path) -> None:
    """The finding: index, replace the note by a symlink to a file outside, open the hit, `e`, ctrl+s."""
    outside = tmp_path / "outside-secret.md"
    outside.write_text("outside: do not touch\n", encoding="utf-8")
    note = manager.env.workspace_dir / "memory" / "2026-04-28.md"
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "noeviction")
        note.unlink()
        os.symlink(outside, note)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "symlink" in str(app.screen.body)
        await pilot.press("escape", "e")
        app.viewer.text_area.insert("- written by the editor\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
    assert outside.read_text(encoding="utf-8") == "outside: do not touch\n"
    assert note.is_symlink()


async def test_a_file_swapped_for_a_symlink_while_open_is_not_saved_through(
        manager: MemoryManager, make_app, tmp_path) -> None:
    outside = tmp_path / "outside-secret.md"
    outside.write_text("outside: do not touch\n", encoding="utf-8")
    note = manager.env.workspace_dir / "memory" / "2026-04-28.md"
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "noeviction")
        await pilot.press("enter")
        note.unlink()
        os.symlink(outside, note)
        await pilot.press("e")
        app.viewer.text_area.insert("- written by the editor\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "symlink" in str(app.screen.body)
    assert outside.read_text(encoding="utf-8") == "outside: do not touch\n"
    assert note.is_symlink()


async def test_saving_into_a_symlinked_memory_folder_is_refused(manager: MemoryManager, make_app, tmp_path) -> None:
    workspace = manager.env.workspace_dir
    outside = tmp_path / "outside-folder"
    outside.mkdir()
    (outside / "2026-04-28.md").write_text("outside copy\n", encoding="utf-8")
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "noeviction")
        await pilot.press("enter")
        os.rename(workspace / "memory", tmp_path / "memory-moved")
        os.symlink(outside, workspace / "memory")
        await pilot.press("e")
        app.viewer.text_area.insert("- written by the editor\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorModal)
    assert (outside / "2026-04-28.md").read_text(encoding="utf-8") == "outside copy\n"
    assert sorted(p.name for p in outside.iterdir()) == ["2026-04-28.md"]


async def test_a_hit_whose_file_became_a_fifo_is_refused_without_blocking(manager: MemoryManager, make_app) -> None:
    note = manager.env.workspace_dir / "memory" / "2026-04-28.md"
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "noeviction")
        note.unlink()
        os.mkfifo(note)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "not a regular file" in str(app.screen.body)


async def test_a_hit_whose_folder_became_a_symlink_is_not_opened(manager: MemoryManager, make_app, tmp_path) -> None:
    """`memory -> ../outside` after indexing: opening the hit `memory/2026-04-28.md` must not show the outside file
    of the same name."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "2026-04-28.md").write_text("outside secret noeviction\n", encoding="utf-8")
    memory = manager.env.workspace_dir / "memory"
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "noeviction")
        memory.rename(tmp_path / "memory-moved")
        os.symlink(outside, memory)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "symlink" in str(app.screen.body)
        assert "outside secret" not in app.viewer.text_area.text

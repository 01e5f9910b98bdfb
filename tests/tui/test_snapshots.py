"""SVG snapshots of the main screens at 80x24, 120x36 and 200x50, and of every other screen at 120x36
(pytest-textual-snapshot), offline with a frozen clock."""

from __future__ import annotations

import pytest

from memtui.manager import MemoryManager
from memtui.tui.tuning import KNOBS

SIZES = [(80, 24), (120, 36), (200, 50)]
SIZE = (120, 36)


async def _settle(pilot, delay: float = 0.2) -> None:
    await pilot.pause(delay)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_main_screen_with_results(snap_compare, hybrid_manager: MemoryManager, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("slash", *"redis eviction", "enter")
        await _settle(pilot)

    assert snap_compare(make_app(hybrid_manager), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_first_screen(snap_compare, manager: MemoryManager, make_app, size) -> None:
    assert snap_compare(make_app(manager), terminal_size=size, run_before=_settle)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_tuning_panel_with_marks(snap_compare, hybrid_manager: MemoryManager, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("slash", *"postgres analytics service", "enter")
        await _settle(pilot)
        await pilot.press("t")
        await _settle(pilot)
        panel = pilot.app.tuning_panel
        panel.highlighted = [knob.field for knob in KNOBS].index("vector_weight")
        await pilot.press("enter", "0", "enter")
        await _settle(pilot)

    assert snap_compare(make_app(hybrid_manager), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_promote_dialog(snap_compare, manager: MemoryManager, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("slash", *"noeviction", "enter")
        await _settle(pilot)
        await pilot.press("p")
        await _settle(pilot)

    assert snap_compare(make_app(manager), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_help_screen(snap_compare, manager: MemoryManager, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.2)

    assert snap_compare(make_app(manager), terminal_size=size, run_before=run_before)


def test_hit_opened_at_its_lines(snap_compare, manager: MemoryManager, make_app) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("slash", *"noeviction", "enter")
        await _settle(pilot)
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(make_app(manager), terminal_size=SIZE, run_before=run_before)


def test_why_not_dialog(snap_compare, hybrid_manager: MemoryManager, make_app) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("slash", *"redis eviction", "enter")
        await _settle(pilot)
        await pilot.press("W", *"MEMORY.md:5", "enter")
        await pilot.pause()

    assert snap_compare(make_app(hybrid_manager), terminal_size=SIZE, run_before=run_before)


def test_sessions_screen(snap_compare, manager: MemoryManager, make_app) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("s")
        await pilot.pause()

    assert snap_compare(make_app(manager), terminal_size=SIZE, run_before=run_before)


def test_editor(snap_compare, manager: MemoryManager, make_app) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        app = pilot.app
        app.open_file("MEMORY.md", app.manager.env.workspace_dir / "MEMORY.md")
        app.viewer.content_widget.focus()
        await pilot.press("e")
        await pilot.pause()

    assert snap_compare(make_app(manager), terminal_size=SIZE, run_before=run_before)


def test_bootstrap_tab(snap_compare, manager: MemoryManager, make_app) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        pilot.app.screen.query_one("#sessions-tabs").active = "tab-bootstrap"
        table = pilot.app.screen.query_one("#bootstrap-table")
        table.focus()
        table.move_cursor(row=table.get_row_index("MEMORY.md"))
        await pilot.pause()

    assert snap_compare(make_app(manager), terminal_size=SIZE, run_before=run_before)


def test_dreams_screen(snap_compare, manager: MemoryManager, make_app) -> None:
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("d")
        await pilot.pause()

    assert snap_compare(make_app(manager), terminal_size=SIZE, run_before=run_before)

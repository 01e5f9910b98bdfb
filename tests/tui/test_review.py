"""Pilot tests for defects found while re-checking issue 13 as a new user."""

from __future__ import annotations

from textual import events
from textual.widgets import Static

from memtui.manager import MemoryManager
from memtui.tui.app import MemtuiApp
from memtui.tui.tuning import KNOBS


async def settle(app: MemtuiApp, pilot, delay: float = 0.15) -> None:
    await pilot.pause(delay)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def search(app: MemtuiApp, pilot, query: str) -> None:
    await settle(app, pilot)
    await pilot.press("slash", *query, "enter")
    await settle(app, pilot)


async def test_the_search_row_shows_mode_and_counts(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await search(app, pilot, "redis")
        info = app.query_one("#search-info", Static)
        assert "shown" in str(info.render()) and info.size.width > 10


async def test_at_80_columns_the_tuning_panel_leaves_the_vector_text_pair(hybrid_manager: MemoryManager,
                                                                          make_app) -> None:
    app = make_app(hybrid_manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("t")
        await settle(app, pilot)
        assert "pair" in [str(c.key.value) for c in app.results.columns.values()]
        app.tuning_panel.highlighted = [k.field for k in KNOBS].index("vector_weight")
        await pilot.press("enter", "1", "enter")
        await settle(app, pilot)
        ranks = [app.results.get_cell_at((row, 0)).plain for row in range(app.results.row_count)]
        assert any(mark in rank for rank in ranks for mark in ("▲", "▼", "=", "new")), ranks
        places = [app.results.get_cell_at((row, 3)).plain for row in range(app.results.row_count)]
        assert all(place.rpartition(":")[2][:1].isdigit() for place in places), places


async def test_keys_typed_while_the_app_starts_are_commands_not_text(manager: MemoryManager, make_app) -> None:
    focus_after_mount: list[object] = []

    class TypedAhead(MemtuiApp):
        def on_mount(self) -> None:
            super().on_mount()
            # A terminal delivers keys typed during a slow start right after this: they must find the pane
            # focused already, not the search box (Textual's auto-focus) or nothing.
            focus_after_mount.append(self.focused)
            for key, character in (("slash", "/"), *((c, c) for c in "redis")):
                self.post_message(events.Key(key, character))

    app = make_app(manager)
    app.__class__ = TypedAhead
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert focus_after_mount == [app.results]
        assert app.query_input.value == "redis"

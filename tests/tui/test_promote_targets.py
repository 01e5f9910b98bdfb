"""`p` (and the copy keys) act on what the user is looking at: in the viewer its selected lines or its cursor's
line, never the hit of an earlier query; with nothing to act on they say so (issue 28, item 4)."""

from __future__ import annotations

from pilot import search, settle

from memtui.manager import MemoryManager
from memtui.tui.app import MemtuiApp
from memtui.tui.screens import ChoiceModal

SIZE = (120, 36)


def toasts(app: MemtuiApp) -> list[str]:
    """The notifications shown so far."""
    return [n.message for n in app._notifications]


async def open_raw(app: MemtuiApp, pilot, rel: str, line: int) -> None:
    """Open `rel` in the viewer, raw, with the cursor on `line` and the focus in the viewer."""
    app.open_file(rel, app.resolve_rel(rel))
    app.viewer.set_mode("raw")
    app.viewer.text_area.move_cursor((line - 1, 0))
    app.focus_now(app.viewer.text_area)
    await settle(app, pilot)


def preview(app: MemtuiApp) -> str:
    """The promote dialog's text."""
    assert isinstance(app.screen, ChoiceModal)
    return str(app.screen.query_one("#modal-body").render())


async def test_p_in_the_viewer_promotes_the_cursor_line_not_an_earlier_hit(manager: MemoryManager,
                                                                           make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await search(app, pilot, "redis")
        hit = app.highlighted_hit()
        assert hit is not None and hit.path != "memory/2026-04-20.md"
        await open_raw(app, pilot, "memory/2026-04-20.md", 3)
        await pilot.press("p")
        await settle(app, pilot)
        shown = preview(app)
        assert "memory/2026-04-20.md:3-3 becomes" in shown
        assert "prefers Postgres for the analytics service" in shown
        assert hit.path not in shown


async def test_p_in_the_viewer_promotes_the_selected_lines(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await open_raw(app, pilot, "memory/2026-04-20.md", 3)
        await pilot.press("shift+down")
        await pilot.press("p")
        await settle(app, pilot)
        assert "memory/2026-04-20.md:3-3 becomes" in preview(app)  # the selection ends at column 0 of line 4
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("shift+end", "p")
        await settle(app, pilot)
        shown = preview(app)
        assert "memory/2026-04-20.md:3-4 becomes" in shown and "invoice_id" in shown


async def test_p_says_why_there_is_nothing_to_promote(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await open_raw(app, pilot, "memory/2026-04-20.md", 2)  # a blank line, no query
        await pilot.press("p")
        await settle(app, pilot)
        assert not isinstance(app.screen, ChoiceModal)
        assert any(t.startswith("Nothing to promote: line 2 of memory/2026-04-20.md is empty") for t in toasts(app))
        await pilot.press("v")  # rendered: no cursor to promote from
        await settle(app, pilot)
        assert app.viewer.mode == "rendered" and app.viewer_focused()
        await pilot.press("p")
        await settle(app, pilot)
        assert any("the rendered view has no cursor (v shows the raw text)" in t for t in toasts(app))
        await pilot.press("3", "p")  # the results, empty
        await settle(app, pilot)
        assert any(t == "Nothing to promote: highlight a hit, or put the viewer's cursor on a line (or select "
                   "lines)" for t in toasts(app))


async def test_copy_in_the_viewer_copies_the_cursor_line(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await search(app, pilot, "redis")
        await open_raw(app, pilot, "memory/2026-04-20.md", 4)
        await pilot.press("c")
        await settle(app, pilot)
        assert app.clipboard == "memory/2026-04-20.md#L4"
        await pilot.press("y")
        await settle(app, pilot)
        assert app.clipboard.startswith("- Meeting with Dana")

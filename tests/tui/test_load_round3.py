"""Issue 28, under load: handlers that reach from an event to a widget's screen survive a widget that is already
gone (the palette's input closed before its focus event was handled), and opening and closing the palette and
every dialog at random short delays never ends the app."""

from __future__ import annotations

import random

from pilot import settle
from textual import events
from textual.widgets import Input

from memtui.manager import MemoryManager

SIZE = (120, 36)


async def test_a_focus_event_of_a_widget_already_gone_is_ignored(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.on_descendant_focus(events.DescendantFocus(Input()))  # an input that was never (or no longer) mounted
        await pilot.pause()
        assert app.is_running


async def test_the_palette_and_the_dialogs_opened_and_closed_at_random_delays(manager: MemoryManager,
                                                                             make_app) -> None:
    rng = random.Random(28)
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.browser.focus()
        for _ in range(12):
            for key in ("ctrl+p", "question_mark", "i", "x", "W"):
                await pilot.press(key)
                await pilot.pause(rng.choice((0, 0, 0.01, 0.05)))
                await pilot.press("escape")
                await pilot.pause(rng.choice((0, 0.01, 0.03)))
                assert app.is_running, key
        await settle(app, pilot)
        assert app.is_running and app.screen is app.screen_stack[0]

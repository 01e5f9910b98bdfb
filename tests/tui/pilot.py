"""Pilot helpers shared by the TUI tests."""

from __future__ import annotations

import asyncio
import contextlib

from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from memtui.tui.app import MemtuiApp


async def settle(app: MemtuiApp, pilot, delay: float = 0.15) -> None:
    """Let timers fire, wait for every worker, then let their messages be handled. A worker cancelled meanwhile
    (the app started a newer one of its exclusive group: a status read after a sync) is not waited for."""
    await pilot.pause(delay)
    while pending := [worker for worker in app.workers if not worker.is_finished]:
        await asyncio.gather(*(_finished(worker) for worker in pending))
    await pilot.pause()


async def _finished(worker: Worker) -> None:
    with contextlib.suppress(WorkerCancelled, WorkerFailed):
        await worker.wait()


async def search(app: MemtuiApp, pilot, query: str) -> None:
    """Type `query` into the search box and wait for its results."""
    await settle(app, pilot)
    await pilot.press("slash", *query, "enter")
    await settle(app, pilot)


async def press_from(app: MemtuiApp, pilot, key: str, widget: Widget) -> Screen:
    """Settle, focus `widget`, press `key` and settle again: the screen on top then (the one `key` opened)."""
    await settle(app, pilot)
    widget.focus()
    await pilot.press(key)
    await settle(app, pilot)
    return app.screen


def screen_lines(screen: Screen) -> list[str]:
    """The text of every line of `screen`, as drawn."""
    return [strip.text for strip in screen._compositor.render_strips()]

"""Pilot helpers shared by the TUI tests."""

from __future__ import annotations

from memtui.tui.app import MemtuiApp


async def settle(app: MemtuiApp, pilot, delay: float = 0.15) -> None:
    """Let timers fire, wait for every worker, then let their messages be handled."""
    await pilot.pause(delay)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def search(app: MemtuiApp, pilot, query: str) -> None:
    """Type `query` into the search box and wait for its results."""
    await settle(app, pilot)
    await pilot.press("slash", *query, "enter")
    await settle(app, pilot)

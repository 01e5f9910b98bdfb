"""Pilot helpers shared by the TUI tests."""

from __future__ import annotations

import asyncio
import contextlib

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

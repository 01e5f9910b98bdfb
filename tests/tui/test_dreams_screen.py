"""Pilot test of the dreams view: recorded recalls show as candidates and promote into MEMORY.md."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from textual.widgets import DataTable

from memtui.dreaming import record_search_hits
from memtui.manager import MemoryManager
from memtui.tui.screens.dreams import DreamsScreen

SIZE = (120, 36)
NOW = datetime(2026, 4, 29, 15, 0, tzinfo=UTC)


async def test_dreams_lists_recalls_and_promotes(manager: MemoryManager, make_app) -> None:
    workspace = manager.env.workspace_dir
    line = "- Root cause: Redis maxmemory-policy reset to noeviction; fixed with allkeys-lru."
    for offset, query in enumerate(("redis eviction", "noeviction fix", "checkout latency")):
        record_search_hits(workspace, query, [("memory/2026-04-28.md", 4, 4, 0.9, line, "memory")],
                           now=NOW - timedelta(hours=3 - offset))
    record_search_hits(workspace, "temporal export", [("memory/2026-04-29.md", 3, 3, 0.8,
                                                       "- Decided to move the nightly export job", "memory")],
                       now=NOW - timedelta(hours=1))
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        app.browser.focus()
        await pilot.press("d")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DreamsScreen)
        table = screen.query_one("#dreams-table", DataTable)
        assert table.row_count == 2
        column = {str(key.value): index for index, key in enumerate(table.columns)}
        rows = {str(table.get_cell_at((r, column["source"]))): r for r in range(2)}
        weak = rows["memory/2026-04-29.md:3-3"]
        assert "signals 1 < minRecallCount 3" in str(table.get_cell_at((weak, column["state"])))
        table.move_cursor(row=rows["memory/2026-04-28.md:4-4"])
        await pilot.pause()
        detail = str(screen.query_one("#dreams-detail").render())
        assert "×frequency" in detail and "evidence 3 recalls" in detail
        await pilot.press("p")
        await pilot.pause()
        assert not (workspace / "MEMORY.md").read_text(encoding="utf-8").count("openclaw-memory-promotion")
        await pilot.press("p")  # the dialog's Promote
        await pilot.pause()
        assert str(table.get_cell_at((rows["memory/2026-04-28.md:4-4"], column["state"]))) == "promoted"
    memory = (workspace / "MEMORY.md").read_text(encoding="utf-8")
    assert "<!-- openclaw-memory-promotion:memory:memory/2026-04-28.md:4:4 -->" in memory

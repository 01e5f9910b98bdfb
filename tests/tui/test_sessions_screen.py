"""Pilot test of the sessions screen: gauge numbers, flush state, bootstrap table."""

from __future__ import annotations

from textual.widgets import DataTable

from memtui.manager import MemoryManager
from memtui.tui.screens.sessions import SessionsScreen

SIZE = (120, 36)


async def test_sessions_gauge_shows_tokens_threshold_and_flush_state(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        app.browser.focus()
        await pilot.press("s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        table = screen.query_one("#sessions-table", DataTable)
        assert [str(table.get_cell_at((row, 0))) for row in range(table.row_count)] == [
            "agent:main:main", "agent:main:telegram:direct:42"]
        gauge = str(screen.query_one("#session-gauge").render())
        # usage 170000 + cacheRead 2000 + cacheWrite 500 + output 900 = 173400 tokens;
        # threshold = 200000 window − 20000 reserve − 4000 soft = 176000.
        assert "tokens 173,400 / window 200,000" in gauge
        assert "flush at 176,000 · soft band 176,000–180,000" in gauge
        assert "below — 2,600 tokens below threshold" in gauge
        assert f"{173400 / 176000 * 100:.1f}% of threshold" in gauge
        await pilot.press("j")
        gauge = str(screen.query_one("#session-gauge").render())
        assert "tokens 12,300 / window 200,000" in gauge
        await pilot.press("escape")
        assert not isinstance(app.screen, SessionsScreen)


async def test_bootstrap_tab_reads_the_same_wherever_the_workspace_lives(tmp_path, env_at, make_app) -> None:
    shown = []
    for folder in ("a", "a-much-longer-folder-name-than-the-first-one"):
        with MemoryManager(env_at(tmp_path / folder), provider=None) as memory:
            app = make_app(memory, auto_index=False)
            async with app.run_test(size=SIZE) as pilot:
                app.browser.focus()
                await pilot.press("s")
                await pilot.pause()
                summary = str(app.screen.query_one("#bootstrap-summary").render())
                table = app.screen.query_one("#bootstrap-table", DataTable)
                rows = [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]
                shown.append((summary, rows))
    assert shown[0] == shown[1]
    summary, rows = shown[0]
    # Seven bootstrap files are missing (each injected as a marker naming its path); MEMORY.md is whole.
    assert "495 of 496 chars from 1 file · 7 missing ([MISSING] marker)" in summary
    assert rows[0] == ["AGENTS.md", "0", "marker", "–", "missing"]
    assert rows[-1] == ["MEMORY.md", "496", "495", "12,000", "whole, trailing newline trimmed"]

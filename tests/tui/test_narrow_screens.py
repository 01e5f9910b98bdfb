"""The sessions and dreams screens at 80 columns: every value of a row on the screen, none cut at the edge."""

from __future__ import annotations

from datetime import timedelta

from conftest import NOW
from pilot import press_from, screen_lines, settle
from textual.widgets import DataTable

from memtui.dreaming import record_search_hits
from memtui.manager import MemoryManager
from memtui.tui.screens.dreams import DreamsScreen
from memtui.tui.screens.sessions import SessionsScreen
from memtui.tui.widgets.gauge import human_bytes


async def test_sessions_table_keeps_every_column_at_80x24(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_from(app, pilot, "s", app.results)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        lines = screen_lines(app.screen)
        header = next(line for line in lines if line.startswith(" session "))
        assert header.split() == ["session", "type", "tokens", "threshold", "used", "flush", "transcript"]
        for session in screen.report.sessions:
            name = session.key.removeprefix("agent:main:")
            row = next(line for line in lines if line.startswith(f" {name} "))
            assert row.split()[1:] == [session.chat_type, f"{session.token_count:,}", f"{session.threshold:,}",
                                       f"{session.percent_used:.1f}%", session.flush_state,
                                       *human_bytes(session.transcript_bytes or 0).split()], row
        gauge = next(line for line in lines if "% of threshold" in line)
        assert "█" in gauge, "the percentage sits beside its bar, not wrapped under it"

        await pilot.resize_terminal(120, 36)
        await settle(app, pilot)
        keys = [str(screen.query_one("#sessions-table", DataTable).get_cell_at((row, 0))) for row in range(2)]
        assert keys == [session.key for session in screen.report.sessions]


async def test_dreams_table_shows_every_threshold_at_80x24(manager: MemoryManager, make_app) -> None:
    workspace = manager.env.workspace_dir
    for hours, (path, line) in enumerate((("memory/2026-04-28.md", 4), ("memory/2026-04-20.md", 3))):
        record_search_hits(workspace, f"query {hours}", [(path, line, line, 0.4, "- a note", "memory")],
                           now=NOW - timedelta(hours=hours + 1))
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_from(app, pilot, "d", app.results)
        screen = app.screen
        assert isinstance(screen, DreamsScreen)
        lines = screen_lines(app.screen)
        header = next(line for line in lines if line.startswith(" score "))
        assert "recalls" not in header, "the counts give their room to the state (the detail shows them)"
        start = lines.index(header) + 1
        rows = lines[start:next(i for i, line in enumerate(lines) if line.startswith("╭"))]
        state = " ".join(line[header.index("state"):].strip() for line in rows)
        for candidate in screen.candidates:
            assert len(candidate.rejected) == 3
            for gate in candidate.rejected:
                assert gate in state, gate

        await pilot.resize_terminal(200, 50)
        await settle(app, pilot)
        text = "\n".join(screen_lines(app.screen))
        for candidate in screen.candidates:
            assert "; ".join(candidate.rejected) in text
            assert f" {candidate.source} " in text  # the cells take their new width (they kept the narrow one)
        table = screen.query_one("#dreams-table", DataTable)
        assert [str(column.label) for column in table.columns.values()] == ["score", "recalls", "queries", "source",
                                                                            "state"]


async def test_sessions_behind_a_dialog_fit_the_new_width(manager: MemoryManager, make_app) -> None:
    """Resized from 200x50 to 80x24 with the help open over it, the sessions table fits 80 columns behind it."""
    app = make_app(manager)
    async with app.run_test(size=(200, 50)) as pilot:
        await press_from(app, pilot, "s", app.results)
        sessions = app.screen
        assert isinstance(sessions, SessionsScreen)
        assert sessions.report_layout is not None and not sessions.report_layout.short_keys
        await pilot.press("question_mark")
        await settle(app, pilot)
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        assert app.screen is not sessions and sessions.report_layout.short_keys
        lines = screen_lines(sessions)
        header = next(line for line in lines if line.startswith(" session "))
        assert header.split()[-1] == "transcript"

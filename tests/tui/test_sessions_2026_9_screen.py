"""The sessions screen on the real OpenClaw 2026.9.6 agent (`tests/data/openclaw-2026.9.6/sessions/`): the agent
database's sessions with 2026.9.6's thresholds, read in a worker and never written, every number of a row visible
at 80×24 and all columns at 200×50, and the selected session's memory_search / memory_get calls."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pilot import press_from, screen_lines, settle
from textual.widgets import DataTable, Static

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from openclaw_2026_9_data import Agent2026_9, build_agent, snapshot

from memtui.agentdb.sessions_budget import SessionBudget, session_budgets
from memtui.errors import StoreError
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent
from memtui.tui.screens.sessions import SessionsScreen
from memtui.tui.widgets import sessions_2026_9
from memtui.tui.widgets.sessions_2026_9 import AgentSessions, fit_columns, short_key

SESSIONS_DB = Path(__file__).resolve().parents[1] / "data" / "openclaw-2026.9.6" / "sessions" / "agent.sqlite"


@pytest.fixture
def agent(tmp_path: Path) -> Agent2026_9:
    """The recorded 2026.9.6 install with the recorded sessions' agent database."""
    built = build_agent(tmp_path)
    shutil.copyfile(SESSIONS_DB, built.agent_db)
    return built


@pytest.fixture
def memory(agent: Agent2026_9) -> Iterator[MemoryManager]:
    with MemoryManager(resolve_agent(state_dir=str(agent.state), provider="none")) as manager:
        yield manager


async def open_sessions(app, pilot) -> SessionsScreen:
    await press_from(app, pilot, "s", app.browser)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SessionsScreen) and screen.agent_db
    assert screen.agent_sessions is not None and screen.agent_sessions.error is None
    return screen


def budgets() -> list[SessionBudget]:
    return session_budgets(SESSIONS_DB)


async def select(pilot, screen: SessionsScreen, key: str) -> None:
    table = screen.query_one("#sessions-table", DataTable)
    ids = [row.session.session_id for row in screen.agent_sessions.sessions]
    target = next(i for i, row in enumerate(screen.agent_sessions.sessions) if row.session.key == key)
    assert len(ids) == table.row_count
    while table.cursor_row != target:
        await pilot.press("j" if table.cursor_row < target else "k")
    await pilot.pause()
    selected = screen.selected_agent_session()
    assert selected is not None and selected.session.key == key


async def test_at_80x24_every_row_shows_its_numbers_uncut(memory: MemoryManager, make_app, agent) -> None:
    app = make_app(memory)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_sessions(app, pilot)
        table = screen.query_one("#sessions-table", DataTable)
        expected = budgets()
        assert [str(table.get_cell_at((row, 0))) for row in range(table.row_count)] == [
            short_key(b.session.key, "main") for b in expected]
        assert screen.agent_layout is not None and screen.agent_layout.width <= 80
        lines = screen_lines(app.screen)
        assert all(len(line) <= 80 for line in lines)
        for row in expected:
            name = short_key(row.session.key, "main")
            line = next(line for line in lines if line.startswith(f" {name} "))
            cells = line.split()
            assert f"{row.token_count:,}" in cells and f"{row.percent_used:.1f}%" in cells, line
            assert "176,000" in cells and "180,000" in cells and row.flush_state in cells, line
            for column in screen.agent_layout.columns[1:]:
                assert column.cell(row, True) in line, (column.key, line)
        header = " ".join(" ".join(lines).split())
        assert "reserve floor fixed at 20,000" in header and "soft threshold 4,000" in header
        assert "force flush 2.0 MiB (2,097,152 B)" in header
        source = str(screen.query_one("#sessions-source", Static).render())
        assert f"OpenClaw 2026.9 agent database {agent.agent_db}, read-only" in " ".join(source.split("\n"))


async def test_at_200x50_all_columns_and_full_keys(memory: MemoryManager, make_app) -> None:
    app = make_app(memory)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_sessions(app, pilot)
        table = screen.query_one("#sessions-table", DataTable)
        labels = [str(column.label) for column in table.columns.values()]
        assert labels == ["session", "tokens", "window", "flush at", "compact at", "used", "flush", "compactions",
                          "events", "transcript", "truncated"]
        lines = screen_lines(app.screen)
        for row in budgets():
            line = next(line for line in lines if line.startswith(f" {row.session.key} "))
            cells = line.split()
            assert cells[1:7] == [f"{row.token_count:,}", "200,000", "176,000", "180,000",
                                  f"{row.percent_used:.1f}%", "ok"], line
            assert cells[7:9] == [str(row.session.compaction_count), str(row.session.events)], line
            assert cells[-1] == "0/5", line


async def test_the_flushed_and_compacted_session_and_its_memory_calls(memory: MemoryManager, make_app) -> None:
    app = make_app(memory)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(app, pilot)
        await select(pilot, screen, "agent:main:incident")
        gauge = " ".join(str(screen.query_one("#session-gauge", Static).render()).split())
        incident = next(b for b in budgets() if b.session.key == "agent:main:incident")
        assert f"tokens {incident.token_count:,} / window 200,000 (session)" in gauge
        assert "flush at 176,000 · compact at 180,000 · reserve 20,000 · soft 4,000" in gauge
        assert f"flush: ok — {incident.token_count} tokens < flush threshold 176000" in gauge
        assert "compactions 1 · last flush in cycle 0 (succeeded)" in gauge
        assert "bootstrap: 0/5 files truncated · budget 20,000/file, 60,000 total" in gauge
        calls = str(screen.query_one("#session-calls", Static).render())
        assert "memory calls: 2 (2 memory_search, 0 memory_get)" in calls
        assert "search 'database failover September 14' (max 5) → 1 hit" in calls
        assert "memory/runbooks/postgres-failover.md:1-6" in calls
        assert "search 'tracing decision OpenTelemetry' → 2 hits" in calls

        await select(pilot, screen, "agent:main:ops")
        calls = str(screen.query_one("#session-calls", Static).render())
        assert "search 'payments API burst limit' (max 4, min score 0.20) → 1 hit" in calls
        assert "memory/2026-11-24.md:1-4" in calls
        assert "get memory/2026-11-24.md (from 1, lines 6) → ok," in calls
        assert "compactions 0" in str(screen.query_one("#session-gauge", Static).render())

        await select(pilot, screen, "agent:main:research")
        calls = str(screen.query_one("#session-calls", Static).render())
        assert "get memory/does-not-exist.md → not_found" in calls
        assert "search 'CI runners' (max 3, corpus memory) → 1 hit" in calls
        await pilot.press("escape")
        assert not isinstance(app.screen, SessionsScreen)


async def test_opening_the_screen_writes_nothing(memory: MemoryManager, make_app, agent) -> None:
    before = snapshot(agent.state, agent.workspace)
    database = agent.agent_db.read_bytes()
    app = make_app(memory)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_sessions(app, pilot)
        for key in ("agent:main:ops", "agent:main:incident"):
            await select(pilot, screen, key)
        await pilot.press("2", "3", "1")
        await settle(app, pilot)
    assert agent.agent_db.read_bytes() == database == SESSIONS_DB.read_bytes()
    assert snapshot(agent.state, agent.workspace) == before  # no -wal / -shm / journal either


async def test_a_resize_chooses_the_columns_again(memory: MemoryManager, make_app) -> None:
    app = make_app(memory)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_sessions(app, pilot)
        await select(pilot, screen, "agent:main:research")
        assert "window" in screen.query_one("#sessions-table", DataTable).columns
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        table = screen.query_one("#sessions-table", DataTable)
        assert "window" not in table.columns and screen.agent_layout.short_keys
        assert screen.selected_agent_session().session.key == "agent:main:research"
        assert all(len(line) <= 80 for line in screen_lines(app.screen))


async def test_an_unreadable_database_is_reported(memory: MemoryManager, make_app, monkeypatch) -> None:
    def fail(*_args, **_kwargs):
        raise StoreError("cannot read OpenClaw's agent database x: file is not a database")

    monkeypatch.setattr(sessions_2026_9, "session_budgets", fail)
    app = make_app(memory)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_from(app, pilot, "s", app.browser)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert "file is not a database" in str(screen.query_one("#session-gauge", Static).render())
        assert screen.query_one("#sessions-table", DataTable).row_count == 0


def test_columns_are_dropped_window_first_and_never_the_thresholds() -> None:
    data = AgentSessions("main", SESSIONS_DB, 4000, 2 * 1024 * 1024, True, sessions=budgets())
    wide = fit_columns(data, 200)
    assert not wide.short_keys and not wide.short_labels and len(wide.columns) == 11
    narrow = fit_columns(data, 78)
    assert narrow.short_keys and narrow.width <= 78
    assert [c.key for c in narrow.columns][:2] == ["key", "tokens"] and "window" not in {
        c.key for c in narrow.columns}
    tiny = fit_columns(data, 40)
    assert [c.key for c in tiny.columns] == ["key", "tokens", "flush_at", "compact_at", "used", "flush"]


async def test_an_unexpected_failure_of_the_read_is_shown(memory: MemoryManager, make_app, monkeypatch) -> None:
    def fail(*_args, **_kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(sessions_2026_9, "session_budgets", fail)
    app = make_app(memory)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_from(app, pilot, "s", app.browser)
        assert isinstance(app.screen, SessionsScreen)
        gauge = " ".join(str(app.screen.query_one("#session-gauge", Static).render()).split())
        assert "Cannot read the agent database" in gauge and "disk on fire" in gauge


async def test_the_help_names_the_2026_9_rules(memory: MemoryManager, make_app) -> None:
    from memtui.tui.screens import HelpScreen

    app = make_app(memory)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_sessions(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        intro = " ".join(app.screen.intro.split())
        assert "agent database (read-only)" in intro and "reserve fixed at 20000 tokens" in intro
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionsScreen)


async def test_the_bootstrap_tab_shows_what_openclaw_recorded_for_the_session(memory: MemoryManager, make_app,
                                                                             agent) -> None:
    app = make_app(memory)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_sessions(app, pilot)
        await select(pilot, screen, "agent:main:ops")
        await pilot.press("2")
        await settle(app, pilot)
        ops = next(b for b in budgets() if b.session.key == "agent:main:ops")
        files = ops.bootstrap.files
        summary = " ".join(str(screen.query_one("#bootstrap-summary", Static).render()).split())
        chars = sum(f["injectedChars"] for f in files)
        assert "agent:main:ops · as OpenClaw recorded its last run" in summary
        assert f"{chars:,} of {chars:,} chars from {len(files)} files · 0/{len(files)} truncated" in summary
        assert "budget 20,000/file (USER.md 4,000), 60,000 total" in summary
        table = screen.query_one("#bootstrap-table", DataTable)
        rows = [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]
        assert rows == [[f["name"], f"{f['rawChars']:,}", f"{f['injectedChars']:,}",
                         "4,000" if f["name"] == "USER.md" else "20,000", "whole"] for f in files]
        # the preview is the file as the workspace holds it now (the recorded memory workspace has no AGENTS.md)
        for entry in files:
            path = agent.workspace / entry["name"]
            preview = screen.query_one("#bootstrap-preview").text
            if path.is_file():
                assert preview == path.read_text(encoding="utf-8")
            else:
                assert preview.startswith(f"({entry['name']} is not in the workspace"), preview
            await pilot.press("j")
            await pilot.pause()
        assert any((agent.workspace / f["name"]).is_file() for f in files)

"""The Recalls screen (`a`: the agent's own memory calls, replayed against today's index) and the Health screen
(`H`: the index against the disk) on a real OpenClaw 2026.9.6 agent, read without writing a byte."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from pilot import settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from openclaw_2026_9_data import RECORDING, build_agent, snapshot

from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent
from memtui.tui.screens.health import HealthScreen
from memtui.tui.screens.recalls import RecallsScreen

SIZE = (140, 40)


def _text(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_recalls_screen_lists_and_replays_the_agents_calls(tmp_path: Path, make_app) -> None:
    agent = build_agent(tmp_path)
    shutil.copyfile(RECORDING / "sessions" / "agent.sqlite", agent.agent_db)
    before = snapshot(agent.state, agent.workspace)
    with MemoryManager(resolve_agent(state_dir=str(agent.state), provider="none")) as manager:
        app = make_app(manager)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("escape", "a")
            await settle(app, pilot)
            assert isinstance(app.screen, RecallsScreen)
            table = app.screen.query_one("#calls")
            assert table.row_count == 11
            assert "11 memory calls (8 memory_search, 3 memory_get)" in _text(app, "#recalls-source")
            search = next(r for r in app.screen.recalls if r.tool == "memory_search")
            table.move_cursor(row=app.screen.recalls.index(search))
            await pilot.press("t", "enter")  # decay at the call's own time: the agent's own list again
            await settle(app, pilot)
            replayed = _text(app, "#replay")
            assert f"replay #{search.index} · memory_search {search.call.query!r}" in replayed
            assert "OpenClaw 2026.9's own index" in replayed and "same list as then" in replayed
            get = next(r for r in app.screen.recalls if r.tool == "memory_get")
            table.move_cursor(row=app.screen.recalls.index(get))
            await pilot.press("enter")
            await settle(app, pilot)
            assert f"replay #{get.index} · memory_get {get.call.path}" in _text(app, "#replay")
    assert snapshot(agent.state, agent.workspace) == before


async def test_health_screen_lists_differences_and_opens_the_file(tmp_path: Path, make_app) -> None:
    agent = build_agent(tmp_path)
    changed = agent.workspace / "memory" / "2026-11-24.md"
    changed.write_text("# 2026-11-24\n\n- The burst limit is now 800.\n", encoding="utf-8")
    with MemoryManager(resolve_agent(state_dir=str(agent.state), provider="none")) as manager:
        app = make_app(manager)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("escape", "H")
            await settle(app, pilot)
            assert isinstance(app.screen, HealthScreen)
            assert "OpenClaw 2026.9" in _text(app, "#health-summary") and "1 changed" in _text(app, "#health-summary")
            rows = app.screen.health.rows
            assert [(r.kind, r.path) for r in rows] == [("changed", "memory/2026-11-24.md")]
            await pilot.press("enter")
            await settle(app, pilot)
            assert not isinstance(app.screen, HealthScreen)
            assert app.viewer.rel == "memory/2026-11-24.md"


def test_a_plain_text_memory_get_is_listed_as_what_the_agent_read(tmp_path: Path) -> None:
    """The demo agent's transcript holds a memory_get whose result is the note's text, not JSON: the screen lists
    what the agent read, as `memtui recalls` does (it read 'no-result · 0 chars')."""
    from memtui.demo import install_demo
    from memtui.search.replay import agent_recalls
    from memtui.tui.screens.recalls import call_cells

    paths = install_demo(tmp_path / "demo")
    env = resolve_agent(state_dir=str(paths.state_dir), provider="none", env={"HOME": str(tmp_path)})
    get = next(r for r in agent_recalls(env) if r.tool == "memory_get")
    assert call_cells(get)[-1] == f"ok · {len(get.call.result_text or '')} chars" and get.call.result_text
    assert get.to_json()["get"]["plainText"] is True


async def test_the_calls_fit_80_columns_and_widen_again(tmp_path: Path, make_app) -> None:
    """At 80x24 every column shows (the time without its year, sessions without `agent:main:`, the call cut with
    …); at 200x50 everything is whole again."""
    from textual.widgets import DataTable

    from memtui.demo import install_demo

    paths = install_demo(tmp_path / "demo")
    env = resolve_agent(state_dir=str(paths.state_dir), provider="none", env={"MEMTUI_DATA_DIR": str(tmp_path)})
    with MemoryManager(env) as manager:
        app = make_app(manager)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            app.results.focus()
            await pilot.press("a")
            await settle(app, pilot, delay=0.5)
            table = app.screen.query_one("#calls", DataTable)
            assert [str(c.label) for c in table.columns.values()] == ["#", "time", "session", "call", "got"]
            assert sum(c.width + 2 for c in table.columns.values()) <= 80
            assert table.get_row_at(1)[2] == "cron:nightly-digest" and table.get_row_at(1)[4] == "ok · 93 chars"
            await pilot.resize_terminal(200, 50)
            await settle(app, pilot, delay=0.5)
            assert table.get_row_at(0)[3] == "search 'HTTP 502 api-gw-2 ECONNRESET'"
            assert table.get_row_at(1)[2] == "agent:main:cron:nightly-digest"

"""The fleet view (F) on a real PostgreSQL server: every agent's index listed as `status --fleet` lists it, one
search over every agent (each hit naming its agent, Enter its chunk's text from the database), an agent whose
workspace is not on this host opened read-only from the database, this app's own agent's file in the viewer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import build_workspace
from pilot import settle
from postgres_server import fresh_database
from textual.widgets import DataTable, Static

from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv, resolve_agent
from memtui.tui.screens.fleet import FleetAgentScreen, FleetScreen
from memtui.tui.widgets.fleet_text import FleetText

SIZE = (140, 40)
OTTER = "The otter queue drains into the zebra ledger nightly."


def _postgres_agent(root: Path, url: str) -> AgentEnv:
    """The TUI fixture's agent `main`, its index in the database at `url`."""
    state, workspace = build_workspace(root)
    config = json.loads((state / "openclaw.json").read_text(encoding="utf-8"))
    config["agents"]["defaults"]["memorySearch"] = {"store": {"driver": "postgres", "url": url}}
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return resolve_agent(state_dir=str(state), workspace=str(workspace), provider="none", env={})


def _remote_beta(root: Path, url: str) -> None:
    """Agent `beta` indexed into the database, then its workspace removed: as if it lived on another host."""
    workspace = root / "beta-workspace"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text(f"# Memory\n\n- {OTTER}\n- Beta owns the webhook gateway.\n",
                                         encoding="utf-8")
    config = root / "beta.json"
    config.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"store": {"driver": "postgres",
                                                                                      "url": url}}}}}))
    env = resolve_agent(state_dir=str(root / "beta-state"), config=str(config), agent="beta",
                        workspace=str(workspace), provider="none", env={})
    with MemoryManager(env) as manager:
        manager.sync()
    shutil.rmtree(workspace)


def _cells(table: DataTable) -> list[list[str]]:
    return [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]


def _shown(pane: FleetText) -> str:
    return "\n".join(str(widget.render()) for widget in pane.query(Static))


async def test_fleet_lists_searches_and_reads_a_remote_agent_from_the_database(tmp_path: Path, make_app) -> None:
    url = fresh_database()
    _remote_beta(tmp_path, url)
    with MemoryManager(_postgres_agent(tmp_path, url)) as manager:
        manager.sync()
        app = make_app(manager)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("escape", "F")
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, FleetScreen)
            assert "Fleet: 2 indexes" in str(screen.query_one("#fleet-summary").render())
            rows = _cells(screen.query_one("#fleet-indexes", DataTable))
            assert [(row[0], row[1], row[2]) for row in rows] == [("beta", "remote", "1"), ("main", "this app", "8")]
            assert rows[0][8] == str(tmp_path / "beta-workspace") and rows[1][6] != "-"

            await pilot.press("slash", *"otter ledger", "enter")
            await settle(app, pilot)
            hits = screen.query_one("#fleet-hits", DataTable)
            assert hits.display and not screen.query_one("#fleet-indexes").display and hits.has_focus
            assert [row[1] for row in _cells(hits)] == ["beta"]
            assert _cells(hits)[0][2] == "MEMORY.md:1-5" and OTTER in _cells(hits)[0][3]
            await pilot.press("enter")
            await settle(app, pilot)
            pane = screen.query_one(FleetText)
            assert pane.display and pane.has_focus
            assert "beta · MEMORY.md:1-5 · chunk text from the database · read-only" in str(pane.border_title)
            assert OTTER in _shown(pane) and "← the hit" in _shown(pane)

            await pilot.press("slash", "escape")  # out of the search box, nothing closed
            assert app.screen is screen and hits.has_focus and pane.display
            await pilot.press("escape", "escape")  # the text, then the hits
            assert not pane.display and screen.query_one("#fleet-indexes").display
            await pilot.press("enter")  # beta: its workspace is not here
            await settle(app, pilot)
            agent = app.screen
            assert isinstance(agent, FleetAgentScreen)
            assert "not on this host: read-only" in str(agent.query_one("#agent-summary").render())
            assert [row[:3] for row in _cells(agent.query_one("#agent-files", DataTable))] == [
                ["MEMORY.md", "memory", "1"]]
            await pilot.press("enter")
            await settle(app, pilot)
            text = agent.query_one(FleetText)
            assert "beta · MEMORY.md · chunk text from the database · read-only" in str(text.border_title)
            assert OTTER in _shown(text)

            await pilot.press("escape", "escape", "j", "enter")  # main: this app's own agent
            await settle(app, pilot)
            own = app.screen
            assert isinstance(own, FleetAgentScreen) and own.own
            assert len(_cells(own.table())) == 8
            await pilot.press("f", *"28.MD", "enter")  # the filter, then back to the list
            assert [row[0] for row in _cells(own.table())] == ["memory/2026-04-28.md"] and own.table().has_focus
            await pilot.press("enter")
            await settle(app, pilot)
            assert app.screen is app.screen_stack[0] and app.viewer.rel == "memory/2026-04-28.md"


async def test_a_hit_of_this_apps_own_agent_opens_in_the_viewer(tmp_path: Path, make_app) -> None:
    url = fresh_database()
    _remote_beta(tmp_path, url)
    with MemoryManager(_postgres_agent(tmp_path, url)) as manager:
        manager.sync()
        app = make_app(manager)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("escape", "F")
            await settle(app, pilot)
            await pilot.press("slash", *"otter zebra noeviction", "enter")
            await settle(app, pilot)
            screen = app.screen
            # beta's two rare words outweigh main's one in the fleet's statistics
            assert [row[1] for row in _cells(screen.query_one("#fleet-hits", DataTable))] == ["beta", "main"]
            await pilot.press("o")  # beta's: not this app's to open
            assert app.screen is screen
            assert any("agent beta's: Enter shows its text here" in n.message for n in app._notifications)
            await pilot.press("j", "o")
            await settle(app, pilot)
            assert app.screen is app.screen_stack[0] and app.viewer.rel == "memory/2026-04-28.md"


async def test_the_fleet_view_says_it_needs_the_postgres_store(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("escape", "F")
        await settle(app, pilot)
        assert app.screen is app.screen_stack[0]
        said = [note.message for note in app._notifications]
        assert any("The fleet view needs the PostgreSQL store: this agent's store.driver is sqlite" in m
                   for m in said)

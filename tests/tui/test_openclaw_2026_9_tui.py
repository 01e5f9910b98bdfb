"""The TUI on a real OpenClaw 2026.9.6 agent: the index status (`i`) names the generation and OpenClaw's own
index, and searching from the app writes nothing into the state dir or the workspace."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from pilot import settle
from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from openclaw_2026_9_data import build_agent, snapshot

from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent
from memtui.tui.screens import TextModal

SIZE = (120, 36)


async def test_the_index_status_shows_openclaws_own_index_and_searches_write_nothing(tmp_path: Path,
                                                                                    make_app) -> None:
    agent = build_agent(tmp_path)
    before = snapshot(agent.state, agent.workspace)
    with MemoryManager(resolve_agent(state_dir=str(agent.state), provider="none")) as manager:
        app = make_app(manager)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("slash", *"payments deploy", "enter")
            await settle(app, pilot)
            assert app.results.row_count > 0
            await pilot.press("i")
            await settle(app, pilot)
            assert isinstance(app.screen, TextModal)
            console = Console(width=100, record=True, file=io.StringIO())
            console.print(app.screen.body)
            body = " ".join(console.export_text().split())
            assert "generation OpenClaw 2026.9 (agent database, schema v23, written by 2026.9.6)" in body
            assert "its index 82 chunks in 54 files (memory 82)" in body and "never writes it" in body
    assert snapshot(agent.state, agent.workspace) == before

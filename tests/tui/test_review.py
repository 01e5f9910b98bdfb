"""Pilot tests for defects found while re-checking issue 13 as a new user."""

from __future__ import annotations

import io

from pilot import search, settle
from textual import events
from textual.widgets import Static

from memtui.manager import MemoryManager
from memtui.tui.app import MemtuiApp
from memtui.tui.tuning import KNOBS


async def test_the_search_row_shows_mode_and_counts(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await search(app, pilot, "redis")
        info = app.query_one("#search-info", Static)
        assert " of " in str(info.render()) and "candidates" in str(info.render()) and info.size.width > 10


async def test_at_80_columns_the_tuning_panel_leaves_the_vector_text_pair(hybrid_manager: MemoryManager,
                                                                          make_app) -> None:
    app = make_app(hybrid_manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("t")
        await settle(app, pilot)
        assert "pair" in [str(c.key.value) for c in app.results.columns.values()]
        app.tuning_panel.highlighted = [k.field for k in KNOBS].index("vector_weight")
        await pilot.press("enter", "1", "enter")
        await settle(app, pilot)
        ranks = [app.results.get_cell_at((row, 0)).plain for row in range(app.results.row_count)]
        assert any(mark in rank for rank in ranks for mark in ("▲", "▼", "=", "new")), ranks
        places = [app.results.get_cell_at((row, 3)).plain for row in range(app.results.row_count)]
        assert all(place.rpartition(":")[2][:1].isdigit() for place in places), places


async def test_keys_typed_while_the_app_starts_are_commands_not_text(manager: MemoryManager, make_app) -> None:
    focus_after_mount: list[object] = []

    class TypedAhead(MemtuiApp):
        def on_mount(self) -> None:
            super().on_mount()
            # A terminal delivers keys typed during a slow start right after this: they must find the pane
            # focused already, not the search box (Textual's auto-focus) or nothing.
            focus_after_mount.append(self.focused)
            for key, character in (("slash", "/"), *((c, c) for c in "redis")):
                self.post_message(events.Key(key, character))

    app = make_app(manager)
    app.__class__ = TypedAhead
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert focus_after_mount == [app.results]
        assert app.query_input.value == "redis"


def test_a_hybrid_query_whose_candidates_all_miss_min_score_says_so(hybrid_manager: MemoryManager) -> None:
    from memtui.tui.explain import no_hits_text

    response = hybrid_manager.search("qqxzv")
    assert not response.results and response.filtered_count
    assert "below minScore" in no_hits_text(response).plain


def test_the_trace_states_the_threshold_rule_that_let_a_hit_through(hybrid_manager: MemoryManager) -> None:
    from memtui.tui.widgets.trace import trace_lines

    response = hybrid_manager.search("Redis eviction policy")
    for hit in response.results:
        threshold = dict(trace_lines(hit, response))["threshold"]
        if response.threshold_rule != "score >= minScore":
            assert "cosine" in threshold or "keyword" in threshold, threshold
        if "≥ minScore" in threshold and threshold.startswith(f"{hit.score:.3f}"):
            assert hit.score >= response.min_score, threshold


def test_the_status_view_reads_as_sentences(manager: MemoryManager) -> None:
    """At the width of an 80-column dialog (67 cells) every value, a long path too, wraps inside its column:
    nothing falls back to the left edge, and no field reads `None` or `False`."""
    from rich.console import Console

    from memtui.tui.explain import status_view

    console = Console(width=67, record=True, file=io.StringIO())
    console.print(status_view(manager.status()))
    lines = console.export_text().splitlines()
    headings = {"Index", "OpenClaw", "Embeddings", "Search"} | {line for line in lines
                                                                if line.startswith("File issues")}
    assert all(line.startswith("  ") or line in headings or not line for line in lines), lines
    assert "None" not in "\n".join(lines) and "False" not in "\n".join(lines)
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("last sync"))
    value_at = lines[at].index("last sync") + len("last sync")
    column = len(lines[at]) - len(lines[at][value_at:].lstrip())
    sync = " ".join([lines[at][column:], *(line[column:] for line in lines[at + 1:] if line[:column].isspace())])
    assert "files checked" in sync and " ms" in sync and "elapsedMs" not in sync, sync
    database = next(i for i, line in enumerate(lines) if line.strip().startswith("database"))
    path = "".join(line[column:].strip() for line in lines[database:database + 4] if line[:column].strip()
                   in ("", "database"))
    assert str(manager.env.store_path) in path


async def test_help_on_sessions_does_not_say_q_quits_where_q_goes_back(manager: MemoryManager, make_app) -> None:
    from memtui.tui.screens import HelpScreen

    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        for screen_key in ("s", "d"):
            await pilot.press(screen_key)
            await settle(app, pilot)
            await pilot.press("question_mark")
            await settle(app, pilot)
            assert isinstance(app.screen, HelpScreen)
            keys = {label: keys for keys, label, _help, _id in app.screen.rows}
            assert keys["Back"] == "Esc q" and keys["quit"] == "ctrl+q", keys
            await pilot.press("escape", "escape")
            await settle(app, pilot)


def test_help_text_wraps_instead_of_being_cut_at_80_columns() -> None:
    from rich.console import Console

    from memtui.tui.actions import ACTIONS
    from memtui.tui.keys import keys_display
    from memtui.tui.screens.help import keys_table

    rows = [(keys_display(a.keys), a.label, a.help, a.id) for a in ACTIONS]
    console = Console(width=72, record=True)
    console.print(keys_table(rows))
    assert "…" not in console.export_text()


async def test_promoting_a_long_hit_keeps_every_line_of_its_chunk(manager: MemoryManager, make_app) -> None:
    from memtui.tui.screens import ChoiceModal

    log = manager.env.workspace_dir / "memory" / "2026-04-27.md"
    bullets = [f"- Step {n}: drained node pool {n} and watched the queue settle before moving on." for n in range(14)]
    log.write_text("# 2026-04-27\n\n## Kubernetes upgrade\n" + "\n".join(bullets) + "\n- Final: zebracorn done.\n",
                   encoding="utf-8")
    manager.sync(reason="test")
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await search(app, pilot, "zebracorn")
        hit = app.highlighted_hit()
        assert hit is not None and len(hit.text) > len(hit.snippet)
        await pilot.press("p")
        await settle(app, pilot)
        assert isinstance(app.screen, ChoiceModal)
        await pilot.press("p")
        await settle(app, pilot)
    memory = (manager.env.workspace_dir / "MEMORY.md").read_text(encoding="utf-8")
    assert "- Final: zebracorn done." in memory and "- **Kubernetes upgrade**" in memory


async def test_number_keys_switch_the_sessions_tabs_and_help_lists_them(manager: MemoryManager, make_app) -> None:
    from textual.widgets import TabbedContent

    from memtui.tui.screens import HelpScreen

    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("s")
        await settle(app, pilot)
        tabs = app.screen.query_one("#sessions-tabs", TabbedContent)
        await pilot.press("2")
        await pilot.pause()
        assert tabs.active == "tab-bootstrap" and app.focused.id == "bootstrap-table"
        await pilot.press("3")
        await pilot.pause()
        assert tabs.active == "tab-startup"
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        assert {"1", "2", "3"} <= {keys for keys, *_ in app.screen.rows}


def test_the_trace_tells_the_raw_cosine_from_the_rescaled_vector_score(hybrid_manager: MemoryManager) -> None:
    from memtui.tui.widgets.trace import trace_lines

    response = hybrid_manager.search("Redis eviction policy")
    assert response.vector_normalization
    for hit in response.results:
        row = dict(trace_lines(hit, response))["vector list"]
        if hit.cosine is not None and hit.vector_score is not None:
            assert f"cosine {hit.cosine:.3f} → vector {hit.vector_score:.3f}" in row, row


async def test_a_file_deleted_while_open_is_marked_and_saving_asks_to_write_it_again(manager: MemoryManager,
                                                                                     make_app) -> None:
    import threading

    from memtui.index.events import IndexEvent
    from memtui.tui.screens import ChoiceModal

    app = make_app(manager)
    target = manager.env.workspace_dir / "memory" / "2026-04-10.md"
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.open_file("memory/2026-04-10.md", target)
        await pilot.pause()
        target.unlink()
        thread = threading.Thread(target=manager.emit, args=(IndexEvent("file-changed", paths=(
            "memory/2026-04-10.md",)),))
        thread.start()
        thread.join()
        await settle(app, pilot)
        assert "deleted on disk" in str(app.query_one("#viewer-title", Static).render())
        app.focus_now(app.viewer.content_widget)
        await pilot.press("e")
        await pilot.pause()
        assert app.viewer.editing
        await pilot.press("x", "ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ChoiceModal) and "deleted" in app.screen.title_text
        await pilot.press("w")
        await settle(app, pilot)
        assert target.read_text(encoding="utf-8").startswith("x# 2026-04-10")
        assert "deleted" not in str(app.query_one("#viewer-title", Static).render())


def test_the_status_line_fits_80_columns_keeping_what_matters(manager: MemoryManager) -> None:
    from memtui.tui.widgets.status_bar import status_text

    status = manager.status()
    line = status_text(status, "started with --provider none", tuned=["vectorWeight", "minScore"],
                       synced="3 files changed (3 chunks)", width=80)
    assert line.cell_len < 80, line.plain
    assert "keyword-only" in line.plain and "--provider none" in line.plain and "tuned (2)" in line.plain
    empty = dict(status, files=0, chunks=0)
    line = status_text(empty, width=80)
    assert line.cell_len < 80 and "no memory files yet" in line.plain, line.plain
    wide = status_text(status, "started with --provider none", synced="3 files changed (3 chunks)", width=200).plain
    assert "memtui model install" in wide and "clean" in wide and "last sync: 3 files changed (3 chunks)" in wide


async def test_z_makes_the_results_fill_the_screen(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is app.results and app.results.size.height >= 20, app.results.size
        await pilot.press("z", "2", "z")
        await pilot.pause()
        side = app.query_one("#side")
        assert app.screen.maximized is side and side.size.width >= 78, side.size


def test_starting_the_app_does_not_load_numpy() -> None:
    import subprocess
    import sys

    code = "import sys, memtui.tui.app; print('numpy' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "False"  # why-not's numpy loads on first use, not before the first frame


async def test_dreams_promotion_is_refused_on_a_read_only_index(manager: MemoryManager, make_app) -> None:
    from dataclasses import replace
    from datetime import UTC, datetime

    from memtui.dreaming import record_search_hits
    from memtui.tui.screens.dreams import DreamsScreen

    workspace = manager.env.workspace_dir
    line = "- Root cause: Redis maxmemory-policy reset to noeviction; fixed with allkeys-lru."
    for hour, query in enumerate(("redis eviction", "noeviction fix", "checkout latency")):
        record_search_hits(workspace, query, [("memory/2026-04-28.md", 4, 4, 0.9, line, "memory")],
                           now=datetime(2026, 4, 29, 10 + hour, tzinfo=UTC))
    before = (workspace / "MEMORY.md").read_text(encoding="utf-8")
    manager.env = replace(manager.env, read_only=True)
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DreamsScreen)
        await pilot.press("p", "p")
        await pilot.pause()
    assert (workspace / "MEMORY.md").read_text(encoding="utf-8") == before


def test_the_trace_formula_adds_up_with_a_date_boost() -> None:
    from memtui.search.response import Candidate, SearchResponse
    from memtui.tui.widgets.trace import trace_lines

    hit = Candidate(id="c", path="memory/2026-04-28.md", source="memory", start_line=1, end_line=6, text="x",
                    vector_score=0.5, text_score=0.5, base_score=1.0, date_boost=0.5, score=1.0, sorted_rank=1,
                    rank=1, threshold="evidence")
    response = SearchResponse(query="what happened in April 2026", profile="memtui", mode="hybrid", results=[hit],
                              candidates=[hit], keyword=None, keyword_fallback_terms=[], min_score=0.35,
                              max_results=6, candidate_limit=24, vector_weight=0.4, text_weight=0.6,
                              relaxed=False, filtered_count=0, vector_skipped=None, elapsed_ms=1.0)
    rows = dict(trace_lines(hit, response))
    assert rows["score"].endswith("+ date 0.500 = 1.000") and "month the query names" in rows["date boost"]


async def test_relaxed_is_not_what_a_narrow_search_row_cuts_off(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(app, pilot, "the user")  # words in most chunks: bm25 ≈ 0, nothing reaches minScore
        assert app.response is not None and app.response.relaxed
        info = str(app.query_one("#search-info", Static).render())
        assert info.index("relaxed") < info.index("candidates")


async def test_a_hit_that_left_the_results_reads_gone_in_full(manager: MemoryManager, make_app) -> None:
    """A hit that a file change took out of the results stays one search as a struck-out row marked "gone": the
    movement column of the wide table holds the whole word (it showed "gon")."""
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await search(app, pilot, "Redis")
        response = app.response
        assert response is not None and len(response.results) > 1
        app.results.show(response.results[1:], {}, response.results[:1], keep_cursor=False)
        await pilot.pause()
        lines = [app.results.render_line(y).text for y in range(app.results.row_count + 1)]
        name = response.results[0].path.removeprefix("memory/")
        assert [line.split()[0] for line in lines if name in line] == ["gone"]


async def test_the_results_pane_keeps_its_height_while_a_query_is_typed(manager: MemoryManager, make_app) -> None:
    """Typing narrows six hits to one: the results pane keeps room for six, so the trace below does not jump on
    each keystroke (and the screen is not laid out anew)."""
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        empty = app.results.region.height
        await search(app, pilot, "billing Postgres Redis")
        many = app.results.row_count
        assert many >= 4
        height = app.results.region.height
        await pilot.press("escape", "slash", "ctrl+u", *"maxmemory-policy", "enter")
        await settle(app, pilot)
        assert app.results.row_count < many
        assert app.results.region.height == height == empty

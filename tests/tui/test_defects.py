"""One Pilot test per defect users saw (issue 13): crashes, wrong data, layout, focus and keys, empty states."""

from __future__ import annotations

import threading
from datetime import date, timedelta

from pilot import search, settle
from textual.markup import to_content
from textual.widgets import DataTable, Input

from memtui.index.events import IndexEvent
from memtui.manager import MemoryManager
from memtui.tui.actions import ACTIONS
from memtui.tui.app import MemtuiApp
from memtui.tui.browser_model import BrowserEntry, Listing
from memtui.tui.screens import ChoiceModal, HelpScreen, PromptModal, TextModal
from memtui.tui.tuning import KNOBS

SIZE = (120, 36)


def knob(app: MemtuiApp, field: str) -> None:
    app.tuning_panel.highlighted = [k.field for k in KNOBS].index(field)


# -- crashes and wrong data ----------------------------------------------------------------------


async def test_reset_tuning_after_opening_the_panel_keeps_one_panel(hybrid_manager: MemoryManager, make_app) -> None:
    app = make_app(hybrid_manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("t")
        await settle(app, pilot)
        knob(app, "min_score")
        await pilot.press("right", "right")
        await settle(app, pilot)
        assert app.tuning.min_score == 0.45
        await pilot.press("ctrl+t")
        await settle(app, pilot)
        assert len(app.query("#tuning")) == 1
        assert app.tuning == app.configured_tuning
        assert "tuned" not in str(app.query_one("#status-bar").render())


async def test_promote_records_the_configured_score_not_the_tuned_one(hybrid_manager: MemoryManager,
                                                                     make_app) -> None:
    app = make_app(hybrid_manager)
    memory = hybrid_manager.env.workspace_dir / "MEMORY.md"
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "noeviction")
        configured = app.highlighted_hit().score
        await pilot.press("t")
        await settle(app, pilot)
        knob(app, "vector_weight")
        await pilot.press("enter", "1", "enter")
        await settle(app, pilot)
        tuned = app.highlighted_hit().score
        assert abs(tuned - configured) > 0.01
        app.results.focus()
        await pilot.press("p")
        await settle(app, pilot)
        assert isinstance(app.screen, ChoiceModal)
        await pilot.press("p")
        await settle(app, pilot)
    text = memory.read_text(encoding="utf-8")
    assert f"[score={configured:.3f} recalls=0" in text
    assert f"[score={tuned:.3f} " not in text


# -- layout --------------------------------------------------------------------------------------


async def test_at_80x24_the_results_keep_path_and_lines_and_the_sidebar_folds(manager: MemoryManager,
                                                                            make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(app, pilot, "noeviction")
        assert not app.query_one("#side").display
        table = app.results
        assert [str(c.label) for c in table.columns.values()] == ["#", "score", "vec/txt", "path:lines"]
        assert sum(c.get_render_width(table) for c in table.columns.values()) <= table.size.width
        assert str(table.get_cell_at((0, 3))) == "memory/2026-04-28.md:1-6"
        await pilot.press("b")
        assert app.query_one("#side").display and app.focused is app.browser


async def test_the_sidebar_comes_back_when_the_terminal_grows(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        assert not app.query_one("#side").display
        await pilot.resize_terminal(200, 50)
        await settle(app, pilot)
        assert app.query_one("#side").display
        await pilot.resize_terminal(90, 30)
        await settle(app, pilot)
        assert not app.query_one("#side").display


async def test_the_location_column_reads_alike_when_one_path_is_too_long(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(52, 24)) as pilot:
        await search(app, pilot, "billing ArgoCD")
        table = app.results
        column = list(table.columns).index("location")
        places = [str(table.get_cell_at((row, column))) for row in range(table.row_count)]
        assert any("2026-04-28-deploy" in p for p in places) and len(places) > 1, places
        assert not any(p.startswith("memory/") for p in places), places
        assert all(p.rpartition(":")[2][0].isdigit() for p in places)


async def test_the_promote_dialog_fits_a_small_terminal(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(app, pilot, "noeviction")
        await pilot.press("p")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ChoiceModal)
        box = dialog.query_one("#modal-box").region
        assert box.right <= 80 and box.bottom <= 24
        for button in dialog.query("Button"):
            assert box.contains_region(button.region) and button.region.height > 0


async def test_a_snippet_column_on_wide_terminals_only(manager: MemoryManager, make_app) -> None:
    """From 160 columns, the file browser shown (at 160-179 it was missing: the rule wanted 80 free cells)."""
    for width, expected in ((120, False), (159, False), (160, True), (200, True)):
        app = make_app(manager)
        async with app.run_test(size=(width, 40)) as pilot:
            await search(app, pilot, "noeviction")
            labels = [str(c.label) for c in app.results.columns.values()]
            assert ("snippet" in labels) is expected
            if expected:
                assert str(app.results.get_cell_at((0, labels.index("snippet")))).startswith("Incident INC-4412")


async def test_z_maximises_the_focused_pane_and_restores_it(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("z")
        assert app.screen.maximized is app.results
        await pilot.press("z")
        assert app.screen.maximized is None


async def test_trace_and_tuning_show_the_same_weights(hybrid_manager: MemoryManager, make_app) -> None:
    app = make_app(hybrid_manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("t")
        await settle(app, pilot)
        knob(app, "vector_weight")
        await pilot.press("enter", *"0.2", "enter")
        await settle(app, pilot)
        assert (app.tuning.vector_weight, app.tuning.text_weight) == (0.2, 0.8)
        rows = dict(app.query_one("#trace").rows)
        assert rows["weights"].startswith("vectorWeight 0.20 · textWeight 0.80")
        shown = [str(app.tuning_panel.get_option_at_index(i).prompt) for i in (1, 2)]
        assert shown[0].split()[1] == "0.2" and shown[1].split()[1] == "0.8"
        # Three decimals are shown as typed, not rounded to 0.72 / 0.28.
        await pilot.press("enter", *"0.725", "enter")
        await settle(app, pilot)
        rows = dict(app.query_one("#trace").rows)
        assert rows["weights"].startswith("vectorWeight 0.725 · textWeight 0.275")
        assert rows["score"].startswith("0.725×vector ")
        shown = [str(app.tuning_panel.get_option_at_index(i).prompt) for i in (1, 2)]
        assert shown[0].split()[1] == "0.725" and shown[1].split()[1] == "0.275"


async def test_bars_share_one_scale_and_mmr_moves_are_marked(hybrid_manager: MemoryManager, make_app) -> None:
    app = make_app(hybrid_manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis eviction")
        row = app.results.get_row_at(0)
        cells = {str(label.label): cell for label, cell in zip(app.results.columns.values(), row, strict=True)}
        for name in ("score", "vector", "text"):
            value, bar = str(cells[name]).split(" ", 1)
            assert len(bar.rstrip()) == max(1, round(float(value) * 5 + 0.49)) or float(value) == 0
        assert not any("red" in str(span.style) for span in cells["vector"].spans)
        first, second = app.response.results[:2]
        first.sorted_rank, first.mmr_rank = 2, 1
        second.sorted_rank, second.mmr_rank = 1, 2
        app.results.show(app.response.results, {}, [])
        assert str(app.results.get_cell_at((0, 0))) == "1↕"
        assert str(app.results.get_cell_at((2, 0))) == "3"


# -- focus and keys ------------------------------------------------------------------------------


async def test_start_outside_the_search_box_and_escape_leaves_it(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.focused is app.browser
        await pilot.press("slash", *"q s t ? j k")
        assert app.query_input.value == "q s t ? j k" and isinstance(app.screen, type(app.screen_stack[0]))
        await pilot.press("escape")
        assert app.focused is not app.query_input
        await pilot.press("2")
        assert app.focused is app.browser
        await pilot.press("1")
        assert app.focused is app.query_input


async def test_v_keeps_the_focus_on_the_file_and_every_pane_shows_focus(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "noeviction")
        await pilot.press("enter", "v")
        assert app.focused is app.viewer.content_widget and app.viewer.mode == "rendered"
        await pilot.press("v")
        assert app.focused is app.viewer.text_area
        app.query_one("#detail").active = "tab-trace"
        await pilot.press("4")
        trace = app.query_one("#trace")
        assert app.focused is trace
        detail = app.query_one("#detail")
        assert detail.styles.border_top[1] != app.query_one("#results").styles.border_top[1]


async def test_the_footer_shows_short_labels_of_the_focused_pane(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        keys = {binding.description for binding in (b.binding for b in app.screen.active_bindings.values())
                if binding.show}
        assert {"open", "why", "promote", "search", "tune", "help"} <= keys
        assert all(len(label) <= 12 for label in keys)
        app.browser.focus()
        await pilot.pause()
        browser_keys = {b.binding.description for b in app.screen.active_bindings.values() if b.binding.show}
        assert "filter" in browser_keys and "why" not in browser_keys


async def test_dialog_keys_belong_to_the_dialog(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("x")
        assert isinstance(app.screen, TextModal)
        assert not app.check_action("quit", ())
        await pilot.press("q")
        assert not isinstance(app.screen, TextModal) and app.is_running


async def test_help_is_per_screen_from_the_live_keymap(manager: MemoryManager, make_app) -> None:
    app = make_app(manager, keymap={"tuning.toggle": "T"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        keys = {row[3]: row[0] for row in help_screen.rows}
        assert keys["app.help"] == "? F1" and keys["search.focus"] == "/" and keys["tuning.toggle"] == "T"
        assert keys["screen.sessions"] == "s" and keys["screen.dreams"] == "d"
        assert not any(name in " ".join(keys.values()) for name in ("slash", "question_mark"))
        await pilot.press("escape", "s")
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        sessions_help = app.screen
        assert isinstance(sessions_help, HelpScreen) and sessions_help.title_text == "memtui: sessions"
        assert "sessions.back" in {row[3] for row in sessions_help.rows}


async def test_palette_help_shows_key_hints(manager: MemoryManager, make_app) -> None:
    from memtui.tui.commands import MemtuiCommands

    app = make_app(manager)
    async with app.run_test(size=SIZE):
        provider = MemtuiCommands(app.screen)
        hits = [hit async for hit in provider.discover()]
        help_text = {hit.text: hit.help for hit in hits}
        assert to_content(help_text["app: Help and keys"]).plain.endswith("[? F1]")
        assert to_content(help_text["why-not: Explain a chunk by path:line"]).plain.endswith("[W]")


async def test_i_and_x_read_as_text_not_json(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        for key, words in (("i", ("Index", "files · chunks", "FTS5 (BM25)")), ("x", ("Keyword query", "minScore"))):
            await pilot.press(key)
            await pilot.pause()
            widget = app.screen.query_one("#modal-body")
            body = "\n".join(strip.text for strip in widget.render_lines(widget.size.region))
            assert all(word in body for word in words) and "{" not in body
            await pilot.press("escape")
            await pilot.pause()


# -- speed: nothing slow on the UI thread --------------------------------------------------------


async def test_thousands_of_daily_logs_make_few_tree_nodes_and_update_one_by_one(manager: MemoryManager,
                                                                                make_app) -> None:
    app = make_app(manager)
    workspace = manager.env.workspace_dir
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        first = date(2026, 4, 29)
        entries = [BrowserEntry("daily", f"memory/{(first - timedelta(days=i)).isoformat()}.md",
                                str(workspace / "memory" / f"{(first - timedelta(days=i)).isoformat()}.md"),
                                first - timedelta(days=i)) for i in range(10_000)]
        browser = app.browser
        browser.listed = False
        browser.show_listing(Listing(entries), first)
        nodes = len(browser._leaves) + len(browser._group_nodes)
        assert nodes < 120
        (workspace / "memory" / "2026-04-30.md").write_text("# 2026-04-30\n\n- tomorrow\n", encoding="utf-8")
        manager.emit(IndexEvent("file-changed", paths=("memory/2026-04-30.md",)))
        await settle(app, pilot)
        assert browser.find("memory/2026-04-30.md") is not None
        assert len(browser._leaves) + len(browser._group_nodes) <= nodes + 2


def count_listings(monkeypatch) -> list[int]:
    """A list that grows by one each time the browser lists the folder from disk."""
    from memtui.tui.controllers import browsing

    listings: list[int] = []
    real = browsing.list_entries
    monkeypatch.setattr(browsing, "list_entries", lambda *a: listings.append(1) or real(*a))
    return listings


async def test_a_sync_of_a_few_files_does_not_reread_the_folder(manager: MemoryManager, make_app,
                                                                 monkeypatch) -> None:
    """The watcher's syncs cover the files it saw change: the tree takes them from the file events, and the
    folder (10,000 files in a big workspace) is not listed again after each one."""
    listings = count_listings(monkeypatch)
    app = make_app(manager)
    workspace = manager.env.workspace_dir
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        listed = len(listings)
        (workspace / "memory" / "2026-04-27.md").write_text("# 2026-04-27\n\n- new\n", encoding="utf-8")
        manager.emit(IndexEvent("file-changed", paths=("memory/2026-04-27.md",)))
        await settle(app, pilot)
        assert not manager.sync(reason="watcher", memory_paths={"memory/2026-04-27.md"}).complete
        await settle(app, pilot)
        assert app.browser.find("memory/2026-04-27.md") is not None
        assert len(listings) == listed
        assert "chunks · clean" in str(app.query_one("#status-bar").render())


async def test_file_events_during_a_sync_reach_the_tree_when_it_ends_and_need_no_relisting(
        manager: MemoryManager, make_app, monkeypatch) -> None:
    """While a sync runs, the tree waits for its end (redrawing it while the sync walks 10,000 files stalls
    both); the complete sync's file count then matches the tree, so the folder is not listed again."""
    listings = count_listings(monkeypatch)
    app = make_app(manager)
    workspace = manager.env.workspace_dir
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        listed = len(listings)
        manager.emit(IndexEvent("started", reason="watcher"))
        (workspace / "memory" / "2026-04-26.md").write_text("# 2026-04-26\n\n- new\n", encoding="utf-8")
        manager.emit(IndexEvent("file-changed", paths=("memory/2026-04-26.md",)))
        await pilot.pause(0.6)
        assert "memory/2026-04-26.md" not in app.browser.listing.entries
        report = manager.sync(reason="test")  # emits started and finished
        assert report.complete
        await settle(app, pilot)
        assert app.browser.find("memory/2026-04-26.md") is not None
        assert len(listings) == listed

        # A sync that never ends holds the tree back two seconds at most.
        manager.emit(IndexEvent("started", reason="watcher"))
        (workspace / "memory" / "2026-04-25.md").write_text("# 2026-04-25\n\n- new\n", encoding="utf-8")
        manager.emit(IndexEvent("file-changed", paths=("memory/2026-04-25.md",)))
        await pilot.pause(1.0)
        assert "memory/2026-04-25.md" not in app.browser.listing.entries
        await pilot.pause(1.5)
        await settle(app, pilot)
        assert app.browser.find("memory/2026-04-25.md") is not None


async def test_the_app_starts_the_file_watcher_after_its_first_frame(manager: MemoryManager, make_app) -> None:
    """The watcher's first sync walks every note: it starts once the app is on screen, in a worker, and then
    file changes reach the tree."""
    from memtui.index.watcher import MemoryWatcher

    watcher = MemoryWatcher(manager, debounce_ms=100)
    started_at: list[bool] = []

    def start() -> None:
        started_at.append(threading.current_thread() is threading.main_thread())
        watcher.start()

    app = make_app(manager, start_watching=start)
    workspace = manager.env.workspace_dir
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert watcher.running and started_at == [False]  # once, not on the UI thread
            (workspace / "memory" / "2026-04-24.md").write_text("# 2026-04-24\n\n- watched\n", encoding="utf-8")
            for _ in range(100):
                await pilot.pause(0.1)
                if "memory/2026-04-24.md" in app.browser.listing.entries:
                    break
            assert app.browser.find("memory/2026-04-24.md") is not None
    finally:
        watcher.stop()
        manager.wait_idle(timeout=10)


# -- empty and first-run states ------------------------------------------------------------------


async def test_an_empty_workspace_says_what_to_do(tmp_path, make_app) -> None:
    from memtui.settings.agent import resolve_agent

    (tmp_path / "state").mkdir()
    (tmp_path / "workspace").mkdir()
    env = resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(tmp_path / "workspace"), provider="none",
                        env={})
    with MemoryManager(env, provider=None) as empty:
        app = make_app(empty)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            hint = str(app.query_one("#trace-head").render())
            assert "No memory files yet" in hint and "memtui demo" in hint and "--workspace" in hint
            assert "no memory files yet" in str(app.query_one("#status-bar").render())


async def test_a_query_without_hits_says_why(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "zebra")
        hint = str(app.query_one("#trace-head").render())
        assert "No hits for “zebra”" in hint and "Keyword query" in hint and "W explains" in hint


async def test_98_percent_of_the_flush_threshold_is_not_green(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("s")
        await pilot.pause()
        table = app.screen.query_one("#sessions-table", DataTable)
        used = table.get_cell("agent:main:main", "used")
        assert str(used) == "98.5%" and "yellow" in str(used.style)


# -- extras --------------------------------------------------------------------------------------


async def test_query_history_with_up_and_down(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("slash")
        app.query_input.value = ""
        await pilot.press(*"postgres", "enter")
        await settle(app, pilot)
        await pilot.press("slash")
        app.query_input.value = "draft"
        await pilot.press("up")
        assert app.query_input.value == "postgres"
        await pilot.press("up")
        assert app.query_input.value == "redis"
        await pilot.press("down", "down")
        assert app.query_input.value == "draft"
    again = make_app(manager)
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        await pilot.press("slash", "up")
        assert again.query_input.value == "postgres"


async def test_every_registry_action_has_a_short_label(manager: MemoryManager) -> None:
    assert all(len(action.label) <= 12 for action in ACTIONS)


async def test_open_in_editor_without_editor_says_how(manager: MemoryManager, make_app, monkeypatch) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(manager)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("E")
        await pilot.pause()
        assert any("set $EDITOR" in n.message for n in app._notifications)


async def test_typed_knob_values_are_checked(hybrid_manager: MemoryManager, make_app) -> None:
    app = make_app(hybrid_manager)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("t")
        await settle(app, pilot)
        knob(app, "max_results")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptModal)
        app.screen.query_one(Input).value = "many"
        await pilot.press("enter")
        await pilot.pause()
        assert any("maxResults must be a whole number" in n.message for n in app._notifications)
        assert app.tuning.max_results == app.configured_tuning.max_results


def test_a_mistyped_state_dir_is_an_error_and_nothing_is_created(tmp_path, capsys) -> None:
    from memtui.cli import main

    missing = tmp_path / "typo"
    assert main(["--state-dir", str(missing)]) == 2
    assert "does not exist" in capsys.readouterr().err and not missing.exists()


def test_no_openclaw_install_says_what_to_do(tmp_path, monkeypatch, capsys) -> None:
    from memtui.cli import main

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "no OpenClaw state dir" in err and "memtui demo" in err and "--workspace DIR" in err
    assert list(tmp_path.iterdir()) == []


async def test_at_80x24_the_viewer_has_room_and_the_footer_fits(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(app, pilot, "noeviction")
        await pilot.press("enter")
        await pilot.pause()
        assert app.viewer.text_area.size.height >= 6
        footer_keys = [key for key in app.query("FooterKey") if key.display]
        assert footer_keys and all(key.region.right <= 80 for key in footer_keys)
        assert {"help", "quit"} <= {key.description for key in footer_keys}


def test_keyword_only_zero_scores_and_the_relax_rule_are_explained() -> None:
    from memtui.search.response import Candidate, SearchResponse
    from memtui.tui.widgets.trace import trace_lines

    hit = Candidate(id="c", path="memory/2026-04-28.md", source="memory", start_line=1, end_line=6, text="x",
                    text_score=0.0, bm25=-0.0001, text_rank=1, score=0.0, sorted_rank=1, rank=1,
                    threshold="relaxed")
    response = SearchResponse(query="the ops", profile="openclaw", mode="fts-only", results=[hit],
                              candidates=[hit], keyword=None, keyword_fallback_terms=[], min_score=0.35,
                              max_results=6, candidate_limit=24, vector_weight=0.7, text_weight=0.3, relaxed=True,
                              filtered_count=0, vector_skipped=None, elapsed_ms=1.0)
    rows = dict(trace_lines(hit, response))
    assert "bm25 ≈ 0" in rows["keyword list"] and "nearly every chunk" in rows["keyword list"]
    assert "relax rule" in rows["threshold"] and "min(minScore, textWeight) = 0.30" in rows["threshold"]


async def test_long_file_names_end_in_an_ellipsis(manager: MemoryManager, make_app) -> None:
    long_name = "memory/2026-04-29-a-very-long-slug-about-the-billing-migration-and-more.md"
    (manager.env.workspace_dir / long_name).write_text("# notes\n\n- long\n", encoding="utf-8")
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        node = app.browser.find(long_name)
        label = app.browser.render_label(node, app.browser.rich_style, app.browser.rich_style)
        assert label.plain.endswith("…") and label.cell_len <= app.browser.scrollable_content_region.width


def test_provider_none_is_named_and_the_demo_has_recalls(tmp_path) -> None:
    import json

    from memtui.cli import main

    svg = tmp_path / "shot.svg"
    assert main(["demo", "--no-model", "--dir", str(tmp_path / "demo"), "--provider", "none", "--query", "",
                 "--screenshot", str(svg)]) == 0
    assert "started with --provider none" in svg.read_text(encoding="utf-8").replace("&#160;", " ")
    store = tmp_path / "demo" / "state" / "workspace" / "memory" / ".dreams" / "short-term-recall.json"
    assert json.loads(store.read_text(encoding="utf-8"))["entries"]

"""Pilot tests: the main screen's search, trace, tuning, why-not, curation, copy, indexing and keys."""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

import json5
from app_process import screenshot_process
from pilot import search, settle
from textual.widgets import Input

from memtui.index.events import IndexEvent
from memtui.manager import MemoryManager
from memtui.tui.actions import ACTIONS
from memtui.tui.app import MemtuiApp
from memtui.tui.keymap import load_keymap
from memtui.tui.messages import FilesListed, IndexFinished, IndexProgress, IndexStarted, SearchFinished
from memtui.tui.screens import ChoiceModal, ErrorModal, HelpScreen, TextModal
from memtui.tui.tuning import KNOBS

SIZE = (120, 36)


def locations(app: MemtuiApp) -> list[str]:
    """The path:lines column, top to bottom."""
    table = app.results
    return [str(table.get_cell(row_key, "location")) for row_key in table.rows]


async def set_knob(app: MemtuiApp, pilot, field: str, value: str) -> None:
    """Type a value into a tuning knob the way a user does: highlight it, Enter, type, Enter."""
    panel = app.tuning_panel
    panel.focus()
    panel.highlighted = [knob.field for knob in KNOBS].index(field)
    await pilot.press("enter")
    await pilot.pause()
    await pilot.press(*value, "enter")
    await pilot.pause()


async def test_typing_a_query_shows_ranked_rows_and_one_search(manager: MemoryManager, make_app) -> None:
    seen: list = []
    app = make_app(manager, debounce=1.0)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await pilot.press("slash", *"redis")
        await settle(app, pilot, 1.2)
        searches = [m for m in seen if isinstance(m, SearchFinished)]
        assert len(searches) == 1
        assert searches[0].response.query == "redis"
        # The only files mentioning Redis (case-insensitive), each one chunk long.
        # Lines are counted like OpenClaw's chunker: split on "\n", so the final newline adds a line.
        assert sorted(locations(app)) == ["memory/2026-04-10.md:1-5", "memory/2026-04-28.md:1-6",
                                          "memory/projects.md:1-5"]
        hit = app.highlighted_hit()
        rows = dict(app.query_one("#trace").rows)
        assert rows["citation"] == f"{hit.path}#L{hit.start_line}-L{hit.end_line}"
        assert rows["keyword list"].startswith(f"#{hit.text_rank} · bm25 ")


async def test_enter_opens_the_hit_at_its_lines(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"noeviction", "enter")
        await settle(app, pilot)
        assert locations(app) == ["memory/2026-04-28.md:1-6"]
        await pilot.press("enter")
        viewer = app.viewer
        assert viewer.rel == "memory/2026-04-28.md"
        assert viewer.mode == "raw"
        selection = viewer.text_area.selection
        assert sorted((selection.start, selection.end)) == [(0, 0), (5, 0)]


async def test_tuning_weights_reorders_with_marks_and_copies_json5(hybrid_manager: MemoryManager, make_app) -> None:
    app = make_app(hybrid_manager)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"analytics service postgres migration", "enter")
        await settle(app, pilot)
        before = [c.id for c in app.response.results]
        await pilot.press("t")
        await settle(app, pilot)
        # the memtui profile starts from its own 0.4/0.6; all weight on the vector side reorders
        await set_knob(app, pilot, "vector_weight", "1")
        await settle(app, pilot)
        response = app.response
        assert response.vector_weight == 1 and response.text_weight == 0
        # score = 1·vector + 0·text, so the order is the vector scores' order.
        scores = [c.score for c in response.results]
        assert scores == sorted(scores, reverse=True)
        assert all(abs(c.score - (c.vector_score or 0.0)) < 1e-12 for c in response.results)
        after = [c.id for c in response.results]
        assert after != before
        for position, chunk_id in enumerate(after, start=1):
            if chunk_id not in before:
                expected = "new"
            else:
                old = before.index(chunk_id) + 1
                expected = "=" if old == position else f"▲{old - position}" if old > position else f"▼{position - old}"
            assert app.marks[chunk_id] == expected
        assert app.focused is app.tuning_panel
        await pilot.press("J")
        snippet = json5.loads(app.clipboard)
        hybrid = snippet["agents"]["defaults"]["memorySearch"]["query"]["hybrid"]
        assert (hybrid["vectorWeight"], hybrid["textWeight"]) == (1, 0)


async def test_why_not_by_location_explains_a_chunk_that_is_no_candidate(manager: MemoryManager,
                                                                         make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"redis", "enter")
        await settle(app, pilot)
        await pilot.press("W", *"MEMORY.md:3", "enter")
        await pilot.pause()
        assert isinstance(app.screen, TextModal)
        body = str(app.screen.query_one("#modal-body").render())
        assert body.startswith("not a keyword candidate\n")  # keyword-only: no vector side to name
        assert "does not match the keyword query" in body


async def test_save_refuses_on_conflict_then_overwrites(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    target = manager.env.workspace_dir / "memory" / "projects.md"
    async with app.run_test(size=SIZE) as pilot:
        app.open_file("memory/projects.md", target)
        app.viewer.content_widget.focus()
        await pilot.press("e")
        area = app.viewer.text_area
        area.move_cursor((area.document.line_count - 1, 0))
        area.insert("- added in the editor\n")
        target.write_text("# Projects\n\n- changed by someone else\n", encoding="utf-8")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceModal)
        await pilot.press("escape")
        await pilot.pause()
        assert target.read_text(encoding="utf-8") == "# Projects\n\n- changed by someone else\n"
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.click("#choice-overwrite")
        await settle(app, pilot)
        saved = target.read_text(encoding="utf-8")
        assert saved.endswith("- notifications: Redis Streams consumer, owned by Priya.\n- added in the editor\n")
        assert not app.viewer.dirty


async def test_copy_citation_uses_the_terminal_clipboard_and_toasts(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("slash", *"noeviction", "enter")
        await settle(app, pilot)
        await pilot.press("c")
        assert app.clipboard == "memory/2026-04-28.md#L1-L6"
        assert any("terminal clipboard (OSC 52)" in n.message for n in app._notifications)
        await pilot.press("Y")
        assert app.clipboard == "memory/2026-04-28.md"


async def test_promote_hit_into_memory_is_idempotent(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    memory = manager.env.workspace_dir / "MEMORY.md"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"noeviction", "enter")
        await settle(app, pilot)
        before = memory.read_text(encoding="utf-8")
        await pilot.press("p")
        await settle(app, pilot)
        assert isinstance(app.screen, ChoiceModal)
        await pilot.press("escape")
        await settle(app, pilot)
        assert memory.read_text(encoding="utf-8") == before
        for _ in range(2):
            await pilot.press("p")
            await settle(app, pilot)
            await pilot.press("p")
            await settle(app, pilot)
    text = memory.read_text(encoding="utf-8")
    assert text.count("<!-- openclaw-memory-promotion:memory:memory/2026-04-28.md:1:6 -->") == 1
    assert "\n## Promoted From Short-Term Memory (2026-04-29)\n" in text
    # The chunk's Markdown is kept: its bullets stay bullets, one per line, the first carrying the marker.
    entry = text.split("<!-- openclaw-memory-promotion:memory:memory/2026-04-28.md:1:6 -->\n", 1)[1]
    assert entry.startswith("- Incident INC-4412: checkout latency spiked to 4s after the Redis upgrade. [score=")
    assert "source=memory/2026-04-28.md:1-6]\n- Root cause: Redis maxmemory-policy reset" in entry
    assert text.startswith("# Long-Term Memory\n\n## People\n")


async def test_append_note_to_todays_log(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    log = manager.env.workspace_dir / "memory" / "2026-04-29.md"
    before = log.read_text(encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        app.results.focus()
        await pilot.press("n", *"Rotate the staging key on May 29", "enter")
        await settle(app, pilot)
    assert log.read_text(encoding="utf-8") == before + "\n- Rotate the staging key on May 29\n"


async def test_indexing_runs_in_a_worker_with_progress(workspace_env, make_app) -> None:
    seen: list = []
    with MemoryManager(workspace_env, provider=None) as fresh:
        app = make_app(fresh)
        async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
            await settle(app, pilot)
            kinds = [type(m) for m in seen if isinstance(m, IndexStarted | IndexProgress | IndexFinished)]
            assert kinds[0] is IndexStarted and kinds[-1] is IndexFinished
            assert IndexProgress in kinds
            finished = next(m for m in seen if isinstance(m, IndexFinished))
            # MEMORY.md, memory/projects.md and six dated logs.
            assert finished.report.files_total == 8
            summary = str(app.query_one("#status-bar").render())
            assert "8 files" in summary and "clean" in summary


async def test_the_app_collects_garbage_again_after_its_first_frame(manager: MemoryManager, make_app) -> None:
    """`memtui` starts the app with the collector off (its passes over start-up's objects held the first frame
    back): once that frame is drawn it must run again, or a long session keeps every cycle it leaves behind."""
    gc.disable()
    try:
        app = make_app(manager)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert gc.isenabled()
    finally:
        gc.enable()


def test_memtui_draws_up_to_120_frames_a_second_unless_told_otherwise(tmp_path: Path) -> None:
    """At Textual's 60 a search's results waited up to two 17 ms beats for their frame; `memtui` asks for 120,
    and a TEXTUAL_FPS the user set is kept."""
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    rates = [screenshot_process(tmp_path, "import textual.constants\nprint(textual.constants.MAX_FPS)", extra)
             for extra in (env, {**env, "TEXTUAL_FPS": "30"})]
    assert rates == ["120", "30"]


async def test_indexing_progress_is_a_bar_in_the_status_line(manager: MemoryManager, make_app) -> None:
    """Counts, a bar and the percentage, drawn in the status line itself: the line keeps its width, so nothing on
    the screen is laid out again when a sync starts (a full layout competed with the indexer's thread)."""
    from memtui.index.indexer import Progress

    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        summary = app.query_one("#status-bar")
        region = summary.region
        app.post_message(IndexStarted("test"))
        app.post_message(IndexProgress(Progress("index", 3, 8, 5)))
        await pilot.pause()
        line = str(summary.render())
        assert "indexing 3/8 files · 5 chunks " in line and line.endswith(" 37%")
        assert line.count("━") == 30
        assert summary.region == region
        app.post_message(IndexProgress(Progress("index", 8, 8, 9)))
        await pilot.pause()
        assert str(summary.render()).endswith("100%")


async def test_the_index_is_built_once_the_tree_is_on_the_screen(workspace_env, make_app) -> None:
    """The first listing draws the tree alone: the start-up sync and the status read start once that frame is
    drawn (threads started with it took the interpreter from that frame)."""
    seen: list[object] = []
    with MemoryManager(workspace_env, provider=None) as fresh:
        app = make_app(fresh)
        async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
            await settle(app, pilot)
            kinds = [type(m) for m in seen if isinstance(m, FilesListed | IndexStarted | IndexFinished)]
            assert kinds == [FilesListed, IndexStarted, IndexFinished]
            assert "8 files" in str(app.query_one("#status-bar").render())


async def test_a_listing_that_fails_says_so_and_the_index_is_still_built(workspace_env, make_app,
                                                                         monkeypatch) -> None:
    def unreadable(*_args: object) -> None:
        raise PermissionError(13, "Permission denied", "memory")

    monkeypatch.setattr("memtui.tui.controllers.browsing.list_entries", unreadable)
    with MemoryManager(workspace_env, provider=None) as fresh:
        app = make_app(fresh)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await settle(app, pilot)
            assert fresh.last_sync is not None
            assert "8 files" in str(app.query_one("#status-bar").render())
            assert any("Could not list the files: [Errno 13] Permission denied: 'memory'" in n.message
                       for n in app._notifications)


async def test_a_sync_says_what_it_changed_in_the_status_line(manager: MemoryManager, make_app) -> None:
    """Not in a toast (composed and laid out anew each time, and the watcher syncs after every save)."""
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        note = manager.env.workspace_dir / "memory" / "2026-04-30.md"
        note.write_text("# 2026-04-30\n\n- switched the billing queue to Kafka\n", encoding="utf-8")
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        summary = str(app.query_one("#status-bar").render())
        assert "9 files" in summary and "last sync: 1 file changed (1 chunk)" in summary
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert "last sync: no change" in str(app.query_one("#status-bar").render())
        assert not app._notifications


async def test_file_events_wait_for_the_sync_before_the_search_runs_again(manager: MemoryManager,
                                                                           make_app) -> None:
    """The index holds what a search finds: a file event comes before the sync that indexes it, so a search run
    then finds what it found before. A day of edits (100 events) ran it a dozen times during the sync; the sync's
    end runs it once, and it finds the new note."""
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "kafka")
        before = app.searches_run
        note = manager.env.workspace_dir / "memory" / "2026-04-30.md"
        note.write_text("# 2026-04-30\n\n- moved the kafka consumers to the new cluster\n", encoding="utf-8")
        for _ in range(20):
            manager.emit(IndexEvent("file-changed", reason="watch", paths=("memory/2026-04-30.md",)))
        await settle(app, pilot)
        assert app.searches_run == before
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert app.searches_run == before + 1
        assert any(hit.path == "memory/2026-04-30.md" for hit in app.response.results)


async def test_the_watcher_starts_once_the_start_up_index_is_built(workspace_env, make_app) -> None:
    """Its first sync walks every note: started while the app builds the index, it would slow that down. It starts
    once the start-up sync has finished (its own sync still catches what changed in between)."""
    while_indexing: list[bool] = []
    with MemoryManager(workspace_env, provider=None) as fresh:
        app = make_app(fresh, start_watching=lambda: while_indexing.append(app.indexing or fresh.last_sync is None))
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert fresh.last_sync is not None and while_indexing == [False]


async def test_file_changed_event_reloads_the_open_file(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    target = manager.env.workspace_dir / "memory" / "2026-04-10.md"
    async with app.run_test(size=SIZE) as pilot:
        app.open_file("memory/2026-04-10.md", target)
        target.write_text("# 2026-04-10\n\n- rewritten on disk\n", encoding="utf-8")
        thread = threading.Thread(target=manager.emit, args=(IndexEvent("file-changed", paths=(
            "memory/2026-04-10.md",)),))
        thread.start()
        thread.join()
        await settle(app, pilot)
        assert app.viewer.text_area.text == "# 2026-04-10\n\n- rewritten on disk\n"


async def test_watcher_failure_opens_a_copyable_error(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        manager.emit(IndexEvent("failed", reason="watch", error="disk I/O error"))
        await pilot.pause()
        assert isinstance(app.screen, ErrorModal)
        await pilot.press("c")
        assert app.clipboard == "disk I/O error"


async def test_a_file_watcher_that_cannot_start_says_so(manager: MemoryManager, make_app) -> None:
    """The watcher starts in a worker after the first frame: its failure (no inotify watch left, say) opens the
    same copyable error, and the app keeps working."""

    def start() -> None:
        raise OSError(28, "inotify watch limit reached")

    app = make_app(manager, start_watching=start)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorModal)
        await pilot.press("c")
        assert app.clipboard == "the file watcher did not start: [Errno 28] inotify watch limit reached"


async def test_every_action_is_wired_and_keys_are_remappable(manager: MemoryManager, make_app, tmp_path) -> None:
    config_dir = tmp_path / "memtui"
    config_dir.mkdir()
    (config_dir / "config.json5").write_text('{ keymap: { "search.focus": "ctrl+f" } }', encoding="utf-8")
    keymap = load_keymap(config_dir)
    app = make_app(manager, keymap=keymap)
    for action in ACTIONS:
        assert callable(getattr(app, f"action_{action.name}")), action.id
    async with app.run_test(size=SIZE) as pilot:
        app.browser.focus()
        await pilot.press("slash")
        assert app.focused is app.browser
        await pilot.press("ctrl+f")
        assert app.focused is app.query_input
        app.browser.focus()
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        assert ("ctrl+f", "search", "Jump to the search box; typing re-runs the search live.",
                "search.focus") in app.screen.rows


async def test_vim_keys_move_the_browser(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.browser.focus()
        app.browser.move_cursor(app.browser.root.children[0])
        # MEMORY.md, DREAMS.md, the year, the month, then the newest day.
        await pilot.press("j", "j", "j", "j")
        assert app.browser.cursor_node.data.rel == "memory/2026-04-29.md"
        await pilot.press("enter")
        assert app.viewer.rel == "memory/2026-04-29.md"


async def test_file_filter_narrows_the_browser_and_escape_restores_it(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.browser.focus()
        every = [entry.rel for entry in app.browser.entries()]
        await pilot.press("f")
        box = app.query_one("#browser-filter", Input)
        assert box.display and box.has_focus
        await pilot.press(*"04-28")
        await pilot.pause()
        assert [entry.rel for entry in app.browser.entries()] == ["memory/2026-04-28.md",
                                                                  "memory/2026-04-28-deploy-incident.md"]
        assert app.browser.border_subtitle == "2 match"
        await pilot.press("enter")
        assert app.browser.has_focus
        await pilot.press("enter")
        assert app.viewer.rel == "memory/2026-04-28.md"
        app.browser.focus()
        await pilot.press("escape")
        assert not box.display and box.value == ""
        assert [entry.rel for entry in app.browser.entries()] == every
        await pilot.press("f", "z", "z", "z")
        await pilot.pause()
        assert app.browser.entries() == [] and app.browser.border_subtitle == "0 match"
        await pilot.press("escape")
        assert not box.display and len(app.browser.entries()) == len(every)


async def test_an_opening_query_highlights_the_first_hit_with_its_trace_and_file(manager: MemoryManager,
                                                                                  make_app) -> None:
    app = make_app(manager, initial_query="redis")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.focused is app.results and app.results.cursor_row == 0
        first = app.highlighted_hit()
        assert first is not None and first.rank == 1
        # The files mentioning Redis (see the typing test above).
        assert first.path in ("memory/2026-04-10.md", "memory/2026-04-28.md", "memory/projects.md")
        assert app.query_one("#trace").rows[-1] == ("citation", f"{first.path}#L{first.start_line}-L{first.end_line}")
        assert app.query_one("#detail").active == "tab-trace"
        assert app.viewer.rel == first.path and app.viewer.mode == "raw"
        selection = app.viewer.text_area.selection
        assert sorted((selection.start[0], selection.end[0])) == [first.start_line - 1, first.end_line - 1]


async def test_results_shown_while_the_first_index_builds_get_no_movement_marks(workspace_env, make_app) -> None:
    with MemoryManager(workspace_env, provider=None) as fresh:
        app = make_app(fresh, initial_query="redis")
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await settle(app, pilot)
            assert len(locations(app)) == 3
            assert set(app.marks.values()) <= {""}
            assert app.results.cursor_row == 0


async def test_keyword_only_status_says_why_and_how_to_get_hybrid_search(manager: MemoryManager, make_app) -> None:
    app = make_app(manager, provider_note="the demo runs offline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        summary = str(app.query_one("#status-bar").render())
        assert summary.startswith(" keyword-only")
        assert "the demo runs offline → memtui model install" in summary
        assert "vec" not in summary


async def test_main_screen_keys_do_nothing_on_other_screens(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        app.browser.focus()
        await pilot.press("s")
        await pilot.pause()
        sessions = app.screen
        await pilot.press("slash", "t", "e")
        await pilot.pause()
        assert app.screen is sessions
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.screen_stack[0]


async def test_editing_a_hit_opened_at_its_lines_keeps_them_and_escape_d_discards(manager: MemoryManager,
                                                                                   make_app) -> None:
    app = make_app(manager)
    path = manager.env.workspace_dir / "memory" / "2026-04-28.md"
    original = path.read_text(encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        app.open_file("memory/2026-04-28.md", path, lines=(3, 4))
        assert not app.check_action("save", ()) and not app.check_action("leave_edit", ())
        app.viewer.content_widget.focus()
        await pilot.press("e")
        assert app.check_action("save", ()) and app.check_action("leave_edit", ())
        await pilot.press("x")
        # The selected hit lines are still there; the key was inserted at the start of the selection.
        lines = original.split("\n")
        assert app.viewer.text_area.text == "\n".join([*lines[:2], "x" + lines[2], *lines[3:]])
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceModal)
        await pilot.press("d")
        await pilot.pause()
        assert app.viewer.mode == "raw" and app.viewer.text_area.text == original
        assert not app.check_action("save", ())
    assert path.read_text(encoding="utf-8") == original


async def test_a_file_written_again_keeps_its_row_in_the_browser(manager: MemoryManager, make_app) -> None:
    """An agent appending to today's log is a file event per write: the browser keeps the row (no redraw of the
    tree); a new file gets one."""
    app = make_app(manager)
    log = manager.env.workspace_dir / "memory" / "2026-04-10.md"
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        row = app.browser.find("memory/2026-04-10.md")
        assert row is not None
        with log.open("a", encoding="utf-8") as handle:
            handle.write("- one more line\n")
        (log.parent / "2026-04-11.md").write_text("# 2026-04-11\n\n- new\n", encoding="utf-8")
        manager.emit(IndexEvent("file-changed", paths=("memory/2026-04-10.md", "memory/2026-04-11.md")))
        await settle(app, pilot, delay=0.4)
        assert app.browser.find("memory/2026-04-10.md") is row
        assert app.browser.find("memory/2026-04-11.md") is not None


async def test_a_relisting_changes_only_the_rows_that_differ(manager: MemoryManager, make_app) -> None:
    """Re-reading the folder (after a sync that saw another set of files) compares the listings in the worker:
    the tree gains and loses the rows that differ, and keeps the others."""
    app = make_app(manager)
    memory = manager.env.workspace_dir / "memory"
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        kept = app.browser.find("memory/2026-04-10.md")
        (memory / "2026-04-12.md").write_text("# 2026-04-12\n\n- new\n", encoding="utf-8")
        gone = next(p for p in sorted(memory.glob("2026-*.md")) if p.name != "2026-04-10.md")
        gone.unlink()
        app.refresh_browser()
        await settle(app, pilot)
        assert app.browser.find("memory/2026-04-10.md") is kept
        assert app.browser.find("memory/2026-04-12.md") is not None
        assert app.browser.find(f"memory/{gone.name}") is None
        assert app.browser.border_subtitle.startswith(f"{len(app.browser.listing.entries):,} files")

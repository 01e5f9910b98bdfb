"""Defects a second review found by using the app (2026-12-02): each test repeats what the reviewer did."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

from pilot import search, settle

from memtui.index.watcher import MemoryWatcher
from memtui.manager import MemoryManager
from memtui.tui.app import MemtuiApp

SIZE = (120, 36)


@contextlib.asynccontextmanager
async def watched_app(manager: MemoryManager, make_app) -> AsyncIterator[tuple[MemtuiApp, object]]:
    """The app with a real file watcher (100 ms debounce), on the screen and settled."""
    watcher = MemoryWatcher(manager, debounce_ms=100)
    app = make_app(manager, start_watching=watcher.start)
    try:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(app, pilot)
            yield app, pilot
    finally:
        watcher.stop()
        manager.wait_idle(timeout=10)


async def test_saving_in_the_editor_keeps_it_open(manager: MemoryManager, make_app) -> None:
    """The watcher reports the app's own save: the viewer reloaded the file and closed the editor, so the next
    letters typed ran commands (`d` opened the Dreams screen)."""
    note = manager.env.workspace_dir / "memory" / "2026-04-20.md"
    async with watched_app(manager, make_app) as (app, pilot):
        app.open_file("memory/2026-04-20.md", note)
        await pilot.press("4", "e", "X", "ctrl+s")
        for _ in range(30):  # the watcher's report of the save, then its sync
            await settle(app, pilot, 0.1)
        assert note.read_text(encoding="utf-8").startswith("X")
        await pilot.press("d")
        await pilot.pause()
        assert app.viewer.editing and app.screen is app.screen_stack[0]
        assert app.viewer.text_area.text.startswith("Xd")
        assert not any(n.message.startswith("Reloaded") for n in app._notifications)


async def test_a_note_changed_outside_while_the_editor_is_open_but_clean_reloads_into_the_editor(
        manager: MemoryManager, make_app) -> None:
    """Reloaded once, and still in the editor: a letter typed next is text, not a command."""
    note = manager.env.workspace_dir / "memory" / "2026-04-20.md"
    async with watched_app(manager, make_app) as (app, pilot):
        app.open_file("memory/2026-04-20.md", note)
        await pilot.press("4", "e")
        with note.open("a", encoding="utf-8") as log:
            log.write("- appended outside\n")
        for _ in range(30):
            await settle(app, pilot, 0.1)
        assert app.viewer.editing
        assert app.viewer.text_area.text.endswith("- appended outside\n")
        assert [n.message for n in app._notifications if n.message.startswith("Reloaded")] == \
            ["Reloaded memory/2026-04-20.md"]


async def test_the_external_editor_is_not_opened_through_a_symlink(manager: MemoryManager, make_app, tmp_path,
                                                                   monkeypatch) -> None:
    """The viewer refused a note that had become a symlink to /etc/hostname, but `E` opened $EDITOR on it, and
    the edit landed outside the workspace."""
    monkeypatch.setenv("EDITOR", "true")
    outside = tmp_path / "outside.md"
    outside.write_text("outside: do not touch\n", encoding="utf-8")
    note = manager.env.workspace_dir / "memory" / "2026-04-28.md"
    app = make_app(manager)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await search(app, pilot, "noeviction")
        note.unlink()
        os.symlink(outside, note)
        await pilot.press("E")
        await pilot.pause()
        assert [n.message for n in app._notifications][-1] == \
            "Cannot edit memory/2026-04-28.md: memory/2026-04-28.md is a symlink; refusing to follow it"


async def test_a_key_that_moves_the_focus_out_of_a_maximised_pane_restores_the_layout(
        hybrid_manager: MemoryManager, make_app) -> None:
    """`3 z /` then typing went into the hidden search box (the results emptied behind the maximised pane);
    `3 z t` then → changed vectorWeight in a tuning panel that was not on the screen."""
    app = make_app(hybrid_manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("3", "z")
        assert app.screen.maximized is app.results
        await pilot.press("slash")
        await pilot.pause()
        assert app.screen.maximized is None and app.query_input.has_focus
        await pilot.press("escape", "3", "z", "t")
        await settle(app, pilot)
        assert app.screen.maximized is None and app.tuning_panel.has_focus
        assert app.tuning_panel.region.height > 0


async def test_promoting_a_hit_opened_in_the_viewer_records_its_lines_and_score(manager: MemoryManager,
                                                                                make_app) -> None:
    """Enter on a hit opens its file with the hit's lines selected; `p` there promoted one line fewer (the chunk's
    last line is blank) with score 0.000, where `p` on the hit itself records the hit's lines and score."""
    note = manager.env.workspace_dir / "memory" / "2026-04-21.md"
    note.write_text("# 2026-04-21\n\n- Zanzibar ferry leaves at 07:40 from pier 3.\n\n", encoding="utf-8")
    manager.sync(reason="test")
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "zanzibar")
        hit = app.highlighted_hit()
        assert (hit.path, hit.start_line, hit.end_line) == ("memory/2026-04-21.md", 1, 5)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.viewer_focused()
        await pilot.press("p")
        await settle(app, pilot)
        preview = str(app.screen.query_one("#modal-body").render())
        assert f"[score={hit.score:.3f} … source=memory/2026-04-21.md:1-5]" in preview


async def test_the_first_note_of_an_agent_without_a_workspace_folder_is_written(tmp_path, make_app) -> None:
    """An OpenClaw state dir whose workspace folder does not exist yet: the screen says `n` appends a first note,
    and `n` failed with "No such file or directory"."""
    from memtui.settings.agent import resolve_agent

    (tmp_path / "state").mkdir()
    env = resolve_agent(state_dir=str(tmp_path / "state"), provider="none", env={})
    assert not env.workspace_dir.exists()
    started: list[bool] = []
    with MemoryManager(env, provider=None) as empty:
        app = make_app(empty, start_watching=lambda: started.append(env.workspace_dir.is_dir()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert started == []  # no folder to watch yet
            assert "n appends a first note" in str(app.query_one("#trace-head").render())
            await pilot.press("n", *"Ferry at 07:40", "enter")
            await settle(app, pilot)
            log = env.workspace_dir / "memory" / f"{app.today.isoformat()}.md"
            assert log.read_text(encoding="utf-8").endswith("- Ferry at 07:40\n")
            assert app.browser.find(f"memory/{log.name}") is not None
            assert started == [True]  # now there is a folder to watch


async def test_y_in_the_file_browser_copies_the_file_under_its_cursor(manager: MemoryManager, make_app) -> None:
    """`Y` on a file in the browser copied the highlighted hit's path instead."""
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "noeviction")
        assert app.highlighted_hit().path == "memory/2026-04-28.md"
        await pilot.press("2")
        app.browser.move_cursor(app.browser.find("memory/2026-04-20.md"))
        await pilot.press("Y")
        await pilot.pause()
        assert app.clipboard == "memory/2026-04-20.md"


async def test_a_new_query_shows_its_trace_instead_of_a_file_opened_before(manager: MemoryManager, make_app) -> None:
    """At 80x24 (no tabs to click) a query with no hits left the old file on screen, and `3`/`4` never showed why
    nothing was found; at 120x36 a new query's first hit kept the old file beside it."""
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.query_one("#detail")
        assert detail.active == "tab-file"
        await search(app, pilot, "zebra")
        assert detail.active == "tab-trace"
        assert "No hits for “zebra”" in str(app.query_one("#trace-head").render())
        await pilot.press("2")
        await search(app, pilot, "noeviction")
        assert detail.active == "tab-trace"
        assert app.query_one("#trace").rows


async def test_a_remapped_help_key_opens_and_closes_help_and_is_listed_once(manager: MemoryManager,
                                                                            make_app) -> None:
    """With `keymap: {"app.help": "f2"}` F2 opened help but did not close it, help listed `F2 F2`, and the search
    box still said `/` brings you back when the user had moved that key too."""
    from memtui.tui.keys import keys_display
    from memtui.tui.screens import HelpScreen

    app = make_app(manager, keymap={"app.help": "f2", "search.focus": "ctrl+f"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert f"({keys_display('ctrl+f')} to come back here" in str(app.query_input.placeholder)
        hint = str(app.query_one("#trace-head").render())
        assert hint.startswith(f"Press {keys_display('ctrl+f')} and type") and "F2 lists the keys" in hint
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert [row[0] for row in app.screen.rows if row[3] == "app.help"] == ["F2"]
        assert "**Search** (`ctrl+f`)" in app.screen.intro and "`z` maximises" in app.screen.intro
        await pilot.press("f2")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_a_binary_file_named_md_is_refused_not_shown_as_garbage(manager: MemoryManager, make_app) -> None:
    from memtui.tui.screens import ErrorModal

    blob = manager.env.workspace_dir / "memory" / "2026-04-22.md"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR binary")
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.open_file("memory/2026-04-22.md", blob)
        await pilot.pause()
        assert isinstance(app.screen, ErrorModal)
        assert "binary file (NUL bytes)" in str(app.screen.body)
        assert app.viewer.rel != "memory/2026-04-22.md"


async def test_a_long_promote_dialog_keeps_its_hint_inside_its_border(manager: MemoryManager, make_app) -> None:
    """At 80x24 a long entry pushed the `p Promote · c Cancel` line onto the dialog's bottom border."""
    note = manager.env.workspace_dir / "memory" / "2026-04-21.md"
    note.write_text("# 2026-04-21\n\n" + "".join(f"- zanzibar ferry note {i}, with enough words to be a line\n"
                                                  for i in range(30)), encoding="utf-8")
    manager.sync(reason="test")
    for size in ((80, 24), (120, 36), (200, 50)):
        app = make_app(manager)
        async with app.run_test(size=size) as pilot:
            await search(app, pilot, "zanzibar")
            await pilot.press("p")
            await settle(app, pilot)
            box, hint = (app.screen.query_one(selector).region for selector in ("#modal-box", "#modal-hint"))
            assert box.y < hint.y < box.bottom - 1, (size, box, hint)


async def test_t_then_ctrl_t_typed_in_one_burst_resets_the_tuning(hybrid_manager: MemoryManager, make_app) -> None:
    """The panel took the focus a frame after `t`, so a `ctrl+t` typed right behind it was lost."""
    from textual import events

    from memtui.tui.tuning import Tuning

    app = make_app(hybrid_manager)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await search(app, pilot, "redis")
        app.set_tuning(Tuning(**{**vars(app.configured_tuning), "vector_weight": 0.9, "text_weight": 0.1}))
        await pilot.press("3")
        for key in ("t", "ctrl+t"):  # both queued before either is handled, as a fast typist's keys are
            app.post_message(events.Key(key, "t" if key == "t" else None))
        await settle(app, pilot)
        assert app.tuning == app.configured_tuning
        assert any(n.message == "Tuning reset to the configured values" for n in app._notifications)


async def test_keys_typed_in_a_burst_edit_in_the_order_typed(manager: MemoryManager, make_app) -> None:
    """`ab`, backspace, `c` typed at once gave `ab` in the search box (the `c` landed before the backspace, whose
    binding Textual runs only once the key has bubbled back up to the app); the editor too."""
    from textual import events

    burst = (("a", "a"), ("b", "b"), ("backspace", None), ("c", "c"), ("left", None), ("x", "x"))
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        for key, character in burst:
            app.post_message(events.Key(key, character))
        await settle(app, pilot)
        assert app.query_input.value == "axc"
        app.open_file("memory/2026-04-20.md", manager.env.workspace_dir / "memory" / "2026-04-20.md")
        await pilot.press("escape", "4", "e")
        for key, character in burst:
            app.post_message(events.Key(key, character))
        await settle(app, pilot)
        assert app.viewer.text_area.text.startswith("axc# 2026-04-20")


async def test_quitting_with_unsaved_edits_asks_first(manager: MemoryManager, make_app) -> None:
    """`ctrl+q` (or the palette's Quit) with unsaved edits in the editor left at once, and the edits were lost."""
    from memtui.tui.screens import ChoiceModal

    note = manager.env.workspace_dir / "memory" / "2026-04-20.md"
    before = note.read_text(encoding="utf-8")
    for choice, saved in (("k", None), ("q", False), ("s", True)):
        app = make_app(manager)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            app.open_file("memory/2026-04-20.md", note)
            await pilot.press("4", "e", "A", "B", "C", "ctrl+q")
            await pilot.pause()
            assert isinstance(app.screen, ChoiceModal)
            hint = str(app.screen.query_one("#modal-hint").render())  # whole at 80 columns, "esc cancel" too
            assert hint.endswith("esc cancel")
            assert len(hint) <= app.screen.query_one("#modal-box").content_region.width
            await pilot.press(choice)
            await pilot.pause()
            if saved is None:  # keep editing
                assert app.is_running and app.viewer.dirty and app.viewer.editing
                await pilot.press("escape", "d")  # the dialog for leaving the editor: drop the edits
                await pilot.pause()
            else:
                assert not app.is_running
        assert note.read_text(encoding="utf-8") == ("ABC" + before if saved else before)


async def test_a_session_transcript_hit_opens_from_the_sessions_folder(tmp_path, make_app) -> None:
    """Enter on a `sessions/….jsonl` hit looked for it under the workspace ("No such file or directory"), though
    the browser opened the same file."""
    import json

    from conftest import build_workspace

    from memtui.settings.agent import resolve_agent

    state, workspace = build_workspace(tmp_path)
    config = {"agents": {"defaults": {"memorySearch": {"sources": ["memory", "sessions"],
                                                       "experimental": {"sessionMemory": True}}}}}
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    transcript = state / "agents" / "main" / "sessions" / "s-side.jsonl"
    with transcript.open("a", encoding="utf-8") as log:
        log.write(json.dumps({"type": "message", "id": "u9", "timestamp": "2026-04-29T11:00:00Z", "message": {
            "role": "user", "content": [{"type": "text", "text": "the pgbouncer pool needs a reserve"}]}}) + "\n")
    env = resolve_agent(state_dir=str(state), workspace=str(workspace), provider="none", env={})
    with MemoryManager(env, provider=None) as memory:
        memory.sync(reason="test")
        app = make_app(memory)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await search(app, pilot, "pgbouncer")
            assert app.highlighted_hit().path == "sessions/s-side.jsonl"
            await pilot.press("enter")
            await settle(app, pilot)
            assert app.viewer.rel == "sessions/s-side.jsonl" and app.viewer.abs_path == transcript
            assert "pgbouncer pool" in app.viewer.text_area.text
            await pilot.press("3", "E")
            await pilot.pause()
            assert app._notifications and list(app._notifications)[-1].message == \
                "Session transcripts are read-only here"


async def test_a_note_that_is_not_utf8_is_not_edited_into_replacement_characters(manager: MemoryManager,
                                                                                  make_app) -> None:
    """`e`, a letter, ctrl+s on a Latin-1 note turned its é (0xE9) into EF BF BD, with no warning."""
    note = manager.env.workspace_dir / "memory" / "2026-04-21.md"
    original = "# 2026-04-21\n\n- café order for the offsite\n".encode("latin-1")
    note.write_bytes(original)
    app = make_app(manager)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        app.open_file("memory/2026-04-21.md", note)
        await pilot.press("4", "e", "X", "ctrl+s")
        await settle(app, pilot)
        assert not app.viewer.editing
        assert any("is not valid UTF-8" in n.message for n in app._notifications)
    assert note.read_bytes() == original


async def test_the_open_file_changing_on_disk_is_reported_once_and_truthfully(manager: MemoryManager, make_app,
                                                                              tmp_path) -> None:
    """A note swapped for a symlink gave "Cannot reload … refusing to follow it" and then "Reloaded …", twice
    each; an append while the editor held edits warned twice; a note deleted and put back as it was kept
    "deleted on disk" in the header."""
    note = manager.env.workspace_dir / "memory" / "2026-04-20.md"
    original = note.read_text(encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text("outside\n", encoding="utf-8")

    async def wait(app, pilot) -> None:
        for _ in range(25):
            await settle(app, pilot, 0.1)

    async with watched_app(manager, make_app) as (app, pilot):
        app.open_file("memory/2026-04-20.md", note)
        await pilot.press("4", "e", "X")
        note.write_text(original + "- appended outside\n", encoding="utf-8")
        await wait(app, pilot)
        messages = [n.message for n in app._notifications]
        assert sum("changed on disk; you have unsaved edits" in m for m in messages) == 1
        await pilot.press("escape", "d")  # leave the editor, dropping the edit
        await wait(app, pilot)
        note.unlink()
        await wait(app, pilot)
        assert "deleted on disk" in str(app.query_one("#viewer-title").render())
        note.write_text(original + "- appended outside\n", encoding="utf-8")
        await wait(app, pilot)
        assert "deleted on disk" not in str(app.query_one("#viewer-title").render())
        app._notifications.clear()
        note.unlink()
        os.symlink(outside, note)
        await wait(app, pilot)
        messages = [n.message for n in app._notifications]
        assert sum(m.startswith("Cannot reload") for m in messages) == 1, messages
        assert not any(m.startswith("Reloaded") for m in messages), messages


async def test_one_file_is_one_file(tmp_path, make_app) -> None:
    """The status bar read "1 files · 1 chunks"."""
    from memtui.settings.agent import resolve_agent

    (tmp_path / "state").mkdir()
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "MEMORY.md").write_text("# Memory\n\n- Prefers tea.\n", encoding="utf-8")
    env = resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(tmp_path / "ws"), provider="none", env={})
    with MemoryManager(env, provider=None) as memory:
        app = make_app(memory)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert " · 1 file · 1 chunk · " in str(app.query_one("#status-bar").render())
            assert app.browser.border_subtitle == "1 file"


async def test_closing_the_tuning_panel_returns_to_the_file_being_read(hybrid_manager: MemoryManager,
                                                                       make_app) -> None:
    """Enter on a hit, `t`, `t`: the detail pane switched from the open file to the trace."""
    app = make_app(hybrid_manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.query_one("#detail")
        assert detail.active == "tab-file" and app.viewer_focused()
        await pilot.press("t")
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        assert detail.active == "tab-file" and app.viewer_focused()

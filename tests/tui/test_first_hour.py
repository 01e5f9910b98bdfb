"""What a user meets in the first hour (issue 28, items 5 and 6): the palette of each screen, the footer's hot keys,
the help, the editor's undo, the why-not location, resetting the tuning from any pane, the file counts, the bootstrap
rows, the clipboard toast, the tuning rows, and the background of a dialog after a resize."""

from __future__ import annotations

import os

import pytest
from pilot import press_from, screen_lines, search, settle
from textual import events
from textual.command import CommandList, CommandPalette
from textual.widgets import DataTable, Footer
from textual.widgets._footer import FooterKey

from memtui.manager import MemoryManager
from memtui.tui.screens.help import HelpScreen
from memtui.tui.screens.modals import PromptInput, TextModal
from memtui.tui.screens.sessions import SessionsScreen


async def palette_titles(app, pilot) -> list[str]:
    """Open the command palette and read the titles it lists (then close it)."""
    await pilot.press("ctrl+p")
    await settle(app, pilot, 0.3)
    assert isinstance(app.screen, CommandPalette)
    options = app.screen.query_one(CommandList)
    titles = [str(options.get_option_at_index(i).prompt).split("\n")[0] for i in range(options.option_count)]
    await pilot.press("escape")
    await pilot.pause()
    return titles


async def test_palette_lists_what_works_on_the_screen(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.results.focus()
        assert "view: Go to the files" in await palette_titles(app, pilot)

        await pilot.press("s")
        await settle(app, pilot)
        titles = await palette_titles(app, pilot)
        assert not [title for title in titles if title.startswith(("view:", "search:", "curate:", "tuning:"))]
        assert {"sessions: bootstrap", "sessions: Back", "app: Help and keys"} <= set(titles)

        await pilot.press("ctrl+p", *"bootstrap", "enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert screen.query_one("#sessions-tabs").active == "tab-bootstrap"

        await pilot.press("escape", "d")
        await settle(app, pilot)
        titles = await palette_titles(app, pilot)
        assert "dreams: Promote" in titles and "view: Go to the files" not in titles


def footer_keys(app) -> list[str]:
    """The keys the footer shows, each whole on the screen, in order."""
    footer = app.screen.query_one(Footer)
    shown = [key for key in footer.query(FooterKey) if key.display and key.region.width]
    assert all(key.region.right <= footer.region.right for key in shown)
    return [key.key for key in sorted(shown, key=lambda key: key.region.x)]


@pytest.mark.parametrize(("size", "hot"), [((80, 24), []), ((120, 36), ["W", "n", "s", "d"]),
                                           ((200, 50), ["x", "W", "n", "s", "d", "i"])])
async def test_footer_shows_the_hot_keys_that_fit(manager: MemoryManager, make_app, size, hot) -> None:
    app = make_app(manager)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        app.results.focus()
        await settle(app, pilot)
        keys = footer_keys(app)
        assert keys[:4] == ["enter", "w", "e", "p"] and keys[-3:] == ["question_mark", "q", "ctrl+p"]
        assert [key for key in keys if key in {"x", "W", "n", "s", "d", "i"}] == hot

    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.results.focus()
        await pilot.resize_terminal(200, 50)
        await settle(app, pilot)
        assert {"x", "W", "n", "s", "d", "i"} <= set(footer_keys(app))


async def test_ctrl_t_resets_the_tuning_from_any_pane(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("t", "down", "down", "right")
        await settle(app, pilot)
        assert app.tuning != app.configured_tuning
        await pilot.press("2")
        assert app.browser.has_focus
        await pilot.press("ctrl+t")
        await settle(app, pilot)
        assert app.tuning == app.configured_tuning
        assert app.tuning_panel is not None and app.tuning_panel.tuning == app.configured_tuning


async def test_help_says_how_to_close_and_scrolls_with_every_arrow(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_from(app, pilot, "question_mark", app.results)
        assert isinstance(app.screen, HelpScreen)
        text = "\n".join(screen_lines(app.screen))
        assert "Esc q ? F1 close" in text
        box = app.screen.query_one("#help-scroll")
        assert box.max_scroll_y > 10
        for _ in range(5):  # a burst, as a held key sends: all five arrive before the next refresh
            app.post_message(events.Key("down", None))
        await pilot.pause(0.2)
        assert box.scroll_y == 5
        await pilot.press("up", "up")
        await pilot.pause()
        assert box.scroll_y == 3
        await pilot.press("question_mark")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)

        await pilot.press("i")  # the other dialogs scroll the same way
        await settle(app, pilot)
        body = app.screen.query_one("#modal-scroll")
        assert body.max_scroll_y >= 3
        for _ in range(3):
            app.post_message(events.Key("down", None))
        await pilot.pause(0.2)
        assert body.scroll_y == 3


async def test_help_opens_without_a_widget_per_paragraph(manager: MemoryManager, make_app) -> None:
    """The intro is one widget: Textual's Markdown made one per paragraph and list item, most of the time `?` took
    to open (0.14-0.22 s of CPU per opening on this VM, 0.09-0.15 s now)."""
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await press_from(app, pilot, "question_mark", app.results)
        assert isinstance(app.screen, HelpScreen)
        assert len(app.screen.query("*")) < 20
        text = "\n".join(screen_lines(app.screen))
        assert "See what your agent remembers, and why." in text


async def test_the_editor_footer_offers_undo(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.open_file("MEMORY.md", app.manager.env.workspace_dir / "MEMORY.md")
        app.viewer.content_widget.focus()
        await pilot.pause()
        assert "ctrl+z" not in footer_keys(app)
        await pilot.press("e")
        await settle(app, pilot)
        assert {"ctrl+s", "ctrl+z", "ctrl+y"} <= set(footer_keys(app))
        area = app.viewer.text_area
        before = area.text
        await pilot.press("end", *"xyz")
        assert area.text != before
        await pilot.press("ctrl+z")
        assert area.text == before
        await pilot.press("escape")
        await settle(app, pilot)
        assert "ctrl+z" not in footer_keys(app)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert [row[1] for row in app.screen.rows if row[0].startswith("ctrl+z")] == ["undo"]


async def test_why_not_offers_the_last_location_again(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("W", *"memory/2026-04-20.md:3", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, TextModal) and "2026-04-20.md" in app.screen.title_text
        await pilot.press("escape", "W")
        await settle(app, pilot)
        box = app.screen.query_one(PromptInput)
        assert box.value == "memory/2026-04-20.md:3"
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, TextModal) and "2026-04-20.md" in app.screen.title_text
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("W", *"MEMORY.md:2")  # typed at once: it replaces the offered location
        await settle(app, pilot)
        assert app.screen.query_one(PromptInput).value == "MEMORY.md:2"


async def test_the_file_counts_add_up(manager: MemoryManager, make_app) -> None:
    """The browser listed 11 files, the status bar said 8: DREAMS.md and the two transcripts are listed, not
    indexed (the fixture's agent indexes memory only)."""
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        indexed = manager.status()["files"]
        status = str(app.query_one("#status-bar").render())
        assert f" · {indexed} files · " in status
        assert app.browser.border_subtitle == f"11 files · {11 - indexed} not indexed"
        (manager.env.workspace_dir / "DREAMS.md").unlink()
        app.refresh_browser()
        await settle(app, pilot)
        assert app.browser.border_subtitle == f"10 files · {10 - indexed} not indexed"
        notes = manager.env.workspace_dir / "memory" / "notes"
        notes.mkdir()
        for number in range(1000):
            (notes / f"note-{number}.md").write_text(f"- note {number}\n", encoding="utf-8")
        app.refresh_browser()
        await settle(app, pilot)
        assert app.browser.border_subtitle == "1,010 · 2 not indexed"  # "files" left out: the border is 30 wide


async def test_a_whole_bootstrap_file_says_what_its_missing_char_was(manager: MemoryManager, make_app) -> None:
    """The row read "496 raw, 495 injected, whole": OpenClaw's trimEnd() takes the trailing newline off."""
    (manager.env.workspace_dir / "SOUL.md").write_text("# Soul\n\nBe kind.  \n\n", encoding="utf-8")
    app = make_app(manager)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.results.focus()
        await pilot.press("s", "2")
        await settle(app, pilot)
        table = app.screen.query_one("#bootstrap-table", DataTable)
        rows = {str(table.get_cell_at((row, 0))): [str(cell) for cell in table.get_row_at(row)]
                for row in range(table.row_count)}
        memory = (manager.env.workspace_dir / "MEMORY.md").read_text(encoding="utf-8")
        assert rows["MEMORY.md"][1:] == [f"{len(memory):,}", f"{len(memory) - 1:,}", "12,000",
                                         "whole, trailing newline trimmed"]
        assert rows["SOUL.md"][1:3] == ["20", "16"] and rows["SOUL.md"][4] == "whole, 4 trailing blanks trimmed"
        text = "\n".join(screen_lines(app.screen))
        assert "whole, trailing newline trimmed" in text and "whole, 4 trailing blanks trimmed" in text


@pytest.mark.parametrize(("set_clipboard", "expected"), [
    (None, "Sent citation to the terminal clipboard (OSC 52); your terminal may ignore it"),
    ("on", "Sent citation to the terminal clipboard (OSC 52 through tmux); your terminal may ignore it"),
    ("external", "Citation did not reach the terminal clipboard (OSC 52): tmux drops what programs send it while "
                 "its set-clipboard is external; `tmux set -g set-clipboard on` lets it through"),
])
async def test_the_clipboard_toast_claims_only_what_it_knows(manager: MemoryManager, make_app, tmp_path, monkeypatch,
                                                             set_clipboard, expected) -> None:
    """It said "Copied citation to the terminal clipboard" when tmux (set-clipboard external) had dropped it. A
    `tmux` on PATH answers as tmux would."""
    if set_clipboard is None:
        monkeypatch.delenv("TMUX", raising=False)
    else:
        fake = tmp_path / "bin" / "tmux"
        fake.parent.mkdir()
        fake.write_text(f'#!/bin/sh\n[ "$*" = "show-options -gv set-clipboard" ] && echo {set_clipboard}\n',
                        encoding="utf-8")
        fake.chmod(0o755)
        monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    app = make_app(manager)
    async with app.run_test(size=(120, 36)) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("c")
        await settle(app, pilot)
        assert app.clipboard.startswith("memory/")
        toast = list(app._notifications)[-1]
        assert toast is not None and toast.message.startswith(expected), toast
        assert toast.severity == ("warning" if set_clipboard == "external" else "information")


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (200, 50)])
async def test_a_tuned_knob_stays_on_its_line(manager: MemoryManager, make_app, size) -> None:
    """At 120 columns the profile's row wrapped its configured value, '(memtui)', onto a line of its own."""
    app = make_app(manager)
    async with app.run_test(size=size) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("t")
        await settle(app, pilot)
        panel = app.tuning_panel
        assert panel is not None and panel.field == "profile"
        await pilot.press("right", "down", "right", "right")
        await settle(app, pilot)
        lines = screen_lines(app.screen)
        rows = [line[panel.region.x + 1:panel.region.right - 1].strip() for line in lines[panel.region.y + 1:]]
        assert rows[0].split() == ["profile", "openclaw", "(memtui)"]
        assert rows[1].split()[0] == "vectorWeight" and rows[1].endswith(")")


async def test_the_trace_behind_a_dialog_takes_the_new_width(manager: MemoryManager, make_app, monkeypatch) -> None:
    """Resized from 200x50 to 80x24 with a dialog open, the trace behind it kept the wide layout (the whole chunk
    beside the numbers): the app draws the trace after the top screen's refresh, the dialog's, which can come before
    the pane has its new width. The trace now draws itself again when its width changes the layout."""
    app = make_app(manager)
    async with app.run_test(size=(200, 50)) as pilot:
        await search(app, pilot, "Dana Okafor billing")
        trace = app.query_one("#trace")
        hit = app.highlighted_hit()
        assert hit is not None and hit.end_line - hit.start_line > 4 and trace.has_class("-wide")
        await pilot.press("i")
        await settle(app, pilot)
        monkeypatch.setattr(type(app), "_draw_trace", lambda self: None)  # the app's redraw comes too late
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        assert isinstance(app.screen, TextModal) and not trace.has_class("-wide")
        lines = screen_lines(app.screen_stack[0])
        assert any("more line(s): Enter on the hit opens the file" in line for line in lines)

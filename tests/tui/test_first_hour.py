"""What a user meets in the first hour (issue 28, items 5 and 6): the palette of each screen, the footer's hot keys,
the help, the editor's undo, the why-not location, resetting the tuning from any pane, the file counts, the bootstrap
rows, the clipboard toast, the tuning rows, and the background of a dialog after a resize."""

from __future__ import annotations

from pilot import settle
from textual.command import CommandList, CommandPalette

from memtui.manager import MemoryManager
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

"""Nothing typed vanishes (issue 28, item 3): outside the text boxes letters are commands, as in k9s or lazygit;
`/` goes back to the search box, a letter that is no command where the focus is starts a new query there, and
letters typed right after a key that opens a one-line dialog land in its box. The footer and the help say so."""

from __future__ import annotations

from pilot import search, settle
from textual.widgets import Input

from memtui.manager import MemoryManager
from memtui.tui.screens import PromptModal
from memtui.tui.screens.help import help_intro
from memtui.tui.screens.modals import PromptInput

SIZE = (120, 36)


async def test_a_letter_that_is_no_command_in_the_results_is_typed_into_the_box(manager: MemoryManager,
                                                                                make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        assert app.results.has_focus
        await pilot.press(*"upgrade")  # u is no command there (p and g are)
        await settle(app, pilot)
        assert isinstance(app.focused, Input) and app.focused.id == "query"
        assert app.query_input.value == "upgrade"  # a new query, as / and the same keys would start


async def test_letters_that_are_commands_still_act_and_the_footer_and_help_say_so(manager: MemoryManager,
                                                                                 make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        footer = {b.binding.description for b in app.active_bindings.values() if b.binding.show}
        assert {"open", "why", "promote", "search"} <= footer
        await pilot.press("o")  # a command: opens the hit
        await settle(app, pilot)
        assert app.viewer_focused() and app.query_input.value == "redis"
    assert "letter that is no command where the focus is starts a new query there" in help_intro("main")


async def test_a_letter_in_the_viewer_or_the_trace_goes_to_the_box(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("enter")  # open the hit, raw and read-only
        await settle(app, pilot)
        assert app.viewer_focused()
        await pilot.press(*"uk")  # u is no command in the viewer
        await settle(app, pilot)
        assert app.query_input.value == "uk" and app.query_input.has_focus


async def test_letters_typed_right_after_n_land_in_the_note_box(manager: MemoryManager, make_app) -> None:
    app = make_app(manager)
    async with app.run_test(size=SIZE) as pilot:
        await search(app, pilot, "redis")
        await pilot.press("n", *"sumer lag")  # at once, before the dialog's box took the focus
        await settle(app, pilot)
        assert isinstance(app.screen, PromptModal)
        assert app.screen.query_one(PromptInput).value == "sumer lag"

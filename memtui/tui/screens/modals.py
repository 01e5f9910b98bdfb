"""Small modal dialogs, sized to the screen, each with a footer of its own keys: scrollable text (copy with c),
errors, a choice prompt, a one-line prompt."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from memtui.tui.widgets.ordered_keys import KeysInOrder
from memtui.tui.widgets.scroll import scroll_now

# A dialog's box takes at most 90 % of the rows above the footer (app.tcss); around its scrolling body sit the
# border (2), the title and its margin (2), the buttons and the hint, each with a margin (4).
BOX_SHARE, FOOTER_ROWS, AROUND_BODY = 0.9, 1, 8


class SizedModal(ModalScreen[str | None]):
    """A dialog whose scrolling body shrinks with the terminal so its title, buttons and hint stay visible."""

    def on_resize(self, event: events.Resize) -> None:
        """Cap the body at what the screen has left."""
        for scroll in self.query("#modal-scroll"):
            scroll.styles.max_height = max(3, int(BOX_SHARE * (event.size.height - FOOTER_ROWS)) - AROUND_BODY)


class TextModal(SizedModal):
    """Scrollable text; `c` copies it, any other key closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "copy"),
        Binding("escape", "close", "close"),
        Binding("j,down", "scroll(1)", "scroll", show=False, priority=True),
        Binding("k,up", "scroll(-1)", "scroll", show=False, priority=True),
        Binding("pagedown,space", "page(1)", "page", show=False, priority=True),
        Binding("pageup", "page(-1)", "page", show=False, priority=True),
    ]

    def __init__(self, title: str, body: str | Text | Group, *, copy_text: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.copy_text = copy_text if copy_text is not None else str(body)  # a Group comes with its copy text

    def compose(self) -> ComposeResult:
        """Title, body, hint, footer."""
        with Vertical(id="modal-box"):
            yield Label(Text(self.title_text), id="modal-title")
            with VerticalScroll(id="modal-scroll"):
                yield Static(Text(self.body) if isinstance(self.body, str) else self.body, id="modal-body")
            yield Label("c copy · ↑↓ scroll · any other key closes", id="modal-hint")
        yield Footer()

    def on_key(self, event: events.Key) -> None:
        """Keys without a binding here close the dialog (and do nothing underneath)."""
        if event.key not in {key for key, _binding in self._bindings}:
            event.stop()
            self.dismiss(None)

    def action_copy(self) -> None:
        """Copy the text."""
        self.app.copy_text(self.copy_text, self.title_text)  # type: ignore[attr-defined]

    def action_close(self) -> None:
        """Close."""
        self.dismiss(None)

    def action_scroll(self, lines: int) -> None:
        """Scroll the body by `lines` at once (every key of a burst counts)."""
        scroll_now(self.query_one("#modal-scroll", VerticalScroll), lines)

    def action_page(self, pages: int) -> None:
        """Scroll the body by `pages` screens."""
        scroll = self.query_one("#modal-scroll", VerticalScroll)
        scroll_now(scroll, pages * max(1, scroll.scrollable_content_region.height - 1))


class ErrorModal(TextModal):
    """A readable, copyable error."""

    DEFAULT_CLASSES = "-error"


class ChoiceModal(SizedModal):
    """A question with buttons; dismisses with the chosen button's id (escape → "cancel")."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "choose('cancel')", "cancel")]

    def __init__(self, title: str, message: str | Text, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.choices = choices

    def compose(self) -> ComposeResult:
        """Title, message, buttons, hint, footer."""
        with Vertical(id="modal-box"):
            yield Label(Text(self.title_text), id="modal-title")
            with VerticalScroll(id="modal-scroll"):
                yield Static(self.message if isinstance(self.message, Text) else Text(self.message),
                             id="modal-body")
            with Horizontal(id="modal-buttons"):
                for choice_id, label in self.choices:
                    yield Button(label, id=f"choice-{choice_id}", compact=True)
            yield Label(" · ".join([*(f"{label[:1].lower()} {label}" for _, label in self.choices), "esc cancel"]),
                        id="modal-hint")
        yield Footer()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss((event.button.id or "choice-cancel").removeprefix("choice-"))

    def action_choose(self, choice: str) -> None:
        """Dismiss with `choice`."""
        self.dismiss(choice)

    def on_key(self, event: events.Key) -> None:
        """A button's first letter chooses it."""
        for choice_id, label in self.choices:
            if event.character and event.character.lower() == label[:1].lower():
                event.stop()
                self.dismiss(choice_id)
                return


class PromptInput(KeysInOrder, Input):
    """The dialog's one-line box."""

    def type_character(self, character: str) -> None:
        """Type `character` as a key would: over the selected text (a remembered value is selected)."""
        start, end = sorted(self.selection)
        self.replace(character, start, end)


class PromptModal(ModalScreen[str | None]):
    """Asks for one line of text; Enter submits, Escape cancels (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, title: str, placeholder: str = "", value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = value

    def compose(self) -> ComposeResult:
        """Title, input, hint, footer."""
        with Vertical(id="modal-box"):
            yield Label(Text(self.title_text), id="modal-title")
            yield PromptInput(self.value, placeholder=self.placeholder, id="prompt-input")
            yield Label("enter submits · escape cancels", id="modal-hint")
        yield Footer()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def on_key(self, event: events.Key) -> None:
        """Letters typed before the box has the focus (right after the key that opened the dialog) go into it."""
        box = self.query_one(PromptInput)
        if event.is_printable and event.character and not box.has_focus:
            event.stop()
            event.prevent_default()
            self.set_focus(box)  # at once: the keys typed after this one go to the box, in order
            box.call_later(box.type_character, event.character)

    def action_cancel(self) -> None:
        """Close without a value."""
        self.dismiss(None)

"""Small modal dialogs: scrollable text (copy with c), errors, a choice prompt, a one-line prompt."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class TextModal(ModalScreen[None]):
    """Scrollable text; `c` copies it, any other key closes."""

    def __init__(self, title: str, body: str | Text, *, copy_text: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.copy_text = copy_text if copy_text is not None else str(body)

    def compose(self) -> ComposeResult:
        """Title, body, hint."""
        with Vertical(id="modal-box"):
            yield Label(self.title_text, id="modal-title")
            with VerticalScroll(id="modal-scroll"):
                yield Static(self.body, id="modal-body")
            yield Label("c copy · any other key closes", id="modal-hint")

    def on_key(self, event: events.Key) -> None:
        """`c` copies; up/down/page keys scroll; anything else closes."""
        event.stop()
        if event.key == "c":
            self.app.copy_text(self.copy_text, self.title_text)  # type: ignore[attr-defined]
            return
        scroll = self.query_one("#modal-scroll", VerticalScroll)
        if event.key in ("down", "j"):
            scroll.scroll_down(animate=False)
        elif event.key in ("up", "k"):
            scroll.scroll_up(animate=False)
        elif event.key == "pagedown":
            scroll.scroll_page_down(animate=False)
        elif event.key == "pageup":
            scroll.scroll_page_up(animate=False)
        else:
            self.dismiss(None)


class ErrorModal(TextModal):
    """A readable, copyable error."""

    DEFAULT_CLASSES = "-error"


class ChoiceModal(ModalScreen[str]):
    """A question with buttons; dismisses with the chosen button's id (escape → "cancel")."""

    BINDINGS: ClassVar[list[BindingType]] = [("escape", "choose('cancel')", "Cancel")]

    def __init__(self, title: str, message: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.choices = choices

    def compose(self) -> ComposeResult:
        """Title, message, buttons."""
        with Vertical(id="modal-box"):
            yield Label(self.title_text, id="modal-title")
            yield Static(self.message, id="modal-body")
            with Horizontal(id="modal-buttons"):
                for choice_id, label in self.choices:
                    yield Button(label, id=f"choice-{choice_id}")
            yield Static("  ·  ".join(f"{label[:1].lower()} {label}" for _, label in self.choices) + "  ·  esc cancel",
                         id="modal-hint")

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


class PromptModal(ModalScreen[str | None]):
    """Asks for one line of text; Enter submits, Escape cancels (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [("escape", "cancel", "Cancel")]

    def __init__(self, title: str, placeholder: str = "", value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = value

    def compose(self) -> ComposeResult:
        """Title and input."""
        with Vertical(id="modal-box"):
            yield Label(self.title_text, id="modal-title")
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input")
            yield Label("enter submits · escape cancels", id="modal-hint")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        """Close without a value."""
        self.dismiss(None)

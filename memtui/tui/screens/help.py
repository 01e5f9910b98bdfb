"""The help screen: what memtui shows, and every key (after the user's remapping)."""

from __future__ import annotations

from importlib import resources

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Markdown


def keys_markdown(rows: list[tuple[str, str, str]]) -> str:
    """A Markdown table of (keys, binding id, description)."""
    lines = ["| keys | action | id |", "| --- | --- | --- |"]
    lines += [f"| `{keys}` | {description} | `{binding_id}` |" for keys, binding_id, description in rows]
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    """help.md plus the live key table; any key closes."""

    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        """The help text."""
        text = resources.files("memtui.tui").joinpath("help.md").read_text(encoding="utf-8")
        with VerticalScroll(id="help-box"):
            yield Markdown(text.replace("{{KEYS}}", keys_markdown(self.rows)), id="help-body")
            yield Label("escape or q closes · arrows scroll", id="modal-hint")

    def on_key(self, event: events.Key) -> None:
        """Escape/q close; other keys scroll."""
        if event.key in ("escape", "q", "f1", "question_mark"):
            event.stop()
            self.dismiss(None)

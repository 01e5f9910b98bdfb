"""The search box (typing searches live; Enter goes to the results, Esc leaves, ↑ / ↓ recall earlier queries) and
the line beside it that says how the search ran."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import BindingType
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from memtui.tui.actions import bindings_for
from memtui.tui.widgets.in_place import update_fitting
from memtui.tui.widgets.ordered_keys import KeysInOrder

INFO_SHARE = 0.45  # of the search row, at most (#search-info's max-width)


class SearchInput(KeysInOrder, Input):
    """The query box (its printable keys always type)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("search")

    class TypingEnded(Message):
        """The box lost the focus: the panes that kept their size while the user typed may fit their content."""

    def on_blur(self) -> None:
        """Say that typing ended."""
        self.post_message(self.TypingEnded())

    def _watch_value(self, value: str) -> None:
        # Input's own watcher grows the box's scrollable width with its text, which lays the whole screen out
        # again on every key; the box's size is its CSS's, so only the scroll range is set here, without a layout.
        self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)


class SearchInfo(Static):
    """Mode, candidates and thresholds of the last search, right-aligned beside the box."""

    def show(self, info: Text | str, *, typing: bool = False) -> None:
        """Show `info`; the screen is laid out again only when its width changes (`typing`: only when it grows,
        so the counts changing under each key do not lay the screen out again)."""
        row = self.parent.content_size.width if isinstance(self.parent, Widget) else self.app.size.width
        update_fitting(self, info, int(row * INFO_SHARE) - self.styles.gutter.width - 1, shrink=not typing)

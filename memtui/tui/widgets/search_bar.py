"""The search box: typing searches live; Enter goes to the results, Esc leaves, ↑ / ↓ recall earlier queries."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import BindingType
from textual.widgets import Input

from memtui.tui.actions import bindings_for
from memtui.tui.widgets.ordered_keys import KeysInOrder


class SearchInput(KeysInOrder, Input):
    """The query box (its printable keys always type)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("search")

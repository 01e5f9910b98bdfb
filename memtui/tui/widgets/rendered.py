"""The viewer's rendered Markdown view, in its own module: Textual's Markdown widget (markdown-it, Pygments) is
imported when the first file is shown rendered, not at start-up."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Markdown


class FocusableMarkdown(Markdown, can_focus=True):
    """The rendered view, focusable so its pane's keys work (arrows and j/k scroll)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "scroll_down", "Down", show=False),
        Binding("k,up", "scroll_up", "Up", show=False),
        Binding("g,home", "scroll_home", "Top", show=False),
        Binding("G,end", "scroll_end", "Bottom", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
    ]

"""Scrolling a pane by keys at once, so a burst of keys (or one held down) moves it by every key."""

from __future__ import annotations

from textual.widget import Widget


def scroll_now(widget: Widget, lines: int) -> None:
    """Scroll `widget` by `lines` now. Textual's scroll_down / scroll_up move to the target of the last scroll plus
    one only after the next refresh, so keys arriving before that refresh count once."""
    widget.scroll_to(y=widget.scroll_target_y + lines, animate=False, immediate=True)

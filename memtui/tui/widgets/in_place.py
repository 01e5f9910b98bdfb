"""Updating a widget without laying the screen out again: a layout reflows every widget and repaints every scroll
bar (the file tree's spans the screen's height, so the whole screen is drawn again), which made a keystroke cost
more than its search."""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


def update_in_place(static: Static, content: VisualType) -> None:
    """Show `content` in `static`; lay the screen out again only when its height changes (its width is the
    layout's)."""
    height = static.content_size.height
    static.update(content, layout=False)
    width = static.content_size.width
    if not static.is_mounted or not width or \
            static.get_content_height(static.size, static.app.size, width) != height:
        static.refresh(layout=True)


def update_fitting(static: Static, content: VisualType, room: int) -> None:
    """Show `content` in `static`, a one-line widget as wide as its content up to about `room` cells (padding
    not counted): lay the screen out again only when that width changes."""
    width = static.size.width
    static.update(content, layout=False)
    needed = min(room, static.get_content_width(static.size, static.app.size))
    if not static.is_mounted or (needed != width and min(width, needed) < room):
        static.refresh(layout=True)

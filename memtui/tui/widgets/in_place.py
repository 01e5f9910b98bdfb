"""Updating a widget without laying the screen out again: a layout reflows every widget and repaints every scroll
bar (the file tree's spans the screen's height, so the whole screen is drawn again), which made a keystroke cost
more than its search."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.visual import VisualType
from textual.widgets import Static


def update_in_place(static: Static, content: VisualType, *, keep_height: bool = False) -> None:
    """Show `content` in `static`; lay the screen out again only when its height changes (its width is the
    layout's). `keep_height`: shorter content is padded with blank lines to the height shown, so what is below
    does not move (nor the screen get laid out) while results change under the user's typing."""
    height = static.content_size.height
    static.update(content, layout=False)
    width = static.content_size.width
    if not static.is_mounted or not width:
        static.refresh(layout=True)
        return
    needed = static.get_content_height(static.size, static.app.size, width)
    if needed == height:
        return
    if keep_height and 0 < needed < height and not isinstance(content, str):
        static.update(Group(content, Text("\n" * (height - needed - 1))), layout=False)  # type: ignore[arg-type]
        return
    static.refresh(layout=True)


def update_fitting(static: Static, content: VisualType, room: int, *, shrink: bool = True) -> None:
    """Show `content` in `static`, a one-line widget as wide as its content up to about `room` cells (padding
    not counted): lay the screen out again only when that width changes (`shrink=False`: only when it grows)."""
    width = static.size.width
    static.update(content, layout=False)
    needed = min(room, static.get_content_width(static.size, static.app.size))
    if not static.is_mounted or (needed != width and min(width, needed) < room and (shrink or needed > width)):
        static.refresh(layout=True)

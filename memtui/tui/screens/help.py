"""The help screen: what the screen shows and its keys, read from the live bindings (after the user's keymap),
one line per key, grouped by pane; keys written as people write them."""

from __future__ import annotations

import re
from importlib import resources
from typing import ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from memtui.tui.actions import bound_keys
from memtui.tui.keys import keys_display
from memtui.tui.widgets.scroll import scroll_now

KeyRow = tuple[str, str, str, str]  # keys, label, help, binding id


def live_bindings(node: DOMNode, keymap: dict[str, str]) -> list[Binding]:
    """`node`'s own bindings with the keymap applied, one per action (its keys joined), in declaration order."""
    bindings: BindingsMap = node._bindings.copy()
    if keymap:
        bindings.apply_keymap(keymap)
    merged: dict[str, Binding] = {}
    for key, binding in bindings:
        seen = merged.get(binding.action)
        if seen is None:
            merged[binding.action] = binding
        elif key not in seen.key.split(","):  # a keymap can bind two default keys to one new key
            merged[binding.action] = binding.with_key(f"{seen.key},{key}")
    return list(merged.values())


def key_rows(bindings: list[Binding]) -> list[KeyRow]:
    """(keys, label, help, id) of memtui's bindings and any shown in the footer (the widgets' built-in cursor
    keys, and system ones, left out)."""
    return [(keys_display(b.key), b.description, b.tooltip if b.tooltip != b.description else "", b.id or "")
            for b in bindings if b.description and not b.system and (b.id or b.show)]


def keys_table(rows: list[KeyRow]) -> Table:
    """Keys, label, help (wrapped, so narrow terminals show all of it), id."""
    table = Table.grid(padding=(0, 2), expand=True)
    table.add_column(style="bold", no_wrap=True, min_width=8, max_width=14, overflow="ellipsis")
    table.add_column(no_wrap=True, min_width=10, max_width=14, overflow="ellipsis")
    table.add_column(style="dim", ratio=1, overflow="fold")
    table.add_column(style="dim italic", no_wrap=True)
    for keys, label, text, binding_id in rows:
        table.add_row(Text(keys), Text(label), Text(text), Text(binding_id))
    return table


class HelpScreen(ModalScreen[None]):
    """A screen's intro and its keys, grouped; escape, q or the help key closes, ↑/↓ (j/k), PgUp/PgDn scroll."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "close"),
        Binding("j,down", "scroll(1)", "scroll", show=False, priority=True),
        Binding("k,up", "scroll(-1)", "scroll", show=False, priority=True),
        Binding("pagedown,space", "page(1)", "page", show=False, priority=True),
        Binding("pageup", "page(-1)", "page", show=False, priority=True),
        Binding("home", "scroll(-1_000_000)", "top", show=False, priority=True),
        Binding("end", "scroll(1_000_000)", "end", show=False, priority=True),
    ]

    def __init__(self, title: str, groups: list[tuple[str, list[KeyRow]]], *, intro: str = "",
                 close_keys: list[str] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.groups = groups
        self.intro = intro
        self.close_keys = close_keys or ["question_mark", "f1"]

    @property
    def rows(self) -> list[KeyRow]:
        """Every key row shown, all groups."""
        return [row for _name, rows in self.groups for row in rows]

    def compose(self) -> ComposeResult:
        """Title, then the intro and one table per group (scrolling), then how to scroll and close."""
        with Vertical(id="help-box"):
            yield Static(Text(self.title_text, style="bold"), id="modal-title")
            with VerticalScroll(id="help-scroll"):
                if self.intro:
                    yield Static(intro_markdown(self.intro), id="help-body")
                for name, rows in self.groups:
                    yield Static(Text(name, style="bold underline"), classes="help-group")
                    yield Static(keys_table(rows), classes="help-keys")
            close = " ".join(["Esc", "q", *(keys_display(key) for key in self.close_keys)])
            yield Static(Text(f"↑↓ PgUp PgDn scroll · {close} close"), id="modal-hint")
        yield Footer()

    def on_key(self, event: events.Key) -> None:
        """The help key closes as well (whatever it was remapped to)."""
        if event.key in self.close_keys:
            event.stop()
            self.dismiss(None)

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)

    def action_scroll(self, lines: int) -> None:
        """Scroll the help by `lines` at once (keys typed in a burst, or held down, each move it)."""
        scroll_now(self.query_one("#help-scroll", VerticalScroll), lines)

    def action_page(self, pages: int) -> None:
        """Scroll the help by `pages` screens."""
        box = self.query_one("#help-scroll", VerticalScroll)
        scroll_now(box, pages * max(1, box.scrollable_content_region.height - 1))


def intro_markdown(text: str) -> RenderableType:
    """The intro as one Rich Markdown renderable: one widget to lay out, where Textual's Markdown widget made one
    per block (most of the help's 0.2 s to open)."""
    from rich.markdown import Markdown  # markdown-it loads with the first help screen

    return Markdown(text, inline_code_theme="ansi_dark")


def help_intro(name: str, keymap: dict[str, str] | None = None) -> str:
    """The Markdown intro of a screen's help (`help-<name>.md` in the package), each `[[action.id]]` written as
    the keys the action is bound to after the user's keymap."""
    path = resources.files("memtui.tui").joinpath(f"help-{name}.md")
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    return re.sub(r"\[\[([a-z_.]+)\]\]", lambda match: keys_display(bound_keys(match[1], keymap or {})), text)

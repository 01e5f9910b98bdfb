"""Table columns that fit the terminal's width without cutting a value: full labels and keys when they fit, then
shortened keys, then short labels, then columns dropped in a given order (a detail pane shows every value); and a
table that says when its width changed, so its screen chooses them again."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from textual import events
from textual.message import Message
from textual.widgets import DataTable

CELL_PADDING = 1  # DataTable's default cell padding, each side


@dataclass(frozen=True)
class Column:
    """One table column: its key, its long and short label, its cell (row, short keys) and whether it is a
    number (right-aligned)."""

    key: str
    label: str
    short: str
    cell: Callable[[Any, bool], str]
    numeric: bool = True


@dataclass(frozen=True)
class Layout:
    """The columns chosen for a width: which, with which labels, and whether keys are shortened."""

    columns: list[Column]
    short_labels: bool
    short_keys: bool
    width: int

    def label(self, column: Column) -> str:
        """The column's label in this layout."""
        return column.short if self.short_labels else column.label


def layout_width(columns: Sequence[Column], rows: Sequence[Any], short_labels: bool, short_keys: bool) -> int:
    """The cells a row of `columns` takes: each column as wide as its label or its widest cell, plus padding."""
    total = 0
    for column in columns:
        label = column.short if short_labels else column.label
        total += max([len(label), *(len(column.cell(row, short_keys)) for row in rows)]) + 2 * CELL_PADDING
    return total


def column_widths(layout: Layout, rows: Sequence[Any]) -> list[int]:
    """Each column's width in `layout`: its label's or its widest cell's. A table cleared and filled again (a
    resize) is given these, not left to measure them: it kept the old measured widths at times, cutting cells."""
    return [max([len(layout.label(column)), *(len(column.cell(row, layout.short_keys)) for row in rows)])
            for column in layout.columns]


def fit_layout(columns: Sequence[Column], rows: Sequence[Any], width: int, drop_order: Sequence[str]) -> Layout:
    """The widest layout whose rows fit `width` cells: long labels and full keys, then short keys, then short
    labels, then columns dropped in `drop_order` (the narrowest layout when nothing fits)."""
    every = list(columns)
    for short_keys, short_labels in ((False, False), (True, False), (True, True)):
        used = layout_width(every, rows, short_labels, short_keys)
        if used <= width:
            return Layout(every, short_labels, short_keys, used)
    chosen = every
    used = layout_width(chosen, rows, True, True)
    for key in drop_order:
        chosen = [c for c in chosen if c.key != key]
        used = layout_width(chosen, rows, True, True)
        if used <= width:
            break
    return Layout(chosen, True, True, used)


class FittedTable(DataTable[Any]):
    """A DataTable that posts `Resized` when its size changes, once it has it: its screen fits the columns to it
    then. (A screen's resize handler runs before its widgets have their new size, and a callback after the refresh
    runs after the top screen's, a dialog's when one is open, which can come before this table is laid out.)"""

    class Resized(Message):
        """The table's size changed; `table.size` is the new one."""

    def on_resize(self, _event: events.Resize) -> None:
        """Say that the size changed."""
        self.post_message(self.Resized())

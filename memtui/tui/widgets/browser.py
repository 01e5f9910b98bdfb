"""The memory browser: MEMORY.md and DREAMS.md, daily logs by year and month (today and yesterday marked),
other notes, extra paths and session transcripts. Groups fill in when first opened, so a workspace of 10,000
daily logs costs a few dozen nodes; file events add or remove single nodes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.widgets import Input, Tree
from textual.widgets.tree import TreeNode

from memtui.tui.actions import bindings_for
from memtui.tui.browser_model import MONTHS, SECTIONS, TRANSCRIPTS, WEEKDAYS, BrowserEntry, Listing
from memtui.tui.widgets.ordered_keys import KeysInOrder

FILTER_CAP = 500
OPEN_AT_START = 20  # the newest months open until this many daily logs show


@dataclass(frozen=True)
class Group:
    """A folder-like node: ("year", y), ("month", y, m) or (section,)."""

    key: tuple[object, ...]


Node = TreeNode[BrowserEntry | Group]


def _count_label(name: str, count: int) -> str:
    return f"{name} ({count:,})"


class MemoryBrowser(Tree[BrowserEntry | Group]):
    """A tree of the agent's memory files."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
        Binding("escape", "app.clear_file_filter", "clear filter", show=False),
        *bindings_for("files"),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__("memory", **kwargs)  # type: ignore[arg-type]
        self.show_root = False
        self.guide_depth = 2
        self.filter_text = ""
        self.shown = 0
        self.listing = Listing()
        self.today = date.today()
        self.listed = False
        self._leaves: dict[str, Node] = {}
        self._group_nodes: dict[tuple[object, ...], Node] = {}
        self._filled: set[tuple[object, ...]] = set()

    def render_label(self, node: Node, base_style: Style, style: Style) -> Text:
        """The label, cut with an ellipsis to the width the tree has."""
        text = super().render_label(node, base_style, style)
        depth = 0
        parent = node.parent
        while parent is not None and parent is not self.root:
            depth += 1
            parent = parent.parent
        room = self.scrollable_content_region.width - depth * self.guide_depth - 1
        if room > 3 and text.cell_len > room:
            text.truncate(room - 1)
            text.append("…")
        return text

    # -- listing ------------------------------------------------------------------------------

    def show_listing(self, listing: Listing, today: date,
                     changes: tuple[list[BrowserEntry], list[str]] | None = None) -> None:
        """Show a fresh listing: the first one whole, a later one (re-read from disk) as differences (`changes`
        when a worker computed them)."""
        self.today = today
        if self.listed:
            self.apply(*(changes if changes is not None else self.listing.diff(listing.entries.values())))
            return
        self.listed = True
        self.listing = listing
        self._rebuild()

    def set_filter(self, text: str) -> None:
        """List only files whose path contains `text` (case-insensitive); "" lists every file."""
        self.filter_text = text.strip().lower()
        self._rebuild()

    def _rebuild(self) -> None:
        selected = self.cursor_node.data if self.cursor_node is not None else None
        self.clear()
        self._leaves.clear()
        self._group_nodes.clear()
        self._filled.clear()
        if self.filter_text:
            self._show_matches()
        else:
            self._show_groups()
        if isinstance(selected, BrowserEntry):
            node = self.find(selected.rel)
            if node is not None:
                self.move_cursor(node)

    def _show_matches(self) -> None:
        matches = self.listing.matching(self.filter_text)
        for entry in matches[:FILTER_CAP]:
            label = entry.label(self.today)
            if entry.day is not None:
                label = f"{entry.day.isoformat()[:7]}-{label}"
            self._leaves[entry.rel] = self.root.add_leaf(label, entry)
        if len(matches) > FILTER_CAP:
            self.root.add_leaf(Text(f"… {len(matches) - FILTER_CAP:,} more: type more of the name", style="dim"))
        self.shown = len(matches)

    def _show_groups(self) -> None:
        for entry in self.listing.in_group(("",)):
            self._leaves[entry.rel] = self.root.add_leaf(entry.label(self.today), entry)
        for year, count in self.listing.years().items():
            self._add_group(self.root, ("year", year), _count_label(str(year), count))
        for section in SECTIONS:
            count = len(self.listing.in_group((section,)))
            if count:
                self._add_group(self.root, (section,), _count_label(section, count))
        self.shown = len(self.listing.entries)
        self._open_newest()

    def _add_group(self, parent: Node, key: tuple[object, ...], label: str, before: int | None = None) -> Node:
        node = parent.add(label, Group(key), before=before)
        self._group_nodes[key] = node
        return node

    def _open_newest(self) -> None:
        shown = 0
        for year in self.listing.years():
            self._group_nodes[("year", year)].expand()
            self._load(("year", year))
            for month, count in self.listing.months(year).items():
                self._group_nodes[("month", year, month)].expand()
                self._load(("month", year, month))
                shown += count
                if shown >= OPEN_AT_START:
                    return

    def _load(self, key: tuple[object, ...]) -> None:
        """Fill a group the first time it opens."""
        if key in self._filled or key not in self._group_nodes:
            return
        self._filled.add(key)
        node = self._group_nodes[key]
        if key[0] == "year":
            year = int(key[1])  # type: ignore[call-overload]
            for month, count in self.listing.months(year).items():
                self._add_group(node, ("month", year, month), _count_label(MONTHS[month - 1], count))
            return
        for entry in self.listing.in_group(key):
            self._leaves[entry.rel] = node.add_leaf(entry.label(self.today), entry)

    @on(Tree.NodeExpanded)
    def _expanded(self, event: Tree.NodeExpanded[BrowserEntry | Group]) -> None:
        if isinstance(event.node.data, Group):
            self._load(event.node.data.key)

    # -- incremental changes ------------------------------------------------------------------

    def apply(self, added: list[BrowserEntry], removed: list[str]) -> None:
        """Add, replace or remove single entries (from file events) without rebuilding the tree; a file written
        again (the same entry) leaves the tree as it is."""
        added = [entry for entry in added if self.listing.entries.get(entry.rel) != entry]
        removed = [rel for rel in removed if rel in self.listing.entries]
        if not added and not removed:
            return
        self.listing.apply(added, removed)
        if self.filter_text:
            self._rebuild()
            return
        for rel in removed:
            self._remove(rel)
        for entry in added:
            self._remove(entry.rel)
            self._add(entry)
        self._recount()
        self.shown = len(self.listing.entries)

    def _remove(self, rel: str) -> None:
        node = self._leaves.pop(rel, None)
        if node is None:
            return
        parent = node.parent
        node.remove()
        while parent is not None and parent is not self.root and not parent.children:
            group = parent.data
            grandparent = parent.parent
            if isinstance(group, Group):
                self._group_nodes.pop(group.key, None)
                self._filled.discard(group.key)
            parent.remove()
            parent = grandparent

    def _add(self, entry: BrowserEntry) -> None:
        parent = self.root
        if entry.day is not None:
            year_key = ("year", entry.day.year)
            parent = self._group_nodes.get(year_key) or self._add_group(
                self.root, year_key, "", before=self._position(self.root, ("year", entry.day.year)))
            if year_key not in self._filled:
                return
            month_key = ("month", entry.day.year, entry.day.month)
            parent = self._group_nodes.get(month_key) or self._add_group(
                parent, month_key, "", before=self._position(parent, month_key))
            if month_key not in self._filled:
                return
        elif entry.section:
            key = (entry.section,)
            parent = self._group_nodes.get(key) or self._add_group(
                self.root, key, "", before=self._position(self.root, key))
            if key not in self._filled:
                return
        self._leaves[entry.rel] = parent.add_leaf(entry.label(self.today), entry,
                                                 before=self._position(parent, entry))

    def _position(self, parent: Node, item: BrowserEntry | tuple[object, ...]) -> int | None:
        """Where `item` goes among `parent`'s children (None: at the end)."""
        order = _order(item)
        for index, child in enumerate(parent.children):
            data = child.data
            if data is not None and _order(data if isinstance(data, BrowserEntry) else data.key) > order:
                return index
        return None

    def _recount(self) -> None:
        """Refresh the count labels that changed (the listing keeps its counts current)."""
        counts = self.listing.group_counts()
        for key, node in self._group_nodes.items():
            name = str(key[1]) if key[0] == "year" else MONTHS[int(key[2]) - 1] if key[0] == "month" else \
                str(key[0])  # type: ignore[call-overload]
            label = _count_label(name, counts.get(key, 0))
            if node.label.plain != label:
                node.set_label(label)

    # -- lookups ------------------------------------------------------------------------------

    def find(self, rel: str) -> Node | None:
        """The node of a workspace-relative path, opening its year and month when needed."""
        entry = self.listing.entries.get(rel)
        if entry is None:
            return None
        if rel not in self._leaves and not self.filter_text:
            keys: list[tuple[object, ...]] = []
            if entry.day is not None:
                keys = [("year", entry.day.year), ("month", entry.day.year, entry.day.month)]
            elif entry.section:
                keys = [(entry.section,)]
            for key in keys:
                if key in self._group_nodes:
                    self._group_nodes[key].expand()
                    self._load(key)
        return self._leaves.get(rel)

    def entries(self) -> list[BrowserEntry]:
        """Every listed (loaded) file, top to bottom."""
        found: list[BrowserEntry] = []
        stack = list(self.root.children)
        while stack:
            node = stack.pop(0)
            if isinstance(node.data, BrowserEntry):
                found.append(node.data)
            stack[0:0] = list(node.children)
        return found


def _order(item: BrowserEntry | tuple[object, ...]) -> tuple[object, ...]:
    """Sort order of the tree's rows: top files, years (newest first), sections; leaves newest first."""
    if isinstance(item, BrowserEntry):
        return (0, *item.sort_key()) if item.section == "" else (1, *item.sort_key())
    if item[0] == "year":
        return (1, -int(item[1]))  # type: ignore[call-overload]
    if item[0] == "month":
        return (1, -int(item[2]))  # type: ignore[call-overload]
    return (2, SECTIONS.index(str(item[0])))


class FilterInput(KeysInOrder, Input):
    """The browser's filter box: escape clears it and returns to the full list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.clear_file_filter", "clear filter"),
    ]


__all__ = ["TRANSCRIPTS", "WEEKDAYS", "BrowserEntry", "FilterInput", "Group", "MemoryBrowser"]

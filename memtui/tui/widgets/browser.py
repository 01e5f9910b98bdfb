"""The memory browser: MEMORY.md, daily logs by date (today/yesterday marked), slug files, DREAMS.md,
extra paths and session transcripts, optionally narrowed by a filter text."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input, Tree
from textual.widgets.tree import TreeNode

from memtui.index.workspace import daily_date, list_memory_files

TRANSCRIPTS = "Session transcripts"


@dataclass(frozen=True)
class BrowserEntry:
    """A file the browser can open: `rel` is workspace-relative (or the transcript's name)."""

    kind: str
    rel: str
    abs_path: Path


class MemoryBrowser(Tree[BrowserEntry]):
    """A tree of the agent's memory files."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
        Binding("escape", "app.clear_file_filter", "Clear filter", show=False),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__("memory", **kwargs)  # type: ignore[arg-type]
        self.show_root = False
        self.guide_depth = 2
        self.filter_text = ""
        self.shown = 0
        self._listing: list[tuple[str, str, BrowserEntry]] = []  # (group, label, entry); group "" = top level

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape clears the filter only while one is set (else it means what it means elsewhere)."""
        if action == "app.clear_file_filter":
            return bool(self.filter_text)
        return True

    def set_filter(self, text: str) -> None:
        """List only files whose label or path contains `text` (case-insensitive); "" lists every file."""
        self.filter_text = text.strip().lower()
        self._render()

    def populate(self, workspace_dir: Path, extra_paths: tuple[str, ...], sessions_dir: Path | None,
                 today: date) -> None:
        """Re-list the files from disk and show them through the filter, keeping the cursor on the same
        file when it is still listed."""
        files = list_memory_files(workspace_dir, extra_paths) if workspace_dir.is_dir() else []
        listing: list[tuple[str, str, BrowserEntry]] = []
        memory_root = next((f for f in files if f.rel_path == "MEMORY.md"), None)
        if memory_root is not None:
            listing.append(("", "MEMORY.md", BrowserEntry("memory", "MEMORY.md", memory_root.abs_path)))
        dated = sorted(((day, f) for f in files if f.rel_path.startswith("memory/")
                        and (day := daily_date(f.rel_path)) is not None),
                       key=lambda item: (item[0], item[1].rel_path), reverse=True)
        listing += [("Daily logs", _daily_label(day, f.rel_path, today), BrowserEntry("daily", f.rel_path, f.abs_path))
                    for day, f in dated]
        listing += [("Other notes", f.rel_path.removeprefix("memory/"), BrowserEntry("note", f.rel_path, f.abs_path))
                    for f in files if f.rel_path.startswith("memory/") and daily_date(f.rel_path) is None]
        for name in ("DREAMS.md", "dreams.md"):
            dreams = workspace_dir / name
            if dreams.is_file() and not dreams.is_symlink():
                listing.append(("", name, BrowserEntry("dreams", name, dreams)))
                break
        listing += [("Extra paths", f.rel_path, BrowserEntry("extra", f.rel_path, f.abs_path))
                    for f in files if f.rel_path != "MEMORY.md" and not f.rel_path.startswith("memory/")]
        transcripts = sorted(sessions_dir.glob("*.jsonl")) if sessions_dir and sessions_dir.is_dir() else []
        listing += [(TRANSCRIPTS, path.name, BrowserEntry("transcript", f"sessions/{path.name}", path))
                    for path in transcripts]
        self._listing = listing
        self._render()

    def _render(self) -> None:
        """Rebuild the tree from the last listing: top-level files and one node per group, in listing order."""
        selected = self.cursor_node.data if self.cursor_node is not None else None
        self.clear()
        shown = [item for item in self._listing if not self.filter_text or self.filter_text in item[1].lower()
                 or self.filter_text in item[2].rel.lower()]
        counts = Counter(group for group, _label, _entry in shown)
        groups: dict[str, TreeNode[BrowserEntry]] = {}
        for group, label, entry in shown:
            if not group:
                self.root.add_leaf(label, entry)
                continue
            if group not in groups:
                expand = group != TRANSCRIPTS or bool(self.filter_text)
                groups[group] = self.root.add(f"{group} ({counts[group]})", expand=expand)
            groups[group].add_leaf(label, entry)
        self.shown = len(shown)
        self._restore(selected)

    def _restore(self, selected: BrowserEntry | None) -> None:
        if selected is None:
            return
        node = self.find(selected.rel)
        if node is not None:
            self.move_cursor(node)

    def find(self, rel: str) -> TreeNode[BrowserEntry] | None:
        """The node of a workspace-relative path, if listed."""
        stack = list(self.root.children)
        while stack:
            node = stack.pop(0)
            if node.data is not None and node.data.rel == rel:
                return node
            stack.extend(node.children)
        return None

    def entries(self) -> list[BrowserEntry]:
        """Every listed file, top to bottom."""
        found: list[BrowserEntry] = []
        stack = list(self.root.children)
        while stack:
            node = stack.pop(0)
            if node.data is not None:
                found.append(node.data)
            stack[0:0] = list(node.children)
        return found


def _daily_label(day: date, rel: str, today: date) -> str:
    """`2026-10-03` or `2026-10-03 · slug`, with (today)/(yesterday) marks."""
    name = rel.rsplit("/", 1)[-1].removesuffix(".md")
    label = day.isoformat() if name == day.isoformat() else f"{day.isoformat()} · {name[11:]}"
    if day == today:
        label += " (today)"
    elif day == today - timedelta(days=1):
        label += " (yesterday)"
    return label


class FilterInput(Input):
    """The browser's filter box: escape clears it and returns to the full list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.clear_file_filter", "Clear filter", show=False),
    ]

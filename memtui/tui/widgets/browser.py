"""The memory browser: MEMORY.md, daily logs by date (today/yesterday marked), slug files, DREAMS.md,
extra paths and session transcripts, optionally narrowed by a filter text."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input, Tree
from textual.widgets.tree import TreeNode

from memtui.workspace import daily_date, list_memory_files


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
        self._listing: tuple[Path, tuple[str, ...], Path | None, date] | None = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape clears the filter only while one is set (else it means what it means elsewhere)."""
        if action == "app.clear_file_filter":
            return bool(self.filter_text)
        return True

    def set_filter(self, text: str) -> None:
        """List only files whose label or path contains `text` (case-insensitive); "" lists every file."""
        self.filter_text = text.strip().lower()
        if self._listing is not None:
            self.populate(*self._listing)

    def _keep(self, label: str, rel: str) -> bool:
        return not self.filter_text or self.filter_text in label.lower() or self.filter_text in rel.lower()

    def populate(self, workspace_dir: Path, extra_paths: tuple[str, ...], sessions_dir: Path | None,
                 today: date) -> None:
        """Rebuild the tree from disk (through the filter), keeping the cursor on the same file when it is
        still listed."""
        self._listing = (workspace_dir, extra_paths, sessions_dir, today)
        selected = self.cursor_node.data if self.cursor_node is not None else None
        self.clear()
        every = list_memory_files(workspace_dir, extra_paths) if workspace_dir.is_dir() else []
        files = [f for f in every if self._keep(_daily_label(f.rel_path, today) or f.rel_path, f.rel_path)]
        memory_root = next((f for f in files if f.rel_path == "MEMORY.md"), None)
        if memory_root is not None:
            self.root.add_leaf("MEMORY.md", BrowserEntry("memory", "MEMORY.md", memory_root.abs_path))
        dated = sorted(((daily_date(f.rel_path), f) for f in files if f.rel_path.startswith("memory/")
                        and daily_date(f.rel_path) is not None), key=lambda item: (item[0], item[1].rel_path),
                       reverse=True)
        if dated:
            logs = self.root.add(f"Daily logs ({len(dated)})", expand=True)
            for _day, memory_file in dated:
                logs.add_leaf(_daily_label(memory_file.rel_path, today) or memory_file.rel_path,
                              BrowserEntry("daily", memory_file.rel_path, memory_file.abs_path))
        other = [f for f in files if f.rel_path.startswith("memory/") and daily_date(f.rel_path) is None]
        if other:
            node = self.root.add(f"Other notes ({len(other)})", expand=True)
            for memory_file in other:
                node.add_leaf(memory_file.rel_path.removeprefix("memory/"),
                              BrowserEntry("note", memory_file.rel_path, memory_file.abs_path))
        for name in ("DREAMS.md", "dreams.md"):
            dreams = workspace_dir / name
            if dreams.is_file() and not dreams.is_symlink() and self._keep(name, name):
                self.root.add_leaf(name, BrowserEntry("dreams", name, dreams))
                break
        extra = [f for f in files if f.rel_path != "MEMORY.md" and not f.rel_path.startswith("memory/")]
        if extra:
            node = self.root.add(f"Extra paths ({len(extra)})", expand=True)
            for memory_file in extra:
                node.add_leaf(memory_file.rel_path, BrowserEntry("extra", memory_file.rel_path, memory_file.abs_path))
        transcripts = sorted(sessions_dir.glob("*.jsonl")) if sessions_dir and sessions_dir.is_dir() else []
        transcripts = [path for path in transcripts if self._keep(path.name, f"sessions/{path.name}")]
        if transcripts:
            node = self.root.add(f"Session transcripts ({len(transcripts)})", expand=bool(self.filter_text))
            for path in transcripts:
                node.add_leaf(path.name, BrowserEntry("transcript", f"sessions/{path.name}", path))
        self.shown = len(self.entries())
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


def _daily_label(rel: str, today: date) -> str | None:
    """`2026-10-03`, `2026-10-03 · slug`, with (today)/(yesterday) marks; None for an undated file."""
    day = daily_date(rel) if rel.startswith("memory/") else None
    if day is None:
        return None
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

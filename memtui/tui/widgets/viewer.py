"""The file viewer: rendered Markdown, or raw text with line numbers that turns into the editor."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import ContentSwitcher, Static, TextArea
from textual.widgets.text_area import Selection

from memtui.atomic import open_for_read, parts_below
from memtui.errors import MemtuiError
from memtui.tui.actions import bindings_for
from memtui.tui.widgets.ordered_keys import KeysInOrder

if TYPE_CHECKING:
    from memtui.tui.widgets.rendered import FocusableMarkdown

MAX_RENDERED_CHARS = 200_000


class MemoryTextArea(KeysInOrder, TextArea):
    """A TextArea with vim-style movement while it is read-only, and undo / redo in the footer while it edits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "vim('down')", "Down", show=False),
        Binding("k", "vim('up')", "Up", show=False),
        Binding("g", "vim('top')", "Top", show=False),
        Binding("G", "vim('bottom')", "Bottom", show=False),
        Binding("ctrl+z,super+z", "undo", "undo", id="edit.undo", tooltip="Undo the last edit."),
        Binding("ctrl+y,super+y", "redo", "redo", id="edit.redo", tooltip="Redo what ctrl+z undid."),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Undo and redo only while editing (out of the footer otherwise)."""
        if action in ("undo", "redo"):
            return not self.read_only
        return super().check_action(action, parameters)

    def action_vim(self, motion: str) -> None:
        """Move the cursor (read-only mode only; in edit mode the keys type)."""
        if not self.read_only:
            self.insert({"down": "j", "up": "k", "top": "g", "bottom": "G"}[motion])
            return
        if motion == "down":
            self.action_cursor_down()
        elif motion == "up":
            self.action_cursor_up()
        elif motion == "top":
            self.move_cursor((0, 0))
        else:
            self.move_cursor((self.document.line_count - 1, 0))


class FileViewer(Vertical):
    """Shows one memory file; tracks what was loaded so saves can detect on-disk changes."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("viewer")

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.rel: str | None = None
        self.abs_path: Path | None = None
        self.root: Path | None = None
        self._selected: tuple[Selection, int, int] | None = None  # the lines select_lines chose, while selected
        self.lossy = False  # the file is not valid UTF-8: shown, not editable
        self.seen_on_disk = ""  # the file's `disk_state` when it was loaded or saved, or at the last change reported
        self.loaded_text = ""
        self.digest: str | None = None
        self.mode = "rendered"
        self.deleted = False  # the open file was removed on disk after it was loaded

    def compose(self) -> ComposeResult:
        """Header line, then the rendered / raw switcher (the rendered view joins it when first shown)."""
        yield Static("No file open — pick one in the browser, or press Enter on a search hit.", id="viewer-title")
        with ContentSwitcher(initial="viewer-text", id="viewer-switcher"):
            yield MemoryTextArea("", read_only=True, show_line_numbers=True, soft_wrap=True,
                                 id="viewer-text")

    @property
    def text_area(self) -> MemoryTextArea:
        """The raw / edit TextArea."""
        return self.query_one("#viewer-text", MemoryTextArea)

    @property
    def content_widget(self) -> MemoryTextArea | FocusableMarkdown:
        """What has the focus when the viewer pane does: the text (raw, edit) or the rendered view."""
        if self.mode == "rendered" and self.rel is not None:
            return self._rendered_view()
        return self.text_area

    def _rendered_view(self) -> FocusableMarkdown:
        """The rendered view, mounted (with the open file's text) the first time it is asked for."""
        found = self.query("#viewer-markdown")
        if found:
            return found.first()
        from memtui.tui.widgets.rendered import FocusableMarkdown

        view = FocusableMarkdown(self._markdown_source(), id="viewer-markdown")
        view.display = False  # until the switcher makes it the current view
        self.query_one("#viewer-switcher", ContentSwitcher).mount(view)
        return view

    def _markdown_source(self) -> str:
        text = self.loaded_text[:MAX_RENDERED_CHARS]
        return f"```\n{text}\n```" if (self.rel or "").endswith(".jsonl") else text

    def _show_rendered(self) -> None:
        """Put the loaded text into the rendered view, if it exists yet (it takes the text when it is made)."""
        found = self.query("#viewer-markdown")
        if found:
            found.first().update(self._markdown_source())

    @property
    def editing(self) -> bool:
        """True while the editor is open."""
        return self.mode == "edit"

    @property
    def dirty(self) -> bool:
        """True when the editor holds changes not yet saved."""
        return self.editing and self.text_area.text != self.loaded_text

    def open(self, rel: str, abs_path: Path, *, root: Path | None = None, mode: str | None = None,
             lines: tuple[int, int] | None = None) -> None:
        """Load a file and show it rendered, or raw with `lines` selected. A symlink anywhere below `root` (the
        folder the file is confined to; default its own folder), a FIFO or a device put where the file was is
        refused (EscapeError) instead of followed or blocking the screen."""
        folder = root or abs_path.parent
        with open_for_read(folder, parts_below(folder, abs_path)) as handle:
            data = handle.read()
        if b"\x00" in data:
            raise MemtuiError(f"{rel} is a binary file (NUL bytes), not Markdown",
                              "the index skips it too (see the file issues under i)")
        try:
            text = data.decode("utf-8")
            self.lossy = False
        except UnicodeDecodeError:  # shown with replacement characters; saving them would replace the bytes
            text = data.decode("utf-8", errors="replace")
            self.lossy = True
        self.rel, self.abs_path, self.root = rel, abs_path, folder
        self.deleted = False
        self._selected = None
        self.loaded_text = text
        self.digest = self.seen_on_disk = hashlib.sha256(data).hexdigest()
        self.text_area.load_text(text)
        self._show_rendered()
        target = mode or ("raw" if lines or rel.endswith(".jsonl") or len(text) > MAX_RENDERED_CHARS
                          else "rendered")
        if target == "edit" and self.lossy:
            target = "raw"
        self.set_mode(target)
        if lines:
            self.select_lines(*lines)

    def disk_state(self) -> str:
        """What is on disk for the open file: its digest, "gone", or why it cannot be read."""
        if self.abs_path is None or self.root is None:
            return ""
        try:
            with open_for_read(self.root, parts_below(self.root, self.abs_path)) as handle:
                return hashlib.sha256(handle.read()).hexdigest()
        except FileNotFoundError:
            return "gone"
        except (OSError, MemtuiError) as exc:
            return f"unreadable: {exc}"

    def reload(self, *, keep_editing: bool = False) -> bool:
        """Re-read the open file from disk, keeping the mode (the editor closes unless `keep_editing`); False
        (and a toast saying why) when it cannot be read."""
        if self.rel is None or self.abs_path is None or not self.abs_path.exists():
            return False
        mode = "raw" if self.mode == "edit" and not keep_editing else self.mode
        row = self.text_area.cursor_location[0]
        try:
            self.open(self.rel, self.abs_path, root=self.root, mode=mode)
        except (OSError, MemtuiError) as exc:
            self.notify(f"Cannot reload {self.rel}: {exc}", severity="error")
            return False
        self.text_area.move_cursor((min(row, self.text_area.document.line_count - 1), 0))
        return True

    def select_lines(self, start: int, end: int) -> None:
        """Select lines `start`..`end` (1-based) and scroll them into view."""
        area = self.text_area
        last = area.document.line_count - 1
        first, final = max(0, start - 1), max(0, min(last, end - 1))
        area.selection = Selection((final, len(area.document.get_line(final))), (first, 0))
        self._selected = (area.selection, first + 1, final + 1)
        area.scroll_to(y=first, animate=False)

    def selected_lines(self) -> tuple[int, int, str] | None:
        """(start, end, text) of the selected lines in raw/edit mode, or None without a selection."""
        if self.mode == "rendered" or self.rel is None:
            return None
        area = self.text_area
        start, end = sorted((area.selection.start, area.selection.end))
        if start == end:
            return None
        if self._selected is not None and self._selected[0] == area.selection:  # a hit's lines, as opened
            first, final = self._selected[1:]
            return first, final, "\n".join(area.document.get_line(row) for row in range(first - 1, final))
        last_row = end[0] if end[1] > 0 or end[0] == start[0] else end[0] - 1
        lines = [area.document.get_line(row) for row in range(start[0], last_row + 1)]
        return start[0] + 1, last_row + 1, "\n".join(lines)

    def cursor_line(self) -> int:
        """1-based line of the cursor in raw/edit mode (1 in rendered mode)."""
        return self.text_area.cursor_location[0] + 1 if self.mode != "rendered" else 1

    def set_mode(self, mode: str) -> None:
        """Switch between rendered, raw and edit."""
        self.mode = mode
        switcher = self.query_one("#viewer-switcher", ContentSwitcher)
        switcher.current = self._rendered_view().id if mode == "rendered" else "viewer-text"
        self.text_area.read_only = mode != "edit"
        self.set_class(mode == "edit", "-editing")
        self._title()
        self.app.refresh_bindings()

    def mark_saved(self, digest: str) -> None:
        """After a save: the editor's text is what is on disk now."""
        self.loaded_text = self.text_area.text
        self.digest = self.seen_on_disk = digest
        self.deleted = False
        self._show_rendered()
        self._title()

    def mark_deleted(self, deleted: bool = True) -> None:
        """The open file is gone from disk (or back): say so in the header (the text stays, to save it again)."""
        self.deleted = deleted
        self._title()

    def refresh_title(self) -> None:
        """Redraw the header (after edits change the dirty flag)."""
        self._title()

    def _title(self) -> None:
        if self.rel is None:
            return
        flag = " ● unsaved" if self.dirty else ""
        title = Text(f"{self.rel} · {self.mode}{flag}")
        if self.deleted:
            title.append(" · deleted on disk", style="bold yellow")
        self.query_one("#viewer-title", Static).update(title)

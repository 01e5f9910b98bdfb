"""The fleet view's text pane, read-only: a file's chunks as the database holds them (each under its line range,
a search hit's highlighted and scrolled to), or the text of a file read from this host's disk."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from memtui.index.fleet import StoredChunk

MAX_CHUNKS = 400  # a file's chunks mounted at most (one widget each)


class FleetText(VerticalScroll):
    """A file of any agent of the fleet, read-only; hidden until something is shown."""

    DEFAULT_CSS = """
    FleetText { height: 3fr; border: round $primary; display: none; }
    FleetText:focus { border: round $accent; }
    FleetText .fleet-lines { color: $text-muted; padding: 0 1; }
    FleetText .fleet-chunk { padding: 0 1 1 1; }
    FleetText .fleet-chunk.-hit { background: $boost; border-left: thick $accent; }
    """

    def show_chunks(self, title: str, chunks: Sequence[StoredChunk], hit: str | None = None) -> bool:
        """Show `chunks` under `title`, the chunk with id `hit` highlighted and scrolled to; whether it was there."""
        widgets: list[Static] = []
        target: Static | None = None
        for chunk in chunks[:MAX_CHUNKS]:
            mark = "  ← the hit" if chunk.id == hit else ""
            widgets.append(Static(Text(f"lines {chunk.start_line}-{chunk.end_line}{mark}"), classes="fleet-lines"))
            body = Static(Text(chunk.text), classes="fleet-chunk -hit" if chunk.id == hit else "fleet-chunk")
            widgets.append(body)
            target = body if chunk.id == hit else target
        if len(chunks) > MAX_CHUNKS:
            widgets.append(Static(Text(f"… {len(chunks) - MAX_CHUNKS} more chunks not shown"), classes="fleet-lines"))
        if not chunks:
            widgets.append(Static(Text("The database holds no chunk of this file."), classes="fleet-lines"))
        self._replace(title, widgets)
        if target is not None:
            self.call_after_refresh(self.scroll_to_widget, target, animate=False, top=True)
        return target is not None or hit is None

    def show_text(self, title: str, text: str) -> None:
        """Show a whole file's `text` under `title`, its lines numbered."""
        width = len(str(text.count("\n") + 1))
        numbered = Text()
        for number, line in enumerate(text.splitlines() or [""], 1):
            numbered.append(f"{number:>{width}} ", style="dim")
            numbered.append(f"{line}\n")
        self._replace(title, [Static(numbered, classes="fleet-chunk")])

    def _replace(self, title: str, widgets: list[Static]) -> None:
        self.remove_children()
        self.border_title = Text(title)
        self.display = True
        self.mount_all(widgets)
        self.scroll_home(animate=False)

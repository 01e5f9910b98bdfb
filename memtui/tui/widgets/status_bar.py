"""The index status bar: provider, model, files, chunks, dirty, FTS/vector availability, fallback, progress."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static

from memtui.indexer import Progress


def status_text(status: dict[str, Any]) -> Text:
    """One line summarising `MemoryManager.status()`."""
    text = Text()
    text.append(f" {status['provider']}", style="bold")
    text.append(f" · {status['model']} · {status['profile']}")
    text.append(f" · {status['files']} files · {status['chunks']} chunks")
    fts, vector = status["fts"], status["vector"]
    text.append(" · FTS ")
    text.append("✓" if fts["available"] else "✗", style="green" if fts["available"] else "red")
    text.append(" · vec ")
    if status["custom"]["searchMode"] == "fts-only":
        text.append("off", style="yellow")
    else:
        text.append("✓" if vector["available"] else "✗ (cosine in Python)",
                    style="green" if vector["available"] else "yellow")
    text.append(" · ")
    text.append("dirty" if status["dirty"] else "clean", style="yellow" if status["dirty"] else "green")
    if status.get("fallback"):
        text.append(f" · fallback from {status['fallback']['from']}", style="yellow")
    if status["readOnly"]:
        text.append(" · read-only", style="yellow")
    return text


class IndexStatusBar(Horizontal):
    """Docked status line with a progress bar shown while indexing."""

    def compose(self) -> ComposeResult:
        """Summary text and the (hidden) progress bar."""
        yield Static("", id="status-summary")
        yield ProgressBar(total=None, show_eta=False, id="index-progress")

    def show_status(self, status: dict[str, Any]) -> None:
        """Update the summary."""
        self.query_one("#status-summary", Static).update(status_text(status))

    def show_progress(self, progress: Progress) -> None:
        """Show indexing progress."""
        self.add_class("-indexing")
        bar = self.query_one("#index-progress", ProgressBar)
        bar.update(total=max(1, progress.files_total), progress=progress.files_done)
        label = f" indexing {progress.files_done}/{progress.files_total} files · {progress.chunks} chunks"
        self.query_one("#status-summary", Static).update(Text(label, style="bold yellow"))

    def start(self) -> None:
        """Enter the indexing state."""
        self.add_class("-indexing")
        self.query_one("#index-progress", ProgressBar).update(total=None, progress=0)
        self.query_one("#status-summary", Static).update(Text(" indexing…", style="bold yellow"))

    def stop(self) -> None:
        """Leave the indexing state."""
        self.remove_class("-indexing")

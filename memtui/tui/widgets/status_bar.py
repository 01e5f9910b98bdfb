"""The index status bar: provider, model, files, chunks, dirty, FTS/vector availability, fallback, a mark when
live tuning differs from the config, and indexing progress. Shorter on narrow terminals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static

if TYPE_CHECKING:  # the indexer itself loads with the first sync, after the first frame
    from memtui.index.indexer import Progress

MODEL_HINT = "memtui model install"
NARROW = 100


def fts_only_reason(status: dict[str, Any], note: str | None = None) -> str:
    """Why search is keyword-only: `note` when the caller knows better, else the engine's reason."""
    reason = note or status["custom"].get("providerUnavailableReason") or "no embedding provider"
    return reason.split(" (", 1)[0] if reason.startswith("no embedding provider available") else reason


def short_model(model: str) -> str:
    """`all-MiniLM-L6-v2-q8_0.gguf` → `all-MiniLM-L6-v2`."""
    name = model.rsplit("/", 1)[-1].removesuffix(".gguf")
    for quant in ("-q8_0", "-q4_k_m", "-f16", "-f32"):
        name = name.removesuffix(quant)
    return name


def _part(*pieces: tuple[str, str]) -> Text:
    text = Text()
    for words, style in pieces:
        text.append(words, style=style)
    return text


def status_text(status: dict[str, Any], note: str | None = None, *, tuned: list[str] | None = None,
                width: int = 200) -> Text:
    """One line summarising `MemoryManager.status()`: provider and model (or why search is keyword-only),
    profile, counts, FTS / vector availability, dirty, fallback, and the knobs tuned away from the config.
    Parts that matter least (the model hint, the model, the ✓ marks, clean) are left out until it fits `width`."""
    narrow = width <= NARROW
    fts_only = status["custom"]["searchMode"] == "fts-only"
    parts: list[tuple[int, Text]] = []  # (drop order: higher goes first, 0 never, Text)
    if fts_only:
        parts.append((0, _part((" keyword-only", "bold yellow"))))
    else:
        parts.append((0, _part((f" {status['provider']}", "bold"))))
        parts.append((5, _part((f" · {short_model(status['model'])}", ""))))
        parts.append((6, _part((f" · profile {status['profile']}", ""))))
    if status["files"] == 0:
        parts.append((1, _part((" · no memory files yet", "yellow"))))
        parts.append((7, _part((": try memtui demo, or memtui --workspace DIR", "yellow"))))
    else:
        parts.append((1, _part((f" · {status['files']:,} files · {status['chunks']:,} chunks", ""))))
    fts, vector = status["fts"], status["vector"]
    if not fts_only or not fts["available"]:
        parts.append((4 if fts["available"] else 1, _part((" · FTS ", ""), ("✓", "green") if fts["available"]
                                                          else ("✗", "red"))))
    if not fts_only:
        parts.append((4 if vector["available"] else 2, _part((" vec ", ""), ("✓", "green") if vector["available"]
                                                             else ("✗ (cosine in Python)", "yellow"))))
    parts.append((3, _part((" · ", ""), ("dirty", "yellow") if status["dirty"] else ("clean", "green"))))
    if status.get("fallback"):
        parts.append((2, _part((f" · fallback from {status['fallback']['from']}", "yellow"))))
    if status["readOnly"]:
        parts.append((1, _part((" · read-only", "yellow"))))
    if tuned:
        parts.append((1, _part((" · ", ""), (f"tuned ({len(tuned)})" if narrow else "tuned: " + ", ".join(tuned),
                                             "bold yellow"))))
    if fts_only:
        parts.append((2, _part((f" · {fts_only_reason(status, note)}", "yellow"))))
        parts.append((8, _part((" → ", ""), (MODEL_HINT, "bold"))))
    for drop in range(8, 0, -1):
        if sum(part.cell_len for _, part in parts) < width:
            break
        parts = [(order, part) for order, part in parts if order != drop]
    text = Text()
    for _, part in parts:
        text.append_text(part)
    return text


class IndexStatusBar(Horizontal):
    """Docked status line with a progress bar shown while indexing."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.status: dict[str, Any] | None = None
        self.note: str | None = None
        self.tuned: list[str] = []

    def compose(self) -> ComposeResult:
        """Summary text and the (hidden) progress bar."""
        yield Static(Text(" starting…", style="dim"), id="status-summary")
        yield ProgressBar(total=1, show_eta=False, id="index-progress")

    def show_status(self, status: dict[str, Any], note: str | None = None) -> None:
        """Show a status (`note`: why there is no embedding provider, when the caller knows)."""
        self.status, self.note = status, note
        self._draw()

    def show_tuned(self, tuned: list[str]) -> None:
        """Mark the knobs whose live values differ from the config."""
        self.tuned = tuned
        self._draw()

    def on_resize(self) -> None:
        """Shorter text on narrow terminals."""
        self._draw()

    def _draw(self) -> None:
        if self.status is not None and not self.has_class("-indexing"):
            self.query_one("#status-summary", Static).update(
                status_text(self.status, self.note, tuned=self.tuned, width=self.app.size.width), layout=False)

    def show_progress(self, progress: Progress) -> None:
        """Show indexing progress."""
        self.add_class("-indexing")
        bar = self.query_one("#index-progress", ProgressBar)
        bar.update(total=max(1, progress.files_total), progress=progress.files_done)
        label = f" indexing {progress.files_done:,}/{progress.files_total:,} files · {progress.chunks:,} chunks"
        self.query_one("#status-summary", Static).update(Text(label, style="bold yellow"), layout=False)

    def start(self) -> None:
        """Enter the indexing state."""
        self.add_class("-indexing")
        self.query_one("#index-progress", ProgressBar).update(total=1, progress=0)
        self.query_one("#status-summary", Static).update(Text(" indexing…", style="bold yellow"), layout=False)

    def stop(self) -> None:
        """Leave the indexing state."""
        self.remove_class("-indexing")
        self._draw()

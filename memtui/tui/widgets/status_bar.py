"""The index status bar: provider, model, files, chunks, dirty, FTS/vector availability, fallback, a mark when
live tuning differs from the config, and indexing progress (as text: a progress widget that comes and goes lays
the screen out again, each time competing with the indexer for the interpreter). Shorter on narrow terminals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from memtui.tui.explain import counted

if TYPE_CHECKING:  # the indexer itself loads with the first sync, after the first frame
    from memtui.index.indexer import Progress, SyncReport

MODEL_HINT = "memtui model install"
NARROW = 100
BAR_CELLS = 30  # the progress bar's length where the line has room


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
                synced: str | None = None, width: int = 200) -> Text:
    """One line summarising `MemoryManager.status()`: provider and model (or why search is keyword-only),
    profile, counts, FTS / vector availability, dirty, fallback, the knobs tuned away from the config and what the
    last sync asked for changed (`synced`). Parts that matter least (the model hint, the last sync, the model, the
    ✓ marks, clean) are left out until it fits `width`."""
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
        parts.append((1, _part((f" · {counted(status['files'], 'file')} · {counted(status['chunks'], 'chunk')}",
                                ""))))
    fts, vector = status["fts"], status["vector"]
    if not fts_only or not fts["available"]:
        parts.append((4 if fts["available"] else 1, _part((" · FTS ", ""), ("✓", "green") if fts["available"]
                                                          else ("✗", "red"))))
    if not fts_only:
        parts.append((4 if vector["available"] else 2, _part((" vec ", ""), ("✓", "green") if vector["available"]
                                                             else ("✗ (cosine in Python)", "yellow"))))
    parts.append((3, _part((" · ", ""), ("dirty", "yellow") if status["dirty"] else ("clean", "green"))))
    if synced:
        parts.append((6, _part((f" · last sync: {synced}", "dim"))))
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


def progress_text(files_done: int, files_total: int, chunks: int, width: int = 200) -> Text:
    """`indexing 1,234/3,000 files · 1,234 chunks`, then a bar and the percentage when `width` leaves room."""
    text = Text(f" indexing {files_done:,}/{files_total:,} files · {chunks:,} chunks ", style="bold yellow")
    cells = min(BAR_CELLS, width - text.cell_len - 6)
    if cells >= 5:
        total = max(1, files_total)
        done = min(files_done, total)
        filled = cells * done // total
        text.append("━" * filled, style="yellow")
        text.append("━" * (cells - filled), style="grey35")
        text.append(f" {100 * done // total:>3}%", style="bold")
    return text


def sync_summary(report: SyncReport) -> str:
    """`3 files changed, 1 removed (12 chunks)`, or `no change`."""
    if not report.files_changed and not report.files_deleted:
        return "no change"
    removed = f", {report.files_deleted:,} removed" if report.files_deleted else ""
    return f"{report.files_changed:,} file{'s' if report.files_changed != 1 else ''} changed{removed} " \
           f"({report.chunks_written:,} chunk{'s' if report.chunks_written != 1 else ''})"


class IndexStatusBar(Static):
    """The status line: the status, or the indexing progress while a sync runs."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(Text(" starting…", style="dim"), **kwargs)  # type: ignore[arg-type]
        self.status: dict[str, Any] | None = None
        self.note: str | None = None
        self.tuned: list[str] = []
        self.synced: str | None = None
        self.indexing = False

    def show_status(self, status: dict[str, Any], note: str | None = None) -> None:
        """Show a status (`note`: why there is no embedding provider, when the caller knows)."""
        self.status, self.note = status, note
        self._draw()

    def show_tuned(self, tuned: list[str]) -> None:
        """Mark the knobs whose live values differ from the config."""
        self.tuned = tuned
        self._draw()

    def show_synced(self, synced: str) -> None:
        """Say what the last sync the user asked for (or the watcher ran) changed, until the next one."""
        self.synced = synced
        self._draw()

    def on_resize(self) -> None:
        """Shorter text on narrow terminals."""
        self._draw()

    def _draw(self) -> None:
        if self.status is not None and not self.indexing:
            self.update(status_text(self.status, self.note, tuned=self.tuned, synced=self.synced,
                                    width=self.app.size.width), layout=False)

    def show_progress(self, progress: Progress) -> None:
        """Show indexing progress."""
        self.indexing = True
        self.update(progress_text(progress.files_done, progress.files_total, progress.chunks, self.app.size.width),
                    layout=False)

    def start(self) -> None:
        """Enter the indexing state."""
        self.indexing = True
        self.update(Text(" indexing…", style="bold yellow"), layout=False)

    def stop(self) -> None:
        """Leave the indexing state."""
        self.indexing = False
        self._draw()

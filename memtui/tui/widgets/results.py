"""The results table: rank, movement, final / vector / text scores with bars, raw bm25, source, location."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from memtui.search import Candidate

_EIGHTHS = " ▏▎▍▌▋▊▉█"


def bar(value: float | None, width: int) -> str:
    """A bar of `width` cells for a 0..1 value, in eighths."""
    if value is None:
        return " " * width
    units = round(max(0.0, min(1.0, value)) * width * 8)
    full, part = divmod(units, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    return text.ljust(width)


def _score_cell(value: float | None, width: int, style: str) -> Text:
    if value is None:
        return Text("  –".ljust(6 + width), style="dim")
    cell = Text(f"{value:.3f} ")
    cell.append(bar(value, width), style=style)
    return cell


def _mark_cell(mark: str) -> Text:
    if mark.startswith("▲"):
        return Text(mark, style="bold green")
    if mark.startswith("▼"):
        return Text(mark, style="bold red")
    if mark in ("new", "gone"):
        return Text(mark, style="bold yellow" if mark == "new" else "dim")
    return Text(mark, style="dim")


class ResultsTable(DataTable[Text]):
    """Search hits, one row per chunk, keyed by chunk id (gone rows keyed `gone:<id>`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_top", "Top", show=False),
        Binding("G", "scroll_bottom", "Bottom", show=False),
    ]

    def on_mount(self) -> None:
        """Set up the table."""
        self.cursor_type = "row"
        self.zebra_stripes = True
        self._add_columns()

    def _add_columns(self) -> None:
        self.add_column("#", key="rank")
        self.add_column("mv", key="move")
        self.add_column("score", key="score")
        self.add_column("vector", key="vector")
        self.add_column("text", key="text")
        self.add_column("bm25", key="bm25")
        self.add_column("path:lines", key="location")
        self.add_column("src", key="source")

    def show(self, results: list[Candidate], marks: dict[str, str], gone: list[Candidate], *,
             keep_cursor: bool = False) -> None:
        """Replace the rows (columns sized to them); `keep_cursor` stays on the same chunk when still listed."""
        keep = self.highlighted_key() if keep_cursor else None
        self.clear(columns=True)
        self._add_columns()
        for candidate in results:
            self.add_row(
                Text(str(candidate.rank or ""), justify="right"),
                _mark_cell(marks.get(candidate.id, "")),
                _score_cell(candidate.score, 6, "bold cyan"),
                _score_cell(candidate.vector_score, 4, "magenta"),
                _score_cell(candidate.text_score, 4, "yellow"),
                Text("–" if candidate.bm25 is None else f"{candidate.bm25:.2f}", justify="right"),
                Text(f"{candidate.path}:{candidate.start_line}-{candidate.end_line}"),
                Text(candidate.source),
                key=candidate.id,
            )
        for candidate in gone:
            self.add_row(Text(""), _mark_cell("gone"), Text("", style="dim"), Text(""), Text(""), Text(""),
                         Text(f"{candidate.path}:{candidate.start_line}-{candidate.end_line}", style="dim strike"),
                         Text(candidate.source, style="dim"),
                         key=f"gone:{candidate.id}")
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep))

    def highlighted_key(self) -> str | None:
        """The chunk id (or `gone:<id>`) under the cursor."""
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key((self.cursor_row, 0))
        return str(row_key.value)

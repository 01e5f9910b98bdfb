"""The results table: rank, movement, final / vector / text scores with bars, raw bm25, path:lines."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from memtui.search.engine import Candidate

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
        return Text("    –", style="dim")
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


def fit(location: str, width: int) -> str:
    """`path:lines` shortened to `width` cells by eliding the middle of the file name (the lines stay)."""
    if len(location) <= width:
        return location
    path, _, lines = location.rpartition(":")
    keep = width - len(lines) - 2
    if keep < 4:
        return location[: max(1, width - 1)] + "…"
    return f"{path[:keep]}…:{lines}"


# (key, label, width) of every column but the location, which takes the rest of the table's width.
COLUMNS = (("rank", "#", 2), ("move", "mv", 4), ("score", "score", 11), ("vector", "vector", 9),
           ("text", "text", 9), ("bm25", "bm25", 6))
MIN_LOCATION = 24


class ResultsTable(DataTable[Text]):
    """Search hits, one row per chunk, keyed by chunk id (gone rows keyed `gone:<id>`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_top", "Top", show=False),
        Binding("G", "scroll_bottom", "Bottom", show=False),
    ]

    def on_mount(self) -> None:
        """Set up the table: fixed columns, the location column sized to the table."""
        self.cursor_type = "row"
        self.zebra_stripes = True
        for key, label, width in COLUMNS:
            self.add_column(label, key=key, width=width)
        self.add_column("path:lines", key="location", width=self.location_width())

    def location_width(self) -> int:
        """Cells left for `path:lines` (every column has one cell of padding on each side)."""
        used = sum(width + 2 * self.cell_padding for _, _, width in COLUMNS) + 2 * self.cell_padding + 2
        return max(MIN_LOCATION, self.scrollable_content_region.width - used)

    def on_resize(self) -> None:
        """Keep the location column as wide as the table allows."""
        column = self.columns.get(ColumnKey("location"))
        if column is not None and column.width != self.location_width():
            column.width = self.location_width()
            self._require_update_dimensions = True
            self.refresh()

    def show(self, results: list[Candidate], marks: dict[str, str], gone: list[Candidate], *,
             keep_cursor: bool = False) -> None:
        """Replace the rows in one batch; `keep_cursor` stays on the same chunk when it is still listed."""
        keep = self.highlighted_key() if keep_cursor else None
        width = self.location_width()
        rows: list[tuple[list[Text], str]] = []
        for candidate in results:
            rows.append(([
                Text(str(candidate.rank or ""), justify="right"),
                _mark_cell(marks.get(candidate.id, "")),
                _score_cell(candidate.score, 5, "bold cyan"),
                _score_cell(candidate.vector_score, 3, "magenta"),
                _score_cell(candidate.text_score, 3, "yellow"),
                Text("–" if candidate.bm25 is None else f"{candidate.bm25:.2f}", justify="right"),
                Text(fit(f"{candidate.path}:{candidate.start_line}-{candidate.end_line}", width)),
            ], candidate.id))
        for candidate in gone:
            rows.append(([Text(""), _mark_cell("gone"), Text(""), Text(""), Text(""), Text(""),
                          Text(fit(f"{candidate.path}:{candidate.start_line}-{candidate.end_line}", width),
                               style="dim strike")], f"gone:{candidate.id}"))
        with self.app.batch_update():
            self.clear()
            for cells, key in rows:
                self.add_row(*cells, key=key)
            if keep is not None and keep in self.rows:
                self.move_cursor(row=self.get_row_index(keep), animate=False)

    def highlighted_key(self) -> str | None:
        """The chunk id (or `gone:<id>`) under the cursor."""
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key((self.cursor_row, 0))
        return str(row_key.value)

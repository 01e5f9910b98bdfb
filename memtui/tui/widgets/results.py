"""The results table: rank (MMR moves marked), movement, final / vector / text scores with bars on one scale,
raw bm25, path:lines and, on wide terminals, a snippet. Narrow tables keep rank with its movement, score, a compact
vector/text pair and path:lines."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from memtui.search.response import Candidate
from memtui.tui.actions import bindings_for

_EIGHTHS = " ▏▎▍▌▋▊▉█"
BAR_WIDTH = 5
# Neutral tones: a bar is a quantity, not a warning.
SCORE_STYLE, VECTOR_STYLE, TEXT_STYLE = "bold #7fa7c9", "#9d9dc4", "#a3b59a"
MMR_MARK = "↕"
COMPACT_BELOW = 84  # table width under which the compact columns are used
TINY_BELOW = 60  # ... and under which the score loses its bar
SNIPPET_FROM = 160  # terminal width from which the snippet column appears
MIN_LOCATION = 14
SNIPPET_LOCATION = 24  # the location column's least width beside a snippet
MIN_SNIPPET = 28
MARKED_RANK = 6


def bar(value: float | None, width: int = BAR_WIDTH) -> str:
    """A bar of `width` cells for a 0..1 value, in eighths (every bar in the table uses this one scale)."""
    if value is None:
        return " " * width
    units = round(max(0.0, min(1.0, value)) * width * 8)
    full, part = divmod(units, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    return text.ljust(width)


def _score_cell(value: float | None, style: str) -> Text:
    if value is None:
        return Text("  –", style="dim")
    cell = Text(f"{value:.3f} ")
    cell.append(bar(value), style=style)
    return cell


def _pair_cell(vector: float | None, text: float | None) -> Text:
    cell = Text("–" if vector is None else f"{vector:.2f}", style=VECTOR_STYLE)
    cell.append("/", style="dim")
    cell.append("–" if text is None else f"{text:.2f}", style=TEXT_STYLE)
    return cell


def _mark_cell(mark: str) -> Text:
    if mark.startswith(("▲", "▼")):
        return Text(mark, style="bold")
    if mark == "new":
        return Text(mark, style="bold italic")
    return Text(mark, style="dim")


def _rank_cell(candidate: Candidate, mark: str = "") -> Text:
    """The rank, `↕` when MMR placed it, then (narrow layouts) its movement mark."""
    cell = Text(str(candidate.rank or ""), justify="left" if mark else "right")
    if moved_by_mmr(candidate):
        cell.append(MMR_MARK, style="bold")
    if mark:
        cell.append(" ")
        cell.append_text(_mark_cell(mark))
    return cell


def moved_by_mmr(candidate: Candidate) -> bool:
    """True when MMR, not the score, put the hit at its rank."""
    return candidate.mmr_rank is not None and candidate.sorted_rank is not None \
        and candidate.mmr_rank != candidate.sorted_rank


def snippet_line(text: str) -> str:
    """The chunk's first line that is not a heading, whitespace collapsed."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    chosen = next((line for line in lines if not line.startswith("#")), lines[0] if lines else "")
    return " ".join(chosen.removeprefix("- ").split())


def fit(text: str, width: int) -> str:
    """`text` shortened to `width` cells with an ellipsis."""
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def location_of(candidate: Candidate) -> str:
    """`path:start-end` of a hit."""
    return f"{candidate.path}:{candidate.start_line}-{candidate.end_line}"


def fit_location(location: str, width: int, *, drop_memory: bool = False) -> str:
    """`path:lines` shortened to `width` cells: without `memory/` when `drop_memory` (set for every row once one
    row does not fit, so the column reads alike), then without `.md`, then the end of the file name elided (the
    lines always stay)."""
    if drop_memory:
        location = location.removeprefix("memory/")
    if len(location) <= width:
        return location
    path, _, lines = location.rpartition(":")
    if path.endswith(".md") and len(location) - 3 <= width:
        return f"{path.removesuffix('.md')}:{lines}"
    keep = width - len(lines) - 2
    if keep < 4:
        return fit(location, width)
    return f"{path[:keep]}…:{lines}"


# (key, label, width) per layout; the location (and the snippet, when shown) share what is left. Narrow layouts
# show the movement mark (▲3, new) in the rank column, which then widens to MARKED_RANK.
LAYOUTS = {
    "tiny": (("rank", "#", 3), ("score", "score", 5), ("pair", "vec/txt", 9)),
    "compact": (("rank", "#", 3), ("score", "score", 11), ("pair", "vec/txt", 9)),
    "full": (("rank", "#", 3), ("move", "mv", 4), ("score", "score", 11), ("vector", "vector", 11),
             ("text", "text", 11), ("bm25", "bm25", 6)),
}


class ResultsTable(DataTable[Text]):
    """Search hits, one row per chunk, keyed by chunk id (gone rows keyed `gone:<id>`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_top", "Top", show=False),
        Binding("G", "scroll_bottom", "Bottom", show=False),
        *bindings_for("results"),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.layout_name = ""
        self.snippets = False
        self._shown: tuple[list[Candidate], dict[str, str], list[Candidate]] = ([], {}, [])
        self._geometry: tuple[object, ...] = ()

    def _fixed_columns(self, layout: str) -> list[tuple[str, str, int]]:
        """The layout's columns before the location; narrow ones widen the rank column while marks are shown."""
        columns = list(LAYOUTS[layout])
        if layout != "full" and (self._shown[1] or self._shown[2]):
            columns[0] = ("rank", "#", MARKED_RANK)
        return columns

    def _fixed_width(self, layout: str) -> int:
        return sum(width + 2 * self.cell_padding for _, _, width in self._fixed_columns(layout))

    def _choose_layout(self) -> tuple[str, bool]:
        width = self.size.width - 2
        layout = "tiny" if width < TINY_BELOW else "compact" if width < COMPACT_BELOW else "full"
        snippets = self.app.size.width >= SNIPPET_FROM and \
            self._free_width(layout, snippets=True) >= SNIPPET_LOCATION + MIN_SNIPPET
        return layout, snippets

    def _free_width(self, layout: str, *, snippets: bool) -> int:
        """Cells for the location (and snippet) columns."""
        columns = 2 if snippets else 1
        return max(MIN_LOCATION, self.size.width - 2 - self._fixed_width(layout) - 2 * self.cell_padding
                   * columns - 1)

    def _widths(self) -> tuple[int, int]:
        free = self._free_width(self.layout_name, snippets=self.snippets)
        if not self.snippets:
            return free, 0
        location = min(36, max(SNIPPET_LOCATION, free // 3))
        return location, free - location

    def on_resize(self) -> None:
        """Re-lay the columns when the table's width changes."""
        layout, snippets = self._choose_layout()
        changed = (layout, snippets) != (self.layout_name, self.snippets)
        self.layout_name, self.snippets = layout, snippets
        if changed or self._geometry != (layout, snippets, *self._widths()):
            self._render_rows(keep=self.highlighted_key())

    def show(self, results: list[Candidate], marks: dict[str, str], gone: list[Candidate], *,
             keep_cursor: bool = False) -> None:
        """Replace the rows in one batch; `keep_cursor` stays on the same chunk when it is still listed."""
        keep = self.highlighted_key() if keep_cursor else None
        self._shown = (results, marks, gone)
        self._render_rows(keep=keep)

    def _cells(self, candidate: Candidate, marks: dict[str, str], location: int, snippet: int,
               drop_memory: bool) -> list[Text]:
        place = Text(fit_location(location_of(candidate), location, drop_memory=drop_memory))
        mark = marks.get(candidate.id, "")
        if self.layout_name == "tiny":
            cells = [_rank_cell(candidate, mark), Text(f"{candidate.score:.3f}"),
                     _pair_cell(candidate.vector_score, candidate.text_score), place]
        elif self.layout_name == "compact":
            cells = [_rank_cell(candidate, mark), _score_cell(candidate.score, SCORE_STYLE),
                     _pair_cell(candidate.vector_score, candidate.text_score), place]
        else:
            cells = [_rank_cell(candidate), _mark_cell(mark),
                     _score_cell(candidate.score, SCORE_STYLE), _score_cell(candidate.vector_score, VECTOR_STYLE),
                     _score_cell(candidate.text_score, TEXT_STYLE),
                     Text("–" if candidate.bm25 is None else f"{candidate.bm25:.2f}", justify="right"), place]
        if self.snippets:
            cells.append(Text(fit(snippet_line(candidate.text), snippet), style="dim"))
        return cells

    def _render_rows(self, *, keep: str | None) -> None:
        if not self.layout_name:
            self.layout_name, self.snippets = self._choose_layout()
        results, marks, gone = self._shown
        location, snippet = self._widths()
        drop_memory = any(len(location_of(c)) > location for c in (*results, *gone))
        self._geometry = (self.layout_name, self.snippets, location, snippet)
        columns = [*self._fixed_columns(self.layout_name), ("location", "path:lines", location)]
        if self.snippets:
            columns.append(("snippet", "snippet", snippet))
        with self.app.batch_update():
            self.clear(columns=True)
            for key, label, width in columns:
                self.add_column(label, key=key, width=width)
            for candidate in results:
                self.add_row(*self._cells(candidate, marks, location, snippet, drop_memory), key=candidate.id)
            for candidate in gone:
                cells = [Text("") for _ in columns]
                cells[1 if self.layout_name == "full" else 0] = _mark_cell("gone")
                cells[len(LAYOUTS[self.layout_name])] = Text(
                    fit_location(location_of(candidate), location, drop_memory=drop_memory), style="dim strike")
                self.add_row(*cells, key=f"gone:{candidate.id}")
            if keep is not None and keep in self.rows:
                self.move_cursor(row=self.get_row_index(keep), animate=False)

    def highlighted_key(self) -> str | None:
        """The chunk id (or `gone:<id>`) under the cursor."""
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key((self.cursor_row, 0))
        return str(row_key.value)

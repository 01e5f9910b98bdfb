"""The score trace of the highlighted hit: the chunk with query terms marked, every number, the citation."""

from __future__ import annotations

import re

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from memtui.search.engine import Candidate, SearchResponse
from memtui.tools import format_citation


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def trace_lines(hit: Candidate, response: SearchResponse) -> list[tuple[str, str]]:
    """(label, value) rows explaining how the hit's score and rank came about."""
    rows: list[tuple[str, str]] = [("stage", f"{hit.stage}" + (f" · rank {hit.rank}" if hit.rank else ""))]
    if response.mode == "hybrid":
        rows.append(("formula", f"{response.vector_weight:.2f}×vector {_fmt(hit.vector_score)} + "
                                f"{response.text_weight:.2f}×text {_fmt(hit.text_score)} = {_fmt(hit.base_score)}"))
    else:
        rows.append(("formula", f"{response.mode}: base score {_fmt(hit.base_score)}"))
    how = f" ({response.text_normalization})" if response.text_normalization else ""
    rows.append(("keyword list", f"#{hit.text_rank} · bm25 {_fmt(hit.bm25, 4)} → text {_fmt(hit.text_score)}{how}"
                 if hit.text_rank is not None else "not a keyword candidate"))
    if response.mode != "fts-only":
        rows.append(("vector list", f"#{hit.vector_rank} · cosine {_fmt(hit.vector_score)}"
                     if hit.vector_rank is not None else "not a vector candidate"))
    rows.append(("matched by", ", ".join(hit.matched_by) or "–"))
    if hit.age_days is not None or hit.decay != 1.0:
        rows.append(("decay", f"×{hit.decay:.3f} (age {hit.age_days or 0:.1f} d)"))
    else:
        rows.append(("decay", "none (evergreen or off)"))
    rows.append(("final score", _fmt(hit.score)))
    mmr = f" → MMR #{hit.mmr_rank}" if hit.mmr_rank is not None else ""
    rows.append(("order", f"sorted #{hit.sorted_rank}{mmr}"))
    threshold = f"minScore {response.min_score:.2f}"
    if hit.threshold == "relaxed":
        threshold += f" relaxed to min(minScore, textWeight) = {min(response.min_score, response.text_weight):.2f}"
    elif hit.threshold == "any":
        threshold += " not met by any hit; all keyword hits kept"
    elif hit.stage == "below-min-score":
        threshold += f" · {hit.score:.3f} is below it"
    rows.append(("threshold", threshold))
    rows.append(("source", hit.source))
    rows.append(("citation", format_citation(hit.path, hit.start_line, hit.end_line)))
    return rows


def marked_text(text: str, terms: list[str]) -> Text:
    """The chunk text with every query term highlighted (case-insensitive)."""
    rendered = Text(text)
    words = [t for t in terms if t.strip()]
    if words:
        pattern = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        rendered.highlight_regex(re.compile(pattern, re.IGNORECASE), style="bold black on yellow")
    return rendered


class TracePanel(VerticalScroll):
    """Shows the highlighted hit's chunk and score trace."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.rows: list[tuple[str, str]] = []

    def compose(self):
        """The single Static holding the rendering."""
        yield Static(Text("Type a query; highlight a result to see why it ranks there.", style="dim"),
                     id="trace-body")

    def show(self, hit: Candidate | None, response: SearchResponse | None, *, hint: str = "No hit selected.") -> None:
        """Render `hit` (or `hint` when there is none)."""
        body = self.query_one("#trace-body", Static)
        self.rows = []
        if hit is None or response is None:
            body.update(Text(hint, style="dim"))
            return
        table = Table.grid(padding=(0, 1))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        self.rows = trace_lines(hit, response)
        for label, value in self.rows:
            table.add_row(label, value)
        terms = list(response.keyword.terms) if response.keyword else []
        heading = Text(f"{hit.path}:{hit.start_line}-{hit.end_line}", style="bold underline")
        body.update(Group(heading, table, Text(""), marked_text(hit.text, terms)))
        self.scroll_home(animate=False)

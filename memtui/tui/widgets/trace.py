"""The score trace of the highlighted hit: rank (and what MMR did), the formula with the same weights as the
tuning panel, each candidate list, decay, the threshold rule, the citation, and the chunk with query terms marked.
On wide panes the numbers and the chunk sit side by side."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from memtui.search.engine import FLAT_BM25
from memtui.search.formula import number_text
from memtui.search.ranking import bm25_rank_to_score
from memtui.search.response import Candidate, SearchResponse
from memtui.tools import format_citation
from memtui.tui.actions import bindings_for
from memtui.tui.explain import SCORE_RULE, evidence
from memtui.tui.widgets.in_place import update_in_place
from memtui.tui.widgets.trace_2026_9 import openclaw_trace_lines

SIDE_BY_SIDE_FROM = 110  # pane width from which the chunk text sits beside the numbers
STACKED_TEXT_LINES = 4  # chunk lines shown above the numbers when they are stacked (the viewer has the rest)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _weight_text(value: float) -> str:
    """A weight with the digits the tuning panel shows (up to 4) and at least 2: 0.70, 0.725."""
    text = f"{value:.4f}".rstrip("0")
    return text + "0" * max(0, 2 - len(text.partition(".")[2]))


def _order(hit: Candidate, response: SearchResponse) -> str:
    text = f"#{hit.rank} of {len(response.results)}" if hit.rank else f"not returned ({hit.stage})"
    if hit.mmr_rank is not None and hit.mmr_rank != hit.sorted_rank:
        text += f" · #{hit.sorted_rank} by score, MMR placed it #{hit.mmr_rank} (diversity)"
    else:
        text += f" · #{hit.sorted_rank} by score"
    return text


def _threshold(hit: Candidate, response: SearchResponse) -> str:
    if hit.threshold == "relaxed":
        floor = min(response.min_score, response.text_weight)
        return (f"no hit reached minScore {response.min_score:.2f}, so keyword hits are kept from "
                f"min(minScore, textWeight) = {floor:.2f} (OpenClaw's relax rule)")
    if hit.threshold == "any":
        return f"no hit reached minScore {response.min_score:.2f}; OpenClaw keeps every keyword hit then"
    if response.threshold_rule != SCORE_RULE:
        keyword = bm25_rank_to_score(hit.bm25) if hit.bm25 is not None else 0.0
        pieces = f"keyword {keyword:.3f}, cosine {_fmt(hit.cosine)}"
        if hit.stage == "below-min-score":
            return f"both < minScore {response.min_score:.2f} ({pieces}): dropped"
        return f"its best evidence {evidence(hit):.3f} ≥ minScore {response.min_score:.2f} ({pieces}; the fused " \
               "score is not thresholded)"
    if hit.stage == "below-min-score":
        return f"{hit.score:.3f} < minScore {response.min_score:.2f}: dropped"
    return f"{hit.score:.3f} ≥ minScore {response.min_score:.2f}"


def _vector_list(hit: Candidate, response: SearchResponse) -> str:
    """The vector side: the raw cosine, and the vector score made of it when the profile rescales it."""
    scaled = response.vector_normalization is not None and hit.cosine is not None
    if hit.vector_rank is None:
        if scaled and hit.vector_score is not None:
            return (f"not a vector candidate; its cosine {_fmt(hit.cosine)} → vector {_fmt(hit.vector_score)} "
                    f"({response.vector_normalization})")
        return "not a vector candidate (vector counts as 0)"
    if scaled:
        return (f"#{hit.vector_rank} · cosine {_fmt(hit.cosine)} → vector {_fmt(hit.vector_score)} "
                f"({response.vector_normalization})")
    return f"#{hit.vector_rank} · cosine {_fmt(hit.vector_score)}"


def trace_lines(hit: Candidate, response: SearchResponse) -> list[tuple[str, str]]:
    """(label, value) rows explaining how the hit's score and rank came about."""
    if hit.openclaw is not None:
        return openclaw_trace_lines(hit, response)
    rows: list[tuple[str, str]] = [("rank", _order(hit, response))]
    if response.mode == "hybrid":
        boost = f" + date {hit.date_boost:.3f}" if hit.date_boost else ""
        rows.append(("score", f"{_weight_text(response.vector_weight)}×vector {_fmt(hit.vector_score)} + "
                              f"{_weight_text(response.text_weight)}×text {_fmt(hit.text_score)}{boost} = "
                              f"{_fmt(hit.base_score)}"))
        if hit.date_boost:
            rows.append(("date boost", f"+{hit.date_boost:.3f}: a daily log dated in a month the query names"))
        rows.append(("weights", f"vectorWeight {_weight_text(response.vector_weight)} · textWeight "
                                f"{_weight_text(response.text_weight)} "
                                "(sum 1, as the tuning panel shows)"))
    elif response.mode == "fts-only":
        rows.append(("score", f"keyword-only: the text score {_fmt(hit.base_score)} (no embedding provider)"))
    else:
        rows.append(("score", f"{response.mode}: cosine {_fmt(hit.base_score)}"))
    how = f" ({response.text_normalization})" if response.text_normalization else ""
    if hit.bm25 is not None and abs(hit.bm25) < FLAT_BM25:
        how += " · bm25 ≈ 0: the matched words are in nearly every chunk, so they tell chunks apart hardly at all"
    divisor = response.text_divisor
    bm25 = "–" if hit.bm25 is None else number_text(hit.bm25) + (f" / {number_text(divisor)}" if divisor else "")
    rows.append(("keyword list", f"#{hit.text_rank} · bm25 {bm25} → text {_fmt(hit.text_score)}{how}"
                 if hit.text_rank is not None else "not a keyword candidate (text counts as 0)"))
    if response.mode != "fts-only":
        rows.append(("vector list", _vector_list(hit, response)))
    if hit.age_days is not None or hit.decay != 1.0:
        rows.append(("decay", f"×{hit.decay:.3f} (age {hit.age_days or 0:.1f} d) → {hit.score:.3f}"))
    else:
        rows.append(("decay", "none (evergreen or off)"))
    rows.append(("threshold", _threshold(hit, response)))
    if hit.source != "memory":
        rows.append(("source", hit.source))
    rows.append(("citation", format_citation(hit.path, hit.start_line, hit.end_line)))
    return rows


def marked_text(text: str, terms: list[str]) -> Text:
    """The chunk text with every query term highlighted (case-insensitive)."""
    rendered = Text(text)
    words = [t for t in terms if t.strip()]
    if words:
        pattern = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        rendered.highlight_regex(re.compile(pattern, re.IGNORECASE), style="bold reverse")
    return rendered


class TracePanel(VerticalScroll):
    """Shows the highlighted hit's score trace and chunk."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("trace")

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.rows: list[tuple[str, str]] = []
        # what show() drew: hit, response, hint, wide, typing
        self._shown: tuple[Candidate | None, SearchResponse | None, str | Text, bool, bool] | None = None

    def compose(self) -> ComposeResult:
        """Heading, then the chunk and the numbers (stacked, or side by side when wide)."""
        yield Static(Text("Type a query; highlight a result to see why it ranks there.", style="dim"),
                     id="trace-head")
        with Horizontal(id="trace-cols"):
            yield Static("", id="trace-text")
            yield Static("", id="trace-rows")

    def on_resize(self) -> None:
        """Side by side on wide panes; what is shown is drawn again for the other layout (stacked, the chunk is cut
        to its first lines). A trace drawn while the pane still had the old width (the app draws it after the top
        screen's refresh, a dialog's when one is open) would keep the old layout otherwise."""
        wide = self.size.width >= SIDE_BY_SIDE_FROM
        if wide == self.has_class("-wide"):
            return
        self.set_class(wide, "-wide")
        if self._shown is not None:
            hit, response, hint, _wide, typing = self._shown
            self.show(hit, response, hint=hint, typing=typing)

    def show(self, hit: Candidate | None, response: SearchResponse | None, *, hint: str | Text = "",
             typing: bool = False) -> None:
        """Render `hit` (or `hint` when there is none); showing again what is shown costs nothing. `typing`: the
        panes keep their height (shorter content padded), so results changing under each key do not lay the
        screen out again; shown again with `typing` False, the trace is drawn at its own height."""
        shown = (hit, response, hint, self.has_class("-wide"), typing)
        if self._shown is not None and all(a is b for a, b in zip(shown[:2], self._shown[:2], strict=True)) \
                and shown[2:] == self._shown[2:]:
            return
        self._shown = shown
        self.rows = []
        rows, text = self.query_one("#trace-rows", Static), self.query_one("#trace-text", Static)
        if hit is None or response is None:
            update_in_place(self.query_one("#trace-head", Static),
                            hint if isinstance(hint, Text) else Text(hint, style="dim"))
            update_in_place(rows, "")
            update_in_place(text, "")
            return
        table = Table.grid(padding=(0, 1))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        self.rows = trace_lines(hit, response)
        for label, value in self.rows:
            table.add_row(label, value)
        terms = list(response.keyword.terms) if response.keyword else []
        update_in_place(self.query_one("#trace-head", Static),
                        Text(f"{hit.path}:{hit.start_line}-{hit.end_line}", style="bold underline"))
        update_in_place(rows, table, keep_height=typing)
        chunk = hit.text.rstrip()
        lines = chunk.splitlines()
        if not self.has_class("-wide") and len(lines) > STACKED_TEXT_LINES:
            rest = len(lines) - STACKED_TEXT_LINES
            chunk = "\n".join(lines[:STACKED_TEXT_LINES])
            shown = marked_text(chunk, terms)
            shown.append(f"\n… {rest} more line(s): Enter on the hit opens the file", style="dim")
            update_in_place(text, shown, keep_height=typing)
        else:
            update_in_place(text, marked_text(chunk, terms), keep_height=typing)
        self.scroll_home(animate=False)

"""The dreams view: short-term recall candidates (§12) with their scores; promote the selected one."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from memtui.dreaming import Candidate, apply_promotions, list_candidates
from memtui.dreaming.promotion import ANY_CANDIDATE
from memtui.errors import MemtuiError
from memtui.tui.screens.modals import ChoiceModal
from memtui.tui.widgets.table_fit import FittedTable


class DreamsScreen(Screen[None]):
    """Every ranked candidate (eligible or not), with why; `p` promotes the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "app.pop_screen", "Back", id="dreams.back"),
        Binding("p", "promote", "Promote", id="dreams.promote"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, workspace_dir: Path, *, now: datetime | None = None, read_only: bool = False) -> None:
        super().__init__()
        self.workspace_dir = workspace_dir
        self.now = now
        self.read_only = read_only
        self.candidates: list[Candidate] = []
        self.promoted: set[str] = set()  # keys promoted from this screen
        self._layout: tuple[bool, int] | None = None  # (one line per candidate, width) of the table drawn

    def compose(self) -> ComposeResult:
        """Table and detail."""
        with Vertical():
            yield FittedTable(id="dreams-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="dreams-detail")
        yield Footer()

    def on_mount(self) -> None:
        """Load the candidates."""
        self.candidates = list_candidates(self.workspace_dir, now=self.now, include_promoted=True,
                                          include_rejected=True)
        self._fill_table()
        if not self.candidates:
            self.query_one("#dreams-detail", Static).update(
                "No short-term recalls yet (memory/.dreams/short-term-recall.json is empty or missing).")
        self.query_one("#dreams-table", DataTable).focus()

    @on(FittedTable.Resized)
    def _table_resized(self) -> None:
        """Lay the table out again for its new width."""
        self._fill_table()

    def _fill_table(self) -> None:
        """One line per candidate when every state fits; else the recall and query counts (the detail shows
        them) give their room to the state, one failed gate per line, so no threshold is cut."""
        table = self.query_one("#dreams-table", DataTable)
        width = (table.size.width or self.app.size.width) - table.styles.scrollbar_size_vertical
        rows = [(f"{c.score:.3f}", str(c.recall_count), str(c.unique_queries), c.source, _state(c, self.promoted))
                for c in self.candidates]
        labels = ("score", "recalls", "queries", "source", "state")
        widths = [max([len(label), *(len(row[i]) for row in rows)]) for i, label in enumerate(labels)]
        one_line = sum(widths) + 2 * len(labels) <= width
        layout = (one_line, width)
        if layout == self._layout:
            return
        self._layout = layout
        keep = table.cursor_row
        table.clear(columns=True)
        kept = range(5) if one_line else (0, 3, 4)
        for i in kept:
            # widths set, not measured: a table cleared and filled again on a resize kept its old measured widths
            state_width = widths[i] if one_line or i != 4 else max(12, width - sum(widths[j] + 2 for j in (0, 3)) - 2)
            table.add_column(labels[i], key=labels[i], width=state_width)
        for candidate, row in zip(self.candidates, rows, strict=True):
            cells = [Text(row[i], justify="right" if i == 0 else "left") for i in kept]
            if not one_line:
                cells[-1] = Text(_state(candidate, self.promoted, "\n"))
            table.add_row(*cells, key=candidate.key, height=1 if one_line else None)
        if self.candidates:
            table.move_cursor(row=min(keep, len(self.candidates) - 1), animate=False)

    def _selected(self) -> Candidate | None:
        table = self.query_one("#dreams-table", DataTable)
        if not table.row_count:
            return None
        return self.candidates[table.cursor_row]

    @on(DataTable.RowHighlighted, "#dreams-table")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        candidate = self._selected()
        if candidate is not None:
            self.query_one("#dreams-detail", Static).update(_detail(candidate))

    def action_promote(self) -> None:
        """Promote the highlighted candidate into MEMORY.md, after asking (as the main screen does)."""
        candidate = self._selected()
        if candidate is None:
            return
        if self.read_only:
            self.notify("Read-only: promotion is disabled", severity="warning")
            return
        preview = Text(f"{candidate.source} (score {candidate.score:.3f}) goes into MEMORY.md:\n\n", style="bold")
        preview.append(candidate.snippet)

        def decided(choice: str | None) -> None:
            if choice == "promote":
                self._promote(candidate)

        self.app.push_screen(ChoiceModal("Promote into MEMORY.md?", preview,
                                         [("promote", "Promote"), ("cancel", "Cancel")]), decided)

    def _promote(self, candidate: Candidate) -> None:
        try:
            result = apply_promotions(self.workspace_dir, [candidate], now=self.now, gates=ANY_CANDIDATE)
        except MemtuiError as exc:
            self.notify(str(exc), severity="error")
            return
        if result.appended:
            self.notify(f"Promoted {candidate.source} into MEMORY.md")
            self.promoted.add(candidate.key)
            self._layout = None
            self._fill_table()
            self.call_later(self.app.run_action, "sync")  # MEMORY.md changed: the index follows
        else:
            reason = result.skipped[0][1] if result.skipped else "already in MEMORY.md"
            self.notify(f"Not promoted: {reason}", severity="warning")

    def action_cursor_down(self) -> None:
        """Down."""
        self.query_one("#dreams-table", DataTable).action_cursor_down()

    def action_cursor_up(self) -> None:
        """Up."""
        self.query_one("#dreams-table", DataTable).action_cursor_up()


def _state(candidate: Candidate, promoted: set[str], separator: str = "; ") -> str:
    """Promoted (before, or in this screen: `promoted`), eligible, or the gates it fails (each with its value and
    threshold)."""
    if candidate.promoted_at or candidate.key in promoted:
        return "promoted"
    return separator.join(candidate.rejected) or "eligible"


def _detail(candidate: Candidate) -> Text:
    """The candidate's score breakdown (§12.5 components × weights, phase boost), evidence and snippet."""
    text = Text()
    parts = vars(candidate.components)
    text.append("score ", style="bold")
    text.append(" + ".join(f"{candidate.weights.get(name, 0):.2f}×{name} {value:.3f}" for name, value in parts.items()))
    text.append(f" + boost {candidate.phase_boost.total:.3f} = {candidate.score:.3f}\n")
    text.append("evidence ", style="bold")
    text.append(f"{candidate.recall_count} recalls · {candidate.daily_count} daily · {candidate.grounded_count} "
                f"grounded · {candidate.unique_queries} queries · days {', '.join(candidate.recall_days) or '-'} · "
                f"avg {candidate.avg_score:.3f} · age {candidate.age_days:.1f} d\n")
    if candidate.rejected:
        text.append("not eligible ", style="bold")
        text.append("; ".join(candidate.rejected) + "\n")
    text.append("\n" + candidate.snippet)
    return text

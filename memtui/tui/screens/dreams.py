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

    def compose(self) -> ComposeResult:
        """Table and detail."""
        with Vertical():
            yield DataTable(id="dreams-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="dreams-detail")
        yield Footer()

    def on_mount(self) -> None:
        """Load the candidates."""
        table = self.query_one("#dreams-table", DataTable)
        for label in ("score", "recalls", "queries", "source", "state"):
            table.add_column(label, key=label)
        self.candidates = list_candidates(self.workspace_dir, now=self.now, include_promoted=True,
                                          include_rejected=True)
        for candidate in self.candidates:
            state = "promoted" if candidate.promoted_at else "; ".join(candidate.rejected) or "eligible"
            table.add_row(Text(f"{candidate.score:.3f}", justify="right"), Text(str(candidate.recall_count)),
                          Text(str(candidate.unique_queries)), Text(candidate.source), Text(state),
                          key=candidate.key)
        if not self.candidates:
            self.query_one("#dreams-detail", Static).update(
                "No short-term recalls yet (memory/.dreams/short-term-recall.json is empty or missing).")
        table.focus()

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
            self.query_one("#dreams-table", DataTable).update_cell(candidate.key, "state", Text("promoted"))
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

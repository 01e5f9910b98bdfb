"""Index health: the agent's index (OpenClaw's own, or memtui's) diffed against the files on disk and a fresh
index, one row per difference; Enter opens the row's file in the viewer."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from memtui.index.health import INDEXES, IndexHealth, agent_index_health
from memtui.settings.agent import AgentEnv

_KIND_STYLE = {"changed": "yellow", "new": "green", "deleted": "red", "recut": "cyan", "model": "magenta",
               "unreadable": "bold red"}


class HealthRead(Message):
    """The health of an index was read (or could not be: `error`)."""

    def __init__(self, health: IndexHealth | None, error: str | None = None) -> None:
        super().__init__()
        self.health = health
        self.error = error


class HealthScreen(Screen[str | None]):
    """One index's differences from the disk; dismissed with the path to open, or None."""

    DEFAULT_CSS = """
    HealthScreen #health-summary { height: auto; padding: 0 1; }
    HealthScreen #health-rows { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back", id="health.back"),
        Binding("enter", "open_row", "open file", id="health.open", tooltip="Open the row's file in the viewer."),
        Binding("m", "switch_index", "other index", id="health.switch",
                tooltip="OpenClaw's own index or memtui's."),
        Binding("r", "reload", "reload", id="health.reload", tooltip="Read the index and the disk again."),
    ]

    def __init__(self, env: AgentEnv) -> None:
        super().__init__()
        self.env = env
        self.which: str | None = None
        self.health: IndexHealth | None = None

    def compose(self) -> ComposeResult:
        yield Static("Reading the index and the files…", id="health-summary")
        table: DataTable[Text | str] = DataTable(id="health-rows", cursor_type="row", zebra_stripes=True)
        table.add_columns("kind", "file", "what differs")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#health-rows", DataTable).focus()
        self._read(self.which)

    @work(thread=True, exclusive=True, group="health", exit_on_error=False, description="Reading the index")
    def _read(self, which: str | None) -> None:
        try:
            self.post_message(HealthRead(agent_index_health(self.env, which)))
        except Exception as exc:
            self.post_message(HealthRead(None, str(exc) or type(exc).__name__))

    @on(HealthRead)
    def _shown(self, message: HealthRead) -> None:
        summary = self.query_one("#health-summary", Static)
        table = self.query_one("#health-rows", DataTable)
        table.clear()
        self.health = message.health
        if message.health is None:
            summary.update(Text(f"Cannot check the index: {message.error}", style="bold red"))
            return
        health = message.health
        counts = ", ".join(f"{n} {kind}" for kind, n in health.counts().items() if n) or "none"
        verdict = Text("healthy: every file is indexed as it is now", style="green") if health.healthy else \
            Text(f"differences: {counts}", style="yellow")
        text = Text(f"{health.label} · {health.path}\n{health.files} memory files and {health.chunks} chunks "
                    f"indexed · model {health.model or 'none'} · {health.files_on_disk} memory files on disk · ")
        text.append_text(verdict)
        summary.update(text)
        for row in health.rows:
            table.add_row(Text(row.kind, style=_KIND_STYLE.get(row.kind, "")), row.path, row.detail)

    @on(DataTable.RowSelected, "#health-rows")
    def _row_selected(self, _event: DataTable.RowSelected) -> None:
        self.action_open_row()

    def action_open_row(self) -> None:
        """Close and open the highlighted row's file (rows about the whole index have none)."""
        table = self.query_one("#health-rows", DataTable)
        if self.health is None or not self.health.rows or table.cursor_row < 0:
            self.notify("No file to open.", severity="warning")
            return
        row = self.health.rows[table.cursor_row]
        if row.kind in ("deleted", "model") or row.path == "*":
            self.notify(f"{row.path} is not a file on disk.", severity="warning")
            return
        self.dismiss(row.path)

    def action_switch_index(self) -> None:
        """Check the other index."""
        current = self.which or ("openclaw" if self.health and self.health.label.startswith("OpenClaw") else "memtui")
        self.which = INDEXES[(INDEXES.index(current) + 1) % len(INDEXES)]
        self.query_one("#health-summary", Static).update(f"Reading {self.which}'s index…")
        self._read(self.which)

    def action_reload(self) -> None:
        """Read again."""
        self._read(self.which)

    def action_close(self) -> None:
        """Back to the main screen."""
        self.dismiss(None)

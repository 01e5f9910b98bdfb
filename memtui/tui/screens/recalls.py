"""The agent's own memory calls: every memory_search / memory_get it made (2026.9 agent database or 2026.4 JSONL
transcripts), newest first, and any one replayed against today's index — a search side by side (kept / new /
dropped with why-not) under a chosen profile, a memory_get read again (then → now, the diff)."""

from __future__ import annotations

import re
from contextlib import nullcontext
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from memtui.agentdb.recalls import Recall
from memtui.manager import MemoryManager
from memtui.search.replay import agent_recalls, iso_to_ms, replay, replay_get
from memtui.search.replay_text import render_get_replay, render_replay
from memtui.settings.config import PROFILES
from memtui.tui.widgets.table_fit import FittedTable

_AGENT_PREFIX = re.compile(r"^agent:[^:]+:")


class RecallsLoaded(Message):
    """The agent's calls were read (or could not be: `error`)."""

    def __init__(self, recalls: list[Recall], error: str | None = None) -> None:
        super().__init__()
        self.recalls = recalls
        self.error = error


class ReplayDone(Message):
    """A replay finished: its text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


def call_cells(recall: Recall) -> tuple[str, str, str, str, str]:
    """(#, time, session, the call, what it got) of a listed call."""
    item = recall.to_json()
    when = (item.get("calledAt") or "-").replace("T", " ")[:19]
    if recall.tool == "memory_search":
        call = f"search {item['query']!r}"
        count = item["hitCount"]
        got = f"error: {item['error']}" if item.get("error") else f"{count} hit{'' if count == 1 else 's'}"
    else:
        call = f"get {item['path']}"
        outcome = item["get"]
        got = f"{outcome.get('status')} · {outcome.get('chars', 0)} chars"
    return str(recall.index), when, item.get("sessionKey") or "-", call, got


def fitted_cells(rows: list[tuple[str, str, str, str, str]], width: int) -> tuple[list[str], list[int],
                                                                                 list[tuple[str, ...]]]:
    """(labels, column widths, rows) for a table `width` cells wide: whole when it fits; else the time without
    its year, the session key without `agent:<id>:`, and the call cut with … to what is left (the replay below
    shows it whole)."""
    labels = ["#", "time (UTC)", "session", "call", "got"]
    fitted = [list(row) for row in rows]

    def widths() -> list[int]:
        return [max([len(label), *(len(row[i]) for row in fitted)]) for i, label in enumerate(labels)]
    if sum(widths()) + 2 * len(labels) > width:
        labels[1] = "time"
        for row in fitted:
            row[1] = row[1][5:16] if len(row[1]) >= 16 else row[1]
            row[2] = _AGENT_PREFIX.sub("", row[2])
    sizes = widths()
    room = width - 2 * len(labels) - sum(sizes) + sizes[3]
    if sizes[3] > room:
        sizes[3] = max(len(labels[3]), room)
        for row in fitted:
            row[3] = row[3] if len(row[3]) <= sizes[3] else row[3][: sizes[3] - 1] + "…"
    return labels, sizes, [tuple(row) for row in fitted]


class RecallsScreen(Screen[None]):
    """The agent's memory calls, and replays of them."""

    DEFAULT_CSS = """
    RecallsScreen #recalls-source { height: auto; padding: 0 1; color: $text-muted; }
    RecallsScreen #calls { height: 1fr; }
    RecallsScreen #replay-pane { height: 2fr; border-top: solid $primary; }
    RecallsScreen #replay { padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "app.pop_screen", "Back", id="recalls.back"),
        Binding("enter", "replay", "replay", id="recalls.replay",
                tooltip="Search the call's query again against today's index, or read its memory_get again."),
        Binding("p", "cycle_profile", "profile", id="recalls.profile",
                tooltip="The profile of a search replay: openclaw (the agent's own), memtui, openclaw-2026.4."),
        Binding("t", "toggle_clock", "clock", id="recalls.clock",
                tooltip="Temporal decay measured now, or at the call's own time (then only index changes show)."),
        Binding("j", "cursor('down')", "Down", show=False),
        Binding("k", "cursor('up')", "Up", show=False),
    ]

    def __init__(self, manager: MemoryManager, *, now: datetime | None = None) -> None:
        super().__init__()
        self.manager = manager
        self.now = now
        self.recalls: list[Recall] = []
        self.profile = "openclaw"
        self.at_call_time = False

    def compose(self) -> ComposeResult:
        yield Static("Reading the agent's transcripts…", id="recalls-source")
        yield FittedTable(id="calls", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="replay-pane"):
            yield Static(self._hint(), id="replay")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#calls", DataTable).focus()
        self._load()

    def _hint(self) -> str:
        clock = "the call's own time" if self.at_call_time else "now"
        return f"Enter replays the highlighted call · profile {self.profile} (p) · decay clock: {clock} (t)"

    @work(thread=True, exclusive=True, group="recalls", exit_on_error=False, description="Reading the calls")
    def _load(self) -> None:
        try:
            recalls = agent_recalls(self.manager.env)
        except Exception as exc:
            self.post_message(RecallsLoaded([], str(exc) or type(exc).__name__))
            return
        self.post_message(RecallsLoaded(recalls))

    @on(RecallsLoaded)
    def _loaded(self, message: RecallsLoaded) -> None:
        env = self.manager.env
        source = self.query_one("#recalls-source", Static)
        if message.error:
            source.update(Text(f"Cannot read the agent's calls: {message.error}", style="bold red"))
            return
        self.recalls = message.recalls
        where = (f"OpenClaw 2026.9 agent database {env.generation.path}" if env.generation.name == "2026.9"
                 else f"transcripts in {env.sessions_dir}")
        searches = sum(1 for r in self.recalls if r.tool == "memory_search")
        source.update(f"agent {env.agent_id} · {where} · {len(self.recalls)} memory calls ({searches} "
                      f"memory_search, {len(self.recalls) - searches} memory_get), newest first")
        self._fill_table()
        if not self.recalls:
            self.query_one("#replay", Static).update("The agent has made no memory_search / memory_get call.")

    @on(FittedTable.Resized)
    def _fill_table(self) -> None:
        """The calls in columns that fit the table's width (set, not measured: see the dreams table)."""
        table = self.query_one("#calls", DataTable)
        width = (table.size.width or self.app.size.width) - table.styles.scrollbar_size_vertical
        labels, sizes, rows = fitted_cells([call_cells(recall) for recall in self.recalls], width)
        keep = table.cursor_row
        table.clear(columns=True)
        for label, size in zip(labels, sizes, strict=True):
            table.add_column(label, width=size)
        for recall, row in zip(self.recalls, rows, strict=True):
            table.add_row(*row, key=str(recall.index))
        if self.recalls:
            table.move_cursor(row=min(max(keep, 0), len(self.recalls) - 1), animate=False)

    def action_cursor(self, direction: str) -> None:
        """Move the row cursor (j/k)."""
        table = self.query_one("#calls", DataTable)
        if direction == "down":
            table.action_cursor_down()
        else:
            table.action_cursor_up()

    def action_cycle_profile(self) -> None:
        """The next ranking profile for search replays."""
        self.profile = PROFILES[(PROFILES.index(self.profile) + 1) % len(PROFILES)]
        self.query_one("#replay", Static).update(self._hint())

    def action_toggle_clock(self) -> None:
        """Measure decay now or at the call's time."""
        self.at_call_time = not self.at_call_time
        self.query_one("#replay", Static).update(self._hint())

    @on(DataTable.RowSelected, "#calls")
    def _row_selected(self, _event: DataTable.RowSelected) -> None:
        self.action_replay()

    def action_replay(self) -> None:
        """Replay the highlighted call in a worker."""
        table = self.query_one("#calls", DataTable)
        if not self.recalls or table.cursor_row < 0:
            self.notify("No call to replay.", severity="warning")
            return
        recall = self.recalls[table.cursor_row]
        self.query_one("#replay", Static).update(f"Replaying call #{recall.index}…")
        self._replay(recall, self.profile, self.at_call_time)

    @work(thread=True, exclusive=True, group="replay", exit_on_error=False, description="Replaying")
    def _replay(self, recall: Recall, profile: str, at_call_time: bool) -> None:
        manager = self.manager
        try:
            if recall.tool == "memory_get":
                text = render_get_replay(replay_get(recall, lambda path, start, count: manager.memory_get(
                    path, from_line=start, lines=count)))
            else:
                clock = iso_to_ms(recall.call.called_at) if at_call_time else None
                if clock is None and self.now is not None:
                    clock = int(self.now.timestamp() * 1000)
                result = replay(manager.env, recall, open_manager=lambda _env: _shared(manager), profile=profile,
                                now_ms=clock, sync=False)
                text = render_replay(result)
        except Exception as exc:
            text = f"Cannot replay call #{recall.index}: {exc}"
        self.post_message(ReplayDone(text))

    @on(ReplayDone)
    def _replayed(self, message: ReplayDone) -> None:
        self.query_one("#replay", Static).update(Text(message.text))


def _shared(manager: MemoryManager) -> Any:
    """The app's own manager, handed to a replay without being closed after it."""
    return nullcontext(manager)

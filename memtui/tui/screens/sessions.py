"""The sessions screen: per-session token gauges and flush state, bootstrap truncation, startup context.

For an OpenClaw 2026.4 agent the sessions come from `sessions.json` and the JSONL transcripts; for a 2026.9 agent
from the per-agent database, read-only in a worker (`memtui.tui.widgets.sessions_2026_9`), with 2026.9.6's
thresholds and each session's memory_search / memory_get calls."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TabbedContent, TabPane, TextArea
from textual.worker import Worker, WorkerState

from memtui.agentdb.sessions_budget import SessionBudget
from memtui.context.bootstrap import BootstrapFile, BootstrapReport, bootstrap_report
from memtui.context.sessions import SessionReport, SessionsReport, session_reports
from memtui.context.startup import StartupContext, startup_context
from memtui.settings.agent import AgentEnv
from memtui.tui.widgets.gauge import bytes_gauge, human_bytes, token_gauge, usage_style
from memtui.tui.widgets.sessions_2026_9 import (
    AgentSessions,
    calls_summary,
    fit_columns,
    is_2026_9,
    load_agent_sessions,
    recorded_bootstrap_rows,
    recorded_bootstrap_summary,
    row_cells,
    session_detail,
    short_key,
    source_header,
)
from memtui.tui.widgets.table_fit import Column, FittedTable, Layout, column_widths, fit_layout

_STATE_STYLE = {"due": "bold red", "below": "green", "flushed": "cyan", "blocked": "yellow", "disabled": "dim",
                "size-only": "dim"}


def session_summary(report: SessionReport, soft_tokens: int, width: int = 60) -> Text:
    """The gauge block for one session: numbers, token gauge, transcript gauge (`width` cells), flush state and
    reason."""
    text = Text()
    text.append(f"{report.key}\n", style="bold")
    text.append(f"tokens {report.token_count:,} / window {report.context_window:,} "
                f"({report.context_window_source}) · flush at {report.threshold:,} · soft band "
                f"{report.threshold:,}–{report.threshold + soft_tokens:,}\n")
    text.append_text(token_gauge(report.token_count, report.context_window, report.threshold, soft_tokens,
                                 width=width))
    used = f"{report.percent_used:.1f}% of threshold" if report.percent_used is not None else "no threshold"
    text.append(f"  {used}\n", style=usage_style(report.token_count, report.threshold))
    size = report.transcript_bytes or 0
    text.append(f"transcript {human_bytes(size)} / force flush {human_bytes(report.force_flush_transcript_bytes)}\n")
    text.append_text(bytes_gauge(size, report.force_flush_transcript_bytes, width=width))
    text.append("\nflush: ")
    state_style = usage_style(report.token_count, report.threshold) if report.flush_state == "below" else \
        _STATE_STYLE.get(report.flush_state, "")
    text.append(report.flush_state, style=state_style)
    text.append(f" — {report.flush_reason} · rule {report.flush_rule} · tokens from {report.token_source}"
                f" · compactions {report.compaction_count}")
    return text


def report_columns(agent_id: str) -> list[Column]:
    """The 2026.4 sessions table's columns, in display order."""
    return [
        Column("key", "session", "session", lambda s, short: short_key(s.key, agent_id) if short else s.key, False),
        Column("type", "type", "type", lambda s, _: s.chat_type, False),
        Column("tokens", "tokens", "tokens", lambda s, _: f"{s.token_count:,}"),
        Column("threshold", "threshold", "flush@", lambda s, _: f"{s.threshold:,}"),
        Column("used", "used", "used",
               lambda s, _: f"{s.percent_used:.1f}%" if s.percent_used is not None else "–"),
        Column("flush", "flush", "flush", lambda s, _: s.flush_state, False),
        Column("bytes", "transcript", "size", lambda s, _: human_bytes(s.transcript_bytes or 0)),
    ]


REPORT_DROP_ORDER = ("type", "bytes")  # the gauge below the table names both


def report_cells(session: SessionReport, layout: Layout) -> list[Text]:
    """The cells of one 2026.4 session for `layout`."""
    usage = usage_style(session.token_count, session.threshold)
    styles = {"used": usage, "flush": usage if session.flush_state == "below" else
              _STATE_STYLE.get(session.flush_state, "")}
    return [Text(column.cell(session, layout.short_keys), justify="right" if column.numeric else "left",
                 style=styles.get(column.key, "")) for column in layout.columns]


def bootstrap_summary(report: BootstrapReport, session_key: str | None) -> Text:
    """What the session's Project Context holds: file text injected against its size, and the missing files
    (each injected as a one-line `[MISSING] Expected at: <path>` marker, whose length depends on the path)."""
    present = [f for f in report.files if not f.missing]
    missing = sum(1 for f in report.files if f.missing)
    files = "1 file" if len(present) == 1 else f"{len(present)} files"
    text = (f"{session_key or 'main session'} · {sum(f.injected_chars for f in present):,} of "
            f"{sum(f.raw_chars for f in present):,} chars from {files}")
    if missing:
        text += f" · {missing} missing ([MISSING] marker)"
    text += f" · budget {report.max_chars:,}/file, {report.total_max_chars:,} total"
    return Text(text + (" · minimal" if report.minimal else ""))


def trim_note(entry: BootstrapFile) -> str:
    """What a whole file's injected text lacks against its raw size: the trailing whitespace OpenClaw's `trimEnd()`
    takes off (`, trailing newline trimmed`, `, 3 trailing blanks trimmed`); "" when the sizes are equal."""
    trimmed = entry.trimmed_end
    if not trimmed or entry.raw_chars - entry.injected_chars != len(trimmed):
        return ""
    count = len(trimmed)
    kind = {frozenset("\n"): "newline", frozenset(" "): "space"}.get(frozenset(trimmed), "blank")
    what = f"trailing {kind}" if count == 1 else f"{count} trailing {kind}s"
    return f", {what} trimmed"  # at most 35 cells: the state column's room at 80 columns


class AgentSessionsLoaded(Message):
    """The 2026.9 agent database was read."""

    def __init__(self, data: AgentSessions) -> None:
        super().__init__()
        self.data = data


class SessionsScreen(Screen[None]):
    """Context budgets of every session of the agent."""

    DEFAULT_CSS = """
    SessionsScreen #sessions-source {
        height: auto;
        padding: 0 1;
        color: $text-muted;
    }
    SessionsScreen #session-detail {
        height: 1fr;
    }
    SessionsScreen #session-calls {
        height: auto;
        padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "app.pop_screen", "Back", id="sessions.back"),
        Binding("1", "show_tab('tab-sessions')", "sessions", id="sessions.tab.sessions",
                tooltip="Token use against the flush threshold, flush state and rule."),
        Binding("2", "show_tab('tab-bootstrap')", "bootstrap", id="sessions.tab.bootstrap",
                tooltip="Injected bootstrap files, their truncation and exact text."),
        Binding("3", "show_tab('tab-startup')", "startup", id="sessions.tab.startup",
                tooltip="What /new would inject as startup context."),
        Binding("j", "cursor('down')", "Down", show=False),
        Binding("k", "cursor('up')", "Up", show=False),
    ]

    def __init__(self, env: AgentEnv, *, now: datetime | None = None) -> None:
        super().__init__()
        self.env = env
        self.now = now
        self.report: SessionsReport = session_reports(env, now=now)
        self.startup: StartupContext = startup_context(env, now=now)
        self.bootstrap: BootstrapReport | None = None
        self.agent_db = is_2026_9(env)
        self.agent_sessions: AgentSessions | None = None
        self.agent_layout: Layout | None = None
        self.report_layout: Layout | None = None

    def compose(self) -> ComposeResult:
        """Sessions table + gauges; bootstrap; startup context."""
        with TabbedContent(id="sessions-tabs"):
            with TabPane("Sessions", id="tab-sessions"), Vertical():
                if self.agent_db:
                    yield Static("", id="sessions-source")
                    yield FittedTable(id="sessions-table", cursor_type="row", zebra_stripes=True, classes="agent-db")
                    with VerticalScroll(id="session-detail"):
                        yield Static("", id="session-gauge")
                        yield Static("", id="session-calls")
                else:
                    yield FittedTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
                    yield Static("", id="session-gauge")
            with TabPane("Bootstrap", id="tab-bootstrap"), Vertical():
                yield Static("", id="bootstrap-summary")
                yield DataTable(id="bootstrap-table", cursor_type="row", zebra_stripes=True)
                yield TextArea("", read_only=True, soft_wrap=True, id="bootstrap-preview")
            with TabPane("Startup context", id="tab-startup"), Vertical():
                yield Static("", id="startup-summary")
                yield TextArea("", read_only=True, soft_wrap=True, id="startup-preview")
        yield Footer()

    def on_mount(self) -> None:
        """Fill the tables (a 2026.9 agent's sessions once the worker has read them)."""
        if self.agent_db:
            self._mount_agent_db()
            return
        table = self.query_one("#sessions-table", DataTable)
        self._fill_report_table()
        if not self.report.sessions:
            self.query_one("#session-gauge", Static).update(
                f"No sessions in {self.report.sessions_file}.")
        boot = self.query_one("#bootstrap-table", DataTable)
        for label, key in (("file", "name"), ("raw chars", "raw"), ("injected", "injected"), ("budget", "budget"),
                           ("state", "state")):
            boot.add_column(label, key=key)
        fullest = max(self.report.sessions, key=lambda s: s.percent_used or 0.0, default=None)
        self._show_bootstrap(fullest.key if fullest is not None else None)
        self._show_startup()
        if fullest is not None:
            table.move_cursor(row=self.report.sessions.index(fullest), animate=False)
        table.focus()

    def _mount_agent_db(self) -> None:
        self.query_one("#sessions-source", Static).update(
            f"OpenClaw 2026.9 agent database {self.env.generation.path}, read-only")
        table = self.query_one("#sessions-table", DataTable)
        table.styles.height, table.styles.max_height = "auto", 12  # inline: over app.tcss's 1fr
        gauge = self.query_one("#session-gauge", Static)
        gauge.styles.padding = (0, 1)
        gauge.update("Reading the agent database…")
        boot = self.query_one("#bootstrap-table", DataTable)
        for label, key in (("file", "name"), ("raw chars", "raw"), ("injected", "injected"), ("budget", "budget"),
                           ("state", "state")):
            boot.add_column(label, key=key)
        self.query_one("#bootstrap-summary", Static).update("Reading the agent database…")
        self._show_startup()
        table.focus()
        self._read_agent_db()

    @work(thread=True, exclusive=True, group="agent-sessions", exit_on_error=False,
          description="Reading the agent's sessions")
    def _read_agent_db(self) -> None:
        self.post_message(AgentSessionsLoaded(load_agent_sessions(self.env)))

    @on(Worker.StateChanged)
    def _agent_db_failed(self, event: Worker.StateChanged) -> None:
        """A read that failed in a way the loader did not expect still says so."""
        if event.worker.group == "agent-sessions" and event.state == WorkerState.ERROR:
            self.query_one("#session-gauge", Static).update(
                Text(f"Cannot read the agent database {self.env.generation.path}: {event.worker.error}",
                     style="red"))

    @on(AgentSessionsLoaded)
    def _agent_sessions_loaded(self, event: AgentSessionsLoaded) -> None:
        data = self.agent_sessions = event.data
        self.query_one("#sessions-source", Static).update(source_header(data))
        if data.error:
            self.query_one("#session-gauge", Static).update(Text(data.error, style="red"))
            return
        if not data.sessions:
            self.query_one("#session-gauge", Static).update(f"No sessions in {data.database}.")
            return
        fullest = max(data.sessions, key=lambda s: s.percent_used or 0.0)
        self._fill_agent_table(fullest.session.session_id)

    def _table_width(self) -> int:
        """The cells a table row may use: the screen's width less a vertical scrollbar when rows overflow."""
        table = self.query_one("#sessions-table", DataTable)
        if self.agent_db:
            rows = len(self.agent_sessions.sessions) if self.agent_sessions else 0
            scrollbar = table.styles.scrollbar_size_vertical if rows + 1 > 11 else 0
        else:
            rows = len(self.report.sessions)
            scrollbar = table.styles.scrollbar_size_vertical if rows + 1 > (table.size.height or 14) else 0
        return max(20, (table.size.width or self.app.size.width) - scrollbar)

    def _fill_report_table(self, select: str | None = None) -> None:
        """The 2026.4 sessions, with the columns that fit the width."""
        layout = fit_layout(report_columns(self.env.agent_id), self.report.sessions, self._table_width(),
                            REPORT_DROP_ORDER)
        if layout == self.report_layout:
            return
        self.report_layout = layout
        table = self.query_one("#sessions-table", DataTable)
        table.clear(columns=True)
        for column, width in zip(layout.columns, column_widths(layout, self.report.sessions), strict=True):
            table.add_column(layout.label(column), key=column.key, width=width)
        for session in self.report.sessions:
            table.add_row(*report_cells(session, layout), key=session.key)
        keys = [session.key for session in self.report.sessions]
        if select in keys:
            table.move_cursor(row=keys.index(select), animate=False)

    def _fill_agent_table(self, select: str | None) -> None:
        data = self.agent_sessions
        if data is None or not data.sessions:
            return
        layout = self.agent_layout = fit_columns(data, self._table_width())
        table = self.query_one("#sessions-table", DataTable)
        table.clear(columns=True)
        for column, width in zip(layout.columns, column_widths(layout, data.sessions), strict=True):
            table.add_column(layout.label(column), key=column.key, width=width)
        for row in data.sessions:
            table.add_row(*row_cells(row, layout), key=row.session.session_id)
        ids = [row.session.session_id for row in data.sessions]
        table.move_cursor(row=ids.index(select) if select in ids else 0, animate=False)
        self._show_agent_session()

    @on(FittedTable.Resized)
    def _table_resized(self) -> None:
        """Choose the columns (and the gauges' width) again for the table's new width."""
        if self.agent_db and self.agent_sessions is not None:
            selected = self.selected_agent_session()
            self._fill_agent_table(selected.session.session_id if selected else None)
        elif not self.agent_db:
            selected_report = self.selected_session()
            self._fill_report_table(selected_report.key if selected_report else None)
            self._show_report_session()

    def selected_agent_session(self) -> SessionBudget | None:
        """The 2026.9 session under the cursor."""
        table = self.query_one("#sessions-table", DataTable)
        if self.agent_sessions is None or not table.row_count or not table.columns:
            return None
        row_key, _ = table.coordinate_to_cell_key((table.cursor_row, 0))
        return self.agent_sessions.by_id(str(row_key.value))

    def _show_agent_session(self) -> None:
        row, data = self.selected_agent_session(), self.agent_sessions
        if row is None or data is None:
            return
        width = max(10, min(60, self.size.width - 26))  # border, padding, scrollbar and "  100.0% of window"
        self.query_one("#session-gauge", Static).update(session_detail(row, data, width=width))
        self.query_one("#session-calls", Static).update(calls_summary(row, data))
        self._show_recorded_bootstrap(row)

    def _show_recorded_bootstrap(self, row: SessionBudget) -> None:
        """The bootstrap tab of a 2026.9 session: what OpenClaw recorded it injected, not memtui's estimate."""
        self.query_one("#bootstrap-summary", Static).update(recorded_bootstrap_summary(row))
        table = self.query_one("#bootstrap-table", DataTable)
        table.clear()
        for cells in recorded_bootstrap_rows(row):
            table.add_row(*cells)
        self._preview_workspace_file(0)

    def _preview_workspace_file(self, index: int) -> None:
        """The file as it is in the workspace now (OpenClaw's report keeps only its size)."""
        selected = self.selected_agent_session()
        files = selected.bootstrap.files if selected is not None and selected.bootstrap is not None else []
        if not files:
            return
        name = str(files[max(0, min(index, len(files) - 1))].get("name"))
        path = self.env.workspace_dir / name
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = f"({name} is not in the workspace {self.env.workspace_dir} now)"
        self.query_one("#bootstrap-preview", TextArea).load_text(text)

    def selected_session(self) -> SessionReport | None:
        """The session under the cursor."""
        table = self.query_one("#sessions-table", DataTable)
        if not table.row_count:
            return None
        row_key, _ = table.coordinate_to_cell_key((table.cursor_row, 0))
        return next((s for s in self.report.sessions if s.key == row_key.value), None)

    @on(DataTable.RowHighlighted, "#sessions-table")
    def _session_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        if self.agent_db:
            self._show_agent_session()
            return
        session = self.selected_session()
        if session is None:
            return
        self._show_report_session()
        self._show_bootstrap(session.key)

    def _show_report_session(self) -> None:
        session = self.selected_session()
        if session is not None:
            width = max(10, min(60, self.size.width - 26))  # border, padding and "  100.0% of threshold"
            self.query_one("#session-gauge", Static).update(
                session_summary(session, self.report.settings.soft_threshold_tokens, width=width))

    def _show_bootstrap(self, session_key: str | None) -> None:
        self.bootstrap = bootstrap_report(self.env, session_key=session_key)
        report = self.bootstrap
        self.query_one("#bootstrap-summary", Static).update(bootstrap_summary(report, session_key))
        table = self.query_one("#bootstrap-table", DataTable)
        table.clear()
        for entry in report.files:
            state = "missing" if entry.missing else "skipped" if entry.skipped else \
                "truncated" if entry.truncated else "whole" + trim_note(entry)
            marker = entry.missing and not entry.skipped
            table.add_row(Text(entry.name), Text(f"{entry.raw_chars:,}", justify="right"),
                          Text("marker" if marker else f"{entry.injected_chars:,}", justify="right",
                               style="dim" if marker else ""),
                          Text("–" if entry.missing else f"{entry.file_max_chars:,}", justify="right"),
                          Text(state, style="bold yellow" if state == "truncated" else ""), key=entry.name)
        self._preview_bootstrap(0)

    def _preview_bootstrap(self, index: int) -> None:
        if self.bootstrap is None or not self.bootstrap.files:
            return
        entry = self.bootstrap.files[max(0, min(index, len(self.bootstrap.files) - 1))]
        preview = self.query_one("#bootstrap-preview", TextArea)
        preview.load_text(entry.text)
        marker = next((row for row, line in enumerate(entry.text.splitlines()) if "truncated" in line), None)
        if entry.truncated and marker is not None:
            preview.move_cursor((marker, 0), center=True)

    @on(DataTable.RowHighlighted, "#bootstrap-table")
    def _bootstrap_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.agent_db:
            self._preview_workspace_file(event.cursor_row)
            return
        self._preview_bootstrap(event.cursor_row)

    def _show_startup(self) -> None:
        ctx = self.startup
        loaded = [f.path for f in ctx.files if f.injected]
        summary = (f"/new would inject {len(loaded)} daily file(s) for {', '.join(ctx.dates)} "
                   f"({ctx.timezone})" + (" · truncated" if ctx.truncated else "")
                   if ctx.enabled else "startup context is disabled")
        self.query_one("#startup-summary", Static).update(summary)
        self.query_one("#startup-preview", TextArea).load_text(ctx.text or "(nothing would be injected)")

    def action_show_tab(self, tab: str) -> None:
        """Switch to a tab and focus its table or text."""
        self.query_one("#sessions-tabs", TabbedContent).active = tab
        target = {"tab-sessions": "#sessions-table", "tab-bootstrap": "#bootstrap-table",
                  "tab-startup": "#startup-preview"}[tab]
        self.set_focus(self.query_one(target))

    def action_cursor(self, direction: str) -> None:
        """vim movement in the focused table."""
        focused = self.focused
        if isinstance(focused, DataTable):
            focused.action_cursor_down() if direction == "down" else focused.action_cursor_up()

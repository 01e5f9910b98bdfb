"""The sessions of an OpenClaw 2026.9 agent for the sessions screen: the agent database's sessions with 2026.9.6's
flush and compaction thresholds (`memtui.agentdb.sessions_budget`), each session's memory_search / memory_get
calls, and the table columns that fit the terminal's width without cutting a number."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from memtui.agentdb import sessions_budget as budget
from memtui.agentdb.sessions import MemoryToolCall, memory_tool_calls
from memtui.agentdb.sessions_budget import SessionBudget, session_budgets
from memtui.errors import MemtuiError
from memtui.tui.widgets.gauge import bytes_gauge, human_bytes, token_gauge, usage_style
from memtui.tui.widgets.table_fit import Column, Layout, fit_layout

if TYPE_CHECKING:
    from memtui.settings.agent import AgentEnv

GENERATION = "2026.9"
STATE_STYLE = {"due": "bold red", "soft": "bold yellow", "ok": "green", "flushed": "cyan", "disabled": "dim",
               "unknown": "dim", "ended": "dim"}
TOP_HITS = 3


def is_2026_9(env: AgentEnv) -> bool:
    """The agent keeps its sessions in OpenClaw 2026.9's per-agent database."""
    generation = getattr(env, "generation", None)
    return getattr(generation, "name", None) == GENERATION and getattr(generation, "path", None) is not None


@dataclass(frozen=True)
class AgentSessions:
    """What the screen shows of a 2026.9 agent: its sessions' budgets and memory calls (by session id)."""

    agent_id: str
    database: Path
    soft_threshold_tokens: int
    force_flush_transcript_bytes: int
    enabled: bool
    sessions: list[SessionBudget] = field(default_factory=list)
    calls: dict[str, list[MemoryToolCall]] = field(default_factory=dict)
    error: str | None = None
    calls_error: str | None = None

    def by_id(self, session_id: str) -> SessionBudget | None:
        return next((s for s in self.sessions if s.session.session_id == session_id), None)


def load_agent_sessions(env: AgentEnv) -> AgentSessions:
    """Read the agent database (read-only; blocking: call it from a worker)."""
    flush = env.context.flush
    base = {"agent_id": env.agent_id, "database": Path(env.generation.path),
            "soft_threshold_tokens": flush.soft_threshold_tokens,
            "force_flush_transcript_bytes": flush.force_flush_transcript_bytes, "enabled": flush.enabled}
    try:
        rows = session_budgets(Path(env.generation.path), soft_threshold_tokens=flush.soft_threshold_tokens,
                               force_flush_transcript_bytes=flush.force_flush_transcript_bytes,
                               enabled=flush.enabled, default_context_tokens=env.context.default_context_tokens)
    except MemtuiError as exc:
        return AgentSessions(**base, error=str(exc))
    calls: dict[str, list[MemoryToolCall]] = {}
    calls_error = None
    try:
        for call in memory_tool_calls(Path(env.generation.path)):
            calls.setdefault(call.session_id, []).append(call)
    except (MemtuiError, ValueError) as exc:
        calls_error = str(exc)
    return AgentSessions(**base, sessions=rows, calls=calls, calls_error=calls_error)


# The header ------------------------------------------------------------------------------------------------------

def source_header(data: AgentSessions) -> Text:
    """Where the sessions come from and the rules their numbers follow."""
    text = Text()
    text.append(f"OpenClaw 2026.9 agent database {data.database}, read-only", style="bold")
    text.append(f"\nflush {'enabled' if data.enabled else 'disabled'} · reserve floor fixed at "
                f"{budget.RESERVE_TOKENS_FLOOR:,} (≤ {budget.MAX_COMPACTION_RESERVE_RATIO:.0%} of window) · "
                f"soft threshold {data.soft_threshold_tokens:,} · force flush "
                f"{human_bytes(data.force_flush_transcript_bytes)} ({data.force_flush_transcript_bytes:,} B)")
    windows = sorted({s.plan.context_window for s in data.sessions})
    if len(windows) == 1:
        plan = data.sessions[0].plan
        text.append(f"\nwindow {plan.context_window:,} → compact at {plan.compaction_threshold:,}, flush at "
                    f"{plan.flush_threshold:,}", style="dim")
    return text


# The table -------------------------------------------------------------------------------------------------------

def short_key(key: str | None, agent_id: str) -> str:
    """`agent:main:ops` → `ops` (the header names the agent)."""
    if not key:
        return "–"
    return key.removeprefix(f"agent:{agent_id}:") or key


def _tokens(row: SessionBudget) -> str:
    return "–" if row.token_count is None else f"{row.token_count:,}"


def _used(row: SessionBudget) -> str:
    return "–" if row.percent_used is None else f"{row.percent_used:.1f}%"


def _truncated(row: SessionBudget) -> str:
    boot = row.bootstrap
    if boot is None or boot.truncated_files is None:
        return "–"
    return f"{boot.truncated_files}/{len(boot.files)}"


def columns(agent_id: str) -> list[Column]:
    """Every column, in display order."""
    return [
        Column("key", "session", "session",
               lambda r, short: short_key(r.session.key, agent_id) if short else (r.session.key or "–"), False),
        Column("tokens", "tokens", "tokens", lambda r, _: _tokens(r)),
        Column("window", "window", "window", lambda r, _: f"{r.plan.context_window:,}"),
        Column("flush_at", "flush at", "flush@", lambda r, _: f"{r.plan.flush_threshold:,}"),
        Column("compact_at", "compact at", "compact@", lambda r, _: f"{r.plan.compaction_threshold:,}"),
        Column("used", "used", "used", lambda r, _: _used(r)),
        Column("flush", "flush", "flush", lambda r, _: r.flush_state, False),
        Column("compactions", "compactions", "cmp", lambda r, _: str(r.session.compaction_count)),
        Column("events", "events", "ev", lambda r, _: str(r.session.events)),
        Column("transcript", "transcript", "size", lambda r, _: human_bytes(r.session.active_bytes)),
        Column("truncated", "truncated", "trunc", lambda r, _: _truncated(r)),
    ]


# Dropped first when the row does not fit; the rest always stay (the detail pane shows every number).
DROP_ORDER = ("window", "truncated", "events", "compactions", "transcript")


def fit_columns(data: AgentSessions, width: int) -> Layout:
    """The widest layout whose rows fit `width` cells: long labels and full keys, then short keys, then short
    labels, then columns dropped in `DROP_ORDER` (window first when every session has the same one)."""
    return fit_layout(columns(data.agent_id), data.sessions, width, DROP_ORDER)


def row_cells(row: SessionBudget, layout: Layout) -> list[Text]:
    """The cells of one session for `layout`."""
    cells = []
    for column in layout.columns:
        value = column.cell(row, layout.short_keys)
        style = ""
        if column.key == "flush":
            style = STATE_STYLE.get(row.flush_state, "")
        elif column.key == "used" and row.token_count is not None:
            style = usage_style(row.token_count, row.plan.flush_threshold)
        elif column.key == "truncated" and row.bootstrap is not None and row.bootstrap.truncated_files:
            style = "bold yellow"
        cells.append(Text(value, justify="right" if column.numeric else "left", style=style))
    return cells


# The detail ------------------------------------------------------------------------------------------------------

def _when(ms: int | None) -> str:
    if ms is None:
        return "–"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def session_detail(row: SessionBudget, data: AgentSessions, width: int = 60) -> Text:
    """The gauge block of one session: numbers, token gauge, transcript gauge, flush state and reason, bootstrap."""
    s, plan = row.session, row.plan
    text = Text()
    text.append(f"{s.key or '–'}", style="bold")
    text.append(f" · {s.session_id}" + ("" if s.current else " (replaced)"))
    model = "/".join(part for part in (s.model_provider, s.model) if part)
    text.append(f"\nmodel {model or '–'} · updated {_when(s.updated_at_ms)}\n", style="dim")
    tokens = row.token_count or 0
    text.append(f"tokens {_tokens(row)} / window {plan.context_window:,} ({row.context_window_source}) · "
                f"flush at {plan.flush_threshold:,} · compact at {plan.compaction_threshold:,} · reserve "
                f"{plan.reserve_tokens:,} · soft {plan.soft_threshold_tokens:,}\n")
    text.append_text(token_gauge(tokens, plan.context_window, plan.flush_threshold, plan.soft_threshold_tokens,
                                 width=width))
    text.append(f"  {_used(row)} of window\n", style=usage_style(tokens, plan.flush_threshold)
                if row.token_count is not None else "dim")
    text.append(f"transcript {human_bytes(s.active_bytes)} ({s.active_events} active of {s.events} events, "
                f"{s.compressed_events} zstd) / force flush {human_bytes(row.force_flush_transcript_bytes)}\n")
    text.append_text(bytes_gauge(s.active_bytes, row.force_flush_transcript_bytes, width=width))
    text.append("\nflush: ")
    text.append(row.flush_state, style=STATE_STYLE.get(row.flush_state, ""))
    text.append(f" — {row.flush_reason}")
    text.append(f"\ncompactions {s.compaction_count}")
    if s.memory_flush_compaction_count is not None:
        flush = s.entry.get("memoryFlush") if isinstance(s.entry.get("memoryFlush"), dict) else {}
        kind = flush.get("kind")
        text.append(f" · last flush in cycle {s.memory_flush_compaction_count}"
                    + (f" ({kind})" if isinstance(kind, str) else "")
                    + (f" at {_when(s.memory_flush_at_ms)}" if s.memory_flush_at_ms is not None else ""))
    text.append("\n")
    text.append_text(bootstrap_line(row))
    return text


def bootstrap_line(row: SessionBudget) -> Text:
    """What OpenClaw recorded of the bootstrap files it injected for the session's last run."""
    boot = row.bootstrap
    if boot is None:
        return Text("bootstrap: no report stored", style="dim")
    cut = [f for f in boot.files if f.get("truncated")]
    text = Text(f"bootstrap: {_truncated(row)} files truncated")
    if boot.near_limit_files:
        text.append(f" ({boot.near_limit_files} near the limit)")
    if boot.max_chars is not None:
        text.append(f" · budget {boot.max_chars:,}/file" + (f", {boot.total_max_chars:,} total"
                                                            if boot.total_max_chars is not None else ""))
    for entry in cut:
        text.append(f"\n  {entry.get('name')}: {_chars(entry.get('injectedChars'))} of "
                    f"{_chars(entry.get('rawChars'))} chars", style="bold yellow")
    return text


def _chars(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "?"


def _number(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def call_line(call: MemoryToolCall) -> Text:
    """One memory call: a search's query → hit count and top paths; a get's path → status and size."""
    text = Text()
    if call.tool == "memory_search":
        text.append("search ", style="bold")
        text.append(repr(call.query) if call.query is not None else "(no query)")
        options = [f"{name} {_number(value)}" for name, value in (
            ("max", call.max_results), ("min score", call.min_score), ("corpus", call.corpus)) if value is not None]
        if options:
            text.append(f" ({', '.join(options)})", style="dim")
        if call.result_text is None:
            text.append(" → no result", style="dim")
            return text
        if call.is_error or call.result is None:
            text.append(f" → error: {(call.result_text or '').strip()[:120]}", style="red")
            return text
        hits = call.hits
        text.append(f" → {len(hits)} hit" + ("" if len(hits) == 1 else "s"))
        for hit in hits[:TOP_HITS]:
            start, end = hit.get("startLine"), hit.get("endLine")
            lines = "" if start is None else f":{start}" if end in (None, start) else f":{start}-{end}"
            score = hit.get("score")
            text.append(f"\n    {hit.get('path')}{lines}")
            if isinstance(score, int | float):
                text.append(f" {score:.2f}", style="dim")
        if len(hits) > TOP_HITS:
            text.append(f"\n    … {len(hits) - TOP_HITS} more", style="dim")
        return text
    text.append("get ", style="bold")
    text.append(call.path or "(no path)")
    span = [f"{name} {value}" for name, value in (("from", call.from_line), ("lines", call.lines))
            if value is not None]
    if span:
        text.append(f" ({', '.join(span)})", style="dim")
    if call.result_text is None:
        text.append(" → no result", style="dim")
    elif call.is_error or not isinstance(call.result, dict):
        text.append(f" → error: {(call.result_text or '').strip()[:120]}", style="red")
    else:
        status = call.result.get("status", "ok")
        body = call.result.get("text")
        text.append(f" → {status}" + (f", {len(body):,} chars" if isinstance(body, str) and body else ""),
                    style="" if status == "ok" else "yellow")
    return text


def calls_summary(row: SessionBudget, data: AgentSessions) -> Text:
    """The session's memory_search / memory_get calls, oldest first."""
    if data.calls_error:
        return Text(f"memory calls: cannot read the transcript: {data.calls_error}", style="red")
    calls = data.calls.get(row.session.session_id, [])
    searches = sum(1 for c in calls if c.tool == "memory_search")
    text = Text(f"memory calls: {len(calls)} ({searches} memory_search, {len(calls) - searches} memory_get)",
                style="bold")
    if not calls:
        text.append("\nthis session called no memory tool", style="dim")
    for call in calls:
        text.append("\n")
        text.append_text(call_line(call))
    return text


# The bootstrap tab -----------------------------------------------------------------------------------------------

def file_budget(name: str | None, boot_max_chars: int | None) -> int:
    """The per-file budget 2026.9.6 applies: `bootstrapMaxChars` (USER.md at most USER_BOOTSTRAP_MAX_CHARS)."""
    limit = boot_max_chars if boot_max_chars is not None else budget.BOOTSTRAP_MAX_CHARS
    return min(limit, budget.USER_BOOTSTRAP_MAX_CHARS) if name == "USER.md" else limit


def recorded_bootstrap_summary(row: SessionBudget) -> Text:
    """What OpenClaw injected of the workspace files for the session's last run, as its report records it."""
    key = row.session.key or row.session.session_id
    boot = row.bootstrap
    if boot is None:
        return Text(f"{key} · OpenClaw stored no bootstrap report for this session")
    present = [f for f in boot.files if not f.get("missing")]
    injected = sum(f.get("injectedChars") or 0 for f in present)
    raw = sum(f.get("rawChars") or 0 for f in present)
    generated = row.session.prompt_report.get("generatedAt")
    when = f" ({_when(generated)})" if isinstance(generated, int) else ""
    files = "1 file" if len(present) == 1 else f"{len(present)} files"
    text = f"{key} · as OpenClaw recorded its last run{when} · {injected:,} of {raw:,} chars from {files}"
    missing = len(boot.files) - len(present)
    if missing:
        text += f" · {missing} missing"
    total = boot.total_max_chars or budget.BOOTSTRAP_TOTAL_MAX_CHARS
    text += (f" · {_truncated(row)} truncated · budget {file_budget(None, boot.max_chars):,}/file (USER.md "
             f"{file_budget('USER.md', boot.max_chars):,}), {total:,} total")
    return Text(text)


def recorded_bootstrap_rows(row: SessionBudget) -> list[list[Text]]:
    """One row per injected file: name, raw chars, injected chars, budget, state."""
    boot = row.bootstrap
    rows = []
    for entry in boot.files if boot is not None else []:
        name = entry.get("name")
        state = "missing" if entry.get("missing") else "truncated" if entry.get("truncated") else "whole"
        rows.append([Text(str(name)), Text(_chars(entry.get("rawChars")), justify="right"),
                     Text(_chars(entry.get("injectedChars")), justify="right"),
                     Text(f"{file_budget(name, boot.max_chars):,}", justify="right"),
                     Text(state, style="bold yellow" if state == "truncated" else "")])
    return rows

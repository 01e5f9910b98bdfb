"""The context budget of OpenClaw 2026.9 sessions: compaction and memory-flush thresholds, the transcript-size
trigger and the bootstrap truncation OpenClaw recorded, per session of the agent database.

The rules, as OpenClaw 2026.9.6 ships them (`dist/`, restated, not copied):

* reserve (`extensions/memory-core/index.js`, region `src/flush-plan.ts`, `buildMemoryFlushPlan`): the fixed floor
  `DEFAULT_AGENT_COMPACTION_RESERVE_TOKENS_FLOOR = 20000` (`openclaw-runtime-agent-*.mjs`; the config key
  `agents.defaults.compaction.reserveTokensFloor` is retired), capped by `resolveEffectiveCompactionReserveTokens`
  (`agent-compaction-constants-*.mjs`) at `floor(W · MAX_COMPACTION_RESERVE_RATIO)`, ratio 0.25, for a context
  window W > 0;
* soft threshold: `agents.defaults.compaction.memoryFlush.softThresholdTokens` (default
  `DEFAULT_MEMORY_FLUSH_SOFT_TOKENS = 4000`), then `min(soft, floor((W − reserve) / 2))`;
* compaction threshold (`agent-runner-memory-*.mjs`, region `src/auto-reply/reply/memory-flush.ts`,
  `resolveCompactionThreshold`): `max(0, W − reserve)` (a Responses-API server-compaction threshold can raise it;
  not for chat-completions providers);
* flush threshold (`runMemoryFlushIfNeeded`): `max(0, compactionThreshold − soft)`;
* when: before a turn (`runSessionCompactionIfNeeded`, both `openclaw agent` and channel replies), once the
  session's tokens reach the **compaction** threshold the flush runs as the compaction's `beforeCompaction` step,
  then the session is compacted. The optional post-turn maintenance of a gateway run
  (`src/agents/session-maintenance/run.ts`) calls the flush directly, so there the **flush** threshold applies.
  Either way at most once per compaction cycle (`memoryFlush.compactionCount === compactionCount`);
* transcript size: `forceFlushTranscriptBytes` (default `DEFAULT_MEMORY_FLUSH_FORCE_TRANSCRIPT_BYTES = 2097152`)
  against the JSONL size of the context-eligible active events (`readVisibleTranscriptStats`: the events' UTF-8
  bytes plus one newline each);
* the token count is the SessionEntry's fresh `totalTokens` (the last call's prompt), plus the pending prompt;
* bootstrap truncation (`bootstrap-*.mjs`, region `src/agents/embedded-agent-helpers/bootstrap.ts`):
  `DEFAULT_BOOTSTRAP_MAX_CHARS = 20000` per file, `DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS = 60000` in all, `USER.md`
  at most `USER_BOOTSTRAP_MAX_CHARS = 4000`, files skipped once less than `MIN_BOOTSTRAP_FILE_BUDGET_CHARS = 64`
  remain, a cut keeps head 0.75 / tail 0.25 around a marker; OpenClaw records what it injected in the session's
  `systemPromptReport` (`bootstrapTruncation`, `injectedWorkspaceFiles`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.agentdb.sessions import AgentSession, list_sessions

RESERVE_TOKENS_FLOOR = 20_000
MAX_COMPACTION_RESERVE_RATIO = 0.25
DEFAULT_SOFT_THRESHOLD_TOKENS = 4000
DEFAULT_FORCE_FLUSH_TRANSCRIPT_BYTES = 2 * 1024 * 1024
DEFAULT_CONTEXT_TOKENS = 200_000  # `DEFAULT_CONTEXT_TOKENS` (defaults-*.mjs)
BOOTSTRAP_MAX_CHARS = 20_000
BOOTSTRAP_TOTAL_MAX_CHARS = 60_000
USER_BOOTSTRAP_MAX_CHARS = 4000
MIN_BOOTSTRAP_FILE_BUDGET_CHARS = 64
BOOTSTRAP_HEAD_RATIO = 0.75
BOOTSTRAP_TAIL_RATIO = 0.25


@dataclass(frozen=True)
class FlushPlan:
    """The numbers for one context window."""

    context_window: int
    reserve_tokens: int
    soft_threshold_tokens: int
    compaction_threshold: int
    flush_threshold: int

    def to_json(self) -> dict[str, Any]:
        return {"contextWindow": self.context_window, "reserveTokens": self.reserve_tokens,
                "softThresholdTokens": self.soft_threshold_tokens, "compactionThreshold": self.compaction_threshold,
                "flushThreshold": self.flush_threshold}


def effective_reserve(context_window: int, reserve: int = RESERVE_TOKENS_FLOOR) -> int:
    """`resolveEffectiveCompactionReserveTokens`: the reserve, at most a quarter of the window."""
    window = max(1, math.floor(context_window))
    return min(max(0, math.floor(reserve)), math.floor(window * MAX_COMPACTION_RESERVE_RATIO))


def flush_plan(context_window: int, soft_threshold_tokens: int = DEFAULT_SOFT_THRESHOLD_TOKENS) -> FlushPlan:
    """The reserve, soft threshold and both thresholds OpenClaw 2026.9.6 uses for a window of `context_window`."""
    window = max(0, math.floor(context_window))
    reserve, soft = RESERVE_TOKENS_FLOOR, max(0, math.floor(soft_threshold_tokens))
    if window > 0:
        reserve = effective_reserve(window)
        soft = min(soft, math.floor((window - reserve) / 2))
    compaction = max(0, max(1, window) - max(0, reserve))
    return FlushPlan(window, reserve, soft, compaction, max(0, compaction - max(0, soft)))


@dataclass(frozen=True)
class BootstrapReport:
    """What OpenClaw injected of the workspace files for the session's last run (from `systemPromptReport`)."""

    max_chars: int | None
    total_max_chars: int | None
    truncated_files: int | None
    near_limit_files: int | None
    files: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"bootstrapMaxChars": self.max_chars, "bootstrapTotalMaxChars": self.total_max_chars,
                "truncatedFiles": self.truncated_files, "nearLimitFiles": self.near_limit_files,
                "files": self.files}


def bootstrap_report(report: dict[str, Any]) -> BootstrapReport | None:
    """The bootstrap part of a SessionEntry's `systemPromptReport`, or None."""
    if not report:
        return None
    trunc = report.get("bootstrapTruncation") if isinstance(report.get("bootstrapTruncation"), dict) else {}
    files = []
    for item in report.get("injectedWorkspaceFiles") or []:
        if isinstance(item, dict):
            files.append({"name": item.get("name"), "missing": item.get("missing"), "rawChars": item.get("rawChars"),
                          "injectedChars": item.get("injectedChars"), "truncated": item.get("truncated")})

    def num(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return BootstrapReport(num(report.get("bootstrapMaxChars")), num(report.get("bootstrapTotalMaxChars")),
                           num(trunc.get("truncatedFiles")), num(trunc.get("nearLimitFiles")), files)


@dataclass(frozen=True)
class SessionBudget:
    """One session with its thresholds and flush state."""

    session: AgentSession
    plan: FlushPlan
    context_window_source: str
    token_count: int | None
    pending_prompt_tokens: int
    flush_state: str
    flush_reason: str
    force_flush_transcript_bytes: int
    bootstrap: BootstrapReport | None = None

    @property
    def percent_used(self) -> float | None:
        if self.token_count is None or self.plan.context_window <= 0:
            return None
        return round(100.0 * self.token_count / self.plan.context_window, 1)

    def to_json(self) -> dict[str, Any]:
        return {**self.session.to_json(), **self.plan.to_json(), "contextWindowSource": self.context_window_source,
                "tokenCount": self.token_count, "pendingPromptTokens": self.pending_prompt_tokens,
                "percentUsed": self.percent_used, "forceFlushTranscriptBytes": self.force_flush_transcript_bytes,
                "flushState": self.flush_state, "flushReason": self.flush_reason,
                "bootstrap": self.bootstrap.to_json() if self.bootstrap else None}


def _state(session: AgentSession, plan: FlushPlan, tokens: int | None, force_bytes: int,
           enabled: bool) -> tuple[str, str]:
    if not session.current:
        return "ended", "not the key's current session (a later session replaced it); OpenClaw no longer flushes it"
    if not enabled:
        return "disabled", "agents.defaults.compaction.memoryFlush.enabled is false"
    if session.memory_flush_compaction_count is not None and \
            session.memory_flush_compaction_count == session.compaction_count:
        return "flushed", (f"already flushed in compaction cycle {session.compaction_count}; the next flush waits for "
                           "the next compaction")
    if force_bytes > 0 and session.active_bytes >= force_bytes:
        return "due", f"transcript {session.active_bytes} B ≥ forceFlushTranscriptBytes {force_bytes}"
    if tokens is None:
        return "unknown", "no fresh totalTokens stored for this session"
    if tokens >= plan.compaction_threshold > 0:
        return "due", (f"{tokens} tokens ≥ compaction threshold {plan.compaction_threshold}: the next turn flushes "
                       "memory, then compacts")
    if tokens >= plan.flush_threshold > 0:
        return "soft", (f"{tokens} tokens ≥ flush threshold {plan.flush_threshold}: a gateway's post-turn "
                        f"maintenance flushes; a turn compacts at {plan.compaction_threshold}")
    return "ok", f"{tokens} tokens < flush threshold {plan.flush_threshold}"


def session_budgets(db_path: Path, *, soft_threshold_tokens: int = DEFAULT_SOFT_THRESHOLD_TOKENS,
                    force_flush_transcript_bytes: int = DEFAULT_FORCE_FLUSH_TRANSCRIPT_BYTES,
                    enabled: bool = True, default_context_tokens: int | None = None,
                    pending_prompt_tokens: int = 0) -> list[SessionBudget]:
    """Every session of the agent database with its 2026.9.6 thresholds (newest first).

    The context window is the session's stored `contextTokens` (what OpenClaw resolved for its last run), else
    `default_context_tokens` (`agents.defaults.contextTokens`), else 200000."""
    out = []
    for session in list_sessions(db_path):
        if session.context_tokens:
            window, source = session.context_tokens, "session"
        elif default_context_tokens:
            window, source = default_context_tokens, "agents.defaults.contextTokens"
        else:
            window, source = DEFAULT_CONTEXT_TOKENS, "default"
        plan = flush_plan(window, soft_threshold_tokens)
        tokens = None
        if session.total_tokens is not None and session.total_tokens_fresh is not False:
            tokens = session.total_tokens + (pending_prompt_tokens if session.current else 0)
        state, reason = _state(session, plan, tokens, force_flush_transcript_bytes, enabled)
        out.append(SessionBudget(session, plan, source, tokens, pending_prompt_tokens if session.current else 0,
                                 state, reason, force_flush_transcript_bytes, bootstrap_report(session.prompt_report)))
    return out

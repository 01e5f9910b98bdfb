"""Per-session context budget from `sessions.json` and transcripts: tokens, flush threshold, flush state.

Implements §6.5 (SessionEntry), §7.1–7.3 (config, threshold, token estimate) and §7.5 (one flush per
compaction cycle) of the OpenClaw 2026.4 behaviour.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.context.bootstrap import utf16_len
from memtui.context.flush_gate import (
    RULE_BELOW,
    RULE_DISABLED,
    RULE_ONCE_PER_CYCLE,
    RULE_SANDBOX,
    RULE_TOKEN_GATE,
    RULE_TOKEN_GATE_OFF,
    RULE_TRANSCRIPT_SIZE,
    GateDecision,
    GateInputs,
    Usage,
    decide,
    usage_of_record,
)
from memtui.context.flush_prompts import FlushPrompts, build_flush_prompts
from memtui.issues import FileIssue
from memtui.jscompat import js_trim, parse_json
from memtui.settings.agent import AgentEnv
from memtui.settings.context import ContextSettings, FlushSettings
from memtui.settings.providers import catalog_context_window

if TYPE_CHECKING:
    from memtui.settings.providers import ModelProviders

DEFAULT_CONTEXT_WINDOW = 200_000
TAIL_BLOCK_BYTES = 64 * 1024
SESSIONS_FILENAME = "sessions.json"

_ARCHIVE = re.compile(r"\.(reset|deleted|bak)\.")


@dataclass(frozen=True)
class TranscriptScan:
    """What a backwards read of a transcript found: its size, the last usage, and unparsable lines."""

    size: int
    usage: Usage | None
    broken_lines: int = 0
    first_broken_line: int | None = None


def _line_number_at(path: Path, offset: int) -> int:
    newlines = 0
    with open(path, "rb") as handle:
        done = 0
        while done < offset:
            block = handle.read(min(TAIL_BLOCK_BYTES, offset - done))
            if not block:
                break
            newlines += block.count(b"\n")
            done += len(block)
    return newlines + 1


def scan_transcript(path: Path) -> TranscriptScan:
    """Read a JSONL transcript backwards in 64 KiB blocks up to the last non-zero usage record.

    Unparsable lines met on the way are counted (the first one's line number is reported).
    Raises OSError when the file cannot be read.
    """
    broken_offsets: list[int] = []
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        position = size
        carry = b""
        while position > 0:
            start = max(0, position - TAIL_BLOCK_BYTES)
            handle.seek(start)
            lines = (handle.read(position - start) + carry).split(b"\n")
            carry = lines.pop(0) if start > 0 else b""
            offset = start + len(carry) + 1 if start > 0 else 0
            starts = []
            for line in lines:
                starts.append(offset)
                offset += len(line) + 1
            for line, line_start in zip(reversed(lines), reversed(starts), strict=True):
                text = line.strip()
                if not text:
                    continue
                try:
                    record = parse_json(text)
                except ValueError:
                    broken_offsets.append(line_start)
                    continue
                usage = usage_of_record(record)
                if usage is not None:
                    return _scan_result(path, size, usage, broken_offsets)
            position = start
    return _scan_result(path, size, None, broken_offsets)


def _scan_result(path: Path, size: int, usage: Usage | None, broken: list[int]) -> TranscriptScan:
    if not broken:
        return TranscriptScan(size, usage)
    return TranscriptScan(size, usage, len(broken), _line_number_at(path, min(broken)))


def estimate_prompt_tokens(text: str | None) -> int:
    """pi's chars/4 heuristic for the next user prompt: `ceil(chars / 4)` of the trimmed text."""
    trimmed = js_trim(text or "")
    return math.ceil(utf16_len(trimmed) / 4) if trimmed else 0


def chat_type_of(key: str, entry: dict[str, Any]) -> str:
    """`chatType` from the entry, else derived from the session key."""
    value = entry.get("chatType")
    if isinstance(value, str) and value.strip():
        return value.strip()
    lowered = key.lower()
    if "subagent:" in lowered:
        return "subagent"
    if lowered.startswith("cron:") or ":cron:" in lowered:
        return "cron"
    if ":group:" in lowered:
        return "group"
    if ":channel:" in lowered:
        return "channel"
    if lowered.startswith("hook:"):
        return "hook"
    return "direct"


def is_sandboxed(mode: str, session_key: str, main_key: str) -> bool:
    """Whether OpenClaw runs this session in its sandbox."""
    if mode == "off":
        return False
    if mode == "all":
        return True
    return session_key.strip() != main_key


@dataclass(frozen=True)
class ContextWindow:
    """A context window in tokens and where the number came from."""

    tokens: int
    source: str


def session_model(settings: ContextSettings, entry: dict[str, Any]) -> tuple[str | None, str | None]:
    """(provider, model) the session's next turn runs on: its overrides, its last model, else the default."""
    provider = entry.get("providerOverride") or entry.get("modelProvider")
    model = entry.get("modelOverride") or entry.get("model")
    if not isinstance(model, str) or not model.strip():
        provider, model = settings.default_model
    elif not isinstance(provider, str) and "/" in model.strip()[1:]:
        provider, model = model.strip().split("/", 1)
    return (provider.strip() if isinstance(provider, str) and provider.strip() else None,
            model.strip() if isinstance(model, str) and model.strip() else None)


def resolve_context_window(settings: ContextSettings, providers: ModelProviders,
                           entry: dict[str, Any]) -> ContextWindow:
    """The flush path's window (OpenClaw's `resolveContextTokensForModel`): `agents.defaults.contextTokens`
    when set, else the configured catalog (`models.providers.<p>.models[id]`, then the provider's own
    `contextTokens`/`contextWindow`), else 200000. `agents.list[].contextTokens` and a `sessions.json`
    `contextTokens` do not count."""
    if settings.default_context_tokens:
        return ContextWindow(settings.default_context_tokens, "agents.defaults.contextTokens")
    provider, model = session_model(settings, entry)
    if provider and model:
        found = catalog_context_window(providers, provider, model)
        if found is not None:
            return ContextWindow(found[0], found[1])
    return ContextWindow(DEFAULT_CONTEXT_WINDOW, "default")


@dataclass(frozen=True)
class SessionReport:
    """One session's context budget and pre-compaction flush state."""

    key: str
    session_id: str | None
    chat_type: str
    updated_at: int | None
    transcript_path: str | None
    transcript_bytes: int | None
    persisted_total_tokens: int | None
    persisted_fresh: bool
    usage_prompt_tokens: int | None
    usage_output_tokens: int | None
    pending_prompt_tokens: int
    token_count: int
    context_window: int
    context_window_source: str
    threshold: int
    percent_used: float | None
    force_flush_transcript_bytes: int
    flush_by_tokens: bool
    flush_by_bytes: bool
    would_flush: bool
    already_flushed: bool
    flush_state: str
    flush_reason: str
    flush_rule: str
    token_source: str
    compaction_count: int
    memory_flush_compaction_count: int | None
    memory_flush_at: int | None
    sandboxed: bool
    workspace_access: str | None

    def to_json(self) -> dict[str, Any]:
        """camelCase shape (SessionEntry names where they exist)."""
        return {
            "key": self.key,
            "sessionId": self.session_id,
            "chatType": self.chat_type,
            "updatedAt": self.updated_at,
            "transcriptPath": self.transcript_path,
            "transcriptBytes": self.transcript_bytes,
            "totalTokens": self.persisted_total_tokens,
            "totalTokensFresh": self.persisted_fresh,
            "usagePromptTokens": self.usage_prompt_tokens,
            "usageOutputTokens": self.usage_output_tokens,
            "pendingPromptTokens": self.pending_prompt_tokens,
            "tokenCount": self.token_count,
            "contextWindow": self.context_window,
            "contextWindowSource": self.context_window_source,
            "threshold": self.threshold,
            "percentUsed": self.percent_used,
            "forceFlushTranscriptBytes": self.force_flush_transcript_bytes,
            "flushByTokens": self.flush_by_tokens,
            "flushByBytes": self.flush_by_bytes,
            "wouldFlush": self.would_flush,
            "alreadyFlushed": self.already_flushed,
            "flushState": self.flush_state,
            "flushReason": self.flush_reason,
            "flushRule": self.flush_rule,
            "tokenSource": self.token_source,
            "compactionCount": self.compaction_count,
            "memoryFlushCompactionCount": self.memory_flush_compaction_count,
            "memoryFlushAt": self.memory_flush_at,
            "sandboxed": self.sandboxed,
            "workspaceAccess": self.workspace_access,
        }


@dataclass(frozen=True)
class SessionsReport:
    """Every session of an agent, the flush settings and prompts used, and the problems found."""

    agent_id: str
    sessions_file: str
    settings: FlushSettings
    prompts: FlushPrompts
    sessions: list[SessionReport] = field(default_factory=list)
    issues: list[FileIssue] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """camelCase shape of `memtui sessions --json`."""
        return {
            "agentId": self.agent_id,
            "sessionsFile": self.sessions_file,
            "memoryFlush": {**self.settings.to_json(), **self.prompts.to_json()},
            "sessions": [s.to_json() for s in self.sessions],
            "issues": [i.to_json() for i in self.issues],
        }


def transcript_path_for(sessions_dir: Path, entry: dict[str, Any]) -> Path | None:
    """`sessionFile` (relative paths against the sessions dir), else `<sessionId>.jsonl`."""
    session_file = entry.get("sessionFile")
    if isinstance(session_file, str) and session_file.strip():
        candidate = Path(os.path.expanduser(session_file.strip()))
        return candidate if candidate.is_absolute() else sessions_dir / candidate
    session_id = entry.get("sessionId")
    if isinstance(session_id, str) and session_id.strip():
        return sessions_dir / f"{session_id.strip()}.jsonl"
    return None


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return int(value)


_STATES = {RULE_TOKEN_GATE: "due", RULE_TRANSCRIPT_SIZE: "due", RULE_BELOW: "below", RULE_ONCE_PER_CYCLE: "flushed",
           RULE_SANDBOX: "blocked", RULE_DISABLED: "disabled", RULE_TOKEN_GATE_OFF: "size-only"}


def _read_transcript(path: Path | None, key: str, issues: list[FileIssue]) -> TranscriptScan | None:
    if path is None:
        return None
    if path.exists() and not path.is_file():
        issues.append(FileIssue(str(path), f"transcript of session {key} is not a regular file; not read"))
        return None
    try:
        scan = scan_transcript(path)
    except FileNotFoundError:
        issues.append(FileIssue(str(path), f"transcript of session {key} not found"))
        return None
    except OSError as exc:
        issues.append(FileIssue(str(path), f"transcript of session {key} cannot be read: {exc.strerror}"))
        return None
    if scan.broken_lines:
        issues.append(FileIssue(str(path), f"{scan.broken_lines} line(s) of session {key}'s transcript are "
                                           "not valid JSON; they were skipped", scan.first_broken_line))
    return scan


def _gate(env: AgentEnv, key: str, entry: dict[str, Any], settings: FlushSettings, window: ContextWindow,
          pending: int, scan: TranscriptScan | None) -> tuple[GateDecision, bool, str | None]:
    access = env.context.workspace_access
    sandboxed = is_sandboxed(env.context.sandbox_mode, key, env.context.main_session_key)
    inputs = GateInputs(
        enabled=settings.enabled, writable=not sandboxed or access == "rw", context_window=window.tokens,
        reserve_tokens_floor=settings.reserve_tokens_floor, soft_threshold_tokens=settings.soft_threshold_tokens,
        force_flush_transcript_bytes=settings.force_flush_transcript_bytes, total_tokens=entry.get("totalTokens"),
        total_tokens_fresh=entry.get("totalTokensFresh"), pending_prompt_tokens=pending,
        compaction_count=entry.get("compactionCount"),
        memory_flush_compaction_count=entry.get("memoryFlushCompactionCount"))
    decision = decide(inputs, lambda: scan.usage if scan else None, lambda: scan.size if scan else None)
    return decision, sandboxed, access if sandboxed else None


def session_report(env: AgentEnv, key: str, entry: dict[str, Any], settings: FlushSettings, *,
                   pending_prompt: str | None = None) -> tuple[SessionReport, list[FileIssue]]:
    """One session's report, with the rule that decided its flush state, and the problems met reading it."""
    issues: list[FileIssue] = []
    path = transcript_path_for(Path(env.sessions_dir), entry)
    scan = _read_transcript(path, key, issues)
    pending = estimate_prompt_tokens(pending_prompt)
    window = resolve_context_window(env.context, env.providers, entry)
    decision, sandboxed, access = _gate(env, key, entry, settings, window, pending, scan)
    total = _int_or_none(entry.get("totalTokens"))
    usage = decision.usage
    report = SessionReport(
        key=key,
        session_id=entry.get("sessionId") if isinstance(entry.get("sessionId"), str) else None,
        chat_type=chat_type_of(key, entry),
        updated_at=_int_or_none(entry.get("updatedAt")),
        transcript_path=str(path) if path else None,
        transcript_bytes=scan.size if scan else None,
        persisted_total_tokens=total,
        persisted_fresh=entry.get("totalTokensFresh") is True,
        usage_prompt_tokens=usage.prompt_tokens if usage else None,
        usage_output_tokens=usage.output_tokens if usage else None,
        pending_prompt_tokens=pending,
        token_count=decision.token_count,
        context_window=window.tokens,
        context_window_source=window.source,
        threshold=decision.threshold,
        percent_used=round(100 * decision.token_count / decision.threshold, 1) if decision.threshold > 0 else None,
        force_flush_transcript_bytes=settings.force_flush_transcript_bytes,
        flush_by_tokens=decision.by_tokens,
        flush_by_bytes=decision.by_bytes,
        would_flush=decision.would_flush,
        already_flushed=decision.already_flushed,
        flush_state=_STATES[decision.rule],
        flush_reason=decision.reason,
        flush_rule=decision.rule,
        token_source=decision.token_source,
        compaction_count=_int_or_none(entry.get("compactionCount")) or 0,
        memory_flush_compaction_count=_int_or_none(entry.get("memoryFlushCompactionCount")),
        memory_flush_at=_int_or_none(entry.get("memoryFlushAt")),
        sandboxed=sandboxed,
        workspace_access=access,
    )
    return report, issues


def load_session_entries(sessions_dir: Path) -> tuple[dict[str, dict[str, Any]], list[FileIssue]]:
    """`sessions.json` entries by key; a corrupt file or entry becomes an issue naming it.

    When `sessions.json` cannot be read, each primary transcript in the folder is listed under its file name
    so its token use is still visible.
    """
    store = sessions_dir / SESSIONS_FILENAME
    issues: list[FileIssue] = []
    try:
        text = store.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError) as exc:
        issues.append(FileIssue(str(store), f"cannot read sessions.json: {exc}"))
        return _orphan_entries(sessions_dir), issues
    try:
        data = parse_json(text)
    except json.JSONDecodeError as exc:
        issues.append(FileIssue(str(store), f"sessions.json is not valid JSON ({exc.msg} at line "
                                            f"{exc.lineno} column {exc.colno}); showing transcripts found on "
                                            "disk instead",
                                exc.lineno))
        return _orphan_entries(sessions_dir), issues
    if not isinstance(data, dict):
        issues.append(FileIssue(str(store), "sessions.json must hold an object keyed by session key; "
                                            "showing transcripts found on disk instead"))
        return _orphan_entries(sessions_dir), issues
    entries = {}
    for key, entry in data.items():
        if isinstance(entry, dict):
            entries[key] = entry
        else:
            issues.append(FileIssue(str(store), f"session {key!r} is not an object; skipped"))
    return entries, issues


def _orphan_entries(sessions_dir: Path) -> dict[str, dict[str, Any]]:
    entries = {}
    for path in sorted(sessions_dir.glob("*.jsonl")):
        name = path.name
        if _ARCHIVE.search(name) or ".checkpoint." in name or name.endswith(".trajectory.jsonl"):
            continue
        entries[name] = {"sessionFile": str(path), "sessionId": name.removesuffix(".jsonl")}
    return entries


def session_reports(env: AgentEnv, *, now: datetime | None = None,
                    pending_prompt: str | None = None) -> SessionsReport:
    """Every session of the agent, newest first, with the flush settings and prompts in force at `now`."""
    settings, issues = env.context.flush, list(env.context.flush_issues)
    prompts = build_flush_prompts(env.context, now=now)
    entries, store_issues = load_session_entries(Path(env.sessions_dir))
    issues.extend(store_issues)
    reports = []
    for key, entry in entries.items():
        report, found = session_report(env, key, entry, settings, pending_prompt=pending_prompt)
        reports.append(report)
        issues.extend(found)
    reports.sort(key=lambda r: (-(r.updated_at or 0), r.key))
    return SessionsReport(
        agent_id=env.agent_id,
        sessions_file=str(Path(env.sessions_dir) / SESSIONS_FILENAME),
        settings=settings,
        prompts=prompts,
        sessions=reports,
        issues=issues,
    )

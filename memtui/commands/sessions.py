"""`memtui sessions`: per-session token use against the pre-compaction flush threshold.

For an OpenClaw 2026.4 agent the sessions come from `sessions.json` and the JSONL transcripts
(`memtui.context.sessions`); for a 2026.9 agent from the per-agent database, read-only, with 2026.9.6's thresholds
(`memtui.agentdb.sessions_budget`)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memtui.commands.args import agent_from_args
from memtui.errors import MemtuiError

if TYPE_CHECKING:
    from memtui.agentdb.sessions_budget import SessionBudget
    from memtui.context.sessions import SessionsReport
    from memtui.settings.agent import AgentEnv


def parse_now(value: str | None) -> datetime | None:
    """`--now` as an ISO-8601 timestamp (UTC when it has no offset)."""
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise MemtuiError(f"--now {value!r} is not an ISO-8601 time",
                          "e.g. 2026-04-30T09:15:00+02:00") from exc


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `sessions` subcommand."""
    p = subparsers.add_parser("sessions", parents=parents,
                              help="token use and memory-flush state per session")
    p.add_argument("--json", action="store_true", help="print JSON (camelCase keys, like OpenClaw)")
    p.add_argument("--prompt", metavar="TEXT", help="count a pending user prompt (chars/4) in the estimate")
    p.add_argument("--prompts", action="store_true", help="also print the flush prompts that would be sent")
    p.add_argument("--now", metavar="ISO", help="evaluate at this time instead of now")
    p.set_defaults(func=run)


def _size(count: int | None) -> str:
    if count is None:
        return "-"
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count / 1024 / 1024:.1f} MiB"


def render(report: SessionsReport, *, prompts: bool = False) -> str:
    """The human table."""
    s = report.settings
    lines = [
        f"agent {report.agent_id} · {report.sessions_file}",
        f"memory flush: {'enabled' if s.enabled else 'disabled'}"
        f" · reserveTokensFloor {s.reserve_tokens_floor}"
        f" · softThresholdTokens {s.soft_threshold_tokens} · forceFlushTranscriptBytes "
        f"{s.force_flush_transcript_bytes}",
    ]
    if not report.sessions:
        lines.append("no sessions")
    else:
        header = ("KEY", "TYPE", "TOKENS", "THRESHOLD", "USED", "FLUSH", "RULE", "COMPACT", "TRANSCRIPT", "REASON")
        rows = [header]
        for r in report.sessions:
            rows.append((
                r.key, r.chat_type, str(r.token_count), str(r.threshold),
                f"{r.percent_used:.1f}%" if r.percent_used is not None else "-",
                r.flush_state, r.flush_rule, str(r.compaction_count), _size(r.transcript_bytes), r.flush_reason,
            ))
        widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
        for row in rows:
            cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])]
            lines.append("  ".join([*cells, row[-1]]).rstrip())
    if prompts:
        p = report.prompts
        lines += ["", f"flush prompt ({p.relative_path}, {p.timezone}):", p.prompt, "",
                  "flush system prompt:", p.system_prompt]
    return "\n".join(lines)


def report_2026_9(env: AgentEnv, pending_prompt: str | None = None) -> dict[str, Any]:
    """The `sessions --json` value for a 2026.9 agent: its database's sessions with 2026.9.6's numbers."""
    from memtui.agentdb import sessions_budget as budget
    from memtui.context.bootstrap import resolve_budgets
    from memtui.context.sessions import estimate_prompt_tokens

    flush = env.context.flush
    max_chars, total_max_chars = resolve_budgets(env.context, "2026.9")
    pending = estimate_prompt_tokens(pending_prompt) if pending_prompt else 0
    rows = budget.session_budgets(env.generation.path, soft_threshold_tokens=flush.soft_threshold_tokens,
                                  force_flush_transcript_bytes=flush.force_flush_transcript_bytes,
                                  enabled=flush.enabled, default_context_tokens=env.context.default_context_tokens,
                                  pending_prompt_tokens=pending)
    return {
        "agentId": env.agent_id,
        "generation": env.generation.name,
        "database": str(env.generation.path),
        "memoryFlush": {"enabled": flush.enabled, "softThresholdTokens": flush.soft_threshold_tokens,
                        "forceFlushTranscriptBytes": flush.force_flush_transcript_bytes,
                        "reserveTokensFloor": budget.RESERVE_TOKENS_FLOOR,
                        "maxReserveRatio": budget.MAX_COMPACTION_RESERVE_RATIO, "model": flush.model},
        "bootstrap": {"maxChars": max_chars, "totalMaxChars": total_max_chars,
                      "userMdMaxChars": min(max_chars, budget.USER_BOOTSTRAP_MAX_CHARS),
                      "minFileBudgetChars": budget.MIN_BOOTSTRAP_FILE_BUDGET_CHARS,
                      "headRatio": budget.BOOTSTRAP_HEAD_RATIO, "tailRatio": budget.BOOTSTRAP_TAIL_RATIO},
        "sessions": [row.to_json() for row in rows],
        "_rows": rows,
    }


def _trunc(row: SessionBudget) -> str:
    boot = row.bootstrap
    if boot is None or boot.truncated_files is None:
        return "-"
    return f"{boot.truncated_files}/{len(boot.files)}" + (f" ({boot.near_limit_files} near)"
                                                          if boot.near_limit_files else "")


def render_2026_9(report: dict[str, Any]) -> str:
    """The human table for a 2026.9 agent."""
    f, b = report["memoryFlush"], report["bootstrap"]
    lines = [
        f"agent {report['agentId']} · OpenClaw 2026.9 agent database {report['database']}",
        f"memory flush: {'enabled' if f['enabled'] else 'disabled'} · reserveTokensFloor {f['reserveTokensFloor']} "
        f"(fixed, ≤ {f['maxReserveRatio']:g}·window) · softThresholdTokens {f['softThresholdTokens']} · "
        f"forceFlushTranscriptBytes {f['forceFlushTranscriptBytes']}",
        "  before a turn the flush runs as the first step of compaction (TURN FLUSH AT = window − reserve); a "
        "gateway's post-turn maintenance flushes at MAINT FLUSH AT (that − softThresholdTokens)",
        f"bootstrap: {b['maxChars']} chars per file (USER.md {b['userMdMaxChars']}) · {b['totalMaxChars']} in all",
    ]
    rows: list[SessionBudget] = report["_rows"]
    if not rows:
        lines.append("no sessions")
        return "\n".join(lines)
    header = ("KEY", "SESSION", "TOKENS", "WINDOW", "TURN FLUSH AT", "MAINT FLUSH AT", "USED", "FLUSH", "EVENTS",
              "TRANSCRIPT", "TRUNCATED", "REASON")
    table = [header]
    for r in rows:
        s = r.session
        table.append((
            s.key or "-", s.session_id[:8] + ("" if s.current else " (old)"),
            "-" if r.token_count is None else str(r.token_count), str(r.plan.context_window),
            str(r.plan.compaction_threshold), str(r.plan.flush_threshold),
            f"{r.percent_used:.1f}%" if r.percent_used is not None else "-", r.flush_state, str(s.events),
            _size(s.active_bytes), _trunc(r), r.flush_reason,
        ))
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    for row in table:
        lines.append("  ".join([*(cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])), row[-1]]).rstrip())
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Print the sessions report; problems go to stderr and make the exit status 1."""
    from memtui.context.sessions import session_reports

    env = agent_from_args(args)
    if env.generation.name == "2026.9":
        value = report_2026_9(env, pending_prompt=args.prompt)
        if args.json:
            print(json.dumps({k: v for k, v in value.items() if not k.startswith("_")}, ensure_ascii=False,
                             indent=2))
        else:
            print(render_2026_9(value))
        return 0
    report = session_reports(env, now=parse_now(args.now), pending_prompt=args.prompt)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(render(report, prompts=args.prompts))
    for issue in report.issues:
        where = f"{issue.path}:{issue.line}" if issue.line else issue.path
        print(f"memtui: error: {where}: {issue.reason}", file=sys.stderr)
    return 1 if report.issues else 0

"""`memtui sessions`: per-session token use against the pre-compaction flush threshold."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import TYPE_CHECKING

from memtui.commands.args import agent_from_args
from memtui.errors import MemtuiError

if TYPE_CHECKING:
    from memtui.context.sessions import SessionsReport


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


def run(args: argparse.Namespace) -> int:
    """Print the sessions report; problems go to stderr and make the exit status 1."""
    from memtui.context.sessions import session_reports

    env = agent_from_args(args)
    report = session_reports(env, now=parse_now(args.now), pending_prompt=args.prompt)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(render(report, prompts=args.prompts))
    for issue in report.issues:
        where = f"{issue.path}:{issue.line}" if issue.line else issue.path
        print(f"memtui: error: {where}: {issue.reason}", file=sys.stderr)
    return 1 if report.issues else 0

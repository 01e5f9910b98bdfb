"""`memtui context`: the bootstrap files a session gets, how they are cut, and the `/new` prelude."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from memtui.commands.args import agent_from_args
from memtui.commands.sessions import parse_now
from memtui.context.bootstrap import VARIANTS, BootstrapReport, bootstrap_report
from memtui.context.bootstrap_2026_9 import USER_MAX_CHARS

if TYPE_CHECKING:
    from memtui.context.startup import StartupContext


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `context` subcommand."""
    p = subparsers.add_parser("context", parents=parents, help="bootstrap injection and startup context")
    p.add_argument("--json", action="store_true", help="print JSON (camelCase keys)")
    p.add_argument("--session", metavar="KEY",
                   help="session key (sub-agent and cron keys get the minimal set)")
    p.add_argument("--show-text", action="store_true", help="print the exact injected text")
    p.add_argument("--variant", choices=VARIANTS,
                   help="OpenClaw's bootstrap rules (default: the agent's generation, 2026.9 or 2026.4)")
    p.add_argument("--now", metavar="ISO", help="pick startup daily files as of this time")
    p.set_defaults(func=run)


def render_bootstrap(report: BootstrapReport, *, show_text: bool) -> list[str]:
    """The bootstrap table (and texts)."""
    lines = [
        f"bootstrap ({report.variant}): per file {report.max_chars}"
        f"{f' (USER.md {min(report.max_chars, USER_MAX_CHARS)})' if report.variant == '2026.9' else ''}, "
        f"total {report.total_max_chars}"
        f"{' · minimal set (sub-agent/cron)' if report.minimal else ''}",
    ]
    rows = [("FILE", "RAW", "INJECTED", "STATE")]
    for f in report.files:
        state = ("skipped (budget)" if f.skipped else "missing" if f.missing
                 else "truncated" if f.truncated else "whole")
        rows.append((f.name, str(f.raw_chars), str(f.injected_chars), state))
    rows.append(("total", str(report.total_raw), str(report.total_injected), ""))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        lines.append("  ".join([row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2].rjust(widths[2]),
                                row[3]]).rstrip())
    lines += [f"warning: {w}" for w in report.warnings]
    lines += [f"note: {f.name}: cut {f.surrogate_units_dropped} UTF-16 unit(s) shorter than OpenClaw, which "
              "slices inside an emoji and leaves lone surrogates; memtui keeps the pair whole, so the budget left "
              f"for the next files is {f.surrogate_units_dropped} larger"
              for f in report.files if f.surrogate_units_dropped]
    if show_text:
        for f in report.files:
            if f.text:
                lines += ["", f"----- {f.path} ({f.injected_chars} chars) -----", f.text]
    return lines


def render_startup(context: StartupContext, *, show_text: bool) -> list[str]:
    """The startup-context summary (and text)."""
    state = "enabled" if context.enabled else "disabled"
    lines = [f"startup context on /{' /'.join(context.apply_on)} ({state}, {context.timezone}): "
             f"dates {', '.join(context.dates)}"]
    for f in context.files:
        flag = "injected" if f.injected else "not injected"
        cut = ", truncated" if f.truncated else ""
        lines.append(f"  {f.path}: {f.status} ({f.raw_chars} chars) · {flag}{cut}")
    if context.truncated:
        lines.append("  total budget reached: later files dropped")
    if show_text and context.text is not None:
        lines += ["", "----- startup context -----", context.text]
    return lines


def run(args: argparse.Namespace) -> int:
    """Print the bootstrap report and startup context."""
    from memtui.context.startup import startup_context

    env = agent_from_args(args)
    report = bootstrap_report(env, session_key=args.session, variant=args.variant)
    startup = startup_context(env, now=parse_now(args.now))
    if args.json:
        data = {"bootstrap": report.to_json(include_text=args.show_text), "startupContext": startup.to_json()}
        if not args.show_text:
            data["startupContext"].pop("text")
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    print("\n".join([*render_bootstrap(report, show_text=args.show_text), "",
                     *render_startup(startup, show_text=args.show_text)]))
    return 0

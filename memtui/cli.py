"""`memtui ...`: the command line. Each subcommand lives in `memtui/commands/<name>.py`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from memtui import __version__
from memtui.agent import AgentEnv, resolve_agent
from memtui.errors import MemtuiError

# Modules under memtui.commands, each with `register(subparsers, parents)`.
COMMAND_MODULES = (
    "status",
    "index",
    "search",
    "get",
    "watch",
    "sessions",
    "context",
    "promote",
    "promote_explain",
    "rem_backfill",
    "dream",
    "demo",
    "eval",
    "model",
    "mcp",
)


def common_parser(*, for_subcommand: bool = False) -> argparse.ArgumentParser:
    """The options every subcommand accepts (on a subcommand they never override values given before it)."""
    parser = argparse.ArgumentParser(add_help=False)
    default = argparse.SUPPRESS if for_subcommand else None
    group = parser.add_argument_group("agent")
    group.add_argument("--state-dir", metavar="DIR", default=default,
                       help="OpenClaw state dir (default ~/.openclaw)")
    group.add_argument("--workspace", metavar="DIR", default=default,
                       help="memory workspace (default: the agent's workspace)")
    group.add_argument("--agent", metavar="ID", default=default,
                       help="agent id (default: the configured default agent)")
    group.add_argument("--config", metavar="FILE", default=default,
                       help="openclaw.json to read (default <state>/openclaw.json)")
    group.add_argument("--provider", metavar="ID", default=default,
                       help="embedding provider override; 'none' means FTS-only")
    group.add_argument("--store", metavar="FILE", default=default,
                       help="index file (default <state>/memtui/<agent>.sqlite)")
    group.add_argument("--read-only", action="store_true", default=argparse.SUPPRESS if for_subcommand else False,
                       help="open an existing index without writing to it")
    return parser


def agent_from_args(args: argparse.Namespace) -> AgentEnv:
    """Resolve the agent environment from the common options."""
    env = resolve_agent(
        state_dir=args.state_dir,
        workspace=args.workspace,
        agent=args.agent,
        config=args.config,
        provider=args.provider,
        store=args.store,
        read_only=args.read_only,
        profile=getattr(args, "profile", None),
    )
    for warning in env.warnings:
        print(f"memtui: warning: {warning}", file=sys.stderr)
    return env


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered subcommand."""
    common = common_parser()
    sub_common = common_parser(for_subcommand=True)
    parser = argparse.ArgumentParser(
        prog="memtui",
        description="See into, debug and curate an OpenClaw agent's memory.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    parser.add_argument("--screenshot", metavar="FILE.svg", help="render the app's first screen to an SVG and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"memtui.commands.{name}")
        module.register(subparsers, [sub_common])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `memtui` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            from memtui.commands.tui import run_app

            return run_app(args)
        return int(args.func(args) or 0)
    except MemtuiError as exc:
        print(f"memtui: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0

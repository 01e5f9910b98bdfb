"""`memtui ...`: the command line. Each subcommand lives in `memtui/commands/<name>.py`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from memtui import __version__
from memtui.commands.args import common_parser
from memtui.errors import MemtuiError, unexpected_message

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
    except Exception as exc:
        if not type(exc).__module__.startswith(("sqlean", "sqlite3")):
            raise
        print(f"memtui: error: {unexpected_message(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0

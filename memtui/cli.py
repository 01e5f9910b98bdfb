"""`memtui ...`: the command line. Each subcommand lives in `memtui/commands/<name>.py`.

Only the module of the subcommand being run is imported (a one-shot `memtui search` pays for neither
the watcher, the dreaming engine nor the evaluation harness); the others appear in the parser as names of
one empty parser, and the top-level help, where their descriptions are shown, imports them all.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence

from memtui import __version__
from memtui.commands.args import common_parser
from memtui.errors import MemtuiError, unexpected_message

# Modules under memtui.commands, each with `register(subparsers, parents)`; the subcommand is the
# module name with `-` for `_`.
COMMAND_MODULES = (
    "status",
    "index",
    "search",
    "get",
    "watch",
    "sessions",
    "recalls",
    "health",
    "context",
    "promote",
    "promote_explain",
    "rem_backfill",
    "dream",
    "demo",
    "eval",
    "model",
    "mcp",
    "fleet_index",
)

# Subcommands that read and return at once: their process runs without the cyclic garbage collector.
SHORT_COMMANDS = ("search", "get", "status")
# `build_parser`'s command for the app (no subcommand): no subcommand module is imported.
APP = ""
HELP_FLAGS = ("-h", "--help")


def _top_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memtui",
        description="See into, debug and curate an OpenClaw agent's memory.",
        parents=[common_parser()],
    )
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    parser.add_argument("--screenshot", metavar="FILE.svg", help="render the app's first screen to an SVG and exit")
    return parser


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every subcommand fully registered, or only `command`'s (the others by name; with
    `APP`, every one by name)."""
    parser = _top_parser()
    sub_common = common_parser(for_subcommand=True)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    bare = []
    for name in COMMAND_MODULES:
        if command is None or name.replace("_", "-") == command:
            importlib.import_module(f"memtui.commands.{name}").register(subparsers, [sub_common])
        else:
            bare.append(name.replace("_", "-"))
    if bare:  # one empty parser answers to all of them (each parser costs ~0.1 ms)
        subparsers.add_parser(bare[0], aliases=bare[1:], add_help=False)
    return parser


def requested_command(argv: Sequence[str]) -> str | None:
    """The subcommand named in `argv` (None for none, an unknown name, or arguments that do not parse)."""
    scan = argparse.ArgumentParser(add_help=False, parents=[common_parser()], exit_on_error=False)
    scan.add_argument("--screenshot")
    scan.add_argument("command", nargs="?")
    try:
        known, _ = scan.parse_known_args(list(argv))
    except (argparse.ArgumentError, SystemExit):
        return None
    names = {name.replace("_", "-") for name in COMMAND_MODULES}
    return known.command if known.command in names else None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `memtui` console script (`argv` None: this process's arguments, and the process ends
    when it returns), and of in-process callers (`argv` given)."""
    if argv is not None:
        return _run(list(argv), requested_command(argv))
    command = requested_command(sys.argv[1:])
    if command in SHORT_COMMANDS:
        # A one-shot read allocates little cyclic garbage; the collector's passes while it imports its modules
        # cost ~1 ms of a ~57 ms search.
        gc.disable()
    code = _run(sys.argv[1:], command)
    # The interpreter exits next. Its collector would walk every object of every loaded module once more
    # (~6 ms); frozen, they are freed with the process. Every file is closed by now.
    gc.freeze()
    return code


def _run(argv: list[str], command: str | None) -> int:
    app = command is None and not any(arg in HELP_FLAGS for arg in argv)
    parser = build_parser(APP if app else command)
    args = parser.parse_args(argv)
    if args.command is not None and not hasattr(args, "func"):  # the scan guessed another subcommand
        args = build_parser().parse_args(argv)
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
    except Exception as exc:
        if not type(exc).__module__.startswith(("sqlean", "sqlite3")):
            raise
        print(f"memtui: error: {unexpected_message(exc)}", file=sys.stderr)
        return 2

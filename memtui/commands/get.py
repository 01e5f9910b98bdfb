"""`memtui get PATH [--from N] [--lines N] [--json]`: the memory_get tool."""

from __future__ import annotations

import argparse
import sys

from memtui.backend import open_manager
from memtui.commands.args import agent_from_args
from memtui.commands.output import print_json
from memtui.tools import NOT_ALLOWED_2026_9, is_not_found, memory_get


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `get` subcommand."""
    parser = subparsers.add_parser("get", parents=parents, help="read lines of a memory file (memory_get)")
    parser.add_argument("path", help="workspace-relative path, e.g. memory/2026-04-28.md")
    parser.add_argument("--from", dest="from_line", type=int, metavar="N", help="first line (1-based)")
    parser.add_argument("--lines", type=int, metavar="N", help="number of lines (default 120)")
    parser.add_argument("--json", action="store_true", help="print the memory_get JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read and print (no index needed)."""
    env = agent_from_args(args)
    if env.backend == "qmd":
        manager = open_manager(env)
        try:
            result = manager.memory_get(args.path, from_line=args.from_line, lines=args.lines)
        finally:
            manager.close()
    else:
        result = memory_get(env.workspace_dir, args.path, from_line=args.from_line, lines=args.lines,
                            extra_paths=env.settings.memory_paths, max_chars=env.context.memory_get_max_chars,
                            default_lines=env.context.memory_get_default_lines, generation=env.openclaw_layout)
    if args.json:
        print_json(result)
        return 1 if result.get("error") or is_not_found(result) else 0
    if is_not_found(result):
        print(f"memtui: error: {result['path']}: not found (no such memory file)",
              file=sys.stderr)
        return 1
    if result.get("error") in ("path required", NOT_ALLOWED_2026_9):
        print(f"memtui: error: {args.path}: not a memory file (allowed: MEMORY.md, DREAMS.md, memory/**/*.md, "
              "extra paths; .md only, relative to the workspace)", file=sys.stderr)
        return 1
    if result.get("error"):
        reason = result["error"].removeprefix("path required: ")
        where = "" if reason.startswith(f"{result['path']} ") else f"{args.path}: "  # the path said once
        print(f"memtui: error: {where}{reason}", file=sys.stderr)
        return 1
    print(result["text"])
    return 0

"""`memtui rem-backfill`: grounded dream-diary entries from past daily notes, and their rollback."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memtui.commands.args import agent_from_args
from memtui.dreaming.backfill import BackfillResult, rollback_diary, rollback_short_term, run_backfill
from memtui.errors import MemtuiError


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `rem-backfill` subcommand."""
    p = subparsers.add_parser(
        "rem-backfill", parents=parents, help="write grounded diary entries from daily notes"
    )
    p.add_argument(
        "--path", metavar="P", help="a daily note or a folder of them (default <workspace>/memory)"
    )
    p.add_argument(
        "--stage-short-term", action="store_true", help="also stage the snippets as grounded candidates"
    )
    p.add_argument("--rollback", action="store_true", help="remove backfill entries from DREAMS.md")
    p.add_argument("--rollback-short-term", action="store_true", help="undo staged short-term signals")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Backfill, or roll back a backfill."""
    env = agent_from_args(args)
    if env.read_only:
        raise MemtuiError("rem-backfill writes DREAMS.md; drop --read-only")
    workspace = env.workspace_dir
    rolling_back = args.rollback or args.rollback_short_term
    if rolling_back and args.stage_short_term:
        raise MemtuiError("--stage-short-term cannot be combined with a rollback; run them separately")
    result = BackfillResult()
    if rolling_back:
        if args.rollback:
            result.removed_diary_entries = rollback_diary(workspace)
        if args.rollback_short_term:
            result.restored_short_term = rollback_short_term(workspace)
    else:
        target = Path(args.path).expanduser() if args.path else workspace / "memory"
        if not target.is_absolute() and not target.exists():
            target = workspace / target
        result = run_backfill(workspace, target, stage_short_term=args.stage_short_term)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    elif rolling_back:
        if args.rollback:
            print(f"Removed {result.removed_diary_entries} backfill entr(y/ies) from DREAMS.md.")
        if args.rollback_short_term:
            restored = "Restored" if result.restored_short_term else "Nothing to restore in"
            print(f"{restored} the short-term recall store.")
    else:
        print(
            f"Wrote {result.diary_entries} backfill entr(y/ies) to DREAMS.md"
            f" from {len(result.files)} note(s)."
        )
        if args.stage_short_term:
            print(f"Staged {len(result.staged_keys)} grounded short-term candidate(s).")
    return 0

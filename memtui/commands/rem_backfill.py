"""`memtui rem-backfill`: grounded dream-diary entries from past daily notes, and their rollback."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memtui.commands.args import agent_from_args
from memtui.dreaming.backfill import rollback, run_backfill
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
    p.add_argument("--rollback-short-term", action="store_true", help="remove the grounded-only short-term candidates")
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
    if rolling_back:
        result = rollback(workspace, diary_entries=args.rollback, short_term=args.rollback_short_term)
    else:
        target = Path(args.path).expanduser() if args.path else workspace / "memory"
        if not target.is_absolute() and not target.exists():
            target = workspace / target
        result = run_backfill(workspace, target, stage_short_term=args.stage_short_term, tz=env.dreaming.tz())
    if args.json:
        print(json.dumps({"workspaceDir": str(workspace), **result.to_json()}, indent=2, ensure_ascii=False))
    elif rolling_back:
        if result.removed_diary_entries is not None:
            print(f"Removed {result.removed_diary_entries} backfill entr(y/ies) from {result.dreams_path}.")
        if result.removed_short_term is not None:
            print(f"Removed {result.removed_short_term} grounded-only short-term candidate(s).")
    else:
        print(f"Wrote {result.written} backfill entr(y/ies) to {result.dreams_path} from "
              f"{len(result.source_files)} note(s); replaced {result.replaced}.")
        if result.staged is not None:
            print(f"Staged {result.staged} grounded short-term candidate(s); replaced {result.replaced_short_term}.")
    return 0

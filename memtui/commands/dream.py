"""`memtui dream`: run one dreaming sweep (light → REM → deep) now, under the workspace lock."""

from __future__ import annotations

import argparse
import json

from memtui.commands.args import agent_from_args
from memtui.dreaming.phases import run_sweep
from memtui.errors import MemtuiError


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `dream` subcommand."""
    p = subparsers.add_parser("dream", parents=parents, help="run one dreaming sweep (light, REM, deep) now")
    p.add_argument("--no-sessions", action="store_true", help="skip session transcript ingestion")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the sweep and report what it did."""
    env = agent_from_args(args)
    if env.read_only:
        raise MemtuiError("a dreaming sweep writes memory files; drop --read-only")
    settings = env.dreaming
    summary = run_sweep(
        env.workspace_dir,
        settings,
        tz=settings.tz(),
        sessions_dir=None if args.no_sessions else env.sessions_dir,
        agent_id=env.agent_id,
    )
    if args.json:
        print(json.dumps(summary.to_json(), indent=2))
        return 0
    data = summary.to_json()
    light, deep = data["light"], data["deep"]
    written = [path for paths in data["written"].values() for path in paths]
    print(f"Dreaming sweep {summary.day} ({env.workspace_dir})")
    print(f"Light: {light['dailySignals']} daily and {light['sessionSignals']} session signal(s); "
          f"{light['staged']} staged")
    print(f"REM: {data['rem']['truths']} possible lasting truth(s)")
    promoted = deep["promotion"]["applied"] if deep["promotion"] else 0
    print(f"Deep: ranked {deep['ranked']}, promoted {promoted} into MEMORY.md")
    for note in light["notes"]:
        print(f"Note: {note}")
    print(f"Wrote: {', '.join(written) or 'nothing'}; diary entries: {data['diaryEntries']}")
    return 0

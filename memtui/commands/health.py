"""`memtui health`: the agent's index (OpenClaw's own, of either generation, or memtui's) read without writing and
compared with the files on disk and with a fresh index; one row per difference, each naming its file."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from memtui.commands.args import agent_from_args
from memtui.commands.output import print_json
from memtui.index.health import INDEXES, agent_index_health


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `health` subcommand."""
    p = subparsers.add_parser("health", parents=parents, help="diff an index against the files on disk and a "
                              "fresh index (changed, new, deleted, cut differently, other model, vectors without "
                              "a direction, touched)")
    p.add_argument("--index", choices=INDEXES, help="which index: OpenClaw's own (the default when it has one) "
                   "or memtui's")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the health report."""
    health = agent_index_health(agent_from_args(args), args.index)
    if args.json:
        print_json(health.to_json())
        return 0
    written = "never" if health.last_written_ms is None else \
        datetime.fromtimestamp(health.last_written_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{health.label} ({health.path})")
    print(f"{health.files} memory files and {health.chunks} chunks indexed · model {health.model or 'none'} · last "
          f"written {written} · {health.files_on_disk} memory files on disk")
    if health.healthy and not health.rows:
        print("Healthy: every file on disk is indexed as it is now, cut as a fresh index would cut it.")
        return 0
    if health.healthy:
        print("Healthy: every file on disk is indexed as it is now, cut as a fresh index would cut it; only touched "
              "(modified time changed, content unchanged):")
    counts = ", ".join(f"{count} {kind}" for kind, count in health.counts().items() if count)
    print(f"Differences: {counts}")
    width = max(len(row.path) for row in health.rows)
    for row in health.rows:
        print(f"  {row.kind:<10} {row.path:<{width}}  {row.detail}")
    return 0
